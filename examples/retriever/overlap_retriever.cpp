// `overlap`: an example retriever plugin, written against the installed rag SDK only.
// A chunk scores the summed IDF of the distinct query terms it contains (coordination-level
// matching): term frequency and length play no part, so it rewards chunks that mention many
// of the question's words at least once.
#include <cmath>
#include <memory>

#include "rag/analyzer.hpp"
#include "rag/binary_file.hpp"
#include "rag/inverted_index.hpp"
#include "rag/plugin.hpp"
#include "rag/score_accumulator.hpp"

namespace {

class OverlapRetriever final : public rag::Retriever {
 public:
  // Options: min_share (the share of the query's terms a chunk must contain, 0 to 1),
  // index_path, index_section and analysis, exactly as the bm25 retriever reads them.
  explicit OverlapRetriever(rag::Options& options)
      : min_share_(options.get_number("min_share", 0.0, 0.0, 1.0)),
        fields_(rag::IndexedFields::from_options(options)) {
    rag::Options analysis = options.child("analysis");
    analyzers_ = std::make_unique<rag::AnalyzerSet>(analysis);
    options.finish();  // an unknown key is an error that names the pipeline file and the key
  }

  void build(rag::ChunkList chunks) override { index_.build(chunks, *analyzers_, fields_); }

  void save(const std::filesystem::path& dir) const override {
    rag::BinaryWriter out("overlap", kFormat);  // checksummed, written atomically
    index_.save(out);
    out.save(dir / "overlap.bin");
  }

  void load(const std::filesystem::path& dir, rag::ChunkList chunks) override {
    rag::BinaryReader in(dir / "overlap.bin", "overlap", kFormat);
    index_.load(in, chunks.size());
    in.expect_end();
  }

  std::vector<rag::Hit> search(std::string_view query, std::size_t k) const override {
    const auto n = static_cast<double>(index_.chunk_count());
    rag::ScoreAccumulator scores(index_.chunk_count());
    std::vector<double> matched(index_.chunk_count(), 0.0);
    const auto& analyzers = analyzers_->analyzers();
    std::vector<std::size_t> query_terms(analyzers.size(), 0);
    for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
      const auto terms = rag::count_terms(analyzers[a]->analyze(query));
      query_terms[a] = terms.size();
      for (const auto& [term, count] : terms) {
        const auto postings = index_.postings(term);
        const double idf = std::log(1.0 + n / static_cast<double>(postings.chunks.size() + 1));
        for (const std::uint32_t chunk : postings.chunks) {
          if (index_.analyzer_of(chunk) != a) continue;
          scores.add(chunk, idf);
          matched[chunk] += 1;
        }
      }
    }
    // Chunks below the required share of the query drop out before ranking.
    for (const std::uint32_t chunk : scores.touched())
      if (matched[chunk] < min_share_ * static_cast<double>(query_terms[index_.analyzer_of(chunk)]))
        scores.scale(chunk, 0.0);
    auto hits = scores.top(k);
    std::erase_if(hits, [](const rag::Hit& h) { return h.score <= 0; });
    return hits;
  }

 private:
  static constexpr std::uint32_t kFormat = 1;
  double min_share_;
  rag::IndexedFields fields_;
  std::unique_ptr<rag::AnalyzerSet> analyzers_;
  rag::InvertedIndex index_;
};

}  // namespace

RAG_PLUGIN_CLASS(OverlapRetriever, "overlap", "1.0.0",
                 "Example: chunks ranked by the summed IDF of the query terms they contain");
