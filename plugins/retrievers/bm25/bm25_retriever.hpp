#pragma once
// The `bm25` retriever: an inverted index scored with a BM25 variant.
#include "bm25_scoring.hpp"
#include "rag/analyzer.hpp"
#include "rag/inverted_index.hpp"
#include "rag/retriever.hpp"

namespace rag {

class Bm25Retriever final : public Retriever {
 public:
  /// Options: variant (robertson | lucene | bm25l | bm25plus), k1, b, delta (see
  /// Bm25Parameters), index_path, index_section (see IndexedFields), analysis (see AnalyzerSet).
  explicit Bm25Retriever(Options& options);

  void build(ChunkList chunks) override;
  void save(const std::filesystem::path& dir) const override;
  void load(const std::filesystem::path& dir, ChunkList chunks) override;
  std::vector<Hit> search(std::string_view query, std::size_t k) const override;

 private:
  void prepare();

  Bm25Parameters parameters_;
  IndexedFields fields_;
  std::unique_ptr<AnalyzerSet> analyzers_;
  InvertedIndex index_;
  std::vector<double> length_norm_;  ///< 1 - b + b * |d| / avgdl, per chunk
};

}  // namespace rag
