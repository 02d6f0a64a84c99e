// libFuzzer target: questions in other languages read in English (QueryTranslator) on arbitrary
// bytes, with the test fixtures' dictionaries and glossary and a made-up corpus count. The
// input's first byte chooses a frame that makes the language detected ("Что такое ...?",
// "Qu'est-ce que ... ?", "Was ist ...?", "¿Qué es ...?") or none; the rest is the question's
// body. Invariants: no exception; for a UTF-8 question, UTF-8 queries (with and without corpus
// counts); the same query twice.
#include <yaml-cpp/yaml.h>

#include <functional>

#include "fuzz_check.hpp"
#include "rag/options.hpp"
#include "rag/translation.hpp"
#include "rag/utf8.hpp"

namespace {

const rag::QueryTranslator& translator() {
  static const rag::QueryTranslator instance = [] {
    rag::Options options(YAML::Load("{dictionaries: " RAG_DICTD_FIXTURES ", glossary: " RAG_DICTD_FIXTURES
                                    "/tiny-glossary.tsv, languages: {fr: [tiny-fra-eng], de: [tiny-deu-eng], "
                                    "es: [tiny-fra-eng], ru: [{reverse: tiny-eng-rus}]}}"),
                         "fuzz: translation");
    return rag::QueryTranslator(rag::TranslationConfig::from_options(options, "."));
  }();
  return instance;
}

// About one word in five is in the "corpus", a fixed number of times: enough for every choice
// among translations, cognates and loanword spellings to be taken.
std::size_t corpus_count(std::string_view word) {
  const std::size_t h = std::hash<std::string_view>{}(word);
  return h % 5 == 0 ? 1 + h % 300 : 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const std::string_view frames[][2] = {
      {"", ""}, {"Что такое ", "?"}, {"Qu'est-ce que ", " ?"}, {"Was ist ", "?"}, {"¿Qué es ", "?"}};
  const auto& frame = frames[data[0] % std::size(frames)];
  std::string question(frame[0]);
  question.append(reinterpret_cast<const char*>(data) + 1, size - 1).append(frame[1]);

  std::string query, without_counts;
  try {
    query = translator().translate(question, corpus_count);
    FUZZ_CHECK(translator().translate(question, corpus_count) == query, "a second translation differs");
    without_counts = translator().translate(question);  // the dictionaries' first senses
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("translate() threw: ") + e.what());
  }
  if (rag::utf8::is_valid(question)) {
    FUZZ_CHECK(rag::utf8::is_valid(query), "the query is not UTF-8");
    FUZZ_CHECK(rag::utf8::is_valid(without_counts), "the query without counts is not UTF-8");
  }
  return 0;
}
