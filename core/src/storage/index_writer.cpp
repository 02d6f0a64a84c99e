// `rag index`: brings a pipeline's index up to date with its corpus (see index.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "index_folder.hpp"
#include "rag/corpus.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/progress.hpp"
#include "rag/project.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace index_folder;

namespace {

// Source text chunked into one new segment at most: what bounds the memory of a build.
constexpr std::uintmax_t kSegmentBytes = 64 << 20;
// Segments of about the same size merge this many at a time (Lucene's LogMergePolicy); below
// kSmallestLevel chunks they count as one size.
constexpr std::size_t kMergeFactor = 10;
constexpr std::size_t kSmallestLevel = 1000;
// A segment that lost more than this share of its chunks is written again without them.
constexpr double kRemovedShare = 0.25;
// Segments this large are not merged for their size: a build's segments already are of a good
// size (kSegmentBytes of source), and merging them would cost memory for little search time.
constexpr std::size_t kMaxMergeChunks = 1 << 15;

// How `rag index -v` names a file the index records as passed over: its path and why.
std::string passed_over(const SegmentStore::File& file) {
  return std::string(file.relative_path) + ": " + std::string(file.note);
}

// `prefix` followed by digits, groups of them joined by '-' ("seg-000012", "gen-1795718482451-11893").
bool is_numbered(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
  name.remove_prefix(prefix.size());
  return name.find_first_not_of("0123456789-") == std::string_view::npos && name.front() != '-' && name.back() != '-';
}

// What `rag index` writes in an index folder, and so may delete there: segments, generations of
// an older layout (format 3), the lock and manifests of killed runs. Nothing else is touched.
bool is_segment(std::string_view name) { return is_numbered(name, "seg-"); }
bool is_old_generation(std::string_view name) { return is_numbered(name, "gen-"); }
bool is_stale_manifest(std::string_view name) { return is_temporary_of(name, kManifest); }

// A folder about to become an index that is not one (no manifest) must hold nothing but what a
// killed first run of `rag index` leaves: its other files are someone else's.
void check_index_folder(const fs::path& index_dir) {
  std::error_code ec;
  if (fs::exists(index_dir / kManifest, ec)) return;
  for (fs::directory_iterator it(index_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != ".lock" && !is_segment(name) && !is_stale_manifest(name))
      throw Error(display_path(index_dir) + " holds files that are not a rag index's (" + name +
                  "); name a new or empty folder in `index:` of the pipeline");
  }
}

// Held while `rag index` writes an index folder: two writers of one folder would each delete the
// other's segments as leftovers. The kernel drops the lock when the process dies, even by SIGKILL.
// A folder this run made goes again when the run ends without a manifest (a failed first build,
// often of a --set experiment, left index/<name>@<digest>/ holding the lock alone).
class IndexLock {
 public:
  explicit IndexLock(const fs::path& index_dir) : dir_(index_dir) {
    check_index_folder(index_dir);
    std::error_code ec;
    made_ = !fs::exists(index_dir, ec);
    fs::create_directories(index_dir, ec);
    if (ec) throw Error(display_path(index_dir) + ": cannot create folder (" + ec.message() + "); check `index:` in the pipeline");
    const fs::path file = index_dir / ".lock";
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(file.string() + ": cannot open (" + std::strerror(errno) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw IndexBusy("another `rag index` is writing " + display_path(index_dir) + " right now; wait for it to finish and run again");
    }
  }
  ~IndexLock() {
    std::error_code ec;
    if (made_ && !fs::exists(dir_ / kManifest, ec)) fs::remove_all(dir_, ec);  // before the lock goes
    ::close(fd_);
  }
  IndexLock(const IndexLock&) = delete;
  IndexLock& operator=(const IndexLock&) = delete;

 private:
  fs::path dir_;
  bool made_ = false;
  int fd_ = -1;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string new_generation() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return "gen-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
         std::to_string(::getpid());
}

// Past this many segments a number is no run's: far from wrapping.
constexpr std::uint64_t kMostSegments = std::uint64_t{1} << 40;

std::string segment_name(std::uint64_t number) {
  char name[32];
  std::snprintf(name, sizeof name, "seg-%06llu", static_cast<unsigned long long>(number));
  return name;
}

// The number segment_name() gave `name` ("seg-000007": 7), or nullopt for another name.
std::optional<std::uint64_t> segment_number(std::string_view name) {
  if (!name.starts_with("seg-")) return std::nullopt;
  name.remove_prefix(4);
  std::uint64_t number = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return number;
}

// The highest number of a segment `manifest` names, 0 when it names none.
std::uint64_t highest_segment(const json& manifest) {
  std::uint64_t highest = 0;
  const auto list = manifest.find("segments");
  if (list == manifest.end() || !list->is_array()) return 0;
  for (const json& segment : *list)
    if (segment.is_object() && segment.contains("name") && segment["name"].is_string())
      if (const auto number = segment_number(segment["name"].get_ref<const std::string&>()))
        highest = std::max(highest, std::min(*number, kMostSegments));
  return highest;
}

// The number the manifest gives the next new segment, when it is one a run can have written (a
// positive integer above every segment it names, far from wrapping; 1 above them when it gives
// none); nullopt otherwise (a manifest edited or damaged): a new segment would take a kept one's
// name.
std::optional<std::uint64_t> stored_next_segment(const json& manifest) {
  const std::uint64_t above = highest_segment(manifest) + 1;
  const auto n = manifest.find("next_segment");
  if (n == manifest.end()) return above;
  if (!n->is_number_unsigned() || n->get<std::uint64_t>() < above || n->get<std::uint64_t>() > kMostSegments) return std::nullopt;
  return n->get<std::uint64_t>();
}

// Size classes for merging: segments of one level merge together.
std::size_t level_of(std::size_t live_chunks) {
  if (live_chunks < kSmallestLevel) return 0;
  return 1 + static_cast<std::size_t>(std::log10(static_cast<double>(live_chunks) / kSmallestLevel) /
                                      std::log10(static_cast<double>(kMergeFactor)));
}

// Writes the segments of one generation; what is not committed is removed when it goes away.
class GenerationWriter {
 public:
  GenerationWriter(const Pipeline& pipeline, Retriever& retriever, std::uint64_t next_segment)
      : pipeline_(pipeline), retriever_(retriever), next_segment_(next_segment) {}
  ~GenerationWriter() {
    if (committed_) return;
    std::error_code ec;
    for (const fs::path& p : written_) fs::remove_all(p, ec);
  }

  // A new segment of `files`, with its retriever files.
  OpenSegment add(std::span<const StoredFile> files) {
    OpenSegment segment = create();
    write_segment_store(pipeline_.index_dir / segment.name / kChunks, files);
    finish(segment);
    retriever_.build(*segment.store, pipeline_.index_dir / segment.name / kRetrieverDir);
    segment.store->release_pages();  // its texts were read once: they need not stay while the build goes on
    return segment;
  }

  // One segment holding the chunks of `sources` not removed, in order.
  OpenSegment merge(const std::vector<const OpenSegment*>& sources) {
    std::vector<StoredFile> files;
    for (const OpenSegment* s : sources) {
      s->store->verify();  // read whole anyway: damage stops here, not in the new segment
      for (const std::uint32_t f : s->live_files()) {
        const SegmentStore::File file = s->store->file(f);
        StoredFile stored{std::string(file.name), static_cast<std::uint32_t>(file.name.size() - file.relative_path.size()),
                          file.size, file.changed, file.digest, std::string(file.note), s->store->file_text(f), {}};
        for (std::uint32_t c = file.first_chunk; c < file.first_chunk + file.chunk_count; ++c) {
          const ChunkView v = s->store->chunk(c);
          // The store takes the path and the text from the file: the chunk keeps its place alone.
          stored.chunks.push_back({{}, std::string(v.kind), std::string(v.section), v.first_char, v.last_char,
                                   v.first_byte, v.last_byte, {}, v.first_line, v.last_line});
        }
        files.push_back(std::move(stored));
      }
    }
    OpenSegment segment = create();
    write_segment_store(pipeline_.index_dir / segment.name / kChunks, files);
    files.clear();
    finish(segment);
    // The retriever reads the sources as they are now: their own folders, their removals.
    const std::vector<Segment> view = retriever_view(pipeline_, sources);
    retriever_.merge(SegmentList(view), *segment.store, pipeline_.index_dir / segment.name / kRetrieverDir);
    for (const OpenSegment* s : sources) s->store->release_pages();
    segment.store->release_pages();
    return segment;
  }

  // Writes the removals of `segment` as of `generation`.
  void write_removals(OpenSegment& segment, const std::string& generation) {
    segment.removed_file = segment.name + "/removed-" + generation + ".bin";
    BinaryWriter out(pipeline_.index_dir / segment.removed_file, "removed", kRemovedFormat);
    out.section<std::uint64_t>(segment.removed_files);
    out.commit();
    written_.push_back(pipeline_.index_dir / segment.removed_file);
  }

  std::uint64_t next_segment() const { return next_segment_; }
  void committed() { committed_ = true; }

 private:
  OpenSegment create() {
    OpenSegment segment;
    segment.name = segment_name(next_segment_++);
    const fs::path dir = pipeline_.index_dir / segment.name;
    written_.push_back(dir);
    create_folder(dir / kRetrieverDir);
    return segment;
  }
  void finish(OpenSegment& segment) const {
    segment.store = std::make_unique<SegmentStore>(pipeline_.index_dir / segment.name / kChunks);
    segment.live_chunks = segment.store->size();
    for (std::uint32_t c = 0; c < segment.store->size(); ++c) ++segment.stored_kinds[std::string(segment.store->chunk(c).kind)];
    segment.kinds = segment.stored_kinds;
  }

  const Pipeline& pipeline_;
  Retriever& retriever_;
  std::uint64_t next_segment_;
  std::vector<fs::path> written_;
  bool committed_ = false;
};

// Chunks `entries` with the pipeline's chunkers, in parallel: a StoredFile each, in order, its
// text kept in `texts`.
std::vector<StoredFile> chunk_files(const PipelineStages& stages, std::span<const CorpusEntry* const> entries,
                                    std::vector<std::string>& texts, Progress& progress) {
  const Pipeline& pipeline = stages.pipeline();
  const auto& chunkers = stages.chunkers();
  std::vector<StoredFile> files(entries.size());
  texts.assign(entries.size(), {});
  tbb::parallel_for(std::size_t{0}, entries.size(), [&](std::size_t i) {
    const CorpusEntry& entry = *entries[i];
    StoredFile& out = files[i];
    out.name = entry.name;
    out.relative_start = static_cast<std::uint32_t>(entry.name.size() - entry.relative_path.size());
    out.size = entry.size;
    out.changed = entry.changed;
    const std::vector<const ChunkerRule*> rules = pipeline.chunkers_for(entry.relative_path);
    SourceRead read;
    try {
      read = read_source(entry);  // even when no rule chunks it: its digest tells a touch from an edit
      out.digest = read.digest;
    } catch (const Error& e) {
      read.why = e.what();  // a file that vanished or became unreadable mid-run is passed over, not fatal
    }
    if (rules.empty()) {
      out.note = "skipped, no chunker in the pipeline handles it";
    } else if (!read.file) {
      out.note = "skipped, " + read.why;
    } else {
      for (const ChunkerRule* rule : rules) {
        const auto r = static_cast<std::size_t>(rule - pipeline.chunkers.data());
        try {
          for (Chunk& c : chunk_file(*read.file, *chunkers[r], rule->plugin)) {
            // The store keeps the file's path and text once, not per chunk.
            c.text.clear();
            c.text.shrink_to_fit();
            c.file_path.clear();
            c.file_path.shrink_to_fit();
            out.chunks.push_back(std::move(c));
          }
        } catch (const Error& e) {
          throw Error(rule->where + ": chunking " + entry.relative_path + ": " + e.what());
        }
      }
      texts[i] = std::string(read.file->text());
      out.text = texts[i];
    }
    progress.advance();
  });
  return files;
}

// Removes what no generation needs: segments the manifest does not name (older generations,
// runs that were killed), removal files it no longer names, and older layouts. A reader that
// still has some of them open keeps them until it closes them.
void remove_unused(const Pipeline& pipeline, const json& manifest) {
  std::set<std::string> segments, files;
  if (manifest.is_object() && manifest.contains("segments"))
    for (const json& s : manifest.at("segments")) {
      segments.insert(s.value("name", ""));
      if (s.contains("removed")) files.insert(s.value("removed", ""));
    }
  std::error_code ec;
  for (fs::directory_iterator it(pipeline.index_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_stale_manifest(name) || is_old_generation(name) || (is_segment(name) && !segments.count(name))) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
      continue;
    }
    if (!segments.count(name)) continue;
    for (fs::directory_iterator inner(it->path(), ec), inner_end; !ec && inner != inner_end; inner.increment(ec)) {
      const std::string file = name + "/" + inner->path().filename().string();
      if (inner->path().filename().string().rfind("removed-", 0) == 0 && !files.count(file)) {
        std::error_code ignored;
        fs::remove(inner->path(), ignored);
      }
    }
  }
}

// Picks segments to merge: one that lost more than `removed_share` of its chunks, or
// kMergeFactor of one level. Empty: none.
std::vector<std::size_t> pick_merge(const std::vector<OpenSegment>& segments, double removed_share) {
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto total = static_cast<double>(segments[i].store->size());
    if (segments[i].live_chunks > 0 && total - static_cast<double>(segments[i].live_chunks) > removed_share * total)
      return {i};
  }
  std::map<std::size_t, std::vector<std::size_t>> by_level;
  for (std::size_t i = 0; i < segments.size(); ++i)
    if (segments[i].live_chunks < kMaxMergeChunks) by_level[level_of(segments[i].live_chunks)].push_back(i);
  for (auto& [level, members] : by_level)
    if (members.size() >= kMergeFactor) {
      members.resize(kMergeFactor);
      return members;
    }
  return {};
}

// The report of a run that found the index up to date: what `manifest` and `segments` hold.
IndexReport up_to_date(const json& manifest, const CorpusListing& listing, const std::vector<OpenSegment>& segments,
                       std::chrono::steady_clock::time_point start) {
  IndexReport report;
  report.files = manifest.at("corpus").value("files", std::size_t{0});
  report.chunks = manifest.value("chunks", std::size_t{0});
  report.segments = manifest.at("segments").size();
  report.notes = listing.notes;
  for (const OpenSegment& s : segments)
    for (const std::uint32_t f : s.live_files())
      if (!s.store->file(f).note.empty()) report.notes.push_back(passed_over(s.store->file(f)));
  report.skipped = report.notes.size();  // the listing's notes are not in the fingerprint: counted now
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

// What changed since the generation `segments` make up: the files to index (new, or of another
// size or content), the segments that lost files (changed or removed: their records are marked
// removed), and the files only touched (rag/index_folder.hpp, RetimedFiles), with the counts in
// `report`. A file whose time moved but whose bytes did not keeps its chunks and is read once.
struct CorpusDiff {
  std::vector<const CorpusEntry*> to_index;
  std::set<std::string> lost_files;
  RetimedFiles retimed;
};
CorpusDiff diff_corpus(const CorpusListing& listing, std::vector<OpenSegment>& segments, const RetimedFiles& was_retimed,
                       IndexReport& report) {
  CorpusDiff diff;
  std::map<std::string_view, std::pair<std::size_t, std::uint32_t>> recorded;
  for (std::size_t s = 0; s < segments.size(); ++s)
    for (const std::uint32_t f : segments[s].live_files()) recorded[segments[s].store->file(f).relative_path] = {s, f};
  for (const CorpusEntry& entry : listing.files) {
    const auto it = recorded.find(entry.relative_path);
    if (it == recorded.end()) {
      diff.to_index.push_back(&entry);
      ++report.added;
      continue;
    }
    const auto [s, f] = it->second;
    const SegmentStore::File file = segments[s].store->file(f);
    const bool same = file.size == entry.size && !readable_again(file, entry.path) &&
                      (indexed_time(was_retimed, file) == entry.changed || holds_content(entry.path, file.digest));
    // A name that is not UTF-8 cannot be a key of the manifest's JSON: such a file is read again
    // at each update that lists it changed, and keeps its chunks all the same.
    if (same && entry.changed != file.changed && utf8::is_valid(entry.relative_path))
      diff.retimed[entry.relative_path] = entry.changed;
    if (!same) {
      diff.to_index.push_back(&entry);
      ++report.changed;
      segments[s].remove_file(f);
      diff.lost_files.insert(segments[s].name);
    }
    recorded.erase(it);
  }
  for (const auto& [path, where] : recorded) {
    segments[where.first].remove_file(where.second);
    diff.lost_files.insert(segments[where.first].name);
    ++report.removed;
  }
  return diff;
}

// Chunks `to_index` into new segments of a bounded amount of source text each, appended to
// `segments`.
void add_segments(const PipelineStages& stages, GenerationWriter& writer, const std::vector<const CorpusEntry*>& to_index,
                  std::vector<OpenSegment>& segments) {
  Progress progress("indexing", to_index.size());
  for (std::size_t begin = 0; begin < to_index.size();) {
    std::size_t end = begin;
    std::uintmax_t bytes = 0;
    while (end < to_index.size() && (end == begin || bytes + to_index[end]->size <= kSegmentBytes))
      bytes += to_index[end++]->size;
    std::vector<std::string> texts;
    const std::vector<StoredFile> files = chunk_files(stages, std::span(to_index).subspan(begin, end - begin), texts, progress);
    segments.push_back(writer.add(files));
    begin = end;
  }
}

// Throws when `segments` hold no chunk, naming the files passed over: "no chunks" alone would
// hide that everything was binary or too large.
void require_chunks(const Pipeline& pipeline, const CorpusListing& listing, const std::vector<OpenSegment>& segments) {
  std::size_t live = 0;
  for (const OpenSegment& s : segments) live += s.live_chunks;
  if (live > 0) return;
  std::vector<std::string> notes = listing.notes;
  std::size_t read = 0;  // files the chunkers were given, which returned no span
  std::string first_read;
  for (const OpenSegment& s : segments)
    for (const std::uint32_t f : s.live_files()) {
      const SegmentStore::File file = s.store->file(f);
      if (!file.note.empty()) notes.push_back(passed_over(file));
      else if (read++ == 0) first_read = std::string(file.relative_path);
    }
  std::string found = std::to_string(listing.files.size() + listing.notes.size()) + " files matched corpus.include";
  if (!notes.empty()) found += ", " + std::to_string(notes.size()) + " passed over, e.g. " + notes.front();
  if (read > 0)
    throw Error("the corpus at " + pipeline.corpus_root + " gave no chunks (" + found + "; the chunkers returned none for " +
                std::to_string(read) + ", e.g. " + first_read + "); check the chunkers of " + pipeline.label());
  throw Error("the corpus at " + pipeline.corpus_root + " gave no chunks (" + found +
              "); check corpus.root and corpus.include in " + pipeline.label());
}

// Segments with nothing left go (a segment of files passed over stays: it records them, so that
// they are counted and not read again); the others merge while the policy asks for it.
void merge_segments(GenerationWriter& writer, const Retriever& retriever, std::vector<OpenSegment>& segments,
                    IndexReport& report) {
  std::erase_if(segments, [](const OpenSegment& s) { return s.live_chunks == 0 && s.live_files().empty(); });
  // A retriever that cannot leave removed chunks out of its statistics gets them written out now.
  const double removed_share = retriever.skips_removed() ? kRemovedShare : 0.0;
  for (std::vector<std::size_t> group; !(group = pick_merge(segments, removed_share)).empty();) {
    std::vector<const OpenSegment*> sources;
    for (const std::size_t i : group) sources.push_back(&segments[i]);
    OpenSegment merged = writer.merge(sources);
    report.merged += group.size();
    for (auto i = group.rbegin(); i != group.rend(); ++i) segments.erase(segments.begin() + static_cast<std::ptrdiff_t>(*i));
    segments.push_back(std::move(merged));
  }
}

// Commits `generation` of `segments`: removal files for those that lost files, then the manifest,
// written last and atomically; the report counts what it holds.
// `old`: the manifest of the index this run updates. Its build_seconds (how long its full build
// took) stays, unless this run builds from scratch; update_seconds is this run's.
json commit(const PipelineStages& stages, const CorpusListing& listing, GenerationWriter& writer,
            std::vector<OpenSegment>& segments, const CorpusDiff& diff, const std::string& generation,
            IndexReport& report, std::chrono::steady_clock::time_point start, const json& old) {
  const Pipeline& pipeline = stages.pipeline();
  json segment_list = json::array(), files = json::array();
  std::map<std::string, std::size_t> kinds;
  // Whether BinaryWriter wrote a file is read from the file when this run wrote it, and carried
  // over from the manifest for the files it kept: read again, a kept file whose header was since
  // overwritten would be recorded as another format, and pass every check after.
  std::map<std::string, bool> kept_binary;
  if (old.is_object() && old.contains("files") && old["files"].is_array())
    for (const json& f : old["files"])
      if (f.is_object() && f.contains("path") && f["path"].is_string())
        if (const std::optional<bool> binary = listed_binary(f)) kept_binary[f["path"].get<std::string>()] = *binary;
  const auto list = [&](const fs::path& path) {
    const std::string relative = path.lexically_relative(pipeline.index_dir).generic_string();
    const auto kept = kept_binary.find(relative);
    files.push_back({{"path", relative},
                     {"size", fs::file_size(path)},
                     {"modified", modified_time(path)},
                     {"binary", kept != kept_binary.end() ? kept->second : is_binary_file(path)}});
  };
  for (OpenSegment& s : segments) {
    if (diff.lost_files.count(s.name)) writer.write_removals(s, generation);
    json entry = {{"name", s.name}, {"chunks", s.store->size()}, {"live_chunks", s.live_chunks}, {"files", s.store->file_count()}};
    entry["kinds"] = s.stored_kinds;
    entry["live_kinds"] = s.kinds;
    if (!s.removed_file.empty()) {
      entry["removed"] = s.removed_file;
      list(pipeline.index_dir / s.removed_file);
    }
    for (const auto& [kind, count] : s.kinds)
      if (count > 0) kinds[kind] += count;
    for (fs::recursive_directory_iterator it(pipeline.index_dir / s.name), end; it != end; ++it)
      if (it->is_regular_file() && it->path().filename().string().rfind("removed-", 0) != 0) list(it->path());
    segment_list.push_back(std::move(entry));
    report.chunks += s.live_chunks;
    for (const std::uint32_t f : s.live_files()) {
      const SegmentStore::File file = s.store->file(f);
      if (file.note.empty()) {
        ++report.files;
      } else {
        ++report.skipped;
        report.notes.push_back(passed_over(file));
      }
    }
  }
  report.skipped += listing.notes.size();
  report.notes.insert(report.notes.begin(), listing.notes.begin(), listing.notes.end());
  report.segments = segments.size();
  json chunk_kinds = json::array();
  for (const auto& [kind, count] : kinds) chunk_kinds.push_back(kind);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const json manifest = {
      {"format", kIndexFormat},
      {"rag_version", RAG_VERSION},
      {"built_at", utc_now()},
      {"build_seconds", !report.full && old.contains("build_seconds") && old["build_seconds"].is_number()
                            ? old["build_seconds"].get<double>()
                            : report.seconds},
      {"update_seconds", report.seconds},
      {"pipeline", {{"name", pipeline.name}, {"file", pipeline.file.string()}, {"hash", pipeline.content_hash()}}},
      {"corpus",
       {{"root", pipeline.corpus_root}, {"files", report.files}, {"skipped", report.skipped}, {"fingerprint", listing.fingerprint}}},
      {"retriever", pipeline.retriever.plugin},
      {"plugins", indexed_plugins(stages)},
      {"chunks", report.chunks},
      {"chunk_kinds", chunk_kinds},
      {"generation", generation},
      {"next_segment", writer.next_segment()},
      {"segments", segment_list},
      {"retimed", diff.retimed},
      {"files", files}};
  write_file_atomically(pipeline.index_dir / kManifest, manifest.dump(2) + "\n");
  writer.committed();
  report.committed = true;
  return manifest;
}

}  // namespace

IndexReport build_index(PipelineStages& stages, IndexOptions options) {
  const Pipeline& pipeline = stages.pipeline();
  const auto start = std::chrono::steady_clock::now();
  IndexReport report;
  const CorpusListing listing = list_corpus(pipeline);
  const IndexLock lock(pipeline.index_dir);
  std::unique_ptr<Retriever> retriever = stages.take_retriever();

  // The generation to update, if there is one this can update.
  json old;
  std::vector<OpenSegment> segments;
  const std::optional<json> found = try_manifest(pipeline);
  if (!found) report.why_full = "no index yet";
  else if (!found->is_object()) report.why_full = display_path(pipeline.index_dir / kManifest) + " is damaged";
  else report.why_full = incompatibility(*found, stages);
  // New segments are named from it; nullopt for a number no run writes, which could name a kept
  // segment's files.
  const std::optional<std::uint64_t> stored_next =
      found && found->is_object() ? stored_next_segment(*found) : std::optional<std::uint64_t>(1);
  if (report.why_full.empty()) {
    try {
      old = *found;
      if (!stored_next) throw Error("the index is damaged (next_segment is " + old["next_segment"].dump() + ")");
      if (const std::string problem = missing_or_resized(pipeline, old); !problem.empty())
        throw Error("the index is damaged (" + problem + ")");
      segments = open_segments(pipeline, old);  // damage found now, not by the next search
      // A file written since the manifest was (index files are written once) is read whole before
      // the index is called up to date: a damaged one makes this a full build. One that verifies
      // gets its time recorded, so that the next run does not read it again (a copy without -p).
      const std::vector<json> rewritten = options.full ? std::vector<json>() : rewritten_files(pipeline, old);
      for (const json& f : rewritten) verify_listed_file(pipeline, f);
      if (!options.full && string_at(old, "/corpus/fingerprint") == listing.fingerprint &&  // nothing listed changed
          !any_readable_again(pipeline, segments)) {
        remove_unused(pipeline, old);  // what a killed run left goes now too, not at the next change
        if (!rewritten.empty()) {
          for (json& f : old.at("files")) f["modified"] = modified_time(pipeline.index_dir / f.at("path").get<std::string>());
          write_file_atomically(pipeline.index_dir / kManifest, old.dump(2) + "\n");
        }
        return up_to_date(old, listing, segments, start);
      }
      if (options.full) report.why_full = "asked for (--full)";
    } catch (const json::exception&) {
      report.why_full = display_path(pipeline.index_dir / kManifest) + " is damaged";
    } catch (const Error& e) {
      // What was wrong, without the advice to rebuild: this run rebuilds.
      const std::string_view why = e.what();
      report.why_full = why.substr(0, why.find("; run `"));
    }
    // Asked outside the try: a plugin that fails here stops the run, as anywhere else.
    if (report.why_full.empty() && !retriever->updatable())
      report.why_full = "the " + pipeline.retriever.plugin + " retriever cannot update an index";
    if (!report.why_full.empty()) segments.clear();
  }
  report.full = !report.why_full.empty();
  // Leftovers of killed runs go first: new segments may take their names.
  remove_unused(pipeline, found && found->is_object() ? *found : json());
  // Above every segment the manifest names, whatever it says: a failed run removes the segments
  // it wrote, which must not be the current generation's.
  const std::uint64_t next_segment = stored_next ? *stored_next : highest_segment(*found) + 1;  // *found: an object

  const CorpusDiff diff = diff_corpus(listing, segments, report.full ? RetimedFiles() : retimed_files(old), report);
  if (report.full) report.added = listing.files.size(), report.changed = report.removed = 0;
  GenerationWriter writer(pipeline, *retriever, next_segment);
  add_segments(stages, writer, diff.to_index, segments);
  require_chunks(pipeline, listing, segments);
  merge_segments(writer, *retriever, segments, report);
  // Files only touched leave every chunk where it was: the generation, and so the chunk ids that
  // clients hold (rag serve's /api/source), stay; only the manifest's record of times moves.
  const bool same_chunks = !report.full && diff.to_index.empty() && diff.lost_files.empty() && report.merged == 0;
  std::string generation = same_chunks ? string_at(old, "/generation") : std::string();
  if (generation.empty()) generation = new_generation();
  const json manifest = commit(stages, listing, writer, segments, diff, generation, report, start, old);
  // The manifest now names the new generation: what older ones alone used can go.
  remove_unused(pipeline, manifest);
  return report;
}

}  // namespace rag
