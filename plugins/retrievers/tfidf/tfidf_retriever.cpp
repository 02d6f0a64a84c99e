#include "tfidf_retriever.hpp"

#include <cmath>

#include "rag/question_words.hpp"
#include "rag/score_accumulator.hpp"

namespace rag {

TfidfRetriever::TfidfRetriever(Options& options) : index_({"tfidf.bin", "tfidf", 3}) {  // 3: field counts
  const std::string tf = options.get_choice("tf", "log", {"raw", "log", "binary"});
  tf_ = tf == "raw" ? TermFrequency::raw : tf == "log" ? TermFrequency::log : TermFrequency::binary;
  const std::string idf = options.get_choice("idf", "smooth", {"smooth", "plain", "none"});
  idf_ = idf == "smooth" ? InverseFrequency::smooth : idf == "plain" ? InverseFrequency::plain : InverseFrequency::none;
  l2_ = options.get_choice("norm", "l2", {"l2", "none"}) == "l2";
  fields_ = IndexedFields::from_options(options);
  Options analysis = options.child("analysis");
  analyzers_ = std::make_unique<AnalyzerSet>(analysis);
  options.finish();
}

double TfidfRetriever::tf_weight(double tf) const {
  switch (tf_) {
    case TermFrequency::raw: return tf;
    case TermFrequency::log: return 1.0 + std::log(tf);
    case TermFrequency::binary: return 1.0;
  }
  return tf;
}

double TfidfRetriever::idf_weight(double n, double df) const {
  switch (idf_) {
    case InverseFrequency::smooth: return std::log((1.0 + n) / (1.0 + df)) + 1.0;
    case InverseFrequency::plain: return std::log(n / df);
    case InverseFrequency::none: return 1.0;
  }
  return 1.0;
}

void TfidfRetriever::build(const SegmentChunks& chunks, const std::filesystem::path& dir) {
  index_.build(chunks, *analyzers_, fields_, dir);
}

void TfidfRetriever::merge(const SegmentList& sources, const SegmentChunks&, const std::filesystem::path& dir) {
  index_.merge(sources, dir);
}

// Chunk vector lengths, from every posting once, with the document frequencies of all segments:
// each chunk's squares are added in the order of its segment's sorted terms, the order one
// segment of every chunk would give.
void TfidfRetriever::open(const SegmentList& segments) {
  segments_ = &segments;
  index_.open(segments);
  const auto n = static_cast<double>(index_.live_chunks());
  std::vector<double> squares(segments.id_limit(), 0.0);
  for (const auto& part : index_.parts())
    for (std::size_t t = 0; t < part->index.term_count(); ++t) {
      const InvertedIndexSet::TermPostings postings = index_.postings(part->index.term(t));
      const double idf = idf_weight(n, static_cast<double>(postings.document_frequency));
      const InvertedIndex::Postings mine = part->index.postings_of(t);
      for (std::size_t i = 0; i < mine.chunks.size(); ++i) {
        const std::uint32_t c = mine.chunks[i];
        if (c >= part->index.chunk_count()) part->index.damaged();
        if (part->segment.is_removed(c)) continue;
        const double w = tf_weight(mine.frequencies[i]) * idf;
        squares[part->segment.base + c] += w * w;
      }
    }
  inverse_norm_.resize(squares.size());
  for (std::size_t d = 0; d < squares.size(); ++d)
    inverse_norm_[d] = l2_ && squares[d] > 0 ? 1.0 / std::sqrt(squares[d]) : 1.0;
}

std::vector<Hit> TfidfRetriever::search(std::string_view query, std::size_t k) const {
  const auto n = static_cast<double>(index_.live_chunks());
  ScoreAccumulator scores(segments_ ? segments_->id_limit() : 0);
  const auto& analyzers = analyzers_->analyzers();
  for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
    // The query vector of this analyzer, over the corpus vocabulary (unknown terms are no
    // dimension of the space, as in scikit-learn).
    struct Weighted {
      InvertedIndexSet::TermPostings postings;
      double query_weight;
      double idf;
    };
    std::vector<Weighted> terms;
    double square = 0;
    QueryTerms read = query_terms(query, *analyzers[a]);
    for (const auto& [term, count] : read.counted) {
      InvertedIndexSet::TermPostings postings = index_.postings(term);
      if (postings.document_frequency == 0) continue;
      const double idf = idf_weight(n, static_cast<double>(postings.document_frequency));
      const double w = tf_weight(count) * idf;
      square += w * w;
      terms.push_back({std::move(postings), w, idf});
    }
    // A word read several ways is one dimension of the query, whose idf is its readings' as one
    // term (question_words.hpp): each reading's product with a chunk's component (its own idf)
    // is that idf squared, and the dimension counts once in the query's norm.
    const auto frequency = [&](const std::string& term) { return static_cast<double>(index_.postings(term).document_frequency); };
    const auto inverse_frequency = [&](double df) { return idf_weight(n, df); };
    for (std::vector<std::string>& readings : read.read_several_ways) {
      double one = 0;
      for (auto& [term, weight] : weigh_as_one(std::move(readings), n, frequency, inverse_frequency)) {
        InvertedIndexSet::TermPostings postings = index_.postings(term);
        const double idf = idf_weight(n, static_cast<double>(postings.document_frequency));
        one = weight * idf;
        terms.push_back({std::move(postings), tf_weight(1) * one * weight, idf});
      }
      square += tf_weight(1) * one * tf_weight(1) * one;
    }
    const double query_scale = l2_ && square > 0 ? 1.0 / std::sqrt(square) : 1.0;
    for (const auto& [postings, query_weight, idf] : terms)
      index_.for_each_posting(postings, [&, &query_weight = query_weight, &idf = idf](
                                            std::uint32_t id, const InvertedIndexSet::Part& part, std::uint32_t tf,
                                            std::uint32_t c) {
        if (part.index.analyzer_of(c) != a) return;
        scores.add(id, query_weight * query_scale * tf_weight(tf) * idf * inverse_norm_[id]);
      });
  }
  return scores.top(k, segments_);
}

}  // namespace rag
