#pragma once
// Scoring answers against the reference answers of a dataset: ROUGE-L F1 (longest common
// subsequence of words) and token F1 (bag of words, as SQuAD scores), and whether the sources an
// answer cites include the question's ground-truth source.
#include <string>
#include <string_view>
#include <vector>

#include "rag/answers.hpp"
#include "rag/dataset.hpp"

namespace rag {

/// The words answers are compared on: lower case, identifiers split into their parts
/// ("max_model_len" -> max, model, len; "qwen2" stays whole), no stemming, stopwords kept.
/// Citation markers ("[2]") are not words of the answer.
std::vector<std::string> answer_words(std::string_view text);

/// ROUGE-L F1 (beta = 1) of `candidate` against `reference`; 1 when both are empty.
double rouge_l_f1(const std::vector<std::string>& candidate, const std::vector<std::string>& reference);
/// Token F1: harmonic mean of the precision and recall of the shared words, counted with
/// multiplicity; 1 when both are empty.
double token_f1(const std::vector<std::string>& candidate, const std::vector<std::string>& reference);

struct AnswerScore {
  std::string question_id;
  std::string question;
  bool answered = false;      ///< the answers file answers this question (has it, not declined)
  bool declined = false;      ///< the answers file has it and says the sources do not answer it
  bool failed = false;        ///< the answers file has it with the error that stopped its answer
  double rouge_l = 0;
  double token_f1 = 0;
  bool cites_truth = false;   ///< a cited source overlaps a ground-truth span of the same file
};

/// Mean and quartiles of a list of scores.
struct Distribution {
  double mean = 0, min = 0, p25 = 0, median = 0, p75 = 0, max = 0;
  /// How many scores fall in [0, 0.2), [0.2, 0.4), ... [0.8, 1].
  std::vector<std::size_t> histogram = std::vector<std::size_t>(5, 0);
};
Distribution describe_scores(std::vector<double> scores);

struct AnswerEvaluation {
  std::size_t questions = 0;
  std::size_t answered = 0;  ///< questions the answers file answers
  std::size_t declined = 0;  ///< questions it says the sources do not answer
  std::size_t failed = 0;    ///< questions whose answer failed (a model server's error); the rest have no record
  Distribution rouge_l;   ///< over all questions, a missing answer scoring 0
  Distribution token_f1;
  double cites_truth = 0;  ///< share of all questions
  std::vector<AnswerScore> scores;  ///< in the dataset's order
};

/// Scores `answers` against the answered `dataset`. Throws rag::Error when an answer's question
/// is not in the dataset or a question of the dataset has no reference answer.
AnswerEvaluation evaluate_answers(const std::vector<Question>& dataset, const std::vector<AnsweredResult>& answers);

}  // namespace rag
