#pragma once
// Choosing a pipeline's options so that the figure reported is the one held-out questions get:
// k-fold cross-validation where questions about the same source file are never split between
// folds (a file is never both trained and tested on), the choice made on the training folds and
// scored on the held-out one. What `rag tune` runs.
#include <cstdint>
#include <vector>

#include "rag/dataset.hpp"

namespace rag {

/// The fold (0 to folds - 1) of each question: questions that share a ground-truth file are one
/// group, and groups are dealt to folds largest first, each to the fold with the fewest questions
/// so far (ties in an order the seed shuffles). Throws rag::Error when there are fewer groups
/// than folds.
std::vector<std::size_t> assign_folds(const std::vector<Question>& questions, std::size_t folds, std::uint64_t seed);

/// The questions of several datasets, each with its scores under several configurations.
struct TuningData {
  /// score[c][d][q]: question q of dataset d under configuration c (recall@k, say).
  std::vector<std::vector<std::vector<double>>> score;
  /// fold[d][q]: the fold of question q of dataset d.
  std::vector<std::vector<std::size_t>> fold;
  std::size_t folds = 5;
};

struct CrossValidation {
  /// chosen[f]: the configuration best on every fold but f (mean over datasets of each
  /// dataset's mean score on those folds; ties go to the lower index).
  std::vector<std::size_t> chosen;
  /// held_out[d][f]: dataset d's mean score on fold f under chosen[f].
  std::vector<std::vector<double>> held_out;
  /// question_score[d][q]: question q's score under the configuration chosen without its fold.
  std::vector<std::vector<double>> question_score;
  /// The configuration chosen on all questions: what a tuned pipeline ships with.
  std::size_t chosen_on_all = 0;
};

CrossValidation cross_validate(const TuningData& data);

}  // namespace rag
