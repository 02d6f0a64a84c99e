#pragma once
// Checks every chunker must pass on every file: spans inside the file, in order, non-empty,
// within the size limit, the span's code points equal to its text, and no text lost. Also runs
// a chunker over the whole vLLM corpus with those checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/chunker.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/options.hpp"
#include "rag/source_file.hpp"

namespace rag::testing {

inline void expect_valid_spans(const SourceFile& file, const std::vector<ChunkSpan>& spans, std::size_t max_chars,
                               bool allow_overlap = false) {
  std::size_t previous_begin = 0;
  std::size_t previous_end = 0;
  for (const auto& span : spans) {
    ASSERT_LT(span.bytes.begin, span.bytes.end) << file.name();
    ASSERT_LE(span.bytes.end, file.text().size()) << file.name();
    EXPECT_LE(file.char_count(span.bytes), max_chars) << file.name() << " at byte " << span.bytes.begin;
    EXPECT_GE(span.bytes.begin, previous_begin) << file.name();
    if (!allow_overlap) {
      EXPECT_GE(span.bytes.begin, previous_end) << file.name() << " overlaps";
    }
    // Cuts fall on code-point boundaries.
    EXPECT_EQ(file.byte_offset(file.char_offset(span.bytes.begin)), span.bytes.begin);
    EXPECT_EQ(file.byte_offset(file.char_offset(span.bytes.end)), span.bytes.end);
    previous_begin = span.bytes.begin;
    previous_end = span.bytes.end;
  }
}

// Chunks may drop whitespace between them, nothing else: reports each run of lost text once.
inline void expect_no_text_lost(const SourceFile& file, const std::vector<ChunkSpan>& spans) {
  const std::string_view text = file.text();
  std::size_t next = 0;  // the first byte not known to be covered
  const auto check_up_to = [&](std::size_t end) {
    for (; next < end; ++next)
      if (std::string_view(" \t\n\r\f\v").find(text[next]) == std::string_view::npos) {
        ADD_FAILURE() << file.name() << ": byte " << next << " is in no chunk";
        next = end;
      }
  };
  for (const auto& span : spans) {
    check_up_to(span.bytes.begin);
    next = std::max(next, span.bytes.end);
  }
  check_up_to(text.size());
}

// No span shorter than `min_chars` code points stands alone, but one that is the whole file.
inline void expect_no_crumbs(const SourceFile& file, const std::vector<ChunkSpan>& spans, std::size_t min_chars) {
  if (spans.size() < 2) return;
  for (const auto& span : spans)
    EXPECT_GE(file.char_count(span.bytes), min_chars)
        << file.name() << ": a crumb at byte " << span.bytes.begin << ": " << file.slice(span.bytes);
}

// Where scripts/setup.sh unpacks the vLLM corpus, and how results name its files.
inline constexpr std::string_view kVllmCorpusName = "data/raw/vllm-0.10.1";
inline const std::filesystem::path kVllmCorpus = std::filesystem::path(RAG_SOURCE_DIR) / kVllmCorpusName;

// What chunk_corpus saw, for print_summary.
struct CorpusRun {
  std::size_t files = 0;
  std::vector<std::size_t> sizes;                 // code points of every chunk, sorted
  std::chrono::steady_clock::duration elapsed{};  // time spent in chunk() alone
};

// Checks a chunker's spans for one file beyond the invariants, e.g. that each has a section.
using SpanCheck = std::function<void(const SourceFile&, const std::vector<ChunkSpan>&)>;

// Chunks every corpus file ending in `extension` (".md"), in path order, checking the invariants
// (no crumb under `min_chars` among them) and `check`; nullopt when the corpus is not unpacked,
// so that the caller can skip.
inline std::optional<CorpusRun> chunk_corpus(const Chunker& chunker, std::string_view extension, std::size_t max_chars,
                                             std::size_t min_chars, const SpanCheck& check = {}) {
  if (!std::filesystem::is_directory(kVllmCorpus)) return std::nullopt;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kVllmCorpus))
    if (entry.is_regular_file() && entry.path().extension() == extension) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  EXPECT_FALSE(paths.empty()) << "no " << extension << " file under " << kVllmCorpus;

  CorpusRun run;
  for (const auto& path : paths) {
    const std::string relative = path.lexically_relative(kVllmCorpus).generic_string();
    const SourceFile file(std::string(kVllmCorpusName) + "/" + relative, relative, read_file(path));
    const auto start = std::chrono::steady_clock::now();
    const auto spans = chunker.chunk(file);
    run.elapsed += std::chrono::steady_clock::now() - start;
    expect_valid_spans(file, spans, max_chars);
    expect_no_text_lost(file, spans);
    expect_no_crumbs(file, spans, min_chars);
    if (check) check(file, spans);
    ++run.files;
    for (const auto& span : spans) run.sizes.push_back(file.char_count(span.bytes));
    // The first broken file is the one to look at; thousands more failures would bury it.
    if (::testing::Test::HasFailure()) return run;
  }
  EXPECT_FALSE(run.sizes.empty()) << "no chunks in " << kVllmCorpus;
  std::sort(run.sizes.begin(), run.sizes.end());
  return run;
}

// Several threads chunking one file at once get what one call gets (chunk() is const and shared
// by the indexing threads).
inline void expect_concurrent_calls_agree(const Chunker& chunker, const SourceFile& file) {
  const auto expected = chunker.chunk(file);
  std::vector<std::vector<ChunkSpan>> results(4);
  std::vector<std::thread> threads;
  for (auto& result : results) threads.emplace_back([&] { result = chunker.chunk(file); });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_EQ(result.size(), expected.size());
    for (std::size_t i = 0; i < result.size(); ++i) {
      EXPECT_EQ(result[i].bytes, expected[i].bytes);
      EXPECT_EQ(result[i].section, expected[i].section);
    }
  }
}

// A chunker with max_chunk_size and min_chunk_size refuses a misspelt key, a zero limit and a
// minimum above the maximum.
template <class SizedChunker>
void expect_size_options_checked() {
  const auto refused = [](const char* yaml) {
    Options options(YAML::Load(yaml), "p.yaml: chunkers[0].options");
    EXPECT_THROW(SizedChunker{options}, Error) << yaml;
  };
  refused("{max_chunk_sise: 10}");
  refused("{max_chunk_size: 0}");
  refused("{max_chunk_size: 100, min_chunk_size: 101}");
}

// Prints files, chunks, time in chunk() and chunk sizes; nothing after a failure cut the run short.
inline void print_summary(const CorpusRun& run) {
  if (::testing::Test::HasFailure()) return;
  const auto& sizes = run.sizes;
  std::printf("[ corpus   ] %zu files, %zu chunks in %.1f ms; code points: median %zu, p90 %zu, max %zu\n", run.files,
              sizes.size(), std::chrono::duration<double, std::milli>(run.elapsed).count(), sizes[sizes.size() / 2],
              sizes[sizes.size() * 9 / 10], sizes.back());
}

}  // namespace rag::testing
