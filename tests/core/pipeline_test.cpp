#include "rag/pipeline.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/error.hpp"
#include "rag/glob.hpp"
#include "rag/options.hpp"
#include "rag/project.hpp"
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
  // Relative paths are resolved against the file's folder (no configs/ folder above it).
  EXPECT_EQ(p.base, dir.path());
  EXPECT_EQ(p.corpus_dir, dir / "some/repo");
  EXPECT_EQ(p.index_dir, dir / "index/mini");
  EXPECT_EQ(p.command("index"), "rag index");
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
  const Pipeline resized = Pipeline::load(dir / "a.yaml", {"chunkers[*].options.max_chunk_size=800"});
  EXPECT_NE(resized.content_hash(), a.content_hash());
  EXPECT_EQ(resized.chunkers[1].options["max_chunk_size"].as<int>(), 800);
}

TEST(Pipeline, NumbersAreReadByValueAndTheDigestOfCanonicalOnesIsAsWritten) {
  EXPECT_EQ(canonical_number("1.20"), "1.2");
  EXPECT_EQ(canonical_number("12e-1"), "1.2");
  EXPECT_EQ(canonical_number("2000"), "2000");
  for (const std::string kept : {"english", "1.2.3", "nan", "inf", "", "0x10", "true"}) EXPECT_EQ(canonical_number(kept), kept);
  // Indexes record their pipeline's digest: rewriting numbers must keep the text of the ones
  // already canonical, their flow style included, or every index would read as another's.
  const auto emit = [](const YAML::Node& node) {
    YAML::Emitter out;
    out << node;
    return std::string(out.c_str());
  };
  const YAML::Node options = YAML::Load("{max_chunk_size: 2000, overlap: 0.5, analysis: {default: {stemmer: english}}, files: [\"**\"]}");
  EXPECT_EQ(emit(canonical_numbers(options)), emit(options));
  const YAML::Node spelt = YAML::Load("{max_chunk_size: 2000.0, overlap: 0.50, name: '0.50'}");
  EXPECT_EQ(emit(canonical_numbers(spelt)), emit(YAML::Load("{max_chunk_size: 2000, overlap: 0.5, name: '0.50'}")));
}

TEST(Pipeline, OptionsRecordCopiesNotThePipelinesOwnNodes) {
  // yaml-cpp joins two documents' memory when a node of one goes into the other: the record of
  // options read (made for every index opened) must not hold the pipeline's nodes, or the
  // pipeline's document grows for good with every generation a server or a watch opens.
  const YAML::Node pipeline = YAML::Load("{k1: 1.2, analysis: {default: {stemmer: english}}}");
  Options options(pipeline, "p.yaml: retriever.options");
  EXPECT_EQ(options.get<double>("k1", 0.9), 1.2);
  Options analysis = options.child("analysis");
  Options by_default = analysis.child("default");
  EXPECT_EQ(by_default.get<std::string>("stemmer", "none"), "english");
  EXPECT_FALSE(options.effective()["k1"].is(pipeline["k1"]));
  EXPECT_FALSE(by_default.effective()["stemmer"].is(pipeline["analysis"]["default"]["stemmer"]));
  EXPECT_EQ(options.effective()["analysis"]["default"]["stemmer"].as<std::string>(), "english");  // children still shared
}

TEST(Pipeline, OptionsFromTheRetrieversSearchSectionAreNamedThere) {
  // The pipeline merges `search:` into the retriever's options; errors name where the key was written.
  testing::TempDir dir;
  const Pipeline p = Pipeline::load(dir.write(
      "p.yaml", "name: p\ncorpus: {root: r}\nchunkers: [{plugin: text, files: \"**\"}]\nretriever:\n  plugin: bm25\n  options: {k1: 2}\n"
                "  search: {remote: 3, timeouts: 1, feedback: {documents: -1}}\nindex: i\n"));
  Options options(p.retriever.options, p.retriever.where + ".options");
  options.place(p.retriever.search_keys, p.retriever.where + ".search");
  EXPECT_EQ(options.get<double>("k1", 1.2), 2.0);
  try {
    options.get<std::vector<std::string>>("remote", {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("retriever.search.remote: "));
  }
  Options feedback = options.child("feedback");  // and what is nested in such a key
  try {
    feedback.get_integer("documents", 0, 0, 100);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("retriever.search.feedback.documents: must be between 0 and 100"));
  }
  try {
    options.finish();
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("retriever.search: unknown option 'timeouts'"));
  }
}

TEST(Pipeline, OptionsOfAListOutliveTheirReaders) {
  // A fusion reads its members as a list of children, each with its options, and lets them go;
  // what they read stays in the record (rag check shows it, the manifest names their plugins).
  const YAML::Node pipeline = YAML::Load("{retrievers: [{plugin: bm25, options: {k1: 1.5}}, {plugin: tfidf}]}");
  Options options(pipeline, "p.yaml: retriever.options");
  {
    std::vector<Options> members = options.children("retrievers");
    for (Options& member : members) {
      member.get<std::string>("plugin", "");
      Options inner = member.child("options");
      inner.get<double>("k1", 1.2);
      inner.get<std::string>("stemmer", "english");
    }
  }
  std::vector<std::string> garbage;  // reuses what a dangling record would point to
  for (int i = 0; i < 1000; ++i) garbage.push_back(std::string(48, 'x'));
  const YAML::Node effective = options.effective();
  ASSERT_TRUE(effective["retrievers"].IsSequence());
  EXPECT_EQ(effective["retrievers"][0]["plugin"].as<std::string>(), "bm25");
  EXPECT_EQ(effective["retrievers"][0]["options"]["k1"].as<double>(), 1.5);
  EXPECT_EQ(effective["retrievers"][1]["options"]["stemmer"].as<std::string>(), "english");
}

TEST(Pipeline, PathsOfAPipelineInConfigsAreRelativeToTheProject) {
  testing::TempDir dir;
  // A folder named configs that is no project's (no default.yaml): paths are the file's own.
  EXPECT_EQ(Pipeline::load(dir.write("configs/ablation/p.yaml", kValid)).base, dir / "configs/ablation");
  dir.write("configs/default.yaml", kValid);
  const Pipeline p = Pipeline::load(dir / "configs/ablation/p.yaml", {}, "ablation/p");
  EXPECT_EQ(p.base, dir.path());
  EXPECT_EQ(p.corpus_dir, dir / "some/repo");
  EXPECT_EQ(p.index_dir, dir / "index/mini");
  EXPECT_EQ(p.command("search"), "rag search --pipeline ablation/p");
}

TEST(Pipeline, OverridesSetAnyKeyPath) {
  testing::TempDir dir;
  const auto file = dir.write("p.yaml", kValid);
  const Pipeline p = Pipeline::load(file, {"retriever.options.k1=0.9", "retriever.options.analysis.default.stemmer=none",
                                           "chunkers[0].options.max_chunk_size=300", "corpus.include=[\"**/*.rs\"]",
                                           "name=tuned"});
  EXPECT_EQ(p.retriever.options["k1"].as<double>(), 0.9);
  EXPECT_EQ(p.retriever.options["analysis"]["default"]["stemmer"].as<std::string>(), "none");
  EXPECT_EQ(p.chunkers[0].options["max_chunk_size"].as<int>(), 300);
  EXPECT_FALSE(p.chunkers[1].options["max_chunk_size"].IsDefined());
  EXPECT_EQ(p.include, std::vector<std::string>{"**/*.rs"});
  EXPECT_EQ(p.name, "tuned");
  EXPECT_EQ(p.command("index"),
            "rag index --set retriever.options.k1=0.9 --set retriever.options.analysis.default.stemmer=none --set "
            "'chunkers[0].options.max_chunk_size=300' --set 'corpus.include=[\"**/*.rs\"]' --set name=tuned");
  EXPECT_THAT(p.label(), HasSubstr("p.yaml with --set retriever.options.k1=0.9"));
}

TEST(Pipeline, OverridesThatChangeTheIndexGetAFolderOfTheirOwn) {
  testing::TempDir dir;
  const auto file = dir.write("p.yaml", kValid);
  const Pipeline written = Pipeline::load(file);
  const Pipeline tuned = Pipeline::load(file, {"retriever.options.k1=0.9"});
  EXPECT_EQ(tuned.index_dir, dir / ("index/mini@" + tuned.content_hash().substr(0, 12)));
  EXPECT_EQ(Pipeline::load(file, {"retriever.options.k1=0.9"}).index_dir, tuned.index_dir);  // stable
  EXPECT_NE(Pipeline::load(file, {"retriever.options.k1=1.0"}).index_dir, tuned.index_dir);
  // What does not change the index (names, the generator, a value as written) keeps its folder.
  EXPECT_EQ(Pipeline::load(file, {"generator={plugin: extractive}", "description=x"}).index_dir, written.index_dir);
  // A generator section that names no plugin is the default one's options.
  const Pipeline shorter = Pipeline::load(file, {"generator.options.max_chars=200"});
  EXPECT_EQ(shorter.generator.plugin, "extractive");
  EXPECT_EQ(shorter.generator.options["max_chars"].as<int>(), 200);
  EXPECT_EQ(shorter.index_dir, written.index_dir);
  EXPECT_EQ(Pipeline::load(file, {"retriever.options.k1=1.5"}).index_dir, written.index_dir);
  // Numbers by value, however they are spelt; a quoted one is a string.
  EXPECT_EQ(Pipeline::load(file, {"retriever.options.k1=1.50"}).index_dir, written.index_dir);
  EXPECT_EQ(Pipeline::load(file, {"retriever.options.k1=15e-1"}).index_dir, written.index_dir);
  EXPECT_NE(Pipeline::load(file, {"retriever.options.k1='1.50'"}).index_dir, written.index_dir);
  EXPECT_EQ(Pipeline::load(file, {"retriever.options.k1=0.9", "index=elsewhere"}).index_dir, dir / "elsewhere");
  // Options that only change how the index is searched, on a retriever that has no others.
  const auto bare = dir.write("bare.yaml", "corpus: {root: some/repo}\nchunkers: [{plugin: text, files: '**'}]\n"
                                           "retriever: {plugin: bm25}\nindex: index/bare\n");
  EXPECT_EQ(Pipeline::load(bare, {"retriever.search={k1: 0.9}"}).index_dir, Pipeline::load(bare).index_dir);
  EXPECT_EQ(Pipeline::load(bare, {"retriever.options={}"}).index_dir, Pipeline::load(bare).index_dir);
}

TEST(Pipeline, OverridesThatDoNotFitSayWhy) {
  testing::TempDir dir;
  const auto file = dir.write("p.yaml", kValid);
  const auto error = [&](const std::string& assignment) {
    try {
      Pipeline::load(file, {assignment});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(error("retriever.options.k1"), HasSubstr("--set wants KEY=VALUE"));
  EXPECT_THAT(error("=3"), HasSubstr("--set wants KEY=VALUE"));
  EXPECT_THAT(error("retriever.options.k1="), HasSubstr("the value is empty; give one, or null for the key's default"));
  EXPECT_THAT(error("retriever.options.k1= "), HasSubstr("the value is empty"));
  EXPECT_THAT(error("chunkers[5].options.max_chunk_size=3"), HasSubstr("chunkers has 2 entries, so [5] is out of range"));
  EXPECT_THAT(error("index.path=x"), HasSubstr("index is a value, not a mapping with a key 'path'"));
  EXPECT_THAT(error("corpus[0]=x"), HasSubstr("corpus is not a list"));
  EXPECT_THAT(error("retriever..k1=1"), HasSubstr("a key is missing"));
  EXPECT_THAT(error("chunkers[x].files=a"), HasSubstr("[x] is not an entry number or [*]"));
  EXPECT_THAT(error("chunkers[0=a"), HasSubstr("a '[' is not closed"));
  try {
    Pipeline::load(file, {"corpus.exclude=[]", "corpus.exclude[*]=x"});
    ADD_FAILURE() << "[*] of an empty list";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("corpus.exclude has no entries, so [*] would set nothing"));
  }
  EXPECT_THAT(error("corpus.root=null"), HasSubstr("corpus.root is required"));
  EXPECT_THAT(error("corpus.root=''"), HasSubstr("corpus.root is empty"));
  EXPECT_THAT(error("index=."), HasSubstr("index must be a folder of its own"));
  EXPECT_THAT(error("index=some/repo"), HasSubstr("not the project, the corpus"));
  EXPECT_THAT(error("index=some"), HasSubstr("or a folder that holds the corpus"));
  EXPECT_THAT(error("name=[unclosed"), HasSubstr("the value is not valid YAML"));
  // Once applied, the pipeline is checked as a file is: the message names file, override and key.
  EXPECT_THAT(error("retreiver.plugin=bm25"), AllOf(HasSubstr("p.yaml with --set retreiver.plugin=bm25"),
                                                    HasSubstr("unknown key 'retreiver'")));
}

TEST(Pipeline, ErrorsNameTheFileTheKeyAndWhatIsAllowed) {
  EXPECT_THAT(load_error(kValid + "retreiver: {}\n"),
              AllOf(HasSubstr("p.yaml"), HasSubstr("unknown key 'retreiver'"), HasSubstr("retriever")));
  std::string bad_corpus = kValid;
  bad_corpus.replace(bad_corpus.find("  exclude"), 9, "  exclued");
  EXPECT_THAT(load_error(bad_corpus), AllOf(HasSubstr("corpus: unknown key 'exclued'"), HasSubstr("include")));
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

// The README shows the default pipeline without its comments: it must say what the file says.
TEST(Pipeline, TheReadmeSampleIsTheDefaultPipeline) {
  const std::string readme = testing::read_all(std::filesystem::path(RAG_SOURCE_DIR) / "README.md");
  const auto intro = readme.find("The default, without its comments");
  ASSERT_NE(intro, std::string::npos);
  const auto begin = readme.find("```yaml\n", intro) + 8;
  const auto end = readme.find("```", begin);
  testing::TempDir dir;
  const Pipeline sample = Pipeline::load(dir.write("configs/default.yaml", readme.substr(begin, end - begin)));
  const Pipeline shipped = Pipeline::load(std::filesystem::path(RAG_SOURCE_DIR) / "configs/default.yaml");
  EXPECT_EQ(sample.content_hash(), shipped.content_hash());
  EXPECT_EQ(sample.name, shipped.name);
  EXPECT_EQ(sample.description, shipped.description);
  EXPECT_EQ(sample.index_dir.lexically_relative(sample.base), shipped.index_dir.lexically_relative(shipped.base));
  EXPECT_EQ(YAML::Dump(sample.translation), YAML::Dump(shipped.translation));
}

TEST(Project, PipelinesByNameFromAnyFolderOfTheProject) {
  testing::TempDir dir;
  dir.write("configs/default.yaml", kValid);
  dir.write("configs/tfidf.yaml", kValid);
  dir.write("configs/ablation/1-plain.yaml", kValid);
  std::filesystem::create_directories(dir / "deep/er");
  EXPECT_EQ(find_project(dir / "deep/er"), dir.path());
  EXPECT_EQ(find_project(dir / "configs"), dir.path());
  const PipelineLocation fallback = locate_pipeline("", dir / "deep/er");
  EXPECT_EQ(fallback.file, dir / "configs/default.yaml");
  EXPECT_EQ(fallback.reference, "");
  EXPECT_EQ(locate_pipeline("tfidf", dir / "deep").file, dir / "configs/tfidf.yaml");
  EXPECT_EQ(locate_pipeline("ablation/1-plain", dir.path()).reference, "ablation/1-plain");
  EXPECT_EQ(locate_pipeline("../configs/tfidf.yaml", dir / "deep").file, dir / "configs/tfidf.yaml");  // a path
  dir.write("deep/tfidf", "not a pipeline");  // a file named like a pipeline: the name wins
  EXPECT_EQ(locate_pipeline("tfidf", dir / "deep").file, dir / "configs/tfidf.yaml");
  dir.write("deep/mine", "corpus: {root: r}");  // no pipeline of that name: the file
  EXPECT_EQ(locate_pipeline("mine", dir / "deep").file, dir / "deep/mine");
  dir.write("configs/old.yml", kValid);  // only .yaml files are pipelines by name
  EXPECT_EQ(pipeline_names(dir.path()), (std::vector<std::string>{"ablation/1-plain", "default", "tfidf"}));
  EXPECT_EQ(pipeline_base(dir / "configs/ablation/1-plain.yaml"), dir.path());
  EXPECT_EQ(pipeline_base(dir / "deep/p.yaml"), dir / "deep");
  EXPECT_EQ(display_path(dir / "configs/tfidf.yaml", dir.path()), "configs/tfidf.yaml");
  EXPECT_EQ(display_path("/elsewhere/x.yaml", dir.path()), "/elsewhere/x.yaml");
  try {
    locate_pipeline("bm99", dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("no pipeline named 'bm99'"), HasSubstr("ablation/1-plain, default, tfidf")));
  }
  // A folder is said to be one (it was "no pipeline named 'deep/' (no configs/deep/.yaml)").
  try {
    locate_pipeline("deep/", dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("the pipeline 'deep/' is a folder; give a pipeline file (FILE.yaml)"),
                                HasSubstr("ablation/1-plain, default, tfidf")));
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

// A folder is excluded whole only by a pattern that matches everything below it.
TEST(Glob, FoldersExcludedWhole) {
  EXPECT_TRUE(excludes_folder({"**/.git/**"}, ".git"));
  EXPECT_TRUE(excludes_folder({"**/.git/**"}, "sub/.git"));
  EXPECT_TRUE(excludes_folder({"**/.git/**"}, "sub/.git/objects"));
  EXPECT_FALSE(excludes_folder({"**/.git/**"}, "sub/.github"));
  EXPECT_TRUE(excludes_folder({"build/**"}, "build"));
  EXPECT_FALSE(excludes_folder({"build/**"}, "src/build"));  // a pattern with '/' starts at the root
  EXPECT_TRUE(excludes_folder({"*.md", "**"}, "docs"));
  EXPECT_FALSE(excludes_folder({"**/.git/*"}, ".git"));  // its subfolders' files are not excluded
  EXPECT_FALSE(excludes_folder({"?", "*.log"}, "logs"));  // files named x or *.log, not the folder
  EXPECT_FALSE(excludes_folder({}, ".git"));
}

}  // namespace
}  // namespace rag
