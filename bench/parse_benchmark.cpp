// Google Benchmark: tree-sitter parsing alone, of every Python file and every C, C++ and CUDA
// file of a corpus (default data/raw/vllm-0.10.1, or $RAG_BENCH_CORPUS), on one thread, as the
// chunkers parse them (a parser per file). This is the floor under `rag index --full` that no
// work of ours can lower: bench/speed.sh prints it beside the full index.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tree_sitter_support.hpp"

extern "C" const TSLanguage* tree_sitter_python();
extern "C" const TSLanguage* tree_sitter_cpp();

namespace {

// The texts of the corpus's files whose extension is one of `extensions`, read once.
const std::vector<std::string>& texts(const std::vector<std::string>& extensions) {
  static std::map<std::vector<std::string>, std::vector<std::string>> cache;
  auto& out = cache[extensions];
  if (!out.empty()) return out;
  const char* root = std::getenv("RAG_BENCH_CORPUS");
  std::error_code ec;  // a missing folder has no files
  for (std::filesystem::recursive_directory_iterator it(root ? root : "data/raw/vllm-0.10.1", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string extension = it->path().extension().string();
    if (std::find(extensions.begin(), extensions.end(), extension) == extensions.end()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    out.push_back(text.str());
  }
  return out;
}

void parse_all(benchmark::State& state, const TSLanguage* language, const std::vector<std::string>& files) {
  if (files.empty()) {
    state.SkipWithError("no such files in the corpus: run from the project folder or set RAG_BENCH_CORPUS");
    return;
  }
  std::size_t bytes = 0;
  for (const std::string& f : files) bytes += f.size();
  for (auto _ : state) {
    for (const std::string& f : files) {
      const rag::tree_sitter::ParserPtr parser(ts_parser_new());
      ts_parser_set_language(parser.get(), language);
      const rag::tree_sitter::TreePtr tree(
          ts_parser_parse_string(parser.get(), nullptr, f.data(), static_cast<std::uint32_t>(f.size())));
      benchmark::DoNotOptimize(tree.get());
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["files"] = static_cast<double>(files.size());
}

void BM_ParsePython(benchmark::State& state) { parse_all(state, tree_sitter_python(), texts({".py"})); }
void BM_ParseCpp(benchmark::State& state) {
  parse_all(state, tree_sitter_cpp(), texts({".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".cuh"}));
}

BENCHMARK(BM_ParsePython)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseCpp)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
