#include "rag/evaluation.hpp"

#include "rag/chunk_vector.hpp"
#include "rag/error.hpp"

#include <gtest/gtest.h>

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
