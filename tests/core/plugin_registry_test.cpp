#include "rag/plugin_registry.hpp"

#include <link.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

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

// Whether this process has the library at `file` loaded.
bool is_loaded(const std::filesystem::path& file) {
  std::pair<std::string, bool> asked{std::filesystem::canonical(file).string(), false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& [path, found] = *static_cast<std::pair<std::string, bool>*>(data);
        found = found || (info->dlpi_name != nullptr && path == info->dlpi_name);
        return 0;
      },
      &asked);
  return asked.second;
}

// A plugin asked for by name loads the library named after it, and no other: loading them all
// would cost every command's start. A plugin whose library is named otherwise is still found,
// and listing the plugins loads every library.
TEST(PluginRegistry, LoadsTheLibraryNamedAfterThePluginFirst) {
  const testing::TempDir dir;
  std::filesystem::copy_file(kBuiltPlugins / "retriever" / "libbm25.so", dir.path() / "libbm25.so");
  std::filesystem::copy_file(kBuiltPlugins / "chunker" / "libtext.so", dir.path() / "libplain.so");
  std::filesystem::copy_file(kBadPlugins / "bad_abi" / "libbad_abi.so", dir.path() / "libaaa.so");
  const PluginRegistry registry({dir.path()});
  Options options(YAML::Node(), "test");
  EXPECT_NE(registry.make_retriever("bm25", options), nullptr);
  EXPECT_TRUE(is_loaded(dir.path() / "libbm25.so"));
  EXPECT_FALSE(is_loaded(dir.path() / "libplain.so"));
  EXPECT_FALSE(is_loaded(dir.path() / "libaaa.so"));
  EXPECT_NE(registry.make_chunker("text", options), nullptr);  // in libplain.so
  ASSERT_EQ(registry.problems().size(), 1u);
  EXPECT_THAT(registry.problems()[0], HasSubstr("libaaa.so: built for plugin ABI 7"));
  EXPECT_EQ(registry.plugins().size(), 2u);
}

TEST(PluginRegistry, RefusesOtherAbiAndLibrariesWithoutEntryPoint) {
  const PluginRegistry registry({kBadPlugins});
  std::string problems;
  for (const auto& p : registry.problems()) problems += p + "\n";
  EXPECT_THAT(problems, HasSubstr("libbad_abi.so: built for plugin ABI 7, this rag uses ABI 6"));
  EXPECT_THAT(problems, HasSubstr("libno_entry.so: not a rag plugin (no 'rag_plugin' entry point)"));
  Options options(YAML::Node(), "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("bad_abi", options); }),
              AllOf(HasSubstr("unknown retriever plugin 'bad_abi'"), HasSubstr("ABI 6")));
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
              AllOf(HasSubstr("p.yaml: retriever.options.k1"), HasSubstr("must be a number, got 'fast'")));
  YAML::Node unknown = YAML::Load("{k2: 1}");
  Options unknown_options(unknown, "p.yaml: retriever.options");
  EXPECT_THAT(error_of([&] { registry.make_retriever("bm25", unknown_options); }), HasSubstr("unknown option 'k2'"));
}

}  // namespace
}  // namespace rag
