#pragma once
// The `bm25` retriever: an inverted index per segment, scored with a BM25 variant over the
// statistics of all segments together (chunk count, average length, document frequencies of
// the chunks not removed), so that an updated index ranks as one built from scratch.
#include <memory>

#include "bm25_scoring.hpp"
#include "rag/analyzer.hpp"
#include "rag/inverted_index.hpp"
#include "rag/retriever.hpp"
#include "rag/score_accumulator.hpp"

namespace rag {

class Bm25Retriever final : public Retriever {
 public:
  /// Options: variant (robertson | lucene | bm25l | bm25plus), k1, b, delta (see
  /// Bm25Parameters), index_path, index_section, index_title (see IndexedFields), fields (see
  /// FieldWeights), analysis (see AnalyzerSet),
  /// feedback (see Feedback), file_weight: each chunk also gets file_weight times the best
  /// score of another chunk of its file, so that files that match as a whole rise together, and
  /// common_share (default 1/16): once rarer query terms have found 1000 candidate chunks, a
  /// term found in more than that share of the chunks only adds to the candidates, which
  /// spares scoring most of the corpus for words like "model" (1 scores every chunk exactly).
  explicit Bm25Retriever(Options& options);

  /// Pseudo-relevance feedback (RM3): the query is expanded with the `terms` terms that weigh
  /// most in the `documents` best chunks of a first search (term share x chunk score x idf),
  /// mixed in with `weight`; documents = 0 turns it off.
  struct Feedback {
    std::size_t documents = 0;
    std::size_t terms = 20;
    double weight = 0.2;
  };

  /// BM25F (Robertson and Zaragoza, "The Probabilistic Relevance Framework", 2009): the text,
  /// path and section fields of a chunk each weigh a term's frequency by their `weight` and
  /// normalise it by their own length against their own average (`b`), and the sum is
  /// saturated once (k1): a title word counts more than a body word, and a long body does not
  /// dilute it. Option `fields: {text: {weight, b}, path: {weight, b}, section: {weight, b}}`
  /// (weights default to 1, b to the retriever's b); without it, a chunk's fields are scored as
  /// one text.
  struct FieldWeights {
    bool enabled = false;
    double weight[3] = {1, 1, 1};  ///< text, path, section
    double b[3] = {0.75, 0.75, 0.75};  ///< the retriever's b unless given
  };

  void build(const SegmentChunks& chunks, const std::filesystem::path& dir) override;
  bool updatable() const override { return true; }
  void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) override;
  void open(const SegmentList& segments) override;
  std::vector<Hit> search(std::string_view query, std::size_t k) const override;

 private:
  /// Query terms with weights, per analyzer of the AnalyzerSet.
  using WeightedTerms = std::vector<std::vector<std::pair<std::string, double>>>;
  void score(const WeightedTerms& terms, ScoreAccumulator& scores) const;
  /// Adds a term's postings to `scores` (see score()), BM25F when PerField.
  template <bool PerField>
  void add_postings_of_variant(const InvertedIndexSet::TermPostings& postings, std::uint32_t analyzer,
                               bool single_analyzer, double weight, bool opens, ScoreAccumulator& scores) const;
  template <Bm25Variant V, bool PerField, bool Opens>
  void add_postings(const InvertedIndexSet::TermPostings& postings, std::uint32_t analyzer, bool single_analyzer,
                    double weight, ScoreAccumulator& scores) const;
  WeightedTerms expand(const WeightedTerms& terms, const std::vector<Hit>& top) const;
  /// The k best chunks once each is lifted by file_weight times the best score of another
  /// chunk of its file.
  std::vector<Hit> top_lifted_by_file(const ScoreAccumulator& scores, std::size_t k) const;

  Bm25Parameters parameters_;
  IndexedFields fields_;
  std::unique_ptr<AnalyzerSet> analyzers_;
  Feedback feedback_;
  FieldWeights field_weights_;
  double file_weight_ = 0;
  double path_weight_ = 0;
  double common_share_ = 1.0 / 16;

  InvertedIndexSet index_;
  const SegmentList* segments_ = nullptr;
  double average_length_ = 1.0;
  double average_field_length_[3] = {1.0, 1.0, 1.0};  ///< text, path, section
};

}  // namespace rag
