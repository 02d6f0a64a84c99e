#include "bm25_retriever.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace rag {
namespace {

// Below this many candidates, common terms still bring in chunks of their own.
constexpr std::size_t kMinCandidates = 1000;

}  // namespace

Bm25Retriever::Bm25Retriever(Options& options)
    : parameters_(Bm25Parameters::from_options(options)), index_({"bm25.bin", "bm25", 2}) {  // 2: per segment, read in place
  fields_ = IndexedFields::from_options(options);
  Options feedback = options.child("feedback");
  feedback_.documents = static_cast<std::size_t>(feedback.get_integer("documents", 0, 0, 1000));
  feedback_.terms = static_cast<std::size_t>(feedback.get_integer("terms", 20, 1, 1000));
  feedback_.weight = feedback.get_number("weight", 0.2, 0.0, 1.0);
  feedback.finish();
  file_weight_ = options.get_number("file_weight", 0.0, 0.0, 100.0);
  common_share_ = options.get_number("common_share", 1.0 / 16, 0.0, 1.0);
  Options analysis = options.child("analysis");
  analyzers_ = std::make_unique<AnalyzerSet>(analysis);
  options.finish();
}

void Bm25Retriever::build(const SegmentChunks& chunks, const std::filesystem::path& dir) {
  index_.build(chunks, *analyzers_, fields_, dir);
}

void Bm25Retriever::merge(const SegmentList& sources, const SegmentChunks&, const std::filesystem::path& dir) {
  index_.merge(sources, dir);
}

void Bm25Retriever::open(const SegmentList& segments) {
  segments_ = &segments;
  index_.open(segments);
  average_length_ = index_.live_chunks() > 0 && index_.live_length() > 0
                        ? static_cast<double>(index_.live_length()) / static_cast<double>(index_.live_chunks())
                        : 1.0;
}

void Bm25Retriever::score(const WeightedTerms& terms, ScoreAccumulator& scores) const {
  const auto n = static_cast<double>(index_.live_chunks());
  struct Term {
    InvertedIndexSet::TermPostings postings;
    std::uint32_t analyzer;
    std::string_view term;
    double weight;
  };
  std::vector<Term> found;
  for (std::uint32_t a = 0; a < terms.size(); ++a)
    for (const auto& [term, weight] : terms[a])
      if (auto postings = index_.postings(term); postings.document_frequency > 0)
        found.push_back({std::move(postings), a, term, weight});
  // Rarest first, in an order that does not depend on the segments: once rarer terms have found
  // kMinCandidates chunks, terms in more than common_share of the chunks only add to those.
  std::sort(found.begin(), found.end(), [](const Term& x, const Term& y) {
    return std::tie(x.postings.document_frequency, x.analyzer, x.term) <
           std::tie(y.postings.document_frequency, y.analyzer, y.term);
  });
  const bool single_analyzer = analyzers_->analyzers().size() == 1;
  for (const Term& t : found) {
    const auto df = static_cast<double>(t.postings.document_frequency);
    const double idf = bm25_idf(parameters_, n, df);
    const bool opens = df <= common_share_ * n || scores.touched().size() < kMinCandidates;
    index_.for_each_posting(t.postings, [&](std::uint32_t id, const InvertedIndexSet::Part& part, std::uint32_t tf,
                                            std::uint32_t c) {
      if (!single_analyzer && part.index.analyzer_of(c) != t.analyzer) return;
      const double norm = 1.0 - parameters_.b + parameters_.b * part.index.length(c) / average_length_;
      const double s = t.weight * idf * bm25_tf_weight(parameters_, tf, norm);
      if (opens) scores.add(id, s);
      else scores.add_if_present(id, s);
    });
  }
}

Bm25Retriever::WeightedTerms Bm25Retriever::expand(const WeightedTerms& terms, const std::vector<Hit>& top) const {
  const auto n = static_cast<double>(index_.live_chunks());
  double total = 0;
  for (const Hit& h : top) total += std::max(0.0, h.score);
  if (total <= 0) return terms;
  const auto& analyzers = analyzers_->analyzers();
  WeightedTerms expanded(terms.size());
  for (std::uint32_t a = 0; a < terms.size(); ++a) {
    // The relevance model: each term's share of a feedback chunk, by the chunk's share of the
    // scores, by idf so that words common everywhere do not take over.
    std::map<std::string, double> model;
    for (const Hit& h : top) {
      if (analyzers_->id_for_kind(segments_->chunk(h.chunk).kind) != a) continue;
      const auto counted = count_terms(analyzers[a]->analyze(segments_->chunk(h.chunk).text));
      double length = 0;
      for (const auto& [term, count] : counted) length += count;
      for (const auto& [term, count] : counted) {
        const auto df = static_cast<double>(index_.postings(term).document_frequency);
        model[term] += count / length * std::max(0.0, h.score) / total * std::log(n / std::max(1.0, df));
      }
    }
    std::vector<std::pair<double, std::string>> best;
    for (const auto& [term, weight] : model) best.emplace_back(weight, term);
    const std::size_t keep = std::min(feedback_.terms, best.size());
    std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(keep), best.end(), std::greater<>());
    best.resize(keep);
    double model_sum = 0, query_sum = 0;
    for (const auto& [weight, term] : best) model_sum += weight;
    for (const auto& [term, weight] : terms[a]) query_sum += weight;
    std::map<std::string, double> mixed;
    for (const auto& [term, weight] : terms[a]) mixed[term] += (1 - feedback_.weight) * weight / query_sum;
    if (model_sum > 0)
      for (const auto& [weight, term] : best) mixed[term] += feedback_.weight * weight / model_sum;
    expanded[a].assign(mixed.begin(), mixed.end());
  }
  return expanded;
}

void Bm25Retriever::boost_by_file(ScoreAccumulator& scores) const {
  // The two best scores of each file: a chunk is lifted by the best of the others.
  std::unordered_map<std::uint32_t, std::pair<double, double>> best;
  for (const std::uint32_t c : scores.touched()) {
    auto& [first, second] = best[segments_->file_of(c)];
    const double s = scores.score(c);
    if (s > first) {
      second = first;
      first = s;
    } else if (s > second) {
      second = s;
    }
  }
  // In place: each chunk reads only its own score, and the bests are those before the lift.
  for (const std::uint32_t c : scores.touched()) {
    const auto& [first, second] = best[segments_->file_of(c)];
    scores.add(c, file_weight_ * (scores.score(c) == first ? second : first));
  }
}

std::vector<Hit> Bm25Retriever::search(std::string_view query, std::size_t k) const {
  const auto& analyzers = analyzers_->analyzers();
  WeightedTerms terms(analyzers.size());
  for (std::uint32_t a = 0; a < analyzers.size(); ++a)
    for (auto& [term, count] : count_terms(analyzers[a]->analyze(query))) terms[a].emplace_back(std::move(term), count);
  const std::uint32_t limit = segments_ ? segments_->id_limit() : 0;
  ScoreAccumulator scores(limit);
  score(terms, scores);
  if (feedback_.documents > 0) {
    ScoreAccumulator second(limit);
    score(expand(terms, scores.top(feedback_.documents, segments_)), second);
    scores = std::move(second);
  }
  if (file_weight_ > 0) boost_by_file(scores);
  return scores.top(k, segments_);
}

}  // namespace rag
