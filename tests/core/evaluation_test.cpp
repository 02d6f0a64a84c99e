#include "rag/evaluation.hpp"

#include "rag/chunk_vector.hpp"
#include "rag/cross_validation.hpp"
#include "rag/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace rag {
namespace {

RetrievedSource source(const std::string& file, std::size_t first, std::size_t last) {
  return {{file, first, last}, 0, "", ""};
}

TEST(SpanIou, HandComputedCases) {
  EXPECT_DOUBLE_EQ(span_iou({"a", 0, 100}, {"a", 0, 100}), 1.0);
  EXPECT_DOUBLE_EQ(span_iou({"a", 0, 100}, {"a", 50, 150}), 50.0 / 150.0);
  EXPECT_DOUBLE_EQ(span_iou({"a", 0, 100}, {"a", 100, 200}), 0.0);  // touching is not overlapping
  EXPECT_DOUBLE_EQ(span_iou({"a", 0, 100}, {"b", 0, 100}), 0.0);    // another file
  EXPECT_DOUBLE_EQ(span_iou({"a", 10, 90}, {"a", 0, 2000}), 80.0 / 2000.0);
}

TEST(Evaluate, ThresholdIsStrictlyAboveFivePercent) {
  // 100 chars of truth inside a 2000-char span: IoU 0.05 exactly, not found.
  const std::vector<Question> dataset = {{"q", "?", {{"f", 0, 100}}, ""}};
  ResultsFile exactly{{{"q", "?", {source("f", 0, 2000)}, 0}}, 10};
  EXPECT_DOUBLE_EQ(evaluate(dataset, exactly).recall.at(10), 0.0);
  ResultsFile above{{{"q", "?", {source("f", 0, 1999)}, 0}}, 10};
  EXPECT_DOUBLE_EQ(evaluate(dataset, above).recall.at(10), 1.0);
}

TEST(Evaluate, RecallAtKMrrAndMissingQuestions) {
  const std::vector<Question> dataset = {
      {"q1", "one", {{"f", 0, 100}}, ""},
      {"q2", "two", {{"g", 0, 100}, {"h", 0, 100}}, ""},
      {"q3", "three", {{"f", 0, 100}}, ""},  // absent from the results: counts 0
  };
  ResultsFile results{{{"q1", "one", {source("x", 0, 10), source("x", 0, 10), source("f", 0, 100)}, 0},
                       {"q2", "two", {source("g", 0, 100), source("x", 0, 1), source("x", 0, 1), source("x", 0, 1), source("x", 0, 1), source("h", 50, 100)}, 0}},
                      10};
  const Evaluation e = evaluate(dataset, results);
  EXPECT_DOUBLE_EQ(e.recall.at(1), (0.0 + 0.5 + 0.0) / 3);
  EXPECT_DOUBLE_EQ(e.recall.at(3), (1.0 + 0.5 + 0.0) / 3);
  EXPECT_DOUBLE_EQ(e.recall.at(5), (1.0 + 0.5 + 0.0) / 3);
  EXPECT_DOUBLE_EQ(e.recall.at(10), (1.0 + 1.0 + 0.0) / 3);
  EXPECT_DOUBLE_EQ(e.mrr, (1.0 / 3 + 1.0 + 0.0) / 3);
  EXPECT_EQ(e.answered, 2u);
  // q1: one truth at rank 3; q2: truths at ranks 1 and 6 over an ideal of ranks 1 and 2.
  const double q1 = 1 / std::log2(4.0);
  const double q2 = (1 + 1 / std::log2(7.0)) / (1 + 1 / std::log2(3.0));
  EXPECT_DOUBLE_EQ(e.ndcg10, (q1 + q2 + 0.0) / 3);
  EXPECT_EQ(e.outcomes[1].found_at, (std::vector<std::size_t>{1, 6}));
}

TEST(Evaluate, ACutOffAskedTwiceCountsOnce) {
  const std::vector<Question> dataset = {{"q1", "one", {{"f", 0, 100}}, ""}};
  ResultsFile results{{{"q1", "one", {source("f", 0, 100)}, 0}}, 10};
  const Evaluation e = evaluate(dataset, results, {5, 1, 5, 1, 1});
  EXPECT_EQ(e.ks, (std::vector<std::size_t>{1, 5}));
  EXPECT_DOUBLE_EQ(e.recall.at(1), 1.0);
  EXPECT_DOUBLE_EQ(e.recall.at(5), 1.0);
}

TEST(Reachability, ASpanIsWithinReachWhenAChunkOfItsFileOverlapsItAboveTheThreshold) {
  auto chunk = [](const std::string& file, std::size_t first, std::size_t last) {
    Chunk c;
    c.file_path = file;
    c.first_char = first;
    c.last_char = last;
    return c;
  };
  const std::vector<Chunk> chunks = {chunk("f", 0, 2000), chunk("f", 2000, 2500), chunk("g", 0, 100)};
  const std::vector<Question> dataset = {
      {"q1", "one", {{"f", 2100, 2400}}, ""},                  // inside the second chunk of f
      {"q2", "two", {{"f", 0, 100}, {"h", 0, 10}}, ""},         // IoU 0.05 exactly; no chunk of h
      {"q3", "three", {{"g", 50, 150}}, ""},                   // half of g's chunk
      {"q4", "four", {{"g", 0, 90}, {"f", 1000, 1100}}, ""},    // 0.9 of g's chunk; 0.05 of f's first
  };
  const Reachability r = reachability(dataset, ChunkVector(chunks));
  ASSERT_EQ(r.spans.size(), 6u);
  EXPECT_DOUBLE_EQ(r.spans[0].best_iou, 300.0 / 500.0);
  EXPECT_DOUBLE_EQ(r.spans[1].best_iou, 0.05);
  EXPECT_DOUBLE_EQ(r.spans[2].best_iou, 0.0);
  EXPECT_EQ(r.spans[2].truth.file_path, "h");
  EXPECT_DOUBLE_EQ(r.spans[3].best_iou, 50.0 / 150.0);
  EXPECT_EQ(r.spans[4].question_id, "q4");
  // The mean over questions of each one's share within reach (q4: one of two), not the share
  // of all spans (2 of 6).
  EXPECT_DOUBLE_EQ(r.recall, (1.0 + 0.0 + 1.0 + 0.5) / 4);
  EXPECT_DOUBLE_EQ(reachability({}, ChunkVector(chunks)).recall, 0.0);
}

TEST(Evaluate, UnknownQuestionIdIsAnError) {
  const std::vector<Question> dataset = {{"q1", "one", {{"f", 0, 100}}, ""}};
  ResultsFile results{{{"nope", "?", {}, 0}}, 10};
  EXPECT_THROW(evaluate(dataset, results), Error);
}

}  // namespace
}  // namespace rag

namespace rag {
namespace {

Question about(const std::string& id, std::vector<std::string> files) {
  Question q{id, "q", {}, ""};
  for (auto& f : files) q.sources.push_back({std::move(f), 0, 10});
  return q;
}

TEST(CrossValidation, QuestionsAboutOneFileShareAFold) {
  // a, b and c are linked through the files they share; d, e, f stand alone.
  const std::vector<Question> questions = {about("a", {"x"}), about("b", {"x", "y"}), about("c", {"y"}),
                                           about("d", {"z"}), about("e", {"w"}),      about("f", {"v"})};
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const std::vector<std::size_t> fold = assign_folds(questions, 3, seed);
    EXPECT_EQ(fold[0], fold[1]);
    EXPECT_EQ(fold[1], fold[2]);
    // The group of three takes a fold; the three single ones fill the other two.
    std::vector<std::size_t> size(3, 0);
    for (const std::size_t f : fold) ++size[f];
    std::sort(size.begin(), size.end());
    EXPECT_EQ(size, (std::vector<std::size_t>{1, 2, 3}));
  }
  EXPECT_THROW(assign_folds(questions, 5, 1), Error);  // only four groups
}

TEST(CrossValidation, ChoosesOnTrainingFoldsAndScoresTheHeldOutOne) {
  // Two configurations, one dataset of four questions in two folds: configuration 1 is better on
  // fold 0, configuration 0 on fold 1, so each fold is scored with the other's choice.
  TuningData data;
  data.folds = 2;
  data.fold = {{0, 0, 1, 1}};
  data.score = {{{0.0, 0.0, 1.0, 1.0}}, {{1.0, 1.0, 0.0, 0.5}}};
  const CrossValidation cv = cross_validate(data);
  EXPECT_EQ(cv.chosen, (std::vector<std::size_t>{0, 1}));  // fold 0 held out: fold 1 prefers 0
  EXPECT_DOUBLE_EQ(cv.held_out[0][0], 0.0);
  EXPECT_DOUBLE_EQ(cv.held_out[0][1], 0.25);
  EXPECT_EQ(cv.question_score[0], (std::vector<double>{0.0, 0.0, 0.0, 0.5}));
  EXPECT_EQ(cv.chosen_on_all, 1u);  // 0.625 against 0.5 on all questions
  // Datasets weigh the same, whatever their size; ties go to the first configuration.
  data.fold = {{0, 1}, {0, 1, 0, 1, 0, 1}};
  data.score = {{{1.0, 1.0}, {0, 0, 0, 0, 0, 0}}, {{0.0, 0.0}, {1, 1, 1, 1, 1, 1}}};
  EXPECT_EQ(cross_validate(data).chosen_on_all, 0u);
}

}  // namespace
}  // namespace rag
