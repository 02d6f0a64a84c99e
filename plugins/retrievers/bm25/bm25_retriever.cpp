#include "bm25_retriever.hpp"

#include "rag/score_accumulator.hpp"

namespace rag {
namespace {

constexpr std::uint32_t kFormat = 1;
constexpr const char* kFile = "bm25.bin";

}  // namespace

Bm25Retriever::Bm25Retriever(Options& options) : parameters_(Bm25Parameters::from_options(options)) {
  fields_ = IndexedFields::from_options(options);
  Options analysis = options.child("analysis");
  analyzers_ = std::make_unique<AnalyzerSet>(analysis);
  options.finish();
}

void Bm25Retriever::build(ChunkList chunks) {
  index_.build(chunks, *analyzers_, fields_);
  prepare();
}

void Bm25Retriever::save(const std::filesystem::path& dir) const {
  BinaryWriter out("bm25", kFormat);
  index_.save(out);
  out.save(dir / kFile);
}

void Bm25Retriever::load(const std::filesystem::path& dir, ChunkList chunks) {
  BinaryReader in(dir / kFile, "bm25", kFormat);
  index_.load(in, chunks.size());
  in.expect_end();
  prepare();
}

void Bm25Retriever::prepare() {
  const double average = index_.average_length() > 0 ? index_.average_length() : 1.0;
  length_norm_.resize(index_.chunk_count());
  for (std::uint32_t d = 0; d < length_norm_.size(); ++d)
    length_norm_[d] = 1.0 - parameters_.b + parameters_.b * index_.length(d) / average;
}

std::vector<Hit> Bm25Retriever::search(std::string_view query, std::size_t k) const {
  const auto n = static_cast<double>(index_.chunk_count());
  ScoreAccumulator scores(index_.chunk_count());
  const auto& analyzers = analyzers_->analyzers();
  for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
    for (const auto& [term, count] : count_terms(analyzers[a]->analyze(query))) {
      const auto postings = index_.postings(term);
      if (postings.chunks.empty()) continue;
      const double idf = bm25_idf(parameters_, n, static_cast<double>(postings.chunks.size()));
      for (std::size_t i = 0; i < postings.chunks.size(); ++i) {
        const std::uint32_t d = postings.chunks[i];
        if (index_.analyzer_of(d) != a) continue;
        scores.add(d, count * idf * bm25_tf_weight(parameters_, postings.frequencies[i], length_norm_[d]));
      }
    }
  }
  return scores.top(k);
}

}  // namespace rag
