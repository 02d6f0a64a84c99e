#include "rag/analyzer.hpp"
#include "rag/question_words.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace rag {
namespace {

using ::testing::ElementsAre;

AnalyzerConfig plain() {
  AnalyzerConfig c;
  c.stemmer = "none";
  c.stopwords = "none";
  return c;
}

TEST(Analyzer, SplitsSnakeCamelAndDottedIdentifiersKeepingCompounds) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze("max_model_len"), ElementsAre("max", "model", "len", "max_model_len"));
  EXPECT_THAT(a.analyze("getHTTPServer"), ElementsAre("get", "http", "server", "gethttpserver"));
  EXPECT_THAT(a.analyze("vllm.engine.LLMEngine"),
              ElementsAre("vllm", "engine", "llm", "engine", "llmengine", "vllm.engine.llmengine"));
  EXPECT_THAT(a.analyze("models/step3_text.py"),
              ElementsAre("models", "step", "3", "text", "step3_text", "py", "step3_text.py"));
  EXPECT_THAT(a.analyze("--tensor-parallel-size"), ElementsAre("tensor", "parallel", "size", "tensor-parallel-size"));
}

TEST(Analyzer, SplitsLettersFromDigitsUnlessAskedNotTo) {
  EXPECT_THAT(Analyzer(plain()).analyze("Qwen2ForCausalLM"),
              ElementsAre("qwen", "2", "for", "causal", "lm", "qwen2forcausallm"));
  EXPECT_THAT(Analyzer(plain()).analyze("fp8"), ElementsAre("fp", "8", "fp8"));
  AnalyzerConfig c = plain();
  c.split_digits = false;
  EXPECT_THAT(Analyzer(c).analyze("Qwen2ForCausalLM"), ElementsAre("qwen2", "for", "causal", "lm", "qwen2forcausallm"));
}

TEST(Analyzer, SentencePunctuationIsNotAJoiner) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze("Use vLLM. Then serve."), ElementsAre("use", "v", "llm", "vllm", "then", "serve"));
}

TEST(Analyzer, WithoutSplittingAWordIsOneTerm) {
  AnalyzerConfig c = plain();
  c.split_identifiers = false;
  EXPECT_THAT(Analyzer(c).analyze("max_model_len Foo"), ElementsAre("max_model_len", "foo"));
}

TEST(Analyzer, StemsAndDropsStopwordsButKeepsCompounds) {
  AnalyzerConfig c;  // english stemmer and stopwords
  EXPECT_THAT(Analyzer(c).analyze("How does the server handle running requests?"),
              ElementsAre("server", "handl", "run", "request"));
  EXPECT_THAT(Analyzer(c).analyze("is_running"), ElementsAre("run", "is_running"));  // typed with its '_
  // A compound is stemmed as a word is, so that one typed whole in lower case meets it.
  EXPECT_THAT(Analyzer(c).analyze("PagedAttention"), ElementsAre("page", "attent", "pagedattent"));
  EXPECT_THAT(Analyzer(c).analyze("pagedattention"), ElementsAre("pagedattent"));
  EXPECT_THAT(Analyzer(c).analyze("LLMEngine llmengine"), ElementsAre("llm", "engin", "llmengin", "llmengin"));
  // Words met again come from the thread's cache, stopwords included: the same terms.
  const Analyzer a(c);
  for (int round = 0; round < 3; ++round)
    EXPECT_THAT(a.analyze("The server; THE SERVERS, the Server's"), ElementsAre("server", "server", "server")) << round;
}

TEST(Analyzer, LowercaseCanBeTurnedOff) {
  AnalyzerConfig c = plain();
  c.lowercase = false;
  c.split_identifiers = false;
  EXPECT_THAT(Analyzer(c).analyze("LoRA"), ElementsAre("LoRA"));
}

TEST(Analyzer, LettersOfEveryScriptMakeWordsAndAreLowercased) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze("Modèle MODÈLE Модели ok"), ElementsAre("modèle", "modèle", "модели", "ok"));
  // A combining accent stays in its word; one with no word before it is dropped.
  EXPECT_THAT(a.analyze("cafe\u0301 \u0301x"), ElementsAre("cafe\u0301", "x"));
}

TEST(Analyzer, PunctuationOfEveryScriptSeparatesWordsAndPictographsAreTerms) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze("vLLM\u2019s \u201cfast\u201d\u2014really done\u3002 x+y=z \u2211"),
              ElementsAre("v", "llm", "vllm", "s", "fast", "really", "done", "x", "y", "z"));
  // A pictograph is a term, its variation selector is not; so is each of a run.
  EXPECT_THAT(a.analyze("\u2705\uFE0E yes \U0001F6A7\u26A0\uFE0F"), ElementsAre("\u2705", "yes", "\U0001F6A7", "\u26A0"));
}

TEST(Analyzer, ChineseJapaneseAndKoreanRunsAreIndexedAsOverlappingPairs) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze("推理服务器，模型"), ElementsAre("推理", "理服", "服务", "务器", "模型"));
  EXPECT_THAT(a.analyze("模 GPU"), ElementsAre("模", "gpu"));
  EXPECT_THAT(a.analyze("モデルA"), ElementsAre("モデ", "デル", "a"));
}

TEST(Analyzer, MalformedUtf8SeparatesInsteadOfFailing) {
  const Analyzer a(plain());
  EXPECT_THAT(a.analyze(std::string("ab\xff\xfe" "cd \xe6\x8e")), ElementsAre("ab", "cd"));
}

TEST(Analyzer, MinLengthDropsShortParts) {
  AnalyzerConfig c = plain();
  c.min_length = 2;
  EXPECT_THAT(Analyzer(c).analyze("a_bc x"), ElementsAre("bc", "a_bc"));
}

TEST(AnalyzerConfig, ReadsOptionsAndRejectsUnknownOnes) {
  YAML::Node node = YAML::Load("{stemmer: none, stopwords: none, lowercase: false}");
  Options options(node, "p.yaml: analysis.default");
  const AnalyzerConfig c = AnalyzerConfig::from_options(options, {});
  EXPECT_FALSE(c.lowercase);
  EXPECT_EQ(c.stemmer, "none");

  YAML::Node typo = YAML::Load("{stemer: english}");
  Options bad(typo, "p.yaml: analysis.default");
  EXPECT_THROW(AnalyzerConfig::from_options(bad, {}), Error);

  YAML::Node unknown_stemmer = YAML::Load("{stemmer: klingon}");
  Options bad_stemmer(unknown_stemmer, "p.yaml");
  try {
    AnalyzerConfig::from_options(bad_stemmer, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("klingon"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("english"));
  }
}

TEST(AnalyzerSet, KindsShareEqualConfigurations) {
  YAML::Node node = YAML::Load("{default: {stemmer: english}, python: {stemmer: none}, markdown: {stemmer: english}}");
  Options options(node, "p.yaml: analysis");
  const AnalyzerSet set(options);
  EXPECT_EQ(set.analyzers().size(), 2u);
  EXPECT_EQ(set.id_for_kind("markdown"), set.id_for_kind("text"));
  EXPECT_NE(set.id_for_kind("python"), set.id_for_kind("text"));
}

TEST(QuestionWords, ReadingsJoinedByABarAreOneWordFoundByAnyOfThem) {
  const Analyzer a(plain());
  const std::vector<QuestionWord> words = question_words("how change|alter|modify the max_model_len", a);
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[1].text, "change");
  ASSERT_EQ(words[1].readings().size(), 3u);
  EXPECT_EQ(words[1].readings()[2]->text, "modify");
  EXPECT_EQ(words[1].coverage({"alter", "port"}), 1.0);
  EXPECT_EQ(words[1].coverage({"port"}), 0.0);
  // An identifier is still covered in part by some of its parts.
  EXPECT_DOUBLE_EQ(words[3].coverage({"max", "model"}), 2.0 / 3.0);
}

TEST(QueryTerms, AWordReadSeveralWaysIsKeptApartFromTheWordsReadOneWay) {
  const Analyzer a(plain());
  const QueryTerms q = query_terms("set mode|modes|mode the mode | x max_len|limit", a);
  EXPECT_THAT(q.counted, ElementsAre(std::pair<std::string, std::uint32_t>{"mode", 1}, std::pair<std::string, std::uint32_t>{"set", 1},
                                     std::pair<std::string, std::uint32_t>{"the", 1}, std::pair<std::string, std::uint32_t>{"x", 1}));
  // Each word's readings: their distinct terms, sorted; a bar between spaces joins nothing.
  ASSERT_EQ(q.read_several_ways.size(), 2u);
  EXPECT_THAT(q.read_several_ways[0], ElementsAre("mode", "modes"));
  EXPECT_THAT(q.read_several_ways[1], ElementsAre("len", "limit", "max", "max_len"));
  // Readings that are all stopwords leave nothing.
  AnalyzerConfig english = plain();
  english.stopwords = "english";
  EXPECT_TRUE(query_terms("the|a mode", Analyzer(english)).read_several_ways.empty());
}

TEST(QueryTerms, ReadingsWeighAsOneTermOfTheirDocumentFrequenciesSummed) {
  const std::map<std::string, double> frequency = {{"several", 30}, {"severally", 1}, {"sundry", 0}};
  const auto df = [&](const std::string& term) { return frequency.at(term); };
  const auto idf = [](double f) { return std::log(100.0 / f); };
  const auto weighed = weigh_as_one({"several", "severally", "sundry"}, 100, df, idf);
  ASSERT_EQ(weighed.size(), 2u);  // no chunk holds "sundry"
  EXPECT_EQ(weighed[0].first, "several");
  EXPECT_DOUBLE_EQ(weighed[0].second * idf(30), std::log(100.0 / 31));
  EXPECT_EQ(weighed[1].first, "severally");
  EXPECT_DOUBLE_EQ(weighed[1].second * idf(1), std::log(100.0 / 31));
  // Robertson's idf, negative for a term most chunks hold: the readings still score by the one
  // term's (their summed frequency); a reading whose own idf is 0 adds nothing anyway.
  const auto robertson = [](double f) { return std::log((40 - f + 0.5) / (f + 0.5)); };
  const auto common = weigh_as_one({"several", "severally"}, 40, df, robertson);
  EXPECT_DOUBLE_EQ(common[0].second * robertson(30), robertson(31));
  EXPECT_DOUBLE_EQ(common[1].second * robertson(1), robertson(31));
  const std::map<std::string, double> half = {{"half", 20}};
  EXPECT_EQ(weigh_as_one({"half"}, 40, [&](const std::string& t) { return half.at(t); }, robertson)[0].second, 1.0);
}

}  // namespace
}  // namespace rag
