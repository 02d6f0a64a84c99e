// Questions in other languages read in English: dictd dictionaries (the fixtures in
// tests/fixtures/dictd: a French-English one compressed with dictzip in 64-byte chunks, so that
// entries straddle chunks, a plain English-Russian one read in reverse and a plain German-English
// one), the pipeline's
// `translation:` section and its errors; and, with the dictionaries Debian installs, real
// questions.
#include "rag/translation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kFixtures = std::filesystem::path(RAG_TEST_FIXTURES) / "dictd";

TranslationConfig config_of(const std::string& yaml, const std::filesystem::path& base = kFixtures) {
  Options options(YAML::Load(yaml), "p.yaml: translation");
  return TranslationConfig::from_options(options, base);
}

// The fixtures' French and Russian dictionaries with the glossary `tsv`, written in `dir`.
TranslationConfig with_glossary(const testing::TempDir& dir, const std::string& tsv) {
  dir.write("glossary.tsv", tsv);
  return config_of("{dictionaries: " + kFixtures.string() +
                       ", glossary: glossary.tsv, languages: {fr: [tiny-fra-eng], ru: [{reverse: tiny-eng-rus}]}}",
                   dir.path());
}

QueryTranslator fixture_translator() {
  return QueryTranslator(config_of("{dictionaries: ., languages: {fr: [tiny-fra-eng], ru: [{reverse: tiny-eng-rus}]}}"));
}

TEST(Translation, EnglishAndUntranslatedLanguagesPassAsTheyAre) {
  const QueryTranslator translator = fixture_translator();
  EXPECT_EQ(translator.translate("How do I start the server?"), "How do I start the server?");
  EXPECT_EQ(translator.translate("Wie starte ich den Server?"), "Wie starte ich den Server?");  // no German dictionary
  EXPECT_EQ(QueryTranslator().translate("Comment démarrer le serveur ?"), "Comment démarrer le serveur ?");
}

TEST(Translation, FrenchWordsTranslatedIdentifiersKeptFunctionWordsDropped) {
  const QueryTranslator translator = fixture_translator();
  const std::string query = translator.translate("Comment installer le modèle avec `vllm serve` et tensor_parallel_size ?");
  EXPECT_THAT(query, AllOf(HasSubstr("how"), HasSubstr("install"), HasSubstr("model"), HasSubstr("vllm serve"),
                           HasSubstr("tensor_parallel_size")));
  EXPECT_THAT(query, AllOf(Not(HasSubstr(" le ")), Not(HasSubstr("avec"))));
  // Another form of a headword is found by its stem: "mémoires" is "mémoire".
  EXPECT_THAT(translator.translate("Quelle mémoire utiliser ?"), AllOf(HasSubstr("which"), HasSubstr("memory"), HasSubstr("use")));
  // A pronoun after its verb ("puis-je", "est-il", "a-t-il") is not a flag to keep: the verb is
  // read, the pronoun dropped; a flag written without its dashes stays one.
  EXPECT_EQ(translator.translate("Comment puis-je installer le modèle ?"), "how install model|pattern");
  EXPECT_EQ(translator.translate("Où est-il installé ?"), translator.translate("Où est installé ?"));
  EXPECT_EQ(translator.translate("Le modèle a-t-il une mémoire ?"), translator.translate("Le modèle a une mémoire ?"));
  EXPECT_THAT(translator.translate("Comment activer enable-lora ?"), HasSubstr("enable-lora"));
  // Possessives and auxiliaries carry no topic either; "combien" and "à quoi sert" say what is asked.
  EXPECT_EQ(translator.translate("Comment installer mon modèle ?"), "how install model|pattern");
  EXPECT_EQ(translator.translate("À quoi sert tensor_parallel_size ?"), "what used for tensor_parallel_size");
  EXPECT_THAT(translator.translate("Combien de mémoire ?"), AllOf(HasSubstr("how many"), HasSubstr("memory")));
  // So do personal pronouns in every case: "у меня" is "I have", not "exchange" (a reversed
  // dictionary's reading of "меня") nor a word no source holds, which declining would count.
  EXPECT_EQ(translator.translate("Comment installer le modèle pour eux ?"), "how install model|pattern");
  EXPECT_EQ(translator.translate("У меня и у них память"), translator.translate("Память"));
}

TEST(Translation, TheCorpusChoosesAmongTranslations) {
  const QueryTranslator translator = fixture_translator();
  // Without counts, a word's first two translations, as readings of one word; with them, the
  // ones the corpus uses.
  EXPECT_EQ(translator.translate("Le modèle du serveur"), "model|pattern waiter|server");
  std::map<std::string, std::size_t> corpus = {{"server", 40}, {"pattern", 3}, {"model", 0}, {"waiter", 0}};
  const auto count = [&](std::string_view w) {
    const auto it = corpus.find(std::string(w));
    return it == corpus.end() ? std::size_t{0} : it->second;
  };
  EXPECT_THAT(translator.translate("Le modèle du serveur", count),
              AllOf(HasSubstr("pattern"), HasSubstr("server"), Not(HasSubstr("waiter")), Not(HasSubstr("model"))));
  // A word the corpus uses as written, more than any of its translations, is a term of the field
  // written alike in English: it stays alone.
  corpus["serveur"] = 50;
  EXPECT_THAT(translator.translate("Le modèle du serveur", count),
              AllOf(HasSubstr("serveur"), Not(HasSubstr("server")), Not(HasSubstr("waiter"))));
  // A sense the corpus hardly uses (a hundred times less than the word's most used one) is not
  // read: "waiter" once against "server" thousands of times.
  corpus.erase("serveur");
  corpus["server"] = 4000;
  corpus["waiter"] = 1;
  EXPECT_THAT(translator.translate("Le modèle du serveur", count), AllOf(HasSubstr("server"), Not(HasSubstr("waiter"))));
  corpus["waiter"] = 40;
  EXPECT_THAT(translator.translate("Le modèle du serveur", count), HasSubstr("server|waiter"));
}

TEST(Translation, AGermanVerbCutInTwoIsReadWhole) {
  const QueryTranslator translator(config_of("{dictionaries: ., languages: {de: [tiny-deu-eng]}}"));
  // "führe ... aus" is "ausführen", run; "schalte ... ein" is "einschalten", enable.
  EXPECT_EQ(translator.translate("Wie führe ich vLLM in Docker aus?"), "how run vLLM Docker");
  EXPECT_THAT(translator.translate("Wie schalte ich `enable_prefix_caching` ein?"), AllOf(HasSubstr("how enable enable_prefix_caching"), Not(HasSubstr("ein"))));
  // The verb, not the noun before it: "legt ... fest" is "festlegen", and "Parameter" stays.
  EXPECT_THAT(translator.translate("Welcher Parameter legt die Größe fest?"),
              AllOf(HasSubstr("Parameter"), HasSubstr("sets specifies"), Not(HasSubstr("fest"))));
  // A last word that makes no verb with another leaves the question as it is.
  EXPECT_THAT(translator.translate("Wie starte ich den Server?"), HasSubstr("how start"));
  EXPECT_THAT(translator.translate("Wie `run` ich es aus?"), HasSubstr("run"));
}

TEST(Translation, HowToVerbsOfSoftwareReadInTheirSoftwareSense) {
  const QueryTranslator translator = fixture_translator();
  // The dictionary gives "install, set up" for "installer"; a how-to question means "install".
  EXPECT_THAT(translator.translate("Comment installer le modèle ?"), AllOf(HasSubstr("install"), Not(HasSubstr("set up"))));
  // The Russian perfective, which dictionaries lack, and "через" (via), a function word.
  EXPECT_EQ(translator.translate("Как установить vLLM через pip?"), "how install vLLM pip");
  EXPECT_THAT(translator.translate("Как включить enable_prefix_caching?"), HasSubstr("how enable enable_prefix_caching"));
}

TEST(Translation, AWordTheCorpusNeverUsesStays) {
  const QueryTranslator translator = fixture_translator();
  // "mémoire": the dictionary knows it, the corpus uses none of its senses: its first stays, so
  // that answering sees a word no source speaks of. "gâteau", "Quijote": no dictionary knows
  // them, nor the corpus: they stay as written.
  const auto none = [](std::string_view) { return std::size_t{0}; };
  const std::string query = translator.translate("Quelle mémoire du gâteau pour Quijote ?", none);
  EXPECT_THAT(query, AllOf(HasSubstr("memory"), Not(HasSubstr("recollection")), HasSubstr("gâteau"), HasSubstr("Quijote")));
}

TEST(Translation, CognatesTheCorpusUsesStandForWordsNoDictionaryKnows) {
  const QueryTranslator translator(
      config_of("{dictionaries: ., languages: {fr: [tiny-fra-eng], es: [tiny-fra-eng], ru: [{reverse: tiny-eng-rus}]}}"));
  const std::map<std::string, std::size_t> corpus = {{"latency", 30}, {"server", 40}, {"quantization", 9},
                                                     {"configuration", 12}, {"lot", 2}, {"prefix", 5}};
  const auto count = [&](std::string_view w) {
    const auto it = corpus.find(std::string(w));
    return it == corpus.end() ? std::size_t{0} : it->second;
  };
  EXPECT_EQ(translator.translate("Quelle latence ?", count), "which latency");
  EXPECT_EQ(translator.translate("¿Cómo inicio el servidor?", count), "how start server");
  EXPECT_EQ(translator.translate("¿Los servidores y los prefijos?", count), "server prefix");
  EXPECT_EQ(translator.translate("¿Qué es la cuantización?", count), "what quantization");
  EXPECT_EQ(translator.translate("Что такое конфигурация?", count), "what configuration");
  EXPECT_THAT(translator.translate("Что такое префиксное кэширование?", count), HasSubstr("what prefix"));
  // Without counts nothing tells a cognate from a false friend: none is guessed.
  EXPECT_EQ(translator.translate("Quelle latence ?"), "which latence");
}

TEST(Translation, RussianLoanwordsAreReadByTheirSound) {
  const QueryTranslator translator = fixture_translator();
  const std::map<std::string, std::size_t> corpus = {
      {"cache", 30},   {"caching", 12},    {"cluster", 8},    {"driver", 5},     {"tensor", 40},   {"checkpoint", 9},
      {"logging", 7},  {"embeddings", 6},  {"inference", 20}, {"backend", 15},   {"plugin", 4},    {"sampling", 11}};
  const auto count = [&](std::string_view w) {
    const auto it = corpus.find(std::string(w));
    return it == corpus.end() ? std::size_t{0} : it->second;
  };
  const std::map<std::string, std::string> loanwords = {
      {"кэш", "cache"},          {"кэширование", "caching"}, {"кластер", "cluster"},      {"драйвер", "driver"},
      {"тензор", "tensor"},      {"чекпоинт", "checkpoint"}, {"логирование", "logging"},  {"эмбеддинги", "embeddings"},
      {"инференс", "inference"}, {"бэкенд", "backend"},      {"плагин", "plugin"},        {"сэмплирования", "sampling"}};
  for (const auto& [russian, english] : loanwords)
    EXPECT_EQ(translator.translate("Что такое " + russian + "?", count), "what " + english) << russian;
  // The spelling the corpus uses most wins over a regular guess it uses less ("bloc").
  const auto block = [](std::string_view w) { return w == "block" ? std::size_t{50} : w == "bloc" ? std::size_t{1} : std::size_t{0}; };
  EXPECT_EQ(translator.translate("Что такое блока?", block), "what block");
  // A case ending is not part of the English word.
  EXPECT_EQ(translator.translate("Что такое тензор в кластере?", count), "what tensor cluster");
  // A word with no spelling the corpus uses stays as written; without counts nothing is guessed.
  EXPECT_EQ(translator.translate("Что такое стриминг?", count), "what стриминг");
  EXPECT_THAT(translator.translate("Что такое кластер?"), Not(HasSubstr("cluster")));
}

TEST(Translation, APastedTextHasItsFirstWordsLookedUp) {
  const QueryTranslator translator = fixture_translator();
  const auto count = [](std::string_view w) { return w == "latency" ? std::size_t{30} : std::size_t{0}; };
  std::string words;  // 80 words no dictionary knows: "motaa", "motab", ...
  for (int i = 0; i < 80; ++i) words += std::string(" mot") + static_cast<char>('a' + i / 26) + static_cast<char>('a' + i % 26);
  // 64 words are looked up; those after them are kept as written, so one request cannot hold
  // the dictionaries for seconds.
  EXPECT_THAT(translator.translate("Quelle latence" + words + " ?", count), HasSubstr("which latency motaa"));
  EXPECT_THAT(translator.translate("Quelle" + words + " latence ?", count), HasSubstr("motdb latence"));
}

TEST(Translation, RussianReadsAnEnglishDictionaryBackwards) {
  const QueryTranslator translator = fixture_translator();
  // "запускать" is given first for "start" (and later for "launch"); "модели" is a form of "модель".
  const std::string query = translator.translate("Как запускать модели на GPU?");
  EXPECT_THAT(query, AllOf(HasSubstr("how"), HasSubstr("start"), HasSubstr("model"), HasSubstr("GPU")));
  // Snowball stems "памяти" to "памят" but the dictionary's "память" to "памя": still one word.
  EXPECT_THAT(translator.translate("Сколько памяти?"), HasSubstr("memory"));
  // A word no dictionary has is kept, and in Latin letters when the corpus uses that.
  const auto count = [](std::string_view w) { return w == "server" ? std::size_t{7} : std::size_t{0}; };
  EXPECT_THAT(translator.translate("Где сервер?", count), AllOf(HasSubstr("where"), HasSubstr("server")));
}

TEST(Translation, CompoundsOfANameAndAWordAreReadByParts) {
  const QueryTranslator translator(config_of("{dictionaries: ., languages: {de: [tiny-deu-eng]}}"));
  // "kompatiblen" is "kompatibel" inflected, which drops the e that Snowball's stem keeps.
  EXPECT_EQ(translator.translate("Wie starte ich den OpenAI-kompatiblen Server?"), "how start OpenAI compatible Server");
  EXPECT_THAT(translator.translate("Ist der teuren Server kompatibel?"), AllOf(HasSubstr("expensive"), HasSubstr("compatible")));
  // A flag and a model's name are not compounds: they stay whole.
  EXPECT_THAT(translator.translate("Wie lade ich Qwen2.5-7B-Instruct mit enable-lora?"),
              AllOf(HasSubstr("Qwen2.5-7B-Instruct"), HasSubstr("enable-lora")));
}

TEST(Translation, EveryEntryOfAHeadwordIsReadAndPlaceholdersDropped) {
  const QueryTranslator translator(config_of("{dictionaries: ., languages: {de: [tiny-deu-eng]}}"));
  // "reduzieren" has three entries: a noun's, then "slash sth.", then "reduce sth."; the corpus
  // uses "reduce" most. "sth." stands for the object, no word of the question.
  const auto count = [](std::string_view w) {
    return w == "reduce" ? std::size_t{40} : w == "slash" ? std::size_t{3} : std::size_t{0};
  };
  const std::string query = translator.translate("Wie reduziere ich den Verbrauch?", count);
  EXPECT_THAT(query, AllOf(HasSubstr("reduce|slash"), Not(HasSubstr("sth"))));
}

TEST(Translation, TheDefaultLanguagesAreReadAsDefaults) {
  // What rag check shows of a pipeline that names no language: the defaults, not {}.
  Options options(YAML::Load("{dictionaries: " + kFixtures.string() + "}"), "p.yaml: translation");
  try {
    TranslationConfig::from_options(options, kFixtures);
  } catch (const Error&) {  // the fixtures lack Debian's dictionaries: read all the same
  }
  const YAML::Node languages = options.effective()["languages"];
  ASSERT_TRUE(languages.IsMap());
  EXPECT_EQ(languages["de"][0].as<std::string>(), "freedict-deu-eng");
  EXPECT_EQ(languages["ru"][1]["reverse"].as<std::string>(), "mueller7");
}

TEST(Translation, ConfigurationErrorsNameTheKey) {
  testing::TempDir dir;
  const auto fails = [&](const std::string& yaml, const std::string& message) {
    try {
      config_of(yaml, dir.path());
      ADD_FAILURE() << yaml << " was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message)) << yaml;
    }
  };
  fails("{dictionaries: nowhere}", "translation.dictionaries: " + (dir.path() / "nowhere").string() + " is not a folder");
  fails("{dictionaries: " + kFixtures.string() + ", languages: {fr: [freedict-fra-eng]}}",
        "translation.languages.fr: dictionary 'freedict-fra-eng' is not in " + kFixtures.string() +
            " (install the Debian package dict-freedict-fra-eng");
  fails("{dictionaries: " + kFixtures.string() + ", languages: {it: [tiny-fra-eng]}}", "translation.languages.it: is not a language");
  fails("{dictionaries: " + kFixtures.string() + ", languages: {fr: [{backwards: tiny-fra-eng}]}}",
        "neither a name nor {reverse: name}");
  fails("{dictionaries: " + kFixtures.string() + ", bogus: 1}", "unknown");
}

TEST(Translation, TheGlossaryComesBeforeTheDictionaries) {
  testing::TempDir dir;
  const QueryTranslator translator(with_glossary(dir,
                                                 "# language, words, English\n"
                                                 "ru\tпланировщик\tscheduler\n"
                                                 "ru\tпараллелизм\tparallelism\n"
                                                 "ru\tтензорный параллелизм\ttensor parallelism\n"
                                                 "fr\tcarte graphique\tGPU\n"
                                                 "\n"
                                                 "ru\tмодель\tcheckpoint\n"));
  // Any form of the words; before the dictionary ("модели" is "model" there).
  EXPECT_EQ(translator.translate("Где код планировщика?"), "where код|kod scheduler");
  EXPECT_THAT(translator.translate("Как запускать модели?"), AllOf(HasSubstr("checkpoint"), Not(HasSubstr("model"))));
  // The longest term first.
  EXPECT_EQ(translator.translate("Как включить тензорный параллелизм?"), "how enable tensor parallelism");
  EXPECT_EQ(translator.translate("Что такое параллелизм?"), "what parallelism");
  EXPECT_EQ(translator.translate("Quelle carte graphique ?"), "which GPU");
}

// A one-word term whose stem is a question or function word's is not read there: "comando"
// and "cómo" share Snowball's Spanish stem; a term of several words may start with one.
TEST(Translation, AOneWordTermLeavesQuestionAndFunctionWordsAlone) {
  testing::TempDir dir;
  const QueryTranslator translator(with_glossary(dir,
                                                 "fr\tcomment\tremark\n"
                                                 "fr\tle\tthe thing\n"
                                                 "ru\tпо умолчанию\tdefault\n"));
  EXPECT_THAT(translator.translate("Comment démarrer le serveur ?"),
              AllOf(HasSubstr("how"), Not(HasSubstr("remark")), Not(HasSubstr("thing"))));
  EXPECT_THAT(translator.translate("Какой порт по умолчанию?"), HasSubstr("default"));
}

TEST(Translation, GlossaryTermsAreCutAsQuestionsAre) {
  testing::TempDir dir;
  // A byte order mark, an apostrophe, a name in Latin letters in a Russian term, and a language
  // the pipeline does not translate (kept, never met).
  const QueryTranslator translator(with_glossary(dir,
                                                 "\xEF\xBB\xBF" "fr\tvariable d'environnement\tenvironment variable\n"
                                                 "ru\tKV кэш\tKV cache\n"
                                                 "de\tGrafikkarte\tGPU\n"));
  EXPECT_EQ(translator.translate("Quelle variable d’environnement ?"), "which environment variable");
  EXPECT_EQ(translator.translate("Quelle variable d'environnement ?"), "which environment variable");
  EXPECT_EQ(translator.translate("Где размер KV-кэша?"), "where размер|razmer KV cache");
}

TEST(Translation, GlossaryErrorsNameTheFileAndLine) {
  testing::TempDir dir;
  const auto fails = [&](const std::string& text, const std::string& message) {
    try {
      QueryTranslator(with_glossary(dir, text));
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message)) << text;
    }
  };
  fails("fr\tnoyau\tkernel\nfr\tnoyau kernel\n", "glossary.tsv, line 2: wants three fields separated by tabs");
  fails("it\tnucleo\tkernel\n", "line 1: 'it' is not a language questions are translated from");
  fails("fr\t' -\tkernel\n", "line 1: '' -' holds no word");
  fails("fr\t \tkernel\n", "line 1: wants three fields");
  fails("fr\t\xff\tkernel\n", "line 1: is not UTF-8");
  try {
    config_of("{dictionaries: " + kFixtures.string() + ", glossary: missing.tsv}", dir.path());
    ADD_FAILURE() << "a missing glossary was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("translation.glossary: " + (dir.path() / "missing.tsv").string() + " is not a file"));
  }
}

TEST(Translation, DamagedDictionariesAreErrorsNotCrashes) {
  testing::TempDir dir;
  std::filesystem::copy_file(kFixtures / "tiny-fra-eng.index", dir.path() / "bad.index");
  dir.write("bad.dict.dz", "not gzip at all");
  const QueryTranslator translator(config_of("{dictionaries: " + dir.path().string() + ", languages: {fr: [bad]}}"));
  EXPECT_THROW(translator.translate("Comment démarrer le serveur ?"), Error);
}

// With the dictionaries scripts/setup.sh installs (skipped where they are not).
TEST(Translation, RealDictionariesReadEverydayQuestions) {
  if (!std::filesystem::exists("/usr/share/dictd/mueller7.index")) GTEST_SKIP() << "no dictionaries in /usr/share/dictd";
  const QueryTranslator translator(config_of("{dictionaries: /usr/share/dictd}"));
  EXPECT_THAT(translator.translate("Comment installer vLLM ?"), AllOf(HasSubstr("how"), HasSubstr("install"), HasSubstr("vLLM")));
  EXPECT_THAT(translator.translate("Wo ist der Scheduler implementiert?"), AllOf(HasSubstr("where"), HasSubstr("implemented")));
  EXPECT_THAT(translator.translate("¿Cuál es el valor predeterminado de gpu_memory_utilization?"),
              AllOf(HasSubstr("default"), HasSubstr("value"), HasSubstr("gpu_memory_utilization")));
  EXPECT_THAT(translator.translate("Как запустить OpenAI-совместимый сервер?"),
              AllOf(HasSubstr("how"), HasSubstr("start"), HasSubstr("OpenAI"), HasSubstr("server")));
  // A German compound no dictionary lists is read as its parts, a linking s dropped (without the
  // corpus to choose, in the dictionary's first senses: "Modell" is "version" first).
  EXPECT_THAT(translator.translate("Wo liegen die Modellgewichte?"), AllOf(HasSubstr("version"), HasSubstr("weights")));
  EXPECT_THAT(translator.translate("Ich habe keine Kalibrierungsdaten."), AllOf(HasSubstr("calibrat"), HasSubstr("data")));
  // The cut with the longest first part: "Speicher|länge", not "Speich|erlänge" (a spoke and,
  // by a loose match of its stem, "erlangen").
  EXPECT_THAT(translator.translate("Wie setze ich die Speicherlänge?"), AllOf(HasSubstr("length"), Not(HasSubstr("reach"))));
  // "данном" is "this", not data (the glossary's "данные").
  EXPECT_THAT(translator.translate("Что делать в данном случае?"), Not(HasSubstr("data")));
  // Question words in every case, the verbs questions use most in their inflected forms.
  EXPECT_THAT(translator.translate("Auf welchem Port lauscht vllm serve standardmäßig?"),
              AllOf(HasSubstr("which"), HasSubstr("default"), Not(HasSubstr("who"))));
  EXPECT_THAT(translator.translate("Was macht enforce_eager?"), AllOf(HasSubstr("what does"), Not(HasSubstr("power"))));
  EXPECT_THAT(translator.translate("¿Cuántos logprobs devuelve vLLM?"), AllOf(HasSubstr("how many"), HasSubstr("returns")));
  EXPECT_THAT(translator.translate("¿Cómo hago un benchmark de mi servidor?"), Not(AnyOf(HasSubstr("hago"), HasSubstr(" mi "))));
}

}  // namespace
}  // namespace rag
