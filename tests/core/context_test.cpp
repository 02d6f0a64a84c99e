// Context assembly: merging, budget, parent context, prompts, the `context:` options.
#include "rag/context.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>

#include "rag/chunk_vector.hpp"
#include "rag/error.hpp"
#include "rag/source_file.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;

// The tests' chunks name their files by absolute path, which the assembler reads as they are.
const std::filesystem::path kBase = "/";

// Chunks of `text` (saved as `path`) at the given byte ranges, as the index stores them.
// The chunks as a source that lives as long as the test program: an assembler keeps a reference.
const ChunkVector& source(std::vector<Chunk> chunks, std::string corpus_root = {}) {
  static std::deque<ChunkVector> kept;
  return kept.emplace_back(std::move(chunks), std::move(corpus_root));
}

std::vector<Chunk> chunks_of(const std::string& path, const std::string& text, const std::string& kind,
                             const std::vector<std::pair<ByteRange, std::string>>& pieces) {
  const SourceFile file(path, path, text);
  std::vector<Chunk> out;
  for (const auto& [range, section] : pieces) {
    Chunk c;
    c.file_path = path;
    c.kind = kind;
    c.section = section;
    c.first_byte = range.begin;
    c.last_byte = range.end;
    c.first_char = file.char_offset(range.begin);
    c.last_char = file.char_offset(range.end);
    c.text = std::string(file.slice(range));
    out.push_back(std::move(c));
  }
  return out;
}

ByteRange find(const std::string& text, const std::string& piece) {
  const auto at = text.find(piece);
  EXPECT_NE(at, std::string::npos) << piece;
  return {at, at + piece.size()};
}

ContextConfig config_from(const std::string& yaml) {
  Options options(YAML::Load(yaml), "p.yaml: context");
  return ContextConfig::from_options(options);
}

std::string config_error(const std::string& yaml) {
  try {
    config_from(yaml);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::string kGuide =
    "# Guide\n\nIntro with ünïcödé text.\n\n## Install\n\nUse pip.\n\nThen check.\n\n"
    "## Quantization\n\nUse the awq flag.\n";

class ContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.write("docs/guide.md", kGuide).string();
    chunks_ = chunks_of(path_, kGuide, "markdown",
                        {{find(kGuide, "# Guide\n\nIntro with ünïcödé text."), "Guide"},
                         {find(kGuide, "## Install\n\nUse pip."), "Guide > Install"},
                         {find(kGuide, "Then check."), "Guide > Install"},
                         {find(kGuide, "## Quantization\n\nUse the awq flag."), "Guide > Quantization"}});
  }
  testing::TempDir dir_;
  std::string path_;
  std::vector<Chunk> chunks_;
};

TEST_F(ContextTest, ASourceIsPlacedBelowTheCorpusRoot) {
  const auto place = [&](const std::string& root) {
    const GenerationRequest r = ContextAssembler(ContextConfig{}, source(chunks_, root), kBase).assemble("q", std::vector<Hit>{{3, 1.0}});
    return r.evidence.at(0).place;
  };
  const std::string root = dir_.path().string();
  EXPECT_EQ(place(root), "docs/guide.md");
  EXPECT_EQ(place(root + "/"), "docs/guide.md");
  // Not told the root, or told one the file is not below (a name it only starts with): the path.
  EXPECT_EQ(place(""), path_);
  EXPECT_EQ(place(root + "/do"), path_);
  EXPECT_EQ(place(root + "/docs/guide.md"), path_);
}

TEST_F(ContextTest, AdjacentSpansOfAFileMergeIntoOneSourceWithTheFileText) {
  const ContextAssembler assembler(ContextConfig{}, source(chunks_), kBase);
  // The two hits are separated by a blank line only: one source, ranked as the better of them.
  const GenerationRequest r = assembler.assemble("how to install?", std::vector<Hit>{{2, 5.0}, {1, 4.0}});
  ASSERT_EQ(r.evidence.size(), 1u);
  const Evidence& merged = r.evidence[0];
  EXPECT_EQ(merged.number, 1);
  EXPECT_EQ(merged.text, "## Install\n\nUse pip.\n\nThen check.");
  EXPECT_EQ(merged.first_char, chunks_[1].first_char);
  EXPECT_EQ(merged.last_char, chunks_[2].last_char);
  EXPECT_EQ(merged.section, "Guide > Install");
  EXPECT_EQ(merged.kind, "markdown");
  EXPECT_DOUBLE_EQ(merged.score, 5.0);
  EXPECT_EQ(merged.rank, 1u);
}

TEST_F(ContextTest, MergingStopsAtTextBetweenSpansAndCanBeTurnedOff) {
  const ContextAssembler assembler(ContextConfig{}, source(chunks_), kBase);
  const GenerationRequest r = assembler.assemble("q", std::vector<Hit>{{0, 2.0}, {2, 1.0}});
  ASSERT_EQ(r.evidence.size(), 2u);  // "## Install / Use pip." lies between them
  EXPECT_EQ(r.evidence[1].text, "Then check.");

  ContextConfig no_merge;
  no_merge.merge = false;
  const GenerationRequest separate = ContextAssembler(no_merge, source(chunks_), kBase).assemble("q", std::vector<Hit>{{1, 2}, {2, 1}});
  EXPECT_EQ(separate.evidence.size(), 2u);
}

TEST_F(ContextTest, AFileChangedSinceIndexingIsNotTrusted) {
  dir_.write("docs/guide.md", "something else entirely\n");
  const ContextAssembler assembler(ContextConfig{}, source(chunks_), kBase);
  const GenerationRequest r = assembler.assemble("q", std::vector<Hit>{{1, 2.0}, {2, 1.0}});
  ASSERT_EQ(r.evidence.size(), 2u);  // the gap cannot be checked any more
  EXPECT_EQ(r.evidence[0].text, chunks_[1].text);
}

TEST_F(ContextTest, ASourceThatEndsAnnouncingSomethingTakesIt) {
  const std::string text = "# Serve\n\nStart the server with:\n\n```bash\nvllm serve m\n```\n\nThen query it.\n\nEnd.\n";
  const std::string path = dir_.write("docs/serve.md", text).string();
  const std::vector<Chunk> chunks = chunks_of(path, text, "markdown",
                                              {{find(text, "# Serve\n\nStart the server with:"), "Serve"},
                                               {find(text, "Then query it."), "Serve"}});
  const ContextAssembler assembler(ContextConfig{}, source(chunks), kBase);
  const GenerationRequest r = assembler.assemble("how to serve?", std::vector<Hit>{{0, 2.0}, {1, 1.0}});
  ASSERT_EQ(r.evidence.size(), 2u);
  EXPECT_EQ(r.evidence[0].text, "# Serve\n\nStart the server with:\n\n```bash\nvllm serve m\n```");
  EXPECT_EQ(r.evidence[0].last_char, text.find("\n\nThen"));
  EXPECT_EQ(r.evidence[0].last_line, 7u);
  EXPECT_EQ(r.evidence[1].text, "Then query it.");  // it announces nothing

  // A file edited since indexing gives nothing more.
  dir_.write("docs/serve.md", "changed\n");
  EXPECT_EQ(assembler.assemble("how to serve?", std::vector<Hit>{{0, 2.0}}).evidence[0].text, chunks[0].text);
}

TEST(Context, OverlappingChunksMergeWithoutTheFile) {
  const std::string text = "alpha beta gamma delta epsilon";
  const auto chunks = chunks_of("not/on/disk.txt", text, "text",
                                {{{0, 16}, ""}, {{11, 30}, ""}, {{6, 10}, ""}});  // the third inside the first
  const GenerationRequest r = ContextAssembler(ContextConfig{}, source(chunks), kBase).assemble("q", std::vector<Hit>{{1, 3}, {0, 2}, {2, 1}});
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].text, text);
  EXPECT_EQ(r.evidence[0].first_char, 0u);
  EXPECT_EQ(r.evidence[0].last_char, 30u);
}

TEST_F(ContextTest, AFileChunkedTwoWaysMergesUnderItsOwnKindAndName) {
  // The pipeline also cuts Markdown into plain-text windows: such a window, ranked first, overlaps
  // the Install section; the merged source is still Markdown and named after the section.
  std::vector<Chunk> chunks = chunks_;
  Chunk window = chunks_of(path_, kGuide, "text", {{find(kGuide, "Use pip.\n\nThen check."), ""}})[0];
  chunks.push_back(window);
  const GenerationRequest r =
      ContextAssembler(ContextConfig{}, source(chunks), kBase).assemble("pip", std::vector<Hit>{{4, 3.0}, {1, 2.0}});
  ASSERT_EQ(r.evidence.size(), 1u);
  EXPECT_EQ(r.evidence[0].kind, "markdown");
  EXPECT_EQ(r.evidence[0].section, "Guide > Install");
  EXPECT_EQ(r.evidence[0].text, "## Install\n\nUse pip.\n\nThen check.");
}

TEST(Context, BudgetKeepsTheBestSourcesAndCutsAnOversizedFirstOne) {
  const std::string text = std::string(50, 'a') + "\n" + std::string(50, 'b') + "\n\nx\n\n" + std::string(30, 'c') +
                           "\n\n" + std::string(200, 'd');
  const auto chunks = chunks_of("f.txt", text, "text",
                                {{{0, 101}, ""}, {{103, 104}, ""}, {{106, 136}, ""}, {{138, 338}, ""}});
  ContextConfig config;
  config.budget = 140;
  config.merge = false;
  const ContextAssembler assembler(config, source(chunks), kBase);
  // 101 + 200 would not fit: the 200 is skipped, the smaller ones after it still go in.
  const GenerationRequest r = assembler.assemble("q", std::vector<Hit>{{0, 4}, {3, 3}, {2, 2}, {1, 1}});
  ASSERT_EQ(r.evidence.size(), 3u);
  EXPECT_EQ(r.evidence[0].text.size(), 101u);
  EXPECT_EQ(r.evidence[1].text, std::string(30, 'c'));
  EXPECT_EQ(r.evidence[2].text, "x");
  EXPECT_EQ(r.evidence[2].number, 3);
  // The best source alone over budget is cut at a line end.
  config.budget = 120;
  const GenerationRequest cut = ContextAssembler(config, source(chunks), kBase).assemble("q", std::vector<Hit>{{3, 1}});
  ASSERT_EQ(cut.evidence.size(), 1u);
  EXPECT_EQ(cut.evidence[0].text, std::string(120, 'd'));
  EXPECT_EQ(cut.evidence[0].last_char, 138u + 120u);
  config.budget = 100;
  const GenerationRequest at_line = ContextAssembler(config, source(chunks), kBase).assemble("q", std::vector<Hit>{{0, 1}});
  EXPECT_EQ(at_line.evidence[0].text, std::string(50, 'a'));
}

TEST_F(ContextTest, ParentContextIsTheWholeSectionRebuiltFromTheChunks) {
  ContextConfig config;
  config.parent_sources = 2;
  config.merge = false;  // the two hits are adjacent
  const ContextAssembler assembler(config, source(chunks_), kBase);
  const GenerationRequest r = assembler.assemble("check", std::vector<Hit>{{2, 3.0}, {3, 1.0}});
  ASSERT_EQ(r.parents.size(), 2u);
  EXPECT_EQ(r.parents[0].number, 1);
  EXPECT_EQ(r.parents[0].section, "Guide > Install");
  EXPECT_EQ(r.parents[0].text, "## Install\n\nUse pip.\n\nThen check.");
  // The Quantization section is one chunk: its parent is the enclosing "Guide", the whole file.
  EXPECT_EQ(r.parents[1].number, 2);
  EXPECT_EQ(r.parents[1].section, "Guide");
  EXPECT_EQ(r.parents[1].first_char, 0u);
  EXPECT_THAT(r.parents[1].text, HasSubstr("Use the awq flag."));
  EXPECT_THAT(r.messages[1].content, HasSubstr("Surrounding context of the best sources"));

  // Plain-text windows over the same file, another chunking of it, do not cut the section.
  std::vector<Chunk> with_windows = chunks_;
  with_windows.push_back(chunks_of(path_, kGuide, "text", {{find(kGuide, "Use pip.\n\nThen"), ""}})[0]);
  const GenerationRequest windows = ContextAssembler(config, source(with_windows), kBase).assemble("check", std::vector<Hit>{{2, 3.0}});
  ASSERT_EQ(windows.parents.size(), 1u);
  EXPECT_EQ(windows.parents[0].text, "## Install\n\nUse pip.\n\nThen check.");

  config.parent_budget = 50;  // the whole guide does not fit
  const GenerationRequest small = ContextAssembler(config, source(chunks_), kBase).assemble("q", std::vector<Hit>{{3, 1.0}});
  EXPECT_TRUE(small.parents.empty());
}

TEST(Context, PythonParentIsTheEnclosingDefinitionJoinedFromTheStoreWhenTheFileIsGone) {
  const std::string text =
      "class Server:\n    \"\"\"Serves.\"\"\"\n\n    def start(self):\n        pass\n\n    def stop(self):\n        pass\n";
  const auto chunks = chunks_of("gone/server.py", text, "python",
                                {{find(text, "class Server:\n    \"\"\"Serves.\"\"\""), "pkg.server.Server"},
                                 {find(text, "def start(self):\n        pass"), "pkg.server.Server.start"},
                                 {find(text, "def stop(self):\n        pass"), "pkg.server.Server.stop"}});
  ContextConfig config;
  config.parent_sources = 1;
  const GenerationRequest r = ContextAssembler(config, source(chunks), kBase).assemble("stop", std::vector<Hit>{{2, 1.0}});
  ASSERT_EQ(r.parents.size(), 1u);
  EXPECT_EQ(r.parents[0].section, "pkg.server.Server");
  EXPECT_EQ(r.parents[0].text,
            "class Server:\n    \"\"\"Serves.\"\"\"\ndef start(self):\n        pass\ndef stop(self):\n        pass");
  EXPECT_EQ(r.parents[0].first_char, 0u);
  EXPECT_EQ(r.parents[0].last_char, text.size() - 1);
}

TEST_F(ContextTest, SpansOfAResultsFileAreFoundInTheStoreOrReadFromTheirFile) {
  const ContextAssembler assembler(ContextConfig{}, source(chunks_), kBase);
  const Chunk& install = chunks_[1];
  const GenerationRequest known = assembler.assemble("q", std::vector<SourceSpan>{{path_, install.first_char, install.last_char}});
  ASSERT_EQ(known.evidence.size(), 1u);
  EXPECT_EQ(known.evidence[0].section, "Guide > Install");
  // Not a chunk: read from the file, code points counted after the non-ASCII intro.
  const std::size_t first = SourceFile(path_, path_, kGuide).char_offset(kGuide.find("pip"));
  const GenerationRequest read = assembler.assemble("q", std::vector<SourceSpan>{{path_, first, first + 3}});
  EXPECT_EQ(read.evidence[0].text, "pip");
  EXPECT_EQ(read.evidence[0].kind, "markdown");
  EXPECT_THROW(assembler.assemble("q", std::vector<SourceSpan>{{"missing.md", 0, 4}}), Error);
  EXPECT_THROW(assembler.assemble("q", std::vector<SourceSpan>{{path_, 0, 100000}}), Error);
}

TEST_F(ContextTest, PromptAsksForTheQuestionsLanguageAndNumbersTheSources) {
  const ContextAssembler assembler(ContextConfig{}, source(chunks_), kBase);
  const GenerationRequest r = assembler.assemble("Comment installer le paquet avec pip ?", std::vector<Hit>{{1, 1.0}});
  EXPECT_EQ(r.language, "fr");
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_THAT(r.messages[0].content, HasSubstr("Answer in French"));
  EXPECT_THAT(r.messages[1].content, HasSubstr("[1] " + path_ + " (Guide > Install)\n## Install\n\nUse pip."));
  EXPECT_THAT(r.messages[1].content, HasSubstr("Question: Comment installer le paquet avec pip ?"));
  EXPECT_THAT(r.messages[1].content, ::testing::Not(HasSubstr("Surrounding context")));

  const ContextConfig custom = config_from("{prompt: {system: 'Be brief ({language}).', user: 'Q={question} {{raw}}'}}");
  const GenerationRequest c = ContextAssembler(custom, source(chunks_), kBase).assemble("What is pip?", std::vector<Hit>{{1, 1.0}});
  EXPECT_EQ(c.messages[0].content, "Be brief (English).");
  EXPECT_EQ(c.messages[1].content, "Q=What is pip? {raw}");
}

TEST(ContextConfig, OptionsAreCheckedAndNamed) {
  const ContextConfig defaults = config_from("~");
  EXPECT_EQ(defaults.budget, 6000u);
  EXPECT_TRUE(defaults.merge);
  EXPECT_EQ(defaults.parent_sources, 0u);
  EXPECT_EQ(defaults.system_prompt, kDefaultSystemPrompt);
  const ContextConfig set = config_from("{budget: 3000, merge: false, parents: {sources: 2, budget: 900}}");
  EXPECT_EQ(set.budget, 3000u);
  EXPECT_FALSE(set.merge);
  EXPECT_EQ(set.parent_sources, 2u);
  EXPECT_EQ(set.parent_budget, 900u);

  EXPECT_THAT(config_error("{budgett: 10}"), HasSubstr("p.yaml: context: unknown option 'budgett'"));
  EXPECT_THAT(config_error("{parents: {top: 2}}"), HasSubstr("p.yaml: context.parents: unknown option 'top'"));
  EXPECT_THAT(config_error("{budget: 5}"), HasSubstr("p.yaml: context.budget: must be between 100"));
  EXPECT_THAT(config_error("{budget: many}"), HasSubstr("p.yaml: context.budget: must be a whole number, got 'many'"));
  EXPECT_THAT(config_error("{prompt: {user: 'Q: {query}'}}"),
              HasSubstr("p.yaml: context.prompt.user: unknown placeholder {query} (known: {question}, {language}"));
  EXPECT_THAT(config_error("{prompt: {user: 'Sources: {sources}'}}"), HasSubstr("never mentions {question}"));
  EXPECT_THAT(config_error("{prompt: {system: 'a { b'}}"), HasSubstr("context.prompt.system: a '{' is never closed"));
  EXPECT_THAT(config_error("[1, 2]"), HasSubstr("p.yaml: context: expected a mapping"));
}

TEST(RenderTemplate, ReplacesPlaceholdersAndEscapedBraces) {
  EXPECT_EQ(render_template("{a}-{{b}}-{a}", {{"a", "x"}}), "x-{b}-x");
  EXPECT_THROW(render_template("{c}", {{"a", "x"}}), Error);
  EXPECT_THROW(render_template("a } b", {}), Error);
}

TEST(CitedNumbers, FindsEachCitationOnceInOrder) {
  EXPECT_EQ(cited_numbers("A [2]. B [1, 3][2]. C [12]"), (std::vector<int>{2, 1, 3, 12}));
  EXPECT_EQ(cited_numbers("see [the docs](x) and a[i] and [] and [1"), std::vector<int>{});
  // With the number of sources: a list holding a number that is no source's is quoted text.
  EXPECT_EQ(cited_numbers("Ranks [1, 32, 64] work [2]. See [3][0].", 3), (std::vector<int>{2, 3}));
  EXPECT_EQ(cited_numbers("Ranks [1, 32, 64] work [2].", 100), (std::vector<int>{1, 32, 64, 2}));
  // Brackets in quoted code or logs are lists, not citations (a log line's "bs:[1, 32, 4]").
  EXPECT_EQ(cited_numbers("A log [1]\n\n```\nbs:[1, 32, 4], seq:[128]\n```\nand `x[4]` then [2]"), (std::vector<int>{1, 2}));
  EXPECT_EQ(cited_numbers("an unclosed ` quotes nothing [3]"), std::vector<int>{3});
  // Only a fence of its own kind, as long or longer, closes one.
  EXPECT_EQ(cited_numbers("[1]\n````\n~~~\nx[5]\n```\ny[6]\n````\n[2]"), (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace rag
