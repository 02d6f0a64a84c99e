#pragma once
// Scoring retrieval exactly as the school's grader does: a ground-truth span is found by a
// retrieved span of the same file whose IoU with it is strictly above 0.05; a question's
// recall@k is the share of its ground-truth spans found in its first k results; a dataset's
// recall@k is the mean over all its questions, a question without results counting 0.
#include <map>
#include <string>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/dataset.hpp"

namespace rag {

inline constexpr double kIouThreshold = 0.05;

/// Intersection over union of two spans; 0 when the files differ.
double span_iou(const SourceSpan& truth, const SourceSpan& retrieved);

struct QuestionOutcome {
  std::string question_id;
  std::string question;
  /// For each ground-truth span, the 1-based rank of the first retrieved span that finds it,
  /// or 0 when none of the results does.
  std::vector<std::size_t> found_at;
  std::size_t retrieved = 0;
};

struct Evaluation {
  std::vector<std::size_t> ks;           ///< the cut-offs asked for, each once, ascending
  std::map<std::size_t, double> recall;  ///< k -> mean recall@k
  double mrr = 0;                        ///< mean reciprocal rank of the first hit, over all results
  double ndcg10 = 0;                     ///< mean nDCG@10, each ground-truth span a relevant item
  std::size_t questions = 0;
  std::size_t answered = 0;  ///< questions that have an entry in the results
  std::vector<QuestionOutcome> outcomes;
};

/// Scores `results` against the answered `dataset`. Throws rag::Error when a result's question
/// id is not in the dataset (the grader would crash on it).
Evaluation evaluate(const std::vector<Question>& dataset, const ResultsFile& results,
                    const std::vector<std::size_t>& ks = {1, 3, 5, 10});

/// Recall of one question at k from its outcome.
double question_recall(const QuestionOutcome& outcome, std::size_t k);
/// nDCG@k of one question: each ground-truth span found at rank r gains 1 / log2(r + 1), over
/// the gain of all of them found at the top ranks.
double question_ndcg(const QuestionOutcome& outcome, std::size_t k);

/// What a chunking allows at best: a ground-truth span is within reach when some chunk of its
/// file overlaps it with IoU above kIouThreshold. `recall` is the grader's recall when every
/// span within reach counts as found (the "oracle recall", the ceiling of any ranking of these
/// chunks with enough results): the mean over questions of the share of their spans within
/// reach, which is the share of all spans when every question has one.
struct Reachability {
  struct Span {
    std::string question_id;
    SourceSpan truth;
    double best_iou = 0;  ///< the best IoU of a chunk with it
  };
  double recall = 0;
  std::vector<Span> spans;  ///< every ground-truth span, in dataset order
};

Reachability reachability(const std::vector<Question>& dataset, const ChunkSource& chunks);

}  // namespace rag
