#pragma once
// The index folder of a pipeline: built from the corpus and kept up to date with it, opened for
// search.
//
//   <index>/manifest.json                the commit point, written last and atomically: the
//                                        generation, its segments and their removals
//   <index>/seg-<n>/chunks.bin           a segment's corpus files and chunks (segment_store.hpp)
//   <index>/seg-<n>/retriever/...        the retriever's files for those chunks
//   <index>/seg-<n>/removed-<gen>.bin    the files of the segment removed as of generation <gen>
//
// `rag index` takes the files that changed since the last generation: their new chunks go to a
// new segment and their old ones are marked removed, and segments merge as they accumulate
// (small segments of about the same size, ten at a time, or one that lost a quarter of its
// chunks); a full build writes a segment per 64 MB of source.
// Nothing is changed in place: a generation is committed by writing a new manifest, so an
// interrupted run leaves the previous generation whole, and a reader never sees half of one.
// Every file is read in place (mapped), so opening an index costs the same at any size.
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/dataset.hpp"
#include "rag/pipeline.hpp"
#include "rag/segment_store.hpp"
#include "rag/stages.hpp"

namespace rag {

/// Bumped when the layout of the index folder or of its files changes, or what the chunkers or
/// the analyzers make of a text (2: Unicode letters, punctuation and CJK pairs; 3: line numbers,
/// the corpus snapshot; 4: segments read in place; 5: pieces under min_chunk_size absorbed; 6:
/// inverted indexes count the path and section fields apart, for BM25F; 7: compounds stemmed as
/// other words are, so that "pagedattention" typed in lower case meets `PagedAttention`; 8: only
/// those written without '_', '.' or '-'; 9: a file's time is its status change time, not its
/// modification time).
inline constexpr int kIndexFormat = 9;

struct IndexOptions {
  bool full = false;  ///< rebuild from scratch even when the index could be updated
};

/// What `rag index` did.
struct IndexReport {
  bool committed = false;  ///< false: the index was up to date, nothing was written
  bool full = false;       ///< built from scratch
  std::string why_full;    ///< why: no index yet, --full, another configuration, ...
  std::size_t changed = 0, added = 0, removed = 0;  ///< corpus files, since the last generation
  std::size_t files = 0;                          ///< files the index holds chunks of
  std::size_t skipped = 0;                        ///< files it passed over (binary, not UTF-8, ...)
  std::size_t chunks = 0;                         ///< chunks it holds
  std::size_t segments = 0;                       ///< segments it is made of
  std::size_t merged = 0;                         ///< segments merged by this run
  double seconds = 0;
  std::vector<std::string> notes;  ///< why files were passed over
};

/// Thrown by build_index when another process is writing the index folder: worth trying again
/// once it is done.
class BOOST_SYMBOL_VISIBLE IndexBusy : public Error {
 public:
  using Error::Error;
};

/// Brings the index of the stages' pipeline up to date with its corpus: chunks the files that
/// changed with the pipeline's chunkers, in parallel, adds them as a new segment, marks what they
/// replace removed, merges segments, and commits a new generation. Builds from scratch when
/// there is no usable index, when asked, or when the retriever cannot update an index. Throws
/// rag::Error when the corpus is missing or gives no chunks, a chunker fails, or on I/O failure
/// (IndexBusy when another process writes the index); the previous generation stays usable.
IndexReport build_index(PipelineStages& stages, IndexOptions options = {});

/// The chunks `chunker` (named `kind`) makes of one file, with their code-point offsets, lines
/// and text: what `index` does for each file and chunker rule. Throws rag::Error naming the
/// chunker and the file when it returns an empty span or one past the file's end.
std::vector<Chunk> chunk_file(const SourceFile& file, const Chunker& chunker, const std::string& kind);

/// Whether the pipeline's index can be used as it is.
struct IndexState {
  enum class Kind { missing, stale, current } kind = Kind::missing;
  std::string why;          ///< for missing and stale: what is wrong (Pipeline::command("index") mends it)
  bool damaged = false;     ///< stale because a file of it is damaged: `rag index --full` mends it
  nlohmann::json manifest;  ///< for stale and current: the index's manifest
};
/// Missing, stale (damaged, another format, another pipeline configuration, another version of a
/// chunker or the retriever, a changed or missing corpus), or current. With `verify`, also reads
/// every index file whole and compares its checksum (what search does not do: it reads only
/// what it needs).
IndexState inspect_index(const PipelineStages& stages, bool verify = false);

/// The generation the pipeline's manifest names now ("" when there is no readable manifest): what
/// a long-running reader compares with its Index::generation() to see a new commit.
std::string committed_generation(const Pipeline& pipeline);

class Index final : public ChunkSource {
 public:
  /// What an Index is opened for: searching (the retriever opened, which may connect to remote
  /// shards), or reading its chunks alone (`rag chunks`), for which search() is an error.
  enum class Use { search, chunks };
  /// Opens the index of the stages' pipeline with a retriever of `stages`. Throws rag::Error when
  /// there is none, when it comes from another format or pipeline configuration, or when a file
  /// is missing or damaged.
  explicit Index(PipelineStages& stages, Use use = Use::search);
  ~Index() override;

  /// Chunks not removed.
  std::size_t chunk_count() const { return chunk_count_; }
  std::uint32_t id_limit() const override;
  /// Whether chunk `id` (< id_limit()) is in the index, not removed.
  bool is_live(std::uint32_t id) const;
  ChunkView chunk(std::uint32_t id) const override;
  std::vector<std::uint32_t> chunks_of(std::string_view file_path) const override;
  void for_each(const std::function<void(std::uint32_t, const ChunkView&)>& visit) const override;
  /// The corpus file `file_path` names as the index holds it (its size, time and digest then).
  std::optional<SegmentStore::File> file(std::string_view file_path) const;

  const nlohmann::json& manifest() const { return manifest_; }
  /// The generation it was opened at ("gen-...").
  std::string generation() const { return manifest_.value("generation", ""); }
  /// The retriever's best `k` chunks for `query`, without those that repeat a better one
  /// (drop_repeats): fewer than `k` only when no more chunks match. Throws rag::Error for an
  /// empty query. The
  /// retriever's warnings about these results (see warn_search) go to `warnings`, or, without
  /// it, to stderr, each message once per Index.
  std::vector<Hit> search(std::string_view query, std::size_t k, std::vector<std::string>* warnings = nullptr) const;
  /// How many chunks search() finds for `query`, `limit` at most: how common a word is, as
  /// answering weighs it. Remembered per Index (it never changes), so that a word asked again
  /// costs a lookup, not a search; thread-safe.
  std::size_t count_found(std::string_view query, std::size_t limit) const;
  /// Short description of the search strategy, e.g. "bm25 over python, markdown, text chunks".
  const std::string& strategy() const { return strategy_; }
  /// Whether the file `file_path` names changed on disk since it was indexed (size and time, then
  /// content), or is gone: results pointing into it may show old text. Each file is looked at
  /// once per Index; thread-safe. (The whole corpus is compared by `rag check` and `rag index`:
  /// a search looks only at the files it shows, so that it costs the same at any corpus size.)
  bool changed_since_indexing(std::string_view file_path) const;

 private:
  struct Opened;  // the segments' stores, removals and the retriever
  std::unique_ptr<Opened> opened_;
  nlohmann::json manifest_;
  std::size_t chunk_count_ = 0;
  std::string strategy_;
};

/// The results of `hits` as retrieved sources (file, code-point span, score, kind, section).
std::vector<RetrievedSource> to_sources(const ChunkSource& chunks, const std::vector<Hit>& hits);

/// Overlapping chunks (several granularities, overlap options) would repeat the same text in
/// results: how many hits to ask a retriever for so that `k` remain after drop_repeats.
constexpr std::size_t candidates_for(std::size_t k) { return 2 * k + 10; }

/// The first `k` of `hits` (best first) without those that mostly cover a better hit of the
/// same file. Chunk ids must be below chunks.id_limit().
std::vector<Hit> drop_repeats(const std::vector<Hit>& hits, const ChunkSource& chunks, std::size_t k);

/// Searches every question (best `k` each), timing each search, with a progress bar on a
/// terminal. What `search_dataset` writes and `compare` scores: a source longer than the
/// grader's kMaxSourceChars is cut to that many code points (counted in `sources_cut`).
ResultsFile search_questions(const Index& index, const std::vector<Question>& questions, std::size_t k);

}  // namespace rag
