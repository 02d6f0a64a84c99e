#include "bm25_retriever.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace rag {
namespace {

constexpr std::uint32_t kFormat = 1;
constexpr const char* kFile = "bm25.bin";
// Below this many candidates, common terms still bring in chunks of their own.
constexpr std::size_t kMinCandidates = 1000;

}  // namespace

Bm25Retriever::Bm25Retriever(Options& options) : parameters_(Bm25Parameters::from_options(options)) {
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

void Bm25Retriever::build(ChunkList chunks) {
  index_.build(chunks, *analyzers_, fields_);
  prepare(chunks);
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
  prepare(chunks);
}

void Bm25Retriever::prepare(ChunkList chunks) {
  chunks_ = chunks;
  if (file_weight_ > 0) {  // files numbered only for the lift
    std::unordered_map<std::string_view, std::uint32_t> files;
    file_of_.resize(chunks.size());
    for (std::size_t i = 0; i < chunks.size(); ++i)
      file_of_[i] = files.emplace(chunks[i].file_path, static_cast<std::uint32_t>(files.size())).first->second;
    file_count_ = files.size();
  }
  const double average = index_.average_length() > 0 ? index_.average_length() : 1.0;
  length_norm_.resize(index_.chunk_count());
  for (std::uint32_t d = 0; d < length_norm_.size(); ++d)
    length_norm_[d] = 1.0 - parameters_.b + parameters_.b * index_.length(d) / average;
  // Every posting's tf weight, once: a query then only multiplies and adds.
  impacts_.resize(index_.posting_count());
  index_.for_each_term([&](const InvertedIndex::Postings& postings) {
    for (std::size_t i = 0; i < postings.chunks.size(); ++i)
      impacts_[postings.offset + i] = bm25_tf_weight(parameters_, postings.frequencies[i], length_norm_[postings.chunks[i]]);
  });
}

void Bm25Retriever::score(const WeightedTerms& terms, ScoreAccumulator& scores) const {
  const std::size_t n = index_.chunk_count();
  struct Term {
    InvertedIndex::Postings postings;
    double weight;
    std::uint32_t analyzer;
  };
  std::vector<Term> found;
  for (std::uint32_t a = 0; a < terms.size(); ++a)
    for (const auto& [term, weight] : terms[a])
      if (const auto postings = index_.postings(term); !postings.chunks.empty()) found.push_back({postings, weight, a});
  // Rarest first: once rarer terms have found kMinCandidates chunks, terms in more than
  // common_share of the chunks only add to those.
  std::sort(found.begin(), found.end(),
            [](const Term& x, const Term& y) { return x.postings.chunks.size() < y.postings.chunks.size(); });
  const bool single_analyzer = analyzers_->analyzers().size() == 1;
  for (const auto& [postings, weight, a] : found) {
    const double idf = bm25_idf(parameters_, static_cast<double>(n), static_cast<double>(postings.chunks.size()));
    const bool opens = static_cast<double>(postings.chunks.size()) <= common_share_ * static_cast<double>(n) ||
                       scores.touched().size() < kMinCandidates;
    for (std::size_t i = 0; i < postings.chunks.size(); ++i) {
      const std::uint32_t d = postings.chunks[i];
      if (!single_analyzer && index_.analyzer_of(d) != a) continue;
      const double s = weight * idf * impacts_[postings.offset + i];
      if (opens) scores.add(d, s);
      else scores.add_if_present(d, s);
    }
  }
}

Bm25Retriever::WeightedTerms Bm25Retriever::expand(const WeightedTerms& terms, const std::vector<Hit>& top) const {
  const auto n = static_cast<double>(index_.chunk_count());
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
      if (index_.analyzer_of(h.chunk) != a) continue;
      const auto counted = count_terms(analyzers[a]->analyze(chunks_[h.chunk].text));
      double length = 0;
      for (const auto& [term, count] : counted) length += count;
      for (const auto& [term, count] : counted) {
        const auto df = static_cast<double>(index_.postings(term).chunks.size());
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
  std::vector<std::pair<double, double>> best(file_count_, {0.0, 0.0});
  for (const std::uint32_t c : scores.touched()) {
    auto& [first, second] = best[file_of_[c]];
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
    const auto& [first, second] = best[file_of_[c]];
    scores.add(c, file_weight_ * (scores.score(c) == first ? second : first));
  }
}

std::vector<Hit> Bm25Retriever::search(std::string_view query, std::size_t k) const {
  const auto& analyzers = analyzers_->analyzers();
  WeightedTerms terms(analyzers.size());
  for (std::uint32_t a = 0; a < analyzers.size(); ++a)
    for (auto& [term, count] : count_terms(analyzers[a]->analyze(query))) terms[a].emplace_back(std::move(term), count);
  ScoreAccumulator scores(index_.chunk_count());
  score(terms, scores);
  if (feedback_.documents > 0) {
    ScoreAccumulator second(index_.chunk_count());
    score(expand(terms, scores.top(feedback_.documents)), second);
    scores = std::move(second);
  }
  if (file_weight_ > 0) boost_by_file(scores);
  return scores.top(k);
}

}  // namespace rag
