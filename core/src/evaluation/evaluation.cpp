#include "rag/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "rag/error.hpp"

namespace rag {

double span_iou(const SourceSpan& truth, const SourceSpan& retrieved) {
  if (truth.file_path != retrieved.file_path) return 0.0;
  const double overlap = std::max<double>(
      0.0, static_cast<double>(std::min(truth.last, retrieved.last)) - static_cast<double>(std::max(truth.first, retrieved.first)));
  const double united = static_cast<double>(truth.last - truth.first) +
                        static_cast<double>(retrieved.last - retrieved.first) - overlap;
  return united > 0 ? overlap / united : 0.0;
}

double question_recall(const QuestionOutcome& outcome, std::size_t k) {
  if (outcome.found_at.empty()) return 0.0;
  const auto found = std::count_if(outcome.found_at.begin(), outcome.found_at.end(),
                                   [k](std::size_t rank) { return rank != 0 && rank <= k; });
  return static_cast<double>(found) / static_cast<double>(outcome.found_at.size());
}

double question_ndcg(const QuestionOutcome& outcome, std::size_t k) {
  double gain = 0, ideal = 0;
  for (std::size_t i = 0; i < outcome.found_at.size(); ++i) {
    const std::size_t rank = outcome.found_at[i];
    if (rank != 0 && rank <= k) gain += 1.0 / std::log2(static_cast<double>(rank) + 1.0);
    if (i < k) ideal += 1.0 / std::log2(static_cast<double>(i) + 2.0);
  }
  return ideal > 0 ? gain / ideal : 0.0;
}

Evaluation evaluate(const std::vector<Question>& dataset, const ResultsFile& results, const std::vector<std::size_t>& ks) {
  std::unordered_map<std::string, const SearchResult*> by_id;
  for (const auto& r : results.results) by_id.emplace(r.question_id, &r);
  std::unordered_map<std::string, bool> known;
  for (const auto& q : dataset) known.emplace(q.id, true);
  for (const auto& r : results.results)
    if (!known.count(r.question_id))
      throw Error("results have question_id " + r.question_id + ", which is not in the dataset: wrong dataset file?");

  Evaluation e;
  e.ks = ks;  // each cut-off once, ascending: a k asked twice would be summed twice
  std::sort(e.ks.begin(), e.ks.end());
  e.ks.erase(std::unique(e.ks.begin(), e.ks.end()), e.ks.end());
  e.questions = dataset.size();
  double reciprocal_sum = 0;
  for (const auto& q : dataset) {
    QuestionOutcome outcome{q.id, q.text, std::vector<std::size_t>(q.sources.size(), 0), 0};
    const auto it = by_id.find(q.id);
    if (it != by_id.end()) {
      ++e.answered;
      const auto& sources = it->second->sources;
      outcome.retrieved = sources.size();
      std::size_t first_hit = 0;
      for (std::size_t t = 0; t < q.sources.size(); ++t)
        for (std::size_t rank = 1; rank <= sources.size(); ++rank)
          if (span_iou(q.sources[t], sources[rank - 1].span) > kIouThreshold) {
            outcome.found_at[t] = rank;
            first_hit = first_hit == 0 ? rank : std::min(first_hit, rank);
            break;
          }
      if (first_hit) reciprocal_sum += 1.0 / static_cast<double>(first_hit);
    }
    for (const std::size_t k : e.ks) e.recall[k] += question_recall(outcome, k);
    e.ndcg10 += question_ndcg(outcome, 10);
    e.outcomes.push_back(std::move(outcome));
  }
  if (e.questions) {
    for (auto& [k, sum] : e.recall) sum /= static_cast<double>(e.questions);
    e.mrr = reciprocal_sum / static_cast<double>(e.questions);
    e.ndcg10 /= static_cast<double>(e.questions);
  }
  return e;
}

Reachability reachability(const std::vector<Question>& dataset, const ChunkSource& chunks) {
  Reachability out;
  double recall_sum = 0;
  for (const Question& q : dataset) {
    // As if every span within reach were found first: recall as the grader reckons it.
    QuestionOutcome outcome{q.id, q.text, {}, 0};
    for (const SourceSpan& truth : q.sources) {
      double best = 0;
      SourceSpan candidate{truth.file_path, 0, 0};
      for (const std::uint32_t id : chunks.chunks_of(truth.file_path)) {
        const ChunkView c = chunks.chunk(id);
        candidate.first = c.first_char;
        candidate.last = c.last_char;
        best = std::max(best, span_iou(truth, candidate));
      }
      outcome.found_at.push_back(best > kIouThreshold ? 1 : 0);
      out.spans.push_back({q.id, truth, best});
    }
    recall_sum += question_recall(outcome, 1);
  }
  out.recall = dataset.empty() ? 0.0 : recall_sum / static_cast<double>(dataset.size());
  return out;
}

}  // namespace rag
