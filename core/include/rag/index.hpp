#pragma once
// The index folder of a pipeline: built from the corpus, opened for search.
//
//   <index>/manifest.json      the commit point, written last and atomically
//   <index>/gen-<id>/chunks.bin
//   <index>/gen-<id>/retriever/...   the retriever plugin's own files
//
// A rebuild writes a new generation beside the old one and switches the manifest to it, so an
// interrupted run leaves the previous index intact and a reader never sees a half index.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/dataset.hpp"
#include "rag/pipeline.hpp"
#include "rag/stages.hpp"

namespace rag {

/// Bumped when the layout of the index folder or of chunks.bin changes, or the terms the
/// analyzers make of a text (2: Unicode letters, punctuation and CJK pairs; 3: line numbers,
/// the corpus snapshot).
inline constexpr int kIndexFormat = 3;

struct IndexReport {
  std::size_t files = 0;    ///< files chunked
  std::size_t skipped = 0;  ///< files passed over (binary, not UTF-8, too large, no chunker)
  std::size_t chunks = 0;
  double seconds = 0;
  std::vector<std::string> notes;  ///< why files were passed over
};

/// Chunks the corpus of the stages' pipeline with their chunkers and builds their retriever in
/// parallel, then commits the new index. Throws rag::Error when the corpus is missing or gives no
/// chunks, a chunker fails, or on I/O failure; the previous index stays usable.
IndexReport build_index(PipelineStages& stages);

/// Chunks one file with the pipeline's chunkers (what `index` does for each file).
std::vector<Chunk> chunk_file(const SourceFile& file, const Chunker& chunker, const std::string& kind);

/// Whether the pipeline's index can be used as it is.
struct IndexState {
  enum class Kind { missing, stale, current } kind = Kind::missing;
  std::string why;          ///< for missing and stale: what is wrong (Pipeline::command("index") mends it)
  nlohmann::json manifest;  ///< for stale and current: the index's manifest
};
/// Missing, stale (damaged, another format, another pipeline configuration, a changed or missing
/// corpus), or current.
IndexState inspect_index(const Pipeline& pipeline);

/// The generation the pipeline's manifest names now ("" when there is no readable manifest): what
/// a long-running reader compares with its Index::generation() to see a new commit.
std::string committed_generation(const Pipeline& pipeline);

class Index {
 public:
  /// Opens the index of the stages' pipeline with a retriever of `stages`. Throws rag::Error when
  /// there is none, when it comes from another format or pipeline configuration, or when a file
  /// is missing or damaged.
  explicit Index(PipelineStages& stages);
  ~Index();

  const std::vector<Chunk>& chunks() const { return chunks_; }
  const nlohmann::json& manifest() const { return manifest_; }
  /// The generation it was opened at ("gen-...").
  std::string generation() const { return manifest_.value("generation", ""); }
  /// The retriever's best `k` chunks for `query`. Throws rag::Error for an empty query.
  std::vector<Hit> search(std::string_view query, std::size_t k) const;
  /// Short description of the search strategy, e.g. "bm25 over python, markdown, text chunks".
  const std::string& strategy() const { return strategy_; }
  /// Notes about the index that do not stop a search (e.g. the corpus changed since).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<Chunk> chunks_;
  std::unique_ptr<Retriever> retriever_;
  nlohmann::json manifest_;
  std::vector<std::string> warnings_;
  std::string strategy_;
};

/// The results of `hits` as retrieved sources (file, code-point span, score, kind, section).
std::vector<RetrievedSource> to_sources(const Index& index, const std::vector<Hit>& hits);

/// Overlapping chunks (several granularities, overlap options) would repeat the same text in
/// results: how many hits to ask a retriever for so that `k` remain after drop_repeats.
constexpr std::size_t candidates_for(std::size_t k) { return 2 * k + 10; }

/// The first `k` of `hits` (best first) without those that mostly cover a better hit of the
/// same file. Chunk ids must be in range of `chunks`.
std::vector<Hit> drop_repeats(const std::vector<Hit>& hits, ChunkList chunks, std::size_t k);

/// Searches every question (best `k` each), timing each search, with a progress bar on a
/// terminal. What `search_dataset` writes and `compare` scores.
ResultsFile search_questions(const Index& index, const std::vector<Question>& questions, std::size_t k);

}  // namespace rag
