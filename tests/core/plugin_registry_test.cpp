#include "rag/plugin_registry.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rag {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::filesystem::path kBuiltPlugins = std::filesystem::path(RAG_BINARY_DIR) / "rag-plugins";
const std::filesystem::path kBadPlugins = std::filesystem::path(RAG_BINARY_DIR) / "tests" / "bad_plugins";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PluginRegistry, FindsTheBuiltPlugins) {
  const PluginRegistry registry({kBuiltPlugins});
  std::vector<std::string> names;
  for (const auto& p : registry.plugins()) names.push_back(std::string(to_string(p.kind)) + "/" + p.name);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"chunker/text", "chunker/python", "chunker/cpp", "chunker/markdown",
                                             "retriever/bm25"}));
  Options options(YAML::Node(), "test");
  EXPECT_NE(registry.make_retriever("bm25", options), nullptr);
}

TEST(PluginRegistry, RefusesOtherAbiAndLibrariesWithoutEntryPoint) {
  const PluginRegistry registry({kBadPlugins});
  std::string problems;
  for (const auto& p : registry.problems()) problems += p + "\n";
  EXPECT_THAT(problems, HasSubstr("libbad_abi.so: built for plugin ABI 6, this rag uses ABI 5"));
  EXPECT_THAT(problems, HasSubstr("libno_entry.so: not a rag plugin (no 'rag_plugin' entry point)"));
  Options options(YAML::Node(), "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("bad_abi", options); }),
              AllOf(HasSubstr("unknown retriever plugin 'bad_abi'"), HasSubstr("ABI 5")));
}

TEST(PluginRegistry, WrapsAConstructorThatThrows) {
  const PluginRegistry registry({kBadPlugins / "throwing_retriever"});
  Options options(YAML::Load("{fail_at: constructor, exception: local}"), "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("throwing_retriever", options); }),
              AllOf(HasSubstr("p.yaml: retriever.options"), HasSubstr("failed to start: boom in constructor")));
}

// Plugin objects keep their library loaded, and what they throw arrives as a rag::Error made by
// the host: after the registry is gone, both are still usable.
TEST(PluginRegistry, ObjectsAndTheirErrorsOutliveTheRegistry) {
  std::unique_ptr<Retriever> retriever;
  {
    const PluginRegistry registry({kBadPlugins / "throwing_retriever"});
    Options options(YAML::Load("{fail_at: search, exception: local}"), "p.yaml: retriever.options");
    retriever = registry.make_retriever("throwing_retriever", options);
  }
  try {
    retriever->search("query", 3);
    FAIL() << "no exception";
  } catch (const Error& e) {
    retriever.reset();  // may unload the library: the exception must not depend on it
    EXPECT_THAT(e.what(), HasSubstr("the throwing_retriever plugin failed in search: boom in search"));
  }
}

// An exception the host's streaming callback throws comes back as it was, through the plugin.
TEST(PluginRegistry, StreamingCallbackExceptionsComeBackToTheHost) {
  struct ReaderGone {};
  const PluginRegistry registry({kBadPlugins / "throwing_generator"});
  Options options(YAML::Node(), "p.yaml: generator.options");
  const auto generator = registry.make_generator("throwing_generator", options);
  GenerationRequest request;
  request.on_text = [](std::string_view) { throw ReaderGone{}; };
  EXPECT_THROW(generator->generate(request), ReaderGone);

  Options failing(YAML::Load("{fail_at: stream, exception: other}"), "p.yaml: generator.options");
  const auto streaming = registry.make_generator("throwing_generator", failing);
  std::string shown;
  request.on_text = [&](std::string_view piece) { shown += piece; };
  EXPECT_THAT(error_of([&] { streaming->generate(request); }),
              HasSubstr("the throwing_generator plugin failed in generate (with an exception that is not a std::exception)"));
  EXPECT_EQ(shown, "The answer ");
}

TEST(PluginRegistry, UnknownNameListsKnownOnesAndFolders) {
  const PluginRegistry registry({kBuiltPlugins});
  Options options(YAML::Node(), "test");
  EXPECT_THAT(error_of([&] { registry.make_chunker("rust", options); }),
              AllOf(HasSubstr("unknown chunker plugin 'rust'"), HasSubstr("python"), HasSubstr(kBuiltPlugins.string())));
}

TEST(PluginRegistry, BadOptionsAreRefusedByThePlugin) {
  const PluginRegistry registry({kBuiltPlugins});
  YAML::Node node = YAML::Load("{k1: fast}");
  Options options(node, "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("bm25", options); }),
              AllOf(HasSubstr("p.yaml: retriever.options.k1"), HasSubstr("wrong type")));
  YAML::Node unknown = YAML::Load("{k2: 1}");
  Options unknown_options(unknown, "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("bm25", unknown_options); }), HasSubstr("unknown option 'k2'"));
}

}  // namespace
}  // namespace rag
