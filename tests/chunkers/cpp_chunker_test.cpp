#include "cpp_chunker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "chunk_invariants.hpp"
#include "rag/file_io.hpp"

namespace rag {
namespace {

using Piece = std::pair<std::string, std::string>;  // section, text

SourceFile fixture(const std::string& relative) {
  return SourceFile(relative, relative, read_file(std::string(RAG_TEST_FIXTURES) + "/cpp/" + relative));
}

CppChunker make_chunker(int max_chars, int min_chars = 0) {
  YAML::Node node;
  node["max_chunk_size"] = max_chars;
  node["min_chunk_size"] = min_chars;
  Options options(node, "test");
  return CppChunker(options);
}

std::vector<ChunkSpan> chunk_checked(const SourceFile& file, int max_chars, int min_chars = 0) {
  auto spans = make_chunker(max_chars, min_chars).chunk(file);
  testing::expect_valid_spans(file, spans, static_cast<std::size_t>(max_chars));
  testing::expect_no_text_lost(file, spans);
  return spans;
}

std::vector<Piece> pieces(const SourceFile& file, int max_chars, int min_chars = 0) {
  std::vector<Piece> out;
  for (const auto& span : chunk_checked(file, max_chars, min_chars))
    out.emplace_back(span.section, std::string(file.slice(span.bytes)));
  return out;
}

std::vector<Piece> pieces(const std::string& relative, int max_chars, int min_chars = 0) {
  return pieces(fixture(relative), max_chars, min_chars);
}

bool contains(const std::vector<Piece>& pieces, const Piece& piece) {
  return std::find(pieces.begin(), pieces.end(), piece) != pieces.end();
}

std::vector<std::string> sections(const std::vector<Piece>& pieces) {
  std::vector<std::string> out;
  for (const auto& piece : pieces) out.push_back(piece.first);
  return out;
}

TEST(CppChunker, DefinitionsAreWholeChunksWithQualifiedNames) {
  // Within the limit, the namespace is one chunk; code outside any named scope has no name.
  EXPECT_EQ(sections(pieces("cache_engine.cpp", 2000)),
            (std::vector<std::string>{"", "vllm", "cache_engine_version"}));
  // Over it, the namespace is split at its definitions: the class with its inline methods,
  // the out-of-line method under its class's name, the template; the anonymous namespace
  // adds nothing to the name.
  const auto got = pieces("cache_engine.cpp", 500);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"", "vllm::CacheEngine", "vllm::CacheEngine::swap",
                                                     "vllm::clamp", "vllm", "cache_engine_version"}));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0].second,
            "// The cache engine: a namespace, a class with its methods, a template.\n#include <cstdint>\n"
            "#include <vector>");
  // The namespace's opening line goes with its first definition.
  EXPECT_TRUE(got[1].second.starts_with("namespace vllm {\n\n/// Holds the key and value caches of every layer.\n"
                                        "class CacheEngine {\n public:\n"));
  EXPECT_TRUE(got[1].second.ends_with("std::vector<int64_t> blocks_;\n};"));
  EXPECT_EQ(got[4].second, "namespace {\nint helper() { return 42; }\n}  // namespace\n\n}  // namespace vllm");
  EXPECT_EQ(got[5].second, "extern \"C\" int cache_engine_version() { return 1; }");
}

TEST(CppChunker, NamesOfOperatorsAndSpecializations) {
  // A long template argument list is elided; whitespace inside a name is one space.
  const SourceFile file("n.cpp", "n.cpp",
                        "template <>\n"
                        "struct Converter<cutlass::half_t, vllm_uint4b8_t, 8, FloatRoundStyle::round_to_nearest> {\n"
                        "  operator bool() const { return true; }\n"
                        "  int operator()(int s) const { return s; }\n"
                        "};\n"
                        "template <>\nstruct Tpl<int> {};\n"
                        "bool operator==(const A& a, const A& b) { return true; }\n"
                        "inline Vec<int,\n    4>::Vec() {}\n");
  EXPECT_EQ(sections(pieces(file, 80)),
            (std::vector<std::string>{"Converter<...>", "Converter<...>", "Converter<...>",
                                      "Converter<...>::operator bool", "Converter<...>::operator()", "Tpl<int>",
                                      "operator==", "Vec<int, 4>::Vec"}));
}

TEST(CppChunker, CommentsAndTemplateHeadersStayWithTheirDefinition) {
  const auto got = pieces("cache_engine.cpp", 500);
  EXPECT_TRUE(contains(got, {"vllm::clamp",
                             "template <typename T>\nT clamp(T value, T low, T high) {\n"
                             "  return value < low ? low : (value > high ? high : value);\n}"}));
  EXPECT_TRUE(got[2].second.starts_with("// Defined outside its class.\nvoid CacheEngine::swap("));
  // A block comment of several lines is taken in whole.
  EXPECT_EQ(pieces("unicode.cpp", 2000)[2].second, "/* Ça marche — à bientôt 👋 */\nstruct Café {\n  int crème = 1;\n};");
}

TEST(CppChunker, CudaKernelsAndLaunches) {
  const auto got = pieces("kernels.cu", 400);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"", "vllm::scale_kernel", "vllm::fill_kernel", "vllm::fast_exp",
                                                     "vllm::fast_exp", "scale"}));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_TRUE(got[0].second.ends_with("#define DIVIDE_ROUND_UP(a, b) (((a) + (b) - 1) / (b))"));
  EXPECT_TRUE(got[1].second.starts_with("namespace vllm {\n\n// Scales every element by `scale`.\n"
                                        "// One thread per element.\ntemplate <typename T>\n__global__ void scale_kernel("));
  EXPECT_TRUE(got[2].second.starts_with("template <int NUM_THREADS>\n__global__ void __launch_bounds__(NUM_THREADS)"));
  EXPECT_EQ(got[5].second,
            "void scale(float* out, const float* in, float scale, int n, cudaStream_t stream) {\n"
            "  const dim3 grid(DIVIDE_ROUND_UP(n, 256));\n"
            "  vllm::scale_kernel<float><<<grid, 256, 0, stream>>>(out, in, scale, n);\n}");
}

TEST(CppChunker, PreprocessorBlocksDoNotHideDefinitions) {
  // Each branch is a unit with its opening line; #endif trails the last one.
  const auto kernels = pieces("kernels.cu", 400);
  EXPECT_EQ(kernels[3].second,
            "#ifndef USE_ROCM\n// Only CUDA has this one.\n"
            "__device__ inline float fast_exp(float x) { return __expf(x); }");
  EXPECT_EQ(kernels[4].second,
            "#else\n__device__ inline float fast_exp(float x) { return expf(x); }\n#endif\n\n}  // namespace vllm");
  // Inside an include guard and an `extern "C"` block opened and closed in #ifdef blocks, which
  // adds nothing to names.
  EXPECT_EQ(sections(pieces("guarded.h", 2000)), (std::vector<std::string>{"", ""}));
  const auto got = pieces("guarded.h", 100);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"", "Buffer", "warp_size", "warp_size", "warp_size", "warp_size"}));
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[1].second,
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\ntypedef struct {\n  size_t size;\n  void* data;\n} Buffer;");
  EXPECT_EQ(got[2].second, "#if defined(USE_ROCM)\nstatic inline int warp_size(void) { return 64; }");
  EXPECT_EQ(got[3].second, "#elif defined(USE_CPU)\nstatic inline int warp_size(void) { return 1; }");
  // Directives the parser could not pair: an #else opens what follows, an #endif trails.
  const SourceFile stray("s.cu", "s.cu", "int a;\n#else\n// The other one.\nint f() { return 1; }\n#endif\n");
  EXPECT_EQ(pieces(stray, 2000),
            (std::vector<Piece>{{"", "int a;"}, {"f", "#else\n// The other one.\nint f() { return 1; }\n#endif"}}));
}

TEST(CppChunker, UnknownMacrosStayWithTheirDefinition) {
  // The parser reads a macro on the line above a function as a declaration it ends with an
  // invented ";": it still goes with the function.
  EXPECT_EQ(pieces("macros.cuh", 150),
            (std::vector<Piece>{
                {"", "// Macros the parser does not know, in front of definitions.\n#pragma once"},
                {"",
                 "namespace {\n\nFORCE_INLINE vec_op::FP32Vec8 silu_act(const vec_op::FP32Vec8& x) {\n"
                 "  return x / (ones + (zeros - x).exp());\n}\n\n};  // namespace"},
                {"Converter::operator()",
                 "template <typename T>\nstruct Converter {\n  CUTLASS_DEVICE\n"
                 "  result_type operator()(source_type const& s) const { return convert(s); }"},
                {"Converter::item", "__device__ __forceinline__\n  int item(int row) const { return row; }\n};"},
            }));
  // A macro in front of the return type makes the parser read "vec_op::FP32Vec8 silu_act" as
  // one name with a "::" missing: the name is its last part. The stray ";" after the namespace
  // trails what precedes it.
  EXPECT_TRUE(contains(pieces("macros.cuh", 130),
                       {"silu_act",
                        "FORCE_INLINE vec_op::FP32Vec8 silu_act(const vec_op::FP32Vec8& x) {\n"
                        "  return x / (ones + (zeros - x).exp());\n}\n\n};  // namespace"}));
}

TEST(CppChunker, ClassOverTheLimitIsSplitAtItsMembers) {
  const auto got = pieces("large.cpp", 200);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"", "process", "process", "process", "process", "Engine",
                                                     "Engine::add", "Engine::step", "Engine"}));
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got[5].second, "struct Engine {\n  int steps = 8;\n  bool verbose = false;");
  EXPECT_TRUE(got[7].second.starts_with("// Runs one step over the queue.\n  int step() {"));
  EXPECT_EQ(got[8].second, "private:\n  void log(int request);\n  std::string queue_;\n};");
}

TEST(CppChunker, FunctionOverTheLimitIsSplitAtItsStatements) {
  const auto got = pieces("large.cpp", 200);
  ASSERT_EQ(got.size(), 9u);
  // The comment and the signature go with the first piece; every cut is at a statement.
  EXPECT_TRUE(got[1].second.starts_with("// Sums the valid entries of a batch, reporting what it skips.\nint process("));
  EXPECT_TRUE(got[2].second.starts_with("for (int i = 0; i < n; ++i) {"));
  EXPECT_TRUE(got[3].second.starts_with("switch (skipped) {"));
  EXPECT_TRUE(got[4].second.starts_with("if (total > 1000) {"));
  EXPECT_TRUE(got[4].second.ends_with("return total;\n}"));
  // Tighter, a statement is cut at the statements inside it.
  const auto tight = pieces("large.cpp", 60);
  EXPECT_TRUE(contains(tight, {"process", "switch (skipped) {\n    case 0:"}));
  EXPECT_TRUE(contains(tight, {"process", "*report = std::to_string(skipped) + \" skipped\";"}));
}

TEST(CppChunker, NoPieceExceedsTinyLimits) {
  // chunk_checked asserts the limit and that no text is lost, down to cuts inside a line.
  for (const std::string name : {"kernels.cu", "large.cpp", "guarded.h", "macros.cuh", "unicode.cpp"}) {
    for (const int max_chars : {1, 7, 25, 80}) {
      SCOPED_TRACE(name + " " + std::to_string(max_chars));
      EXPECT_GT(pieces(name, max_chars).size(), 3u);
    }
  }
}

TEST(CppChunker, NonAsciiTextIsMeasuredInCodePoints) {
  const auto got = pieces("unicode.cpp", 2000);
  ASSERT_EQ(sections(got), (std::vector<std::string>{"", "greet", "Café"}));
  EXPECT_EQ(got[0].second,
            "// 模块说明：这里的注释是中文 🐍🚀\n#include <string>\nconst char* kGreeting = \"你好，世界 🌍\";");
  EXPECT_TRUE(got[1].second.starts_with("// 计算问候语 ✨\nstd::string greet("));
  // The file-level code is 72 code points (117 bytes): a limit of 72 keeps it whole.
  const SourceFile file = fixture("unicode.cpp");
  EXPECT_EQ(chunk_checked(file, 72).front().bytes, (ByteRange{0, 117}));
  EXPECT_GT(chunk_checked(file, 71).size(), 3u);
}

TEST(CppChunker, CrlfLineEndings) {
  EXPECT_EQ(pieces("crlf.cpp", 2000),
            (std::vector<Piece>{
                {"", "// CRLF line ends.\r\n#include <cstdio>"},
                {"say", "// Prints a line.\r\nvoid say(const char* s) {\r\n  std::puts(s);\r\n}"},
                {"io",
                 "namespace io {\r\nstruct Writer {\r\n  void write(const char* s) {\r\n    std::fputs(s, stdout);\r\n"
                 "  }\r\n};\r\n}  // namespace io"},
            }));
  EXPECT_EQ(sections(pieces("crlf.cpp", 100)), (std::vector<std::string>{"", "say", "io::Writer", "io::Writer::write"}));
}

TEST(CppChunker, SyntaxErrorsAreChunkedAlongTheRecoveredTree) {
  // The unclosed function leaves the rest of the file to an error node, where the class is
  // still found.
  EXPECT_EQ(pieces("syntax_error.cpp", 2000),
            (std::vector<Piece>{
                {"", "#include <vector>"},
                {"broken", "int broken(int x) {\n  return x + * 2;\n}"},
                {"", "void unclosed(int y) {\n  if (y) {\n    y++;\n}"},
                {"Fine", "class Fine {\n public:\n  int ok() { return 1; }\n};"},
                {"", "int values[] = {1, 2,"},
            }));
  EXPECT_EQ(sections(pieces("syntax_error.cpp", 30)),
            (std::vector<std::string>{"", "broken", "broken", "", "", "Fine::ok", "Fine::ok", "Fine::ok", ""}));
  // Unbalanced brackets and stray directives throw nothing and lose nothing either.
  const SourceFile garbage("g.cu", "g.cu", "}}} namespace { class <<< #endif\n#else\nvoid f( {\n#if\n]] template<");
  EXPECT_FALSE(chunk_checked(garbage, 10).empty());
}

TEST(CppChunker, DeepNestingKeepsTheStackAndTheNamesBounded) {
  // Tree-sitter parses any depth; the chunker stops looking into definitions and #if blocks
  // 64 levels down, where recursing further would exhaust the stack.
  std::string namespaces, blocks, name;
  for (int i = 0; i < 20000; ++i) {
    namespaces += "namespace n {\n";
    blocks += "#if A\n";
    name += "a::";
  }
  namespaces += "int f() { return 1; }\n" + std::string(20000, '}');
  blocks += "int f() { return 1; }\n";
  for (int i = 0; i < 20000; ++i) blocks += "#endif\n";
  EXPECT_FALSE(chunk_checked(SourceFile("d.h", "d.h", blocks), 2000).empty());
  // From the 65th namespace in, all is cut as one definition, at lines, named after the 65th.
  std::string deepest = "n";
  for (int i = 0; i < 64; ++i) deepest += "::n";
  for (const ChunkSpan& span : chunk_checked(SourceFile("d.cpp", "d.cpp", namespaces), 2000))
    EXPECT_EQ(span.section, deepest);
  // A name over 200 code points is cut there.
  const SourceFile long_name("l.cpp", "l.cpp", "int " + name + "f() { return 1; }\n");
  EXPECT_EQ(chunk_checked(long_name, 2000).front().section, name.substr(0, 200) + "...");
}

TEST(CppChunker, EmptyOrBlankFileHasNoChunks) {
  EXPECT_TRUE(pieces("empty.cpp", 2000).empty());
  const SourceFile blank("b.h", "b.h", "\n\n   \r\n\t\n");
  EXPECT_TRUE(chunk_checked(blank, 2000).empty());
}

TEST(CppChunker, MinChunkSizeMergesSmallSiblings) {
  // The class's opening and access label go with its first member.
  const auto separate = pieces("cache_engine.cpp", 300);
  EXPECT_EQ(sections(separate),
            (std::vector<std::string>{"", "vllm::CacheEngine::CacheEngine", "vllm::CacheEngine::num_layers",
                                      "vllm::CacheEngine", "vllm::CacheEngine::swap", "vllm::clamp", "vllm",
                                      "cache_engine_version"}));
  EXPECT_TRUE(separate[1].second.ends_with("class CacheEngine {\n public:\n  explicit CacheEngine(int num_layers)"
                                           " : num_layers_(num_layers) {}"));
  // The constructor and the small method, named after their class; the template and the
  // anonymous namespace, after theirs; the last two small pieces, of two scopes, go together,
  // named by what both lie in (the file).
  const auto merged = pieces("cache_engine.cpp", 300, 200);
  EXPECT_EQ(sections(merged), (std::vector<std::string>{"", "vllm::CacheEngine", "vllm::CacheEngine",
                                                        "vllm::CacheEngine::swap", ""}));
  EXPECT_TRUE(merged[1].second.ends_with("int num_layers() const { return num_layers_; }"));
}

TEST(CppChunker, ConcurrentCallsAgree) { testing::expect_concurrent_calls_agree(make_chunker(120), fixture("large.cpp")); }

TEST(CppChunker, RejectsUnknownOptionAndBadSizes) { testing::expect_size_options_checked<CppChunker>(); }

// Every C, C++ and CUDA file of the vLLM corpus: valid spans, no text lost. Prints the time
// spent in chunk() and the distribution of chunk sizes.
TEST(CppChunker, WholeVllmCorpus) {
  const CppChunker chunker = make_chunker(2000, static_cast<int>(kDefaultMinChunkChars));
  testing::CorpusRun all;
  for (const std::string_view extension : {".cu", ".cuh", ".cpp", ".h", ".hpp"}) {
    const auto run = testing::chunk_corpus(chunker, extension, 2000, kDefaultMinChunkChars);
    if (!run) GTEST_SKIP() << testing::kVllmCorpus << " not found: scripts/setup.sh unpacks it";
    if (HasFailure()) return;
    all.files += run->files;
    all.sizes.insert(all.sizes.end(), run->sizes.begin(), run->sizes.end());
    all.elapsed += run->elapsed;
  }
  std::sort(all.sizes.begin(), all.sizes.end());
  testing::print_summary(all);
}

}  // namespace
}  // namespace rag
