#include "tfidf_retriever.hpp"

#include <cmath>

#include "rag/score_accumulator.hpp"

namespace rag {
namespace {

constexpr std::uint32_t kFormat = 1;
constexpr const char* kFile = "tfidf.bin";

}  // namespace

TfidfRetriever::TfidfRetriever(Options& options) {
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

void TfidfRetriever::build(ChunkList chunks) {
  index_.build(chunks, *analyzers_, fields_);
  prepare();
}

void TfidfRetriever::save(const std::filesystem::path& dir) const {
  BinaryWriter out("tfidf", kFormat);
  index_.save(out);
  out.save(dir / kFile);
}

void TfidfRetriever::load(const std::filesystem::path& dir, ChunkList chunks) {
  BinaryReader in(dir / kFile, "tfidf", kFormat);
  index_.load(in, chunks.size());
  in.expect_end();
  prepare();
}

// Chunk vector lengths, from every posting once: cheaper to recompute at load than to store.
void TfidfRetriever::prepare() {
  const auto n = static_cast<double>(index_.chunk_count());
  std::vector<double> squares(index_.chunk_count(), 0.0);
  index_.for_each_term([&](const InvertedIndex::Postings& postings) {
    const double idf = idf_weight(n, static_cast<double>(postings.chunks.size()));
    for (std::size_t i = 0; i < postings.chunks.size(); ++i) {
      const double w = tf_weight(postings.frequencies[i]) * idf;
      squares[postings.chunks[i]] += w * w;
    }
  });
  inverse_norm_.resize(squares.size());
  for (std::size_t d = 0; d < squares.size(); ++d)
    inverse_norm_[d] = l2_ && squares[d] > 0 ? 1.0 / std::sqrt(squares[d]) : 1.0;
}

std::vector<Hit> TfidfRetriever::search(std::string_view query, std::size_t k) const {
  const auto n = static_cast<double>(index_.chunk_count());
  ScoreAccumulator scores(index_.chunk_count());
  const auto& analyzers = analyzers_->analyzers();
  for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
    // The query vector of this analyzer, over the corpus vocabulary (unknown terms are no
    // dimension of the space, as in scikit-learn).
    struct Weighted {
      InvertedIndex::Postings postings;
      double query_weight;
      double idf;
    };
    std::vector<Weighted> terms;
    double square = 0;
    for (const auto& [term, count] : count_terms(analyzers[a]->analyze(query))) {
      const auto postings = index_.postings(term);
      if (postings.chunks.empty()) continue;
      const double idf = idf_weight(n, static_cast<double>(postings.chunks.size()));
      const double w = tf_weight(count) * idf;
      square += w * w;
      terms.push_back({postings, w, idf});
    }
    const double query_scale = l2_ && square > 0 ? 1.0 / std::sqrt(square) : 1.0;
    for (const auto& [postings, query_weight, idf] : terms)
      for (std::size_t i = 0; i < postings.chunks.size(); ++i) {
        const std::uint32_t d = postings.chunks[i];
        if (index_.analyzer_of(d) != a) continue;
        scores.add(d, query_weight * query_scale * tf_weight(postings.frequencies[i]) * idf * inverse_norm_[d]);
      }
  }
  return scores.top(k);
}

}  // namespace rag
