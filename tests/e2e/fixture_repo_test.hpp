#pragma once
// The ground most end-to-end tests stand on: a scratch copy of tests/fixtures/repo with a
// pipeline over it (pipeline.yaml, its index in index/), and the checks made of every command
// that must fail cleanly or go on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "e2e/rag_process.hpp"

namespace rag::testing {

inline constexpr const char* kFixturePipeline = R"(
corpus:
  root: repo
chunkers:
  - {plugin: python, files: "**/*.py", options: {max_chunk_size: 400}}
  - {plugin: markdown, files: "**/*.md", options: {max_chunk_size: 400}}
  - {plugin: text, files: "**", options: {max_chunk_size: 400}}
retriever:
  plugin: bm25
index: index
)";

class FixtureRepoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(std::string(RAG_TEST_FIXTURES) + "/repo", dir_ / "repo",
                          std::filesystem::copy_options::recursive);
    dir_.write("pipeline.yaml", kFixturePipeline);
  }

  /// `rag <args>` run in the test folder; `prefix` goes before the program (see run_rag).
  Outcome rag(const std::string& args, const std::string& prefix = "") const { return run_rag(dir_.path(), args, prefix); }

  /// The pipeline with `from` replaced by `to`, written to `name`.
  void write_variant(const std::string& name, const std::string& from, const std::string& to) const {
    std::string text = kFixturePipeline;
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    dir_.write(name, text.replace(at, from.size(), to));
  }

  void index(const std::string& pipeline = "pipeline.yaml") const {
    const Outcome r = rag("index --pipeline " + pipeline);
    ASSERT_EQ(r.status, 0) << r.err;
  }

  /// A failed command: non-zero exit that is not a signal, one "error:" line mentioning
  /// `expected`, nothing on stdout, and no temporary file left anywhere in the test folder.
  Outcome expect_error(const std::string& args, const std::string& expected, const std::string& prefix = "") const {
    const Outcome r = rag(args, prefix);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_LT(r.status, 128) << args << ": killed by a signal";
    EXPECT_THAT(r.err, ::testing::StartsWith("error: ")) << args;
    EXPECT_THAT(r.err, ::testing::HasSubstr(expected)) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
    expect_no_temporaries();
    return r;
  }

  /// A command that goes on: exit 0, and `expected` on stderr.
  Outcome expect_success(const std::string& args, const std::string& expected = "") const {
    const Outcome r = rag(args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
    EXPECT_THAT(r.err, ::testing::HasSubstr(expected)) << args;
    return r;
  }

  void expect_no_temporaries() const {
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(dir_.path(), ec), end; !ec && it != end; it.increment(ec))
      EXPECT_EQ(it->path().filename().string().find(".tmp-"), std::string::npos) << it->path() << " was left behind";
  }

  TempDir dir_;
};

}  // namespace rag::testing
