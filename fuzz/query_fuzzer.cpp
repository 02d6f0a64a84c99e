// libFuzzer target: the query analyzer and the question's words on arbitrary bytes, and BM25
// search with the result over a small fixed index. Invariants: no exception; for UTF-8 input, terms are non-empty UTF-8 and
// the same on a second analysis; hits are at most k, in range, finite and best first.
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "bm25_retriever.hpp"
#include "fuzz_check.hpp"
#include "rag/analyzer.hpp"
#include "rag/chunk_vector.hpp"
#include "rag/question_words.hpp"
#include "rag/utf8.hpp"

namespace {

rag::Chunk chunk(std::string path, std::string section, std::string text) {
  rag::Chunk c;
  c.file_path = std::move(path);
  c.kind = c.file_path.ends_with(".py") ? "python" : "markdown";
  c.section = std::move(section);
  c.last_char = c.last_byte = text.size();
  c.text = std::move(text);
  return c;
}

const std::vector<rag::Chunk>& chunks() {
  static const std::vector<rag::Chunk> list = {
      chunk("vllm/engine/arg_utils.py", "vllm.engine.arg_utils.EngineArgs",
            "class EngineArgs:\n    max_model_len: int = None\n    tensor_parallel_size: int = 1"),
      chunk("docs/serving/openai_compatible_server.md", "OpenAI-Compatible Server",
            "Start the server with `vllm serve` and query it with the OpenAI client."),
      chunk("docs/features/quantization/awq.md", "AWQ", "Load AWQ quantized checkpoints with --quantization awq."),
      chunk("vllm/utils.py", "vllm.utils.get_open_port", "def get_open_port() -> int:\n    \"\"\"Find a free TCP port.\"\"\""),
      chunk("docs/zh.md", "模型", "推理服务器在启动时加载模型。 Сервер загружает модель."),
  };
  return list;
}

std::unique_ptr<rag::Bm25Retriever> make_retriever() {
  YAML::Node node = YAML::Load("{feedback: {documents: 2, terms: 5}, file_weight: 0.3}");
  rag::Options options(node, "fuzz");
  return std::make_unique<rag::Bm25Retriever>(options);
}

// Built once into a scratch folder, as one segment: stemming and stopwords, feedback and file
// boosting all on, to reach their code.
const rag::Bm25Retriever& retriever() {
  static const rag::ChunkVector source(chunks());
  static const std::filesystem::path dir = [] {
    char name[] = "/tmp/rag-query-fuzzer-XXXXXX";
    if (::mkdtemp(name) == nullptr) throw std::runtime_error("mkdtemp failed");
    make_retriever()->build(source, name);
    return std::filesystem::path(name);
  }();
  static const std::vector<rag::Segment> segments = {{dir, &source, 0, {}}};
  static const rag::SegmentList list(segments);
  static const std::unique_ptr<rag::Bm25Retriever> r = [] {
    auto made = make_retriever();
    made->open(list);
    return made;
  }();
  return *r;
}

const std::vector<std::unique_ptr<rag::Analyzer>>& analyzers() {
  static const auto list = [] {
    std::vector<std::unique_ptr<rag::Analyzer>> out;
    out.push_back(std::make_unique<rag::Analyzer>(rag::AnalyzerConfig{}));
    rag::AnalyzerConfig plain;
    plain.stemmer = "none";
    plain.stopwords = "none";
    plain.lowercase = false;
    plain.min_length = 3;
    out.push_back(std::make_unique<rag::Analyzer>(plain));
    rag::AnalyzerConfig whole;
    whole.split_identifiers = false;
    out.push_back(std::make_unique<rag::Analyzer>(whole));
    return out;
  }();
  return list;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  const bool valid = rag::utf8::is_valid(query);
  try {
    for (const auto& analyzer : analyzers()) {
      const std::vector<std::string> terms = analyzer->analyze(query);
      if (!valid) continue;  // only UTF-8 reaches analysis in `rag`: the rest must merely not crash
      for (const auto& t : terms) {
        FUZZ_CHECK(!t.empty(), "empty term");
        FUZZ_CHECK(rag::utf8::is_valid(t), "term is not UTF-8");
      }
      FUZZ_CHECK(analyzer->analyze(query) == terms, "analysis is not deterministic");
      // The question's words as answering weighs them ('|' joins a word's readings): each has
      // terms, and a text holding every term of the question covers each fully.
      const std::vector<std::string> all = rag::sorted_terms(query, *analyzer);
      for (const rag::QuestionWord& w : rag::question_words(query, *analyzer)) {
        FUZZ_CHECK(!w.parts.empty(), "a question word without terms");
        const double covered = w.coverage(all);
        FUZZ_CHECK(covered >= 0 && covered <= 1, "coverage out of [0, 1]");
      }
    }
    if (!valid) return 0;
    const std::size_t k = 1 + size % 7;
    const std::vector<rag::Hit> hits = retriever().search(query, k);
    FUZZ_CHECK(hits.size() <= k, "more than k hits");
    for (std::size_t i = 0; i < hits.size(); ++i) {
      FUZZ_CHECK(hits[i].chunk < chunks().size(), "hit out of range");
      FUZZ_CHECK(std::isfinite(hits[i].score), "score not finite");
      FUZZ_CHECK(i == 0 || hits[i].score <= hits[i - 1].score, "hits not best first");
    }
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("threw: ") + e.what());
  }
  return 0;
}
