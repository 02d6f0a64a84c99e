// Scoring answers (ROUGE-L, token F1, cited sources) and the answers file.
#include "rag/answer_evaluation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/error.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> words(const std::string& text) { return answer_words(text); }

TEST(AnswerWords, LowerCaseSplitIdentifiersNoCitations) {
  EXPECT_THAT(words("Set `max_model_len` in LLMEngine [1]. See [2, 3]."),
              ElementsAre("set", "max", "model", "len", "in", "llm", "engine", "see"));
  EXPECT_THAT(words("The the"), ElementsAre("the", "the"));  // no stopwords dropped, no stemming
}

TEST(RougeL, HandComputed) {
  // LCS of "a b c d e" and "a x c e" is "a c e": P = 3/5, R = 3/4, F = 2PR/(P+R) = 2/3.
  EXPECT_NEAR(rouge_l_f1(words("a b c d e"), words("a x c e")), 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(rouge_l_f1(words("same words"), words("same words")), 1.0);
  EXPECT_DOUBLE_EQ(rouge_l_f1(words("nothing shared"), words("other text")), 0.0);
  EXPECT_DOUBLE_EQ(rouge_l_f1({}, words("x")), 0.0);
  EXPECT_DOUBLE_EQ(rouge_l_f1({}, {}), 1.0);
  // Order matters for ROUGE-L, not for token F1.
  EXPECT_NEAR(rouge_l_f1(words("c b a"), words("a b c")), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(token_f1(words("c b a"), words("a b c")), 1.0);
}

TEST(TokenF1, CountsSharedWordsWithMultiplicity) {
  // Shared: "a" once (the reference has one), "b": P = 2/4, R = 2/3, F = 4/7.
  EXPECT_NEAR(token_f1(words("a a b z"), words("a b c")), 4.0 / 7.0, 1e-12);
  EXPECT_DOUBLE_EQ(token_f1(words("x"), words("y")), 0.0);
}

TEST(DescribeScores, MeanQuartilesAndHistogram) {
  const Distribution d = describe_scores({0.0, 0.1, 0.5, 0.9, 1.0});
  EXPECT_DOUBLE_EQ(d.mean, 0.5);
  EXPECT_DOUBLE_EQ(d.min, 0.0);
  EXPECT_DOUBLE_EQ(d.p25, 0.1);
  EXPECT_DOUBLE_EQ(d.median, 0.5);
  EXPECT_DOUBLE_EQ(d.p75, 0.9);
  EXPECT_DOUBLE_EQ(d.max, 1.0);
  EXPECT_THAT(d.histogram, ElementsAre(2, 0, 1, 0, 2));
  EXPECT_DOUBLE_EQ(describe_scores({0.2, 0.4}).median, 0.3);  // interpolated
  EXPECT_DOUBLE_EQ(describe_scores({}).mean, 0.0);
}

AnsweredResult answered(const std::string& id, const std::string& text, const std::vector<SourceSpan>& cited) {
  AnsweredResult a;
  a.result.question_id = id;
  a.record.answer = text;
  for (const auto& span : cited) a.record.cited.push_back({span, 0, "", "", 0, 0});
  return a;
}

TEST(EvaluateAnswers, ScoresEveryQuestionAndChecksCitations) {
  const std::vector<Question> dataset = {
      {"q1", "one?", {{"f.md", 100, 200}}, "use the awq flag"},
      {"q2", "two?", {{"g.py", 0, 50}}, "it returns none"},
      {"q3", "three?", {{"h.md", 0, 10}}, "never answered"},
      {"q4", "four?", {{"h.md", 0, 10}}, "the sources do not say"},
      {"q5", "five?", {{"h.md", 0, 10}}, "the model was down"},
  };
  std::vector<AnsweredResult> answers = {
      answered("q1", "Use the awq flag [1].", {{"f.md", 150, 900}}),  // overlaps the truth
      answered("q2", "It returns a list.", {{"g.py", 50, 90}}),        // touches it only
      answered("q4", "The sources do not answer this question.", {}),
  };
  answers[2].record.answered = false;
  answers.push_back(answered("q5", "", {}));
  answers[3].record.answered = false;
  answers[3].record.error = "the model server said 429";
  const AnswerEvaluation e = evaluate_answers(dataset, answers);
  EXPECT_EQ(e.questions, 5u);
  EXPECT_EQ(e.answered, 2u);
  EXPECT_EQ(e.declined, 1u);  // its text is scored all the same
  EXPECT_EQ(e.failed, 1u);    // not declined: nothing was said of the sources
  ASSERT_EQ(e.scores.size(), 5u);
  EXPECT_TRUE(e.scores[4].failed);
  EXPECT_FALSE(e.scores[4].declined);
  EXPECT_TRUE(e.scores[3].declined);
  EXPECT_FALSE(e.scores[3].answered);
  EXPECT_GT(e.scores[3].rouge_l, 0.0);
  EXPECT_DOUBLE_EQ(e.scores[0].rouge_l, 1.0);
  EXPECT_TRUE(e.scores[0].cites_truth);
  EXPECT_FALSE(e.scores[1].cites_truth);
  EXPECT_NEAR(e.scores[1].token_f1, 2 * (2.0 / 4) * (2.0 / 3) / (2.0 / 4 + 2.0 / 3), 1e-12);
  EXPECT_FALSE(e.scores[2].answered);
  EXPECT_DOUBLE_EQ(e.scores[2].rouge_l, 0.0);
  EXPECT_FALSE(e.scores[2].declined);
  EXPECT_NEAR(e.cites_truth, 1.0 / 5.0, 1e-12);
  EXPECT_NEAR(e.rouge_l.mean, (1.0 + e.scores[1].rouge_l + e.scores[3].rouge_l) / 5.0, 1e-12);

  EXPECT_THROW(evaluate_answers(dataset, {answered("q9", "x", {})}), Error);
  EXPECT_THROW(evaluate_answers({{"q1", "one?", {}, ""}}, {}), Error);
}

TEST(AnswersFile, SavedAnswersReadBackAndStayAResultsFile) {
  testing::TempDir dir;
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(R"({"search_results": [
      {"question_id": "q1", "question_str": "one?", "retrieved_sources": [
        {"file_path": "f.md", "first_character_index": 0, "last_character_index": 10, "score": 2.5}]},
      {"question_id": "q2", "question_str": "two?", "retrieved_sources": []}], "k": 5})");
  const auto file = dir / "answers.json";
  Support supported;
  supported.coverage = 0.8;
  supported.score = 0.9;
  supported.value = 0.5;
  AnswerRecord cites_one{"Answer one [1].", true, supported, {}, {1}, 1.5, {}};
  cites_one.cited.emplace_back();
  cites_one.cited.back().span = {"f.md", 0, 10};
  Support unwritten;
  unwritten.unwritten = {"--n-gpu-layers", "--ctx-size"};
  const AnswerRecord declines{"The sources do not answer this question.", false, unwritten, {}, {}, 0.5, {}};
  save_answers(file, document, {cites_one, declines});
  const auto saved = nlohmann::json::parse(testing::read_all(file));
  EXPECT_EQ(saved["k"], 5);
  EXPECT_EQ(saved["search_results"][0]["retrieved_sources"][0]["score"], 2.5);  // kept as it was
  EXPECT_EQ(saved["search_results"][0]["answer"], "Answer one [1].");
  EXPECT_EQ(saved["search_results"][0]["cited_sources"][0]["number"], 1);  // what [1] points to
  EXPECT_EQ(load_results(file).results.size(), 2u);

  const auto answers = load_answers(file);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].result.question_id, "q1");
  EXPECT_EQ(answers[0].record.answer, "Answer one [1].");
  ASSERT_EQ(answers[0].record.cited.size(), 1u);
  EXPECT_EQ(answers[0].record.cited[0].span.last, 10u);
  EXPECT_EQ(answers[0].record.cited_numbers, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(answers[0].record.generation_ms, 1.5);
  EXPECT_TRUE(answers[1].record.cited.empty());
  EXPECT_TRUE(answers[0].record.answered);
  EXPECT_FALSE(answers[1].record.answered);
  EXPECT_DOUBLE_EQ(saved["search_results"][0]["support"]["score"].get<double>(), 0.9);
  EXPECT_FALSE(saved["search_results"][0]["support"].contains("unwritten"));
  EXPECT_EQ(saved["search_results"][1]["support"]["unwritten"], nlohmann::json({"--n-gpu-layers", "--ctx-size"}));

  EXPECT_THROW(save_answers(dir / "bad.json", document, {}), Error);
  const auto no_answer = dir.write("plain.json", R"({"search_results": [{"question_id": "q1", "question_str": "one?",
      "retrieved_sources": [{"file_path": "f.md", "first_character_index": 0, "last_character_index": 10}]}], "k": 5})");
  try {
    load_answers(no_answer);
    FAIL() << "a results file without answers was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("search result 1 (q1) has no 'answer' string"));
  }
  const auto uncited = dir.write("uncited.json", R"({"search_results": [{"question_id": "q1", "question_str": "one?",
      "answer": "x", "retrieved_sources": [{"file_path": "f.md", "first_character_index": 0, "last_character_index": 10}]}], "k": 5})");
  EXPECT_EQ(load_answers(uncited)[0].record.cited.size(), 1u);  // its retrieved sources
  const auto bad_cited = dir.write("badcited.json", R"({"search_results": [{"question_id": "q1", "question_str": "one?",
      "answer": "x", "cited_sources": [{"file_path": "f.md"}], "retrieved_sources": []}], "k": 5})");
  EXPECT_THROW(load_answers(bad_cited), Error);
  // A cited span is checked as a retrieved one is: it does not end before it begins.
  const auto backwards = dir.write("backwards.json", R"({"search_results": [{"question_id": "q1", "question_str": "one?",
      "answer": "x", "cited_sources": [{"file_path": "f.md", "first_character_index": 10, "last_character_index": 2}],
      "retrieved_sources": []}], "k": 5})");
  try {
    load_answers(backwards);
    FAIL() << "a cited span that ends before it begins was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("search result 1 (q1), cited source 1: last_character_index is before first_character_index"));
  }
}

}  // namespace
}  // namespace rag
