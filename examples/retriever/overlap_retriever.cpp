// `overlap`: an example retriever plugin, written against the installed rag SDK only.
// A chunk scores the summed IDF of the distinct query terms it contains (coordination-level
// matching): term frequency and length play no part, so it rewards chunks that mention many
// of the question's words at least once.
#include <cmath>
#include <memory>

#include "rag/analyzer.hpp"
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
        fields_(rag::IndexedFields::from_options(options)),
        index_({"overlap.bin", "overlap", 2}) {  // the file each segment gets: checksummed, written atomically; 2: field counts
    rag::Options analysis = options.child("analysis");
    analyzers_ = std::make_unique<rag::AnalyzerSet>(analysis);
    options.finish();  // an unknown key is an error that names the pipeline file and the key
  }

  void build(const rag::SegmentChunks& chunks, const std::filesystem::path& dir) override {
    index_.build(chunks, *analyzers_, fields_, dir);
  }
  // The index set sums statistics over segments and leaves removed chunks out: `rag index` can
  // add segments and merge them instead of rebuilding everything.
  bool updatable() const override { return true; }
  void merge(const rag::SegmentList& sources, const rag::SegmentChunks&, const std::filesystem::path& dir) override {
    index_.merge(sources, dir);
  }
  void open(const rag::SegmentList& segments) override {
    segments_ = &segments;
    index_.open(segments);
  }

  std::vector<rag::Hit> search(std::string_view query, std::size_t k) const override {
    const auto n = static_cast<double>(index_.live_chunks());
    rag::ScoreAccumulator scores(segments_->id_limit());
    std::vector<double> matched(segments_->id_limit(), 0.0);
    std::vector<std::uint32_t> analyzer_of(segments_->id_limit(), 0);
    const auto& analyzers = analyzers_->analyzers();
    std::vector<std::size_t> query_terms(analyzers.size(), 0);
    for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
      const auto terms = rag::count_terms(analyzers[a]->analyze(query));
      query_terms[a] = terms.size();
      for (const auto& [term, count] : terms) {
        const auto postings = index_.postings(term);
        const double idf = std::log(1.0 + n / static_cast<double>(postings.document_frequency + 1));
        index_.for_each_posting(postings, [&](std::uint32_t id, const auto& part, std::uint32_t, std::uint32_t chunk) {
          if (part.index.analyzer_of(chunk) != a) return;
          scores.add(id, idf);
          matched[id] += 1;
          analyzer_of[id] = a;
        });
      }
    }
    // Chunks below the required share of the query drop out before ranking.
    for (const std::uint32_t id : scores.touched())
      if (matched[id] < min_share_ * static_cast<double>(query_terms[analyzer_of[id]])) scores.scale(id, 0.0);
    auto hits = scores.top(k, segments_);  // equal scores in an order that does not depend on segments
    std::erase_if(hits, [](const rag::Hit& h) { return h.score <= 0; });
    return hits;
  }

 private:
  double min_share_;
  rag::IndexedFields fields_;
  std::unique_ptr<rag::AnalyzerSet> analyzers_;
  rag::InvertedIndexSet index_;
  const rag::SegmentList* segments_ = nullptr;
};

}  // namespace

RAG_PLUGIN_CLASS(OverlapRetriever, "overlap", "1.0.0",
                 "Example: chunks ranked by the summed IDF of the query terms they contain");
