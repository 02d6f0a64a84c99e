#include "rag/index.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "index_folder.hpp"
#include "rag/corpus.hpp"
#include "rag/file_io.hpp"
#include "rag/progress.hpp"
#include "rag/project.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace index_folder;

std::vector<Chunk> chunk_file(const SourceFile& file, const Chunker& chunker, const std::string& kind) {
  std::vector<Chunk> out;
  for (const ChunkSpan& span : chunker.chunk(file)) {
    const std::string_view text = file.text();
    const auto between_characters = [&](std::size_t byte) {
      return byte == text.size() || utf8::is_lead_byte(static_cast<unsigned char>(text[byte]));
    };
    const std::string shown = "[" + std::to_string(span.bytes.begin) + ", " + std::to_string(span.bytes.end) + ")";
    if (span.bytes.empty() || span.bytes.end > text.size())
      throw Error("the " + kind + " chunker returned an invalid span " + shown + " for " + file.name());
    if (!between_characters(span.bytes.begin) || !between_characters(span.bytes.end))
      throw Error("the " + kind + " chunker returned a span " + shown + " for " + file.name() +
                  " that cuts a UTF-8 character: spans are byte offsets that must fall between characters");
    Chunk c;
    c.file_path = file.name();
    c.kind = kind;
    c.section = span.section;
    c.first_byte = span.bytes.begin;
    c.last_byte = span.bytes.end;
    c.first_char = file.char_offset(span.bytes.begin);
    c.last_char = file.char_offset(span.bytes.end);
    std::tie(c.first_line, c.last_line) = file.lines_of(span.bytes);
    c.text = std::string(file.slice(span.bytes));
    out.push_back(std::move(c));
  }
  return out;
}

std::string committed_generation(const Pipeline& pipeline) {
  const std::optional<json> manifest = try_manifest(pipeline);
  return manifest ? string_at(*manifest, "/generation") : std::string();
}

namespace {

// What the corpus held as the segments recorded it (with the times of `retimed`): their files
// not removed, sorted by path.
CorpusSnapshot snapshot_of(const std::vector<OpenSegment>& segments, const RetimedFiles& retimed) {
  CorpusSnapshot snapshot;
  for (const OpenSegment& s : segments)
    for (const std::uint32_t f : s.live_files()) {
      const SegmentStore::File file = s.store->file(f);
      snapshot.files.push_back({std::string(file.relative_path), file.size, indexed_time(retimed, file), file.digest});
    }
  std::sort(snapshot.files.begin(), snapshot.files.end(),
            [](const auto& a, const auto& b) { return a.relative_path < b.relative_path; });
  return snapshot;
}

// Every file the manifest lists is there with its size (missing_or_resized).
void check_sizes(const Pipeline& pipeline, const json& manifest) {
  if (const std::string problem = missing_or_resized(pipeline, manifest); !problem.empty())
    throw Error("the index at " + display_path(pipeline.index_dir) + " is damaged (" + problem + "); run `" +
                pipeline.command("index") + "` to rebuild it");
}

}  // namespace

IndexState inspect_index(const PipelineStages& stages, bool verify) {
  const Pipeline& pipeline = stages.pipeline();
  IndexState state;
  std::optional<json> manifest = try_manifest(pipeline);
  if (!manifest) {
    state.why = "no index yet at " + display_path(pipeline.index_dir);
    return state;
  }
  state.kind = IndexState::Kind::stale;
  state.manifest = std::move(*manifest);
  if (state.manifest.is_null() || !state.manifest.is_object()) {  // what search refuses, check fails on
    state.why = display_path(pipeline.index_dir / kManifest) + " is damaged";
    state.damaged = true;
    return state;
  }
  state.why = incompatibility(state.manifest, stages);
  if (!state.why.empty()) return state;
  try {
    std::vector<OpenSegment> segments;
    try {
      check_sizes(pipeline, state.manifest);
      segments = open_segments(pipeline, state.manifest);
      if (verify)
        for (const auto& f : state.manifest.at("files")) verify_listed_file(pipeline, f);
    } catch (const Error&) {
      state.damaged = true;
      throw;
    }
    const CorpusListing now = list_corpus(pipeline);
    if (string_at(state.manifest, "/corpus/fingerprint") != now.fingerprint) {
      const CorpusChanges changes = compare_corpus(snapshot_of(segments, retimed_files(state.manifest)), now);
      if (!changes.empty()) {
        state.why = "the corpus at " + pipeline.corpus_root + " changed since the index was built: " + changes.describe();
        return state;
      }
    }
    if (any_readable_again(pipeline, segments)) {  // as an update sees it
      state.why = "the corpus at " + pipeline.corpus_root + " has files the index passed over as unreadable that can be read now";
      return state;
    }
  } catch (const json::exception&) {  // a manifest of the wrong shape ("files": "none"): search refuses it too
    state.why = display_path(pipeline.index_dir / kManifest) + " is damaged";
    state.damaged = true;
    return state;
  } catch (const Error& e) {
    state.why = e.what();  // damaged, or the corpus is gone
    return state;
  }
  state.kind = IndexState::Kind::current;
  return state;
}

struct Index::Opened {
  const Pipeline* pipeline = nullptr;
  std::vector<OpenSegment> segments;
  std::vector<Segment> view;
  std::unique_ptr<SegmentList> list;
  std::unique_ptr<Retriever> retriever;  // last: it reads the segments above
  mutable std::mutex mutex;
  RetimedFiles retimed;                                       // the manifest's, read once
  mutable std::map<std::string, bool, std::less<>> changed;  // changed_since_indexing() answers, by file
  mutable std::set<std::string> warned;                       // retriever warnings shown on stderr
  mutable std::unordered_map<std::string, std::size_t> found;  // count_found() answers, by limit and query
};

namespace {
// Where warn_search() puts the messages of the search running on this thread, if one is.
thread_local std::vector<std::string>* search_warnings = nullptr;
}  // namespace

void warn_search(std::string message) {
  if (search_warnings && std::find(search_warnings->begin(), search_warnings->end(), message) == search_warnings->end())
    search_warnings->push_back(std::move(message));
}

Index::Index(PipelineStages& stages, Use use) {
  const Pipeline& pipeline = stages.pipeline();
  const auto open = [&] {
    manifest_ = read_manifest(pipeline);
    try {
      if (auto problem = incompatibility(manifest_, stages); !problem.empty())
        throw Error(problem + "; run `" + pipeline.command("index") + "` to rebuild it");
      check_sizes(pipeline, manifest_);
      auto opened = std::make_unique<Opened>();
      opened->pipeline = &pipeline;
      opened->segments = open_segments(pipeline, manifest_);
      opened->retimed = retimed_files(manifest_);
      std::vector<const OpenSegment*> all;
      for (const OpenSegment& s : opened->segments) all.push_back(&s);
      opened->view = retriever_view(pipeline, all);
      opened->list = std::make_unique<SegmentList>(opened->view);
      if (use == Use::search) {
        opened->retriever = stages.take_retriever();
        opened->retriever->open(*opened->list);
      }
      opened_ = std::move(opened);
    } catch (const json::exception&) {
      throw Error(damaged(pipeline));
    }
  };
  // A concurrent `rag index` may commit a new generation, and delete files of the one just read
  // from the manifest, while this opens it: files then go missing, and opening again finds the
  // new one.
  for (int attempt = 1;; ++attempt) {
    try {
      open();
      break;
    } catch (const Error&) {
      std::string now;
      try {
        now = string_at(read_manifest(pipeline), "/generation");
      } catch (const Error&) {
        // no readable manifest now: the first problem is the one to report
      }
      if (attempt == 3 || now.empty() || now == string_at(manifest_, "/generation")) throw;
    }
  }
  for (const OpenSegment& s : opened_->segments) chunk_count_ += s.live_chunks;
  std::string kinds;
  for (const auto& kind : manifest_.value("chunk_kinds", json::array()))
    if (kind.is_string()) kinds += (kinds.empty() ? "" : ", ") + kind.get<std::string>();
  strategy_ = pipeline.retriever.plugin + " over " + kinds + " chunks (pipeline " + pipeline.name + ")";
}

Index::~Index() = default;

std::uint32_t Index::id_limit() const { return opened_->list->id_limit(); }

ChunkView Index::chunk(std::uint32_t id) const { return opened_->list->chunk(id); }

bool Index::is_live(std::uint32_t id) const { return id < id_limit() && !opened_->list->is_removed(id); }


std::optional<SegmentStore::File> Index::file(std::string_view file_path) const {
  for (const OpenSegment& s : opened_->segments)
    if (const auto f = s.store->find_file(file_path); f && !s.file_removed(*f)) return s.store->file(*f);
  return std::nullopt;
}

std::vector<std::uint32_t> Index::chunks_of(std::string_view file_path) const {
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < opened_->segments.size(); ++i) {
    const OpenSegment& s = opened_->segments[i];
    const auto f = s.store->find_file(file_path);
    if (!f || s.file_removed(*f)) continue;
    const SegmentStore::File file = s.store->file(*f);
    for (std::uint32_t c = file.first_chunk; c < file.first_chunk + file.chunk_count; ++c)
      ids.push_back(opened_->view[i].base + c);
    break;  // a file is in one segment
  }
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
    const ChunkView x = chunk(a), y = chunk(b);
    return std::tie(x.first_byte, x.last_byte, a) < std::tie(y.first_byte, y.last_byte, b);
  });
  return ids;
}

void Index::for_each(const std::function<void(std::uint32_t, const ChunkView&)>& visit) const {
  for (std::size_t i = 0; i < opened_->segments.size(); ++i) {
    const Segment& s = opened_->view[i];
    for (std::uint32_t c = 0; c < s.chunks->size(); ++c)
      if (!s.is_removed(c)) visit(s.base + c, s.chunks->chunk(c));
  }
}

std::vector<Hit> Index::search(std::string_view query, std::size_t k, std::vector<std::string>* warnings) const {
  if (!opened_->retriever) throw Error("this index was opened for its chunks alone, not to search");
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) throw Error("the query is empty");
  if (!utf8::is_valid(query)) throw Error("the query is not valid UTF-8; pass it in UTF-8 (check the terminal's encoding)");
  std::vector<std::string> given;
  struct Collect {  // restores the previous collector even when the retriever throws
    std::vector<std::string>* previous;
    explicit Collect(std::vector<std::string>* into) : previous(std::exchange(search_warnings, into)) {}
    ~Collect() { search_warnings = previous; }
  };
  // Deeper while the candidates asked for all came back and repeats left fewer than k: the
  // granularities of one region can fill a whole list of candidates.
  std::vector<Hit> kept;
  for (std::size_t asked = candidates_for(k);; asked *= 4) {
    std::vector<Hit> hits;
    {
      const Collect collect(warnings ? warnings : &given);
      hits = opened_->retriever->search(query, asked);
    }
    for (const Hit& h : hits) {
      const auto fault = [&](const std::string& what) {
        return Error("the " + opened_->pipeline->retriever.plugin + " retriever returned " + what + " (chunk " +
                     std::to_string(h.chunk) + "); it is the plugin's fault: check it against docs/writing-a-retriever.md");
      };
      if (h.chunk >= id_limit()) throw fault("a chunk that is not in the index (ids are below " + std::to_string(id_limit()) + ")");
      if (opened_->list->is_removed(h.chunk)) throw fault("a chunk removed from the index");
      if (!std::isfinite(h.score)) throw fault("a score that is not a finite number");
    }
    kept = drop_repeats(hits, *this, k);
    if (kept.size() == k || hits.size() < asked) break;
  }
  if (!given.empty()) {
    const std::lock_guard lock(opened_->mutex);
    for (std::string& message : given)
      if (opened_->warned.insert(message).second) std::cerr << "warning: " << message << "\n";
  }
  return kept;
}

std::size_t Index::count_found(std::string_view query, std::size_t limit) const {
  // Bounded: a long-running server asked many different words forgets them all now and then.
  constexpr std::size_t kRemembered = 1 << 16;
  std::string key = std::to_string(limit) + ' ';
  key += query;
  {
    const std::lock_guard lock(opened_->mutex);
    if (const auto it = opened_->found.find(key); it != opened_->found.end()) return it->second;
  }
  // The retriever's warnings (a shard left out) are the search's to give, not this count's: said
  // here too, they were said twice.
  std::vector<std::string> unsaid;
  const std::size_t count = search(query, limit, &unsaid).size();
  const std::lock_guard lock(opened_->mutex);
  if (opened_->found.size() >= kRemembered) opened_->found.clear();
  opened_->found.emplace(std::move(key), count);
  return count;
}

bool Index::changed_since_indexing(std::string_view file_path) const {
  const std::lock_guard lock(opened_->mutex);
  if (const auto it = opened_->changed.find(file_path); it != opened_->changed.end()) return it->second;
  const std::optional<SegmentStore::File> indexed = file(file_path);
  bool differs = true;
  if (indexed) {
    const fs::path on_disk = opened_->pipeline->corpus_dir / std::string(indexed->relative_path);
    struct stat status {};
    if (::stat(on_disk.c_str(), &status) == 0) {
      const std::int64_t changed = file_time(status.st_ctim.tv_sec, status.st_ctim.tv_nsec);
      differs = static_cast<std::uint64_t>(status.st_size) != indexed->size;
      if (!differs && changed != indexed_time(opened_->retimed, *indexed)) differs = !holds_content(on_disk, indexed->digest);
    }
  }
  opened_->changed.emplace(std::string(file_path), differs);
  return differs;
}

std::vector<Hit> drop_repeats(const std::vector<Hit>& hits, const ChunkSource& chunks, std::size_t k) {
  std::vector<Hit> kept;
  std::vector<ChunkView> kept_chunks;
  for (const Hit& h : hits) {
    if (kept.size() == k) break;
    const ChunkView c = chunks.chunk(h.chunk);
    const bool repeats = std::any_of(kept_chunks.begin(), kept_chunks.end(), [&](const ChunkView& o) {
      if (o.file_path != c.file_path) return false;
      const std::size_t begin = std::max(o.first_char, c.first_char), end = std::min(o.last_char, c.last_char);
      const std::size_t overlap = end > begin ? end - begin : 0;
      return 2 * overlap > std::min(o.last_char - o.first_char, c.last_char - c.first_char);
    });
    if (!repeats) {
      kept.push_back(h);
      kept_chunks.push_back(c);
    }
  }
  return kept;
}

std::vector<RetrievedSource> to_sources(const ChunkSource& chunks, const std::vector<Hit>& hits) {
  std::vector<RetrievedSource> out;
  for (const Hit& h : hits) {
    const ChunkView c = chunks.chunk(h.chunk);
    out.push_back({{std::string(c.file_path), c.first_char, c.last_char}, h.score, std::string(c.kind),
                   std::string(c.section), c.first_line, c.last_line});
  }
  return out;
}

ResultsFile search_questions(const Index& index, const std::vector<Question>& questions, std::size_t k) {
  // Every search first, the sources after: their strings, kept for the results file, would grow
  // the heap between searches, and the next search would pay for touching the new pages (a page
  // fault, tens of microseconds on a virtual machine).
  std::vector<std::vector<Hit>> hits(questions.size());
  std::vector<double> ms(questions.size());
  ResultsFile results;
  results.k = k;
  Progress progress("searching", questions.size());
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < questions.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    hits[i] = index.search(questions[i].text, k, &warnings);
    ms[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!warnings.empty()) {
      ++results.warned_questions;
      for (std::string& w : warnings)
        if (std::find(results.warnings.begin(), results.warnings.end(), w) == results.warnings.end())
          results.warnings.push_back(std::move(w));
      warnings.clear();
    }
    progress.advance();
  }
  for (std::size_t i = 0; i < questions.size(); ++i) {
    std::vector<RetrievedSource> sources = to_sources(index, hits[i]);
    for (std::size_t j = 0; j < sources.size(); ++j) {
      RetrievedSource& s = sources[j];
      if (s.span.last - s.span.first <= kMaxSourceChars) continue;
      // A chunker's limit may be above the grader's: the chunk's beginning stands for it.
      const std::string_view text = index.chunk(hits[i][j].chunk).text;
      const std::size_t bytes = utf8::prefix_bytes(text, kMaxSourceChars);
      s.span.last = s.span.first + kMaxSourceChars;
      s.last_line = s.first_line + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bytes - 1), '\n'));
      ++results.sources_cut;
    }
    results.results.push_back({questions[i].id, questions[i].text, std::move(sources), ms[i]});
  }
  return results;
}

}  // namespace rag
