#include "python_chunker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "chunk_invariants.hpp"
#include "rag/code_names.hpp"
#include "rag/file_io.hpp"

namespace rag {
namespace {

using Piece = std::pair<std::string, std::string>;  // section, text

SourceFile fixture(const std::string& relative) {
  return SourceFile(relative, relative, read_file(std::string(RAG_TEST_FIXTURES) + "/python/" + relative));
}

PythonChunker make_chunker(int max_chars, int min_chars = 0) {
  YAML::Node node;
  node["max_chunk_size"] = max_chars;
  node["min_chunk_size"] = min_chars;
  Options options(node, "test");
  return PythonChunker(options);
}

std::vector<ChunkSpan> chunk_checked(const SourceFile& file, int max_chars, int min_chars = 0) {
  auto spans = make_chunker(max_chars, min_chars).chunk(file);
  testing::expect_valid_spans(file, spans, static_cast<std::size_t>(max_chars));
  testing::expect_no_text_lost(file, spans);
  return spans;
}

std::vector<Piece> pieces(const std::string& relative, int max_chars, int min_chars = 0) {
  const SourceFile file = fixture(relative);
  std::vector<Piece> out;
  for (const auto& span : chunk_checked(file, max_chars, min_chars))
    out.emplace_back(span.section, std::string(file.slice(span.bytes)));
  return out;
}

bool contains(const std::vector<Piece>& pieces, const Piece& piece) {
  return std::find(pieces.begin(), pieces.end(), piece) != pieces.end();
}

std::vector<std::string> sections(const std::vector<Piece>& pieces) {
  std::vector<std::string> out;
  for (const auto& piece : pieces) out.push_back(piece.first);
  return out;
}

TEST(PythonChunker, ModuleNameFromRelativePath) {
  EXPECT_EQ(python_module_name("vllm/engine/llm_engine.py"), "vllm.engine.llm_engine");
  EXPECT_EQ(python_module_name("pkg/__init__.py"), "pkg");
  EXPECT_EQ(python_module_name("setup.py"), "setup");
  EXPECT_EQ(python_module_name("vllm/stubs.pyi"), "vllm.stubs");
}

TEST(PythonChunker, DefinitionsAreWholeChunksWithQualifiedNames) {
  const auto got = pieces("pkg/shapes.py", 2000);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"pkg.shapes", "pkg.shapes.square", "pkg.shapes",
                                                     "pkg.shapes.Circle", "pkg.shapes"}));
  ASSERT_EQ(got.size(), 5u);
  // Module-level code between definitions, named after the module.
  EXPECT_EQ(got[0].second, "\"\"\"Shapes and their areas.\"\"\"\nimport math\n\nPI = math.pi");
  EXPECT_EQ(got[2].second, "# Not attached: a blank line separates it from the class.");
  EXPECT_EQ(got[4].second, "REGISTRY = {\"circle\": Circle}\n\nif __name__ == \"__main__\":\n    print(square(3))");
  // A class within the limit is one chunk, nested class included.
  EXPECT_TRUE(got[3].second.starts_with("class Circle(Shape):\n    \"\"\"A circle.\"\"\""));
  EXPECT_TRUE(got[3].second.ends_with("        def css(self):\n            return \"color: \" + self.color"));
  EXPECT_EQ(sections(pieces("pkg/__init__.py", 2000)), (std::vector<std::string>{"pkg", "pkg.make"}));
}

TEST(PythonChunker, DecoratorsDocstringAndCommentAboveStayWithTheirDefinition) {
  EXPECT_EQ(pieces("pkg/shapes.py", 2000)[1].second,
            "# Squares a number.\n# Kept with its definition.\n@functools.cache\n@trace(level=2)\n"
            "def square(x):\n    \"\"\"Return x squared.\"\"\"\n    return x * x");
  // The same for a method, once its class is split.
  EXPECT_TRUE(contains(pieces("pkg/shapes.py", 100),
                       {"pkg.shapes.Circle.area",
                        "# Area of the circle.\n    @property\n    def area(self):\n        return PI * self.r ** 2"}));
}

TEST(PythonChunker, ClassOverTheLimitIsSplitAtMethodsRecursively) {
  const auto got = pieces("pkg/shapes.py", 100);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"pkg.shapes", "pkg.shapes.square", "pkg.shapes.square",
                                                     "pkg.shapes", "pkg.shapes.Circle", "pkg.shapes.Circle.__init__",
                                                     "pkg.shapes.Circle.area", "pkg.shapes.Circle.Style",
                                                     "pkg.shapes"}));
  ASSERT_EQ(got.size(), 9u);
  // The header keeps the docstring and the class statements before the first method.
  EXPECT_EQ(got[4].second, "class Circle(Shape):\n    \"\"\"A circle.\"\"\"\n\n    sides = 0");

  // Tighter still, the nested class is split at its method too.
  const auto tight = pieces("pkg/shapes.py", 60);
  EXPECT_TRUE(contains(tight, {"pkg.shapes.Circle.Style", "class Style:\n        color = \"red\""}));
  EXPECT_TRUE(
      contains(tight, {"pkg.shapes.Circle.Style.css", "def css(self):\n            return \"color: \" + self.color"}));
}

TEST(PythonChunker, LargeClassHeaderAndClassStatementsAreChunksOfTheClass) {
  const auto got = pieces("large.py", 300);
  EXPECT_EQ(sections(got), (std::vector<std::string>{"large", "large.Engine", "large.Engine.__init__",
                                                     "large.Engine.add", "large.Engine", "large.Engine.step",
                                                     "large.process", "large.process", "large.process",
                                                     "large.process"}));
  EXPECT_TRUE(got[1].second.starts_with("@register(\"engine\")\nclass Engine(Base):\n    \"\"\"Runs requests."));
  EXPECT_TRUE(got[1].second.ends_with("default_steps = 8\n    verbose = False"));
  EXPECT_EQ(got[4].second, "# A class attribute between methods.\n    retries = 3");
}

TEST(PythonChunker, FunctionOverTheLimitIsSplitAtItsStatements) {
  const auto got = pieces("large.py", 300);
  ASSERT_EQ(got.size(), 10u);
  // The header line and docstring go with the first piece; every cut is at a statement.
  EXPECT_TRUE(got[6].second.starts_with("def process(batch, options=None):\n    \"\"\"Process a batch"));
  EXPECT_TRUE(got[7].second.starts_with("for item in batch:"));
  EXPECT_TRUE(got[8].second.starts_with("try:"));
  EXPECT_TRUE(got[9].second.starts_with("summary = {"));
  EXPECT_TRUE(got[9].second.ends_with("return summary"));
}

TEST(PythonChunker, NoPieceExceedsTinyLimits) {
  // chunk_checked asserts the limit and that no text is lost, down to cuts inside a line.
  for (const int max_chars : {1, 7, 25, 80}) {
    SCOPED_TRACE(max_chars);
    const auto got = pieces("large.py", max_chars);
    EXPECT_GT(got.size(), 10u);
  }
}

TEST(PythonChunker, NonAsciiTextIsMeasuredInCodePoints) {
  const auto got = pieces("unicode.py", 2000);
  ASSERT_EQ(sections(got), (std::vector<std::string>{"unicode", "unicode.greet", "unicode.Café"}));
  EXPECT_EQ(got[0].second,
            "# 模块说明：这里的注释是中文 🐍🚀\nGREETING = \"你好，世界 🌍\"\nFAREWELL = \"再见 👋 — à bientôt\"");
  EXPECT_TRUE(got[1].second.starts_with("# 计算问候语 ✨\ndef greet(name):"));
  // The module-level code is 69 code points (125 bytes): a limit of 69 keeps it whole.
  const SourceFile file = fixture("unicode.py");
  EXPECT_EQ(chunk_checked(file, 69).front().bytes, (ByteRange{0, 125}));
  EXPECT_GT(chunk_checked(file, 68).size(), 3u);
}

TEST(PythonChunker, CrlfLineEndings) {
  EXPECT_EQ(pieces("crlf.py", 2000),
            (std::vector<Piece>{
                {"crlf", "\"\"\"CRLF line endings.\"\"\"\r\nimport os"},
                {"crlf.join", "# Joins paths.\r\ndef join(a, b):\r\n    return os.path.join(a, b)"},
                {"crlf.Walker",
                 "class Walker:\r\n    def walk(self, root):\r\n        for entry in os.scandir(root):\r\n"
                 "            yield entry"},
            }));
  EXPECT_EQ(sections(pieces("crlf.py", 60)),
            (std::vector<std::string>{"crlf", "crlf.join", "crlf.join", "crlf.Walker", "crlf.Walker.walk",
                                      "crlf.Walker.walk"}));
}

TEST(PythonChunker, SyntaxErrorsAreChunkedAlongTheRecoveredTree) {
  EXPECT_EQ(pieces("syntax_error.py", 2000),
            (std::vector<Piece>{
                {"syntax_error", "import os"},
                {"syntax_error.broken", "def broken(x):\n    return x + * 2"},
                {"syntax_error.Fine", "class Fine:\n    def ok(self):\n        return 1"},
                {"syntax_error", "value = [1, 2,"},
            }));
  EXPECT_EQ(sections(pieces("syntax_error.py", 30)),
            (std::vector<std::string>{"syntax_error", "syntax_error.broken", "syntax_error.broken",
                                      "syntax_error.Fine", "syntax_error.Fine.ok", "syntax_error"}));
  // Unbalanced brackets throw nothing and lose nothing either.
  const SourceFile garbage("g.py", "g.py", "def f(:\n  )]} class\n\tx = '''\n@@@ def\n");
  EXPECT_FALSE(chunk_checked(garbage, 10).empty());
}

TEST(PythonChunker, EmptyOrBlankFileHasNoChunks) {
  EXPECT_TRUE(pieces("empty.py", 2000).empty());
  const SourceFile blank("b.py", "b.py", "\n\n   \r\n\t\n");
  EXPECT_TRUE(chunk_checked(blank, 2000).empty());
}

TEST(PythonChunker, MinChunkSizeMergesSmallSiblings) {
  EXPECT_EQ(sections(pieces("small_functions.py", 200)),
            (std::vector<std::string>{"small_functions", "small_functions.one", "small_functions.two",
                                      "small_functions.three", "small_functions.Box", "small_functions.Box.get",
                                      "small_functions.Box.set", "small_functions.Box.describe",
                                      "small_functions.Box.describe", "small_functions.Box.clear"}));
  const auto merged = pieces("small_functions.py", 200, 60);
  // Box.clear, too small to stand alone, joins the end of describe: both lie in Box.
  EXPECT_EQ(sections(merged), (std::vector<std::string>{"small_functions", "small_functions.Box",
                                                        "small_functions.Box.describe", "small_functions.Box"}));
  EXPECT_TRUE(merged.back().second.ends_with("def clear(self):\n        self.v = None"));
  // The module docstring and the three functions, named after the module.
  EXPECT_TRUE(merged[0].second.starts_with("\"\"\"Many tiny helpers.\"\"\""));
  EXPECT_TRUE(merged[0].second.ends_with("def three():\n    return 3"));
  // The class header with the two small methods, named after the class.
  EXPECT_EQ(merged[1].second,
            "class Box:\n    def get(self):\n        return self.v\n\n    def set(self, v):\n        self.v = v");
  // Merging stops at max_chunk_size (the module's pieces pair up), and a small piece left alone
  // keeps its own name (Box.set, Box.clear).
  EXPECT_EQ(sections(pieces("small_functions.py", 60, 60)),
            (std::vector<std::string>{"small_functions", "small_functions", "small_functions.Box",
                                      "small_functions.Box.set", "small_functions.Box.describe",
                                      "small_functions.Box.describe", "small_functions.Box.describe",
                                      "small_functions.Box.describe", "small_functions.Box.describe",
                                      "small_functions.Box.clear"}));
}

TEST(PythonChunker, ConcurrentCallsAgree) { testing::expect_concurrent_calls_agree(make_chunker(120), fixture("large.py")); }

TEST(PythonChunker, RejectsUnknownOptionAndBadSizes) { testing::expect_size_options_checked<PythonChunker>(); }

// Every .py file of the vLLM corpus: valid spans, no text lost, every chunk named. Prints the
// time spent in chunk() and the distribution of chunk sizes.
TEST(PythonChunker, WholeVllmCorpus) {
  const auto every_span_named = [](const SourceFile& file, const std::vector<ChunkSpan>& spans) {
    for (const auto& span : spans) EXPECT_FALSE(span.section.empty()) << file.name();
  };
  const auto run = testing::chunk_corpus(make_chunker(2000, static_cast<int>(kDefaultMinChunkChars)), ".py", 2000,
                                        kDefaultMinChunkChars, every_span_named);
  if (!run) GTEST_SKIP() << testing::kVllmCorpus << " not found: scripts/setup.sh unpacks it";
  testing::print_summary(*run);
}

}  // namespace
}  // namespace rag
