#include "rag/index.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <tuple>

#include "rag/chunk_store.hpp"
#include "rag/corpus.hpp"
#include "rag/file_io.hpp"
#include "rag/progress.hpp"
#include "rag/project.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kManifest = "manifest.json";
constexpr const char* kCorpusSnapshot = "corpus.bin";

// The manifest of the pipeline's index: nothing when there is none, null when it is damaged.
std::optional<json> try_manifest(const Pipeline& pipeline) {
  const fs::path file = pipeline.index_dir / kManifest;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  try {
    return json::parse(read_file(file));
  } catch (const json::exception&) {
    return json();
  } catch (const Error&) {
    return json();  // unreadable
  }
}

// The manifest, or an error saying how to make one.
json read_manifest(const Pipeline& pipeline) {
  std::optional<json> manifest = try_manifest(pipeline);
  if (!manifest)
    throw Error("no index at " + display_path(pipeline.index_dir) + "; run `" + pipeline.command("index") + "` first");
  if (manifest->is_null())
    throw Error(display_path(pipeline.index_dir / kManifest) + " is damaged; run `" + pipeline.command("index") +
                "` to rebuild it");
  return *manifest;
}

// The string at `pointer` in the manifest, or "" when it is absent or not a string.
std::string string_at(const json& manifest, const char* pointer) {
  const json::json_pointer p(pointer);
  return manifest.contains(p) && manifest.at(p).is_string() ? manifest.at(p).get<std::string>() : std::string();
}

// What makes the index unusable for this pipeline, or "".
std::string incompatibility(const json& manifest, const Pipeline& pipeline) {
  const json::json_pointer format_at("/format");
  const int format = manifest.contains(format_at) && manifest.at(format_at).is_number_integer() ? manifest.at(format_at).get<int>() : -1;
  if (format != kIndexFormat)
    return "the index at " + display_path(pipeline.index_dir) + " has format " + std::to_string(format) +
           ", this rag reads format " + std::to_string(kIndexFormat);
  const auto hash = string_at(manifest, "/pipeline/hash");
  if (hash != pipeline.content_hash())
    return "the index at " + display_path(pipeline.index_dir) + " was built with another configuration of the pipeline";
  return "";
}

// How the corpus changed since the index of `manifest` was built, by content ("" when it did not);
// `snapshot` gives what it held then, read when needed. Throws rag::Error when the corpus is gone.
template <class Snapshot>
std::string corpus_changes(const Pipeline& pipeline, const json& manifest, Snapshot snapshot) {
  const CorpusListing now = list_corpus(pipeline);
  if (string_at(manifest, "/corpus/fingerprint") == now.fingerprint) return "";
  const CorpusChanges changes = compare_corpus(snapshot(), now);
  if (changes.empty()) return "";
  return "the corpus at " + pipeline.corpus_root + " changed since the index was built: " + changes.describe();
}

fs::path generation_of(const Pipeline& pipeline, const json& manifest) {
  return pipeline.index_dir / string_at(manifest, "/generation");
}

std::string new_generation() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return "gen-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
         std::to_string(::getpid());
}

// Held while `rag index` writes an index folder: two builds of one folder would each delete the
// other's generation as a leftover. The kernel drops the lock when the process dies, even by SIGKILL.
class IndexLock {
 public:
  explicit IndexLock(const fs::path& index_dir) {
    std::error_code ec;
    fs::create_directories(index_dir, ec);
    if (ec) throw Error(display_path(index_dir) + ": cannot create folder (" + ec.message() + "); check `index:` in the pipeline");
    const fs::path file = index_dir / ".lock";
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(file.string() + ": cannot open (" + std::strerror(errno) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw Error("another `rag index` is writing " + display_path(index_dir) + " right now; wait for it to finish and run again");
    }
  }
  ~IndexLock() { ::close(fd_); }
  IndexLock(const IndexLock&) = delete;
  IndexLock& operator=(const IndexLock&) = delete;

 private:
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

}  // namespace

std::vector<Chunk> chunk_file(const SourceFile& file, const Chunker& chunker, const std::string& kind) {
  std::vector<Chunk> out;
  for (const ChunkSpan& span : chunker.chunk(file)) {
    if (span.bytes.empty() || span.bytes.end > file.text().size())
      throw Error("the " + kind + " chunker returned an invalid span [" + std::to_string(span.bytes.begin) + ", " +
                  std::to_string(span.bytes.end) + ") for " + file.name());
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

IndexReport build_index(PipelineStages& stages) {
  const Pipeline& pipeline = stages.pipeline();
  const auto start = std::chrono::steady_clock::now();
  IndexReport report;
  const CorpusListing listing = list_corpus(pipeline);
  const IndexLock lock(pipeline.index_dir);
  report.notes = listing.notes;
  report.skipped = listing.notes.size();
  // One chunker per rule, shared by all threads (Chunker::chunk is const and thread-safe).
  const auto& chunkers = stages.chunkers();
  std::unique_ptr<Retriever> retriever = stages.take_retriever();

  const std::size_t n = listing.files.size();
  std::vector<std::vector<Chunk>> per_file(n);
  std::vector<std::string> skipped(n);
  CorpusSnapshot snapshot;
  for (const CorpusEntry& entry : listing.files)
    snapshot.files.push_back({entry.relative_path, entry.size, entry.modified, ""});
  {
    Progress progress("chunking", n);
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
      const CorpusEntry& entry = listing.files[i];
      const std::vector<const ChunkerRule*> rules = pipeline.chunkers_for(entry.relative_path);
      SourceRead read;
      try {
        read = read_source(entry);  // even when no rule chunks it: its digest tells a touch from an edit
        snapshot.files[i].digest = read.digest;
      } catch (const Error& e) {
        // A file that vanished or became unreadable mid-run is passed over, not fatal.
        read.why = e.what();
      }
      if (rules.empty()) {
        skipped[i] = entry.relative_path + ": skipped, no chunker in the pipeline handles it";
      } else if (!read.file) {
        skipped[i] = entry.relative_path + ": skipped, " + read.why;
      } else {
        for (const ChunkerRule* rule : rules) {
          const auto r = static_cast<std::size_t>(rule - pipeline.chunkers.data());
          try {
            for (Chunk& c : chunk_file(*read.file, *chunkers[r], rule->plugin)) per_file[i].push_back(std::move(c));
          } catch (const Error& e) {
            throw Error(rule->where + ": chunking " + entry.relative_path + ": " + e.what());
          }
        }
      }
      progress.advance();
    });
  }
  std::vector<Chunk> chunks;
  for (std::size_t i = 0; i < n; ++i) {
    if (!skipped[i].empty()) {
      report.notes.push_back(skipped[i]);
      ++report.skipped;
      continue;
    }
    ++report.files;
    for (auto& c : per_file[i]) chunks.push_back(std::move(c));
  }
  per_file.clear();
  if (chunks.empty()) {
    // Name the files passed over: "no chunks" alone would hide that everything was binary or too large.
    std::string passed_over;
    if (!report.notes.empty())
      passed_over = ", " + std::to_string(report.notes.size()) + " passed over, e.g. " + report.notes.front();
    throw Error("the corpus at " + pipeline.corpus_root + " gave no chunks (" + std::to_string(n + listing.notes.size()) +
                " files matched corpus.include" + passed_over + "); check corpus.root and corpus.include in " +
                pipeline.label());
  }

  retriever->build(chunks);

  const std::string generation = new_generation();
  const fs::path generation_dir = pipeline.index_dir / generation;
  std::error_code ec;
  fs::create_directories(generation_dir / "retriever", ec);
  if (ec) throw Error(generation_dir.string() + ": cannot create folder (" + ec.message() + ")");
  try {
    save_chunks(generation_dir / "chunks.bin", chunks);
    snapshot.save(generation_dir / kCorpusSnapshot);
    retriever->save(generation_dir / "retriever");
  } catch (...) {
    fs::remove_all(generation_dir, ec);
    throw;
  }

  json files = json::array();
  for (fs::recursive_directory_iterator it(generation_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file())
      files.push_back({{"path", it->path().lexically_relative(pipeline.index_dir).generic_string()},
                       {"size", it->file_size()}});
  report.chunks = chunks.size();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const json manifest = {
      {"format", kIndexFormat},
      {"rag_version", RAG_VERSION},
      {"built_at", utc_now()},
      {"build_seconds", report.seconds},
      {"pipeline", {{"name", pipeline.name}, {"file", pipeline.file.string()}, {"hash", pipeline.content_hash()}}},
      {"corpus", {{"root", pipeline.corpus_root}, {"files", report.files}, {"fingerprint", listing.fingerprint}}},
      {"retriever", pipeline.retriever.plugin},
      {"chunks", chunks.size()},
      {"generation", generation},
      {"files", files}};
  try {
    write_file_atomically(pipeline.index_dir / kManifest, manifest.dump(2) + "\n");
  } catch (...) {
    fs::remove_all(generation_dir, ec);
    throw;
  }
  // The manifest now names the new generation: older ones (and leftovers of interrupted runs)
  // can go. A search that opened one of them keeps its open files.
  for (fs::directory_iterator it(pipeline.index_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool stale_manifest = name.rfind(std::string(kManifest) + ".tmp-", 0) == 0;  // from a killed run
    if ((name.rfind("gen-", 0) == 0 && name != generation) || stale_manifest) fs::remove_all(it->path(), ec);
  }
  return report;
}

std::string committed_generation(const Pipeline& pipeline) {
  const std::optional<json> manifest = try_manifest(pipeline);
  return manifest ? string_at(*manifest, "/generation") : std::string();
}

IndexState inspect_index(const Pipeline& pipeline) {
  IndexState state;
  std::optional<json> manifest = try_manifest(pipeline);
  if (!manifest) {
    state.why = "no index yet at " + display_path(pipeline.index_dir);
    return state;
  }
  state.kind = IndexState::Kind::stale;
  state.manifest = std::move(*manifest);
  if (state.manifest.is_null()) {
    state.why = display_path(pipeline.index_dir / kManifest) + " is damaged";
    return state;
  }
  state.why = incompatibility(state.manifest, pipeline);
  if (!state.why.empty()) return state;
  try {
    state.why = corpus_changes(pipeline, state.manifest, [&] {
      return CorpusSnapshot::load(generation_of(pipeline, state.manifest) / kCorpusSnapshot);
    });
    if (!state.why.empty()) return state;
  } catch (const Error& e) {
    state.why = e.what();  // the corpus is gone: the index cannot be rebuilt as it is
    return state;
  }
  state.kind = IndexState::Kind::current;
  return state;
}

Index::Index(PipelineStages& stages) {
  const Pipeline& pipeline = stages.pipeline();
  CorpusSnapshot corpus;
  const std::string damaged = " is damaged; run `" + pipeline.command("index") + "` to rebuild it";
  const auto open = [&] {
    manifest_ = read_manifest(pipeline);
    try {
      if (auto problem = incompatibility(manifest_, pipeline); !problem.empty())
        throw Error(problem + "; run `" + pipeline.command("index") + "` to rebuild it");
      for (const auto& f : manifest_.at("files")) {
        const fs::path file = pipeline.index_dir / f.at("path").get<std::string>();
        std::error_code ec;
        const auto size = fs::file_size(file, ec);
        if (ec || size != f.at("size").get<std::uintmax_t>()) throw Error("the index at " + display_path(pipeline.index_dir) + damaged);
      }
      const fs::path generation_dir = pipeline.index_dir / manifest_.at("generation").get<std::string>();
      chunks_ = load_chunks(generation_dir / "chunks.bin");
      corpus = CorpusSnapshot::load(generation_dir / kCorpusSnapshot);  // read whole: a damaged one is refused now
      retriever_ = stages.take_retriever();
      retriever_->load(generation_dir / "retriever", chunks_);
    } catch (const json::exception&) {
      throw Error(display_path(pipeline.index_dir / kManifest) + damaged);
    }
  };
  // A concurrent `rag index` may commit a new generation, and delete the one just read from the
  // manifest, while this opens it: files then go missing, and opening again finds the new one.
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
  try {
    if (const auto changes = corpus_changes(pipeline, manifest_, [&]() -> const CorpusSnapshot& { return corpus; }); !changes.empty())
      warnings_.push_back(changes + "; results may point at old text (run `" + pipeline.command("index") + "`)");
  } catch (const Error& e) {
    warnings_.push_back(e.what());  // the index holds the text: a missing corpus does not stop a search
  }
  std::set<std::string> kinds;
  for (const auto& c : chunks_) kinds.insert(c.kind);
  std::string list;
  for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
  strategy_ = pipeline.retriever.plugin + " over " + list + " chunks (pipeline " + pipeline.name + ")";
}

Index::~Index() = default;

std::vector<Hit> Index::search(std::string_view query, std::size_t k) const {
  if (query.find_first_not_of(" \t\r\n") == std::string_view::npos) throw Error("the query is empty");
  if (!utf8::is_valid(query)) throw Error("the query is not valid UTF-8; pass it in UTF-8 (check the terminal's encoding)");
  const std::vector<Hit> hits = retriever_->search(query, candidates_for(k));
  for (const Hit& h : hits)
    if (h.chunk >= chunks_.size()) throw Error("the retriever returned a chunk id out of range");
  return drop_repeats(hits, chunks_, k);
}

std::vector<Hit> drop_repeats(const std::vector<Hit>& hits, ChunkList chunks, std::size_t k) {
  std::vector<Hit> kept;
  for (const Hit& h : hits) {
    if (kept.size() == k) break;
    const Chunk& c = chunks[h.chunk];
    const bool repeats = std::any_of(kept.begin(), kept.end(), [&](const Hit& better) {
      const Chunk& o = chunks[better.chunk];
      if (o.file_path != c.file_path) return false;
      const std::size_t begin = std::max(o.first_char, c.first_char), end = std::min(o.last_char, c.last_char);
      const std::size_t overlap = end > begin ? end - begin : 0;
      return 2 * overlap > std::min(o.last_char - o.first_char, c.last_char - c.first_char);
    });
    if (!repeats) kept.push_back(h);
  }
  return kept;
}

std::vector<RetrievedSource> to_sources(const Index& index, const std::vector<Hit>& hits) {
  std::vector<RetrievedSource> out;
  for (const Hit& h : hits) {
    const Chunk& c = index.chunks()[h.chunk];
    out.push_back({{c.file_path, c.first_char, c.last_char}, h.score, c.kind, c.section, c.first_line, c.last_line});
  }
  return out;
}

ResultsFile search_questions(const Index& index, const std::vector<Question>& questions, std::size_t k) {
  ResultsFile results;
  results.k = k;
  Progress progress("searching", questions.size());
  for (const auto& q : questions) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Hit> hits = index.search(q.text, k);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    results.results.push_back({q.id, q.text, to_sources(index, hits), ms});
    progress.advance();
  }
  return results;
}

}  // namespace rag
