#include "rag/pipeline.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/error.hpp"
#include "rag/glob.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kValid = R"(
name: mini
corpus:
  root: some/repo/
  include: ["**/*.py", "**/*.md"]
  exclude: ["build/**"]
chunkers:
  - plugin: python
    files: "**/*.py"
    options: {max_chunk_size: 500}
  - plugin: text
    files: ["**"]
retriever:
  plugin: bm25
  options: {k1: 1.5}
index: index/mini
)";

std::string load_error(const std::string& yaml) {
  testing::TempDir dir;
  try {
    Pipeline::load(dir.write("p.yaml", yaml));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Pipeline, LoadsAValidFile) {
  testing::TempDir dir;
  const Pipeline p = Pipeline::load(dir.write("p.yaml", kValid));
  EXPECT_EQ(p.name, "mini");
  EXPECT_EQ(p.corpus_root, "some/repo");
  ASSERT_EQ(p.chunkers.size(), 2u);
  EXPECT_EQ(p.chunkers[0].files, std::vector<std::string>{"**/*.py"});
  ASSERT_EQ(p.chunkers_for("a/b.py").size(), 1u);
  EXPECT_EQ(p.chunkers_for("a/b.py")[0]->plugin, "python");
  EXPECT_EQ(p.chunkers_for("README.md")[0]->plugin, "text");
  EXPECT_EQ(p.retriever.plugin, "bm25");
  EXPECT_EQ(p.index_dir, "index/mini");
}

TEST(Pipeline, ContinueHandsAFileToTheNextMatchingRuleToo) {
  std::string yaml = kValid;
  yaml.replace(yaml.find("    options: {max_chunk_size: 500}"), 34, "    options: {max_chunk_size: 500}\n    continue: true");
  testing::TempDir dir;
  const Pipeline p = Pipeline::load(dir.write("p.yaml", yaml));
  const auto rules = p.chunkers_for("a/b.py");
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0]->plugin, "python");
  EXPECT_EQ(rules[1]->plugin, "text");
  EXPECT_EQ(p.chunkers_for("README.md").size(), 1u);
  EXPECT_NE(p.content_hash(), Pipeline::load(dir.write("q.yaml", kValid)).content_hash());
  yaml.replace(yaml.find("continue: true"), 14, "continue: maybe");
  EXPECT_THAT(load_error(yaml), HasSubstr("chunkers[0].continue must be true or false"));
}

TEST(Pipeline, HashFollowsContentNotNames) {
  testing::TempDir dir;
  Pipeline a = Pipeline::load(dir.write("a.yaml", kValid));
  const Pipeline renamed = Pipeline::load(dir.write("b.yaml", "# comment\n" + kValid + "description: other\n"));
  EXPECT_EQ(a.content_hash(), renamed.content_hash());
  const std::string before = a.content_hash();
  a.set_chunker_option("max_chunk_size", YAML::Node(800));
  EXPECT_NE(a.content_hash(), before);
  EXPECT_EQ(a.chunkers[1].options["max_chunk_size"].as<int>(), 800);
}

TEST(Pipeline, ErrorsNameTheFileTheKeyAndWhatIsAllowed) {
  EXPECT_THAT(load_error(kValid + "retreiver: {}\n"),
              AllOf(HasSubstr("p.yaml"), HasSubstr("unknown key 'retreiver'"), HasSubstr("retriever")));
  std::string bad_corpus = kValid;
  bad_corpus.replace(bad_corpus.find("  exclude"), 9, "  exclued");
  EXPECT_THAT(load_error(bad_corpus), AllOf(HasSubstr("corpus."), HasSubstr("exclued"), HasSubstr("include")));
  EXPECT_THAT(load_error("corpus: [1, 2]\n"), HasSubstr("corpus"));
  EXPECT_THAT(load_error("name: x\n"), HasSubstr("corpus is required"));
  EXPECT_THAT(load_error("key: [unclosed\n"), HasSubstr("not valid YAML"));
  EXPECT_THAT(load_error("- just\n- a list\n"), HasSubstr("must be a YAML mapping"));
  std::string bad_size = kValid;
  bad_size.replace(bad_size.find("  exclude"), 9, "  max_file_size: lots\n  exclude");
  EXPECT_THAT(load_error(bad_size), HasSubstr("max_file_size must be a number"));
  std::string no_chunkers = kValid.substr(0, kValid.find("chunkers:")) + "chunkers: []\n" +
                            kValid.substr(kValid.find("retriever:"));
  EXPECT_THAT(load_error(no_chunkers), HasSubstr("chunkers must be a non-empty list"));
}

TEST(Pipeline, MissingFileSaysWhereToLook) {
  try {
    Pipeline::load("/nonexistent/p.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("/nonexistent/p.yaml"), HasSubstr("not found")));
  }
}

TEST(Glob, StarsAndDoubleStars) {
  EXPECT_TRUE(glob_match("**/*.py", "a.py"));
  EXPECT_TRUE(glob_match("**/*.py", "a/b/c.py"));
  EXPECT_FALSE(glob_match("**/*.py", "a/b/c.pyc"));
  EXPECT_TRUE(glob_match("docs/**", "docs/a/b.md"));
  EXPECT_FALSE(glob_match("docs/*", "docs/a/b.md"));
  EXPECT_TRUE(glob_match("docs/*.md", "docs/x.md"));
  EXPECT_TRUE(glob_match("*.md", "deep/in/tree/x.md"));  // no slash: the file name anywhere
  EXPECT_TRUE(glob_match("a/?.txt", "a/b.txt"));
  EXPECT_FALSE(glob_match("a?b", "a/b"));
  EXPECT_TRUE(glob_match("**/.git/**", ".git/config"));
}

}  // namespace
}  // namespace rag
