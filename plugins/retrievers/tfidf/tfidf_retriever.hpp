#pragma once
// The `tfidf` retriever: the vector-space model. Chunks and the query are TF-IDF vectors and
// a chunk's score is their cosine (or their dot product, without normalisation). A chunk's
// vector length depends on the document frequencies of all segments: it is reckoned when the
// index is opened, from every posting once.
#include "rag/analyzer.hpp"
#include "rag/inverted_index.hpp"
#include "rag/retriever.hpp"

namespace rag {

class TfidfRetriever final : public Retriever {
 public:
  enum class TermFrequency { raw, log, binary };  ///< tf, 1 + ln tf, 1
  enum class InverseFrequency { smooth, plain, none };  ///< ln((1 + N) / (1 + df)) + 1, ln(N / df), 1

  /// Options: tf (raw | log | binary, default log), idf (smooth | plain | none, default
  /// smooth), norm (l2 | none, default l2), index_path, index_section (see IndexedFields) and
  /// analysis (see AnalyzerSet), the same analysis options as bm25.
  explicit TfidfRetriever(Options& options);

  void build(const SegmentChunks& chunks, const std::filesystem::path& dir) override;
  bool updatable() const override { return true; }
  void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) override;
  void open(const SegmentList& segments) override;
  std::vector<Hit> search(std::string_view query, std::size_t k) const override;

  double tf_weight(double tf) const;
  double idf_weight(double documents, double document_frequency) const;

 private:
  TermFrequency tf_ = TermFrequency::log;
  InverseFrequency idf_ = InverseFrequency::smooth;
  bool l2_ = true;
  IndexedFields fields_;
  std::unique_ptr<AnalyzerSet> analyzers_;
  InvertedIndexSet index_;
  const SegmentList* segments_ = nullptr;
  std::vector<double> inverse_norm_;  ///< 1 / |chunk vector| (1 without normalisation), by chunk id
};

}  // namespace rag
