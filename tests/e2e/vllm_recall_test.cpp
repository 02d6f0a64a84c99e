// Indexes the real vLLM corpus with configs/default.yaml and checks recall@5 floors on the
// public datasets, so that retrieval quality cannot regress unnoticed. Skipped when the corpus
// (data/raw/vllm-0.10.1, unpacked by scripts/setup.sh) or ../shared is not there.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>

#include "test_support.hpp"

namespace rag {
namespace {

const std::filesystem::path kSource = RAG_SOURCE_DIR;
const std::filesystem::path kDatasets = kSource / "../shared/data/datasets";

int run(const std::string& args) {
  const std::string command = "cd '" + kSource.string() + "' && '" RAG_BINARY_DIR "/rag' " + args;
  return std::system(command.c_str());
}

class VllmRecall : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kSource / "data/raw/vllm-0.10.1") || !std::filesystem::exists(kDatasets)) return;
    scratch_ = new testing::TempDir();
    // The default pipeline, with its index in a scratch folder.
    pipeline_ = "--set 'index=" + (*scratch_ / "index").string() + "'";
    indexed_ = run("index " + pipeline_) == 0;
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }
  void SetUp() override {
    if (!scratch_) GTEST_SKIP() << "no corpus at data/raw/vllm-0.10.1 or no ../shared datasets";
    ASSERT_TRUE(indexed_);
  }

  static double recall_at_5(const std::string& dataset) {
    const auto out = *scratch_ / "results";
    EXPECT_EQ(run("search_dataset " + pipeline_ + " --dataset_path '" +
                  (kDatasets / "UnansweredQuestions" / dataset).string() + "' --save_directory '" + out.string() + "'"),
              0);
    EXPECT_EQ(run("evaluate '" + (out / dataset).string() + "' '" + (kDatasets / "AnsweredQuestions" / dataset).string() +
                  "' --json > '" + (*scratch_ / "score.json").string() + "'"),
              0);
    return nlohmann::json::parse(testing::read_all(*scratch_ / "score.json"))["recall@5"].get<double>();
  }

  /// The oracle recall `rag chunks --oracle` reports: the share of ground-truth spans the
  /// chunking lets a perfect ranking find.
  static double oracle_recall(const std::string& dataset) {
    const auto report = *scratch_ / "oracle.txt";
    EXPECT_EQ(run("chunks " + pipeline_ + " --oracle '" +
                  (kDatasets / "AnsweredQuestions" / dataset).string() + "' > '" + report.string() + "'"),
              0);
    const std::string text = testing::read_all(report);
    const auto at = text.find("oracle recall ");
    return at == std::string::npos ? 0.0 : std::stod(text.substr(at + 14));
  }

  static inline testing::TempDir* scratch_ = nullptr;
  static inline std::string pipeline_;
  static inline bool indexed_ = false;
};

// Floors a little under what the default pipeline measures (docs/retrieval.md), so that a
// change that loses quality fails here; raise them when quality rises.
TEST_F(VllmRecall, DocsPublicAtLeast091) { EXPECT_GE(recall_at_5("dataset_docs_public.json"), 0.91); }

TEST_F(VllmRecall, CodePublicAtLeast088) { EXPECT_GE(recall_at_5("dataset_code_public.json"), 0.88); }

TEST_F(VllmRecall, ValidationSetAtLeast089) { EXPECT_GE(recall_at_5("Dataset_2025-09-21_valid.json"), 0.89); }

// The everyday questions of tests/answers/everyday_facts.json (docs and code, in five languages,
// some the corpus cannot answer), answered offline: the share a user accepts stays over its
// floor, a little under what the default measures (README, "How good the answers are, and how fast").
TEST_F(VllmRecall, EverydayQuestionsAnsweredAcceptably) {
  // The set the answers were improved on, the one written before that, and long questions as
  // users write them, a sentence of context first, which declining must not refuse for their
  // context, nor read their kind from the context (docs/answers.md; 13 of 48 before the
  // support's weight cap, 18 with it, 21 with the kind read from the sentence that asks).
  const struct {
    const char* file;
    double share;
    int cited;
  } sets[] = {{"tests/answers/everyday_facts.json", 0.85, 1},
              {"tests/answers/everyday_facts_heldout.json", 0.80, 0},
              {"bench/everyday_ml3_en.json", 0.40, 0}};
  for (const auto& set : sets) {
    const auto facts = kSource / set.file;
    const auto answers = *scratch_ / "answers";
    ASSERT_EQ(run("answer_dataset " + pipeline_ + " --dataset_path '" + facts.string() + "' --save_directory '" +
                  answers.string() + "' 2>/dev/null"),
              0);
    ASSERT_EQ(run("evaluate_answers '" + (answers / facts.filename()).string() + "' --facts '" + facts.string() + "' --json > '" +
                  (*scratch_ / "facts.json").string() + "'"),
              0);
    const nlohmann::json figures = nlohmann::json::parse(testing::read_all(*scratch_ / "facts.json"));
    EXPECT_GE(figures["share"].get<double>(), set.share) << set.file << figures["misses"].dump(2);
    EXPECT_LE(figures["out_of_scope_cited"].get<int>(), set.cited) << set.file;
  }
}

// A chunking that cannot reach a ground-truth span caps recall whatever the ranking (IoU > 0.05
// needs a chunk of about the span's size over it).
TEST_F(VllmRecall, ChunksReachNearlyEveryGroundTruthSpan) {
  EXPECT_GE(oracle_recall("dataset_docs_public.json"), 0.98);
  EXPECT_GE(oracle_recall("dataset_code_public.json"), 0.98);
  EXPECT_GE(oracle_recall("Dataset_2025-09-21_valid.json"), 0.98);
}

// The default indexes every text file, C++ and CUDA through the cpp chunker: questions about
// kernels and build scripts find them.
TEST_F(VllmRecall, FindsKernelsAndScriptsBeyondPythonAndMarkdown) {
  const auto top_files = [](const std::string& query) {
    const auto out = *scratch_ / "search.json";
    EXPECT_EQ(run("search '" + query + "' -k 10 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
    std::vector<std::string> files;
    const nlohmann::json results = nlohmann::json::parse(testing::read_all(out));
    for (const auto& c : results["retrieved_chunks"]) files.push_back(c["file_path"]);
    return files;
  };
  const auto any_of = [](const std::vector<std::string>& files, const std::string& prefix, const std::string& suffix) {
    return std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      return f.rfind(prefix, 0) == 0 && f.size() >= suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0;
    });
  };
  EXPECT_TRUE(any_of(top_files("Where is the paged attention CUDA kernel?"), "data/raw/vllm-0.10.1/csrc/attention/", ".cu"));
  EXPECT_TRUE(any_of(top_files("Which CUDA architectures does the CMake build compile the Marlin kernels for?"),
                     "data/raw/vllm-0.10.1/", "CMakeLists.txt"));
}

// `rag search` reads a query in another language in English, as `rag answer` reads a question
// (the default pipeline's glossary and Debian's dictionaries), and says how it read it.
TEST_F(VllmRecall, SearchReadsOtherLanguagesInEnglish) {
  const auto out = *scratch_ / "search.json";
  ASSERT_EQ(run("search 'décodage spéculatif' -k 5 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
  const nlohmann::json results = nlohmann::json::parse(testing::read_all(out));
  EXPECT_EQ(results["translated_query"], "speculative decoding");
  ASSERT_FALSE(results["retrieved_chunks"].empty());
  EXPECT_EQ(results["retrieved_chunks"][0]["file_path"], "data/raw/vllm-0.10.1/docs/features/spec_decode.md");
  ASSERT_EQ(run("search 'speculative decoding' -k 5 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
  EXPECT_FALSE(nlohmann::json::parse(testing::read_all(out)).contains("translated_query"));  // English as it is
  // Programming words in their software sense (configs/glossary.tsv), where a general dictionary
  // reads "определён" as determine, "класс" as klass, "valeur" as worth, "carpeta" as carpet and
  // "вызов" as challenge (bench/field_words.sh reads 184 such words).
  const struct {
    const char* question;
    const char* read_as;
  } readings[] = {
      {"Где определён класс SamplingParams?", "where defined class SamplingParams"},
      {"Quelle est la valeur par défaut de top_k ?", "which value default top_k"},
      {"¿Cómo cargo un modelo desde una carpeta local?", "how load model since folder local"},
      {"Wo ist die Klasse LLM definiert?", "where class LLM defined"},
      {"Где реализован парсер вызовов инструментов?", "where implemented parser call tool"},
      {"Wo liegen die Modellgewichte?", "where lie model weights"},
      // A compound's part the corpus uses as written ("Batch" in "Batchgröße"); a word that shares
      // a glossary term's stem but not its sense ("andere", other, and "ändern", change);
      // questions whose function words tie between languages ("Welche ... gibt es?" is German)
      // or hide in a hyphen ("Peut-on"); "¿Por qué?" is why.
      {"Welche Batchgröße verwende ich?", "which batch size|largeness use"},
      {"Welche anderen Modelle gibt es?", "which other model"},
      {"Welche Sprachmodelle gibt es?", "which language model"},
      {"Peut-on lancer vLLM sans GPU ?", "start run vLLM GPU"},
      {"¿Por qué sale un error?", "why appears error"},
      // A cognate of two letters before its ending ("opción": option).
      {"¿Para qué sirve la opción --served-model-name?", "what used for option served-model-name"},
  };
  for (const auto& r : readings) {
    EXPECT_EQ(run(std::string("search '") + r.question + "' -k 1 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
    EXPECT_EQ(nlohmann::json::parse(testing::read_all(out))["translated_query"], r.read_as) << r.question;
  }
}

// A misspelt word the corpus lacks is read as the corpus spells it, and said so; an English word
// the corpus lacks is not (Debian's wamerican tells them apart).
TEST_F(VllmRecall, SearchReadsMisspeltWordsAsTheCorpusSpellsThem) {
  const auto out = *scratch_ / "search.json";
  ASSERT_EQ(run("search 'speculaitve decoding' -k 5 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
  const nlohmann::json results = nlohmann::json::parse(testing::read_all(out));
  EXPECT_EQ(results["respelt"], nlohmann::json::parse(R"([{"written": "speculaitve", "read_as": "speculative"}])"));
  ASSERT_FALSE(results["retrieved_chunks"].empty());
  EXPECT_EQ(results["retrieved_chunks"][0]["file_path"], "data/raw/vllm-0.10.1/docs/features/spec_decode.md");
  ASSERT_EQ(run("search 'How do I bake sourdough bread?' -k 5 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
  EXPECT_FALSE(nlohmann::json::parse(testing::read_all(out)).contains("respelt"));
  // --as-written searches the words as the user wrote them.
  ASSERT_EQ(run("search 'speculaitve decoding' --as-written -k 5 --format json " + pipeline_ + " > '" + out.string() + "'"), 0);
  const nlohmann::json written = nlohmann::json::parse(testing::read_all(out));
  EXPECT_FALSE(written.contains("respelt"));
  ASSERT_FALSE(written["retrieved_chunks"].empty());
  EXPECT_NE(written["retrieved_chunks"][0]["file_path"], "data/raw/vllm-0.10.1/docs/features/spec_decode.md");
}

}  // namespace
}  // namespace rag
