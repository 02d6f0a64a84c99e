#pragma once
// Checks every chunker must pass on every file: spans inside the file, in order, non-empty,
// within the size limit, and the span's code points equal to its text.
#include <gtest/gtest.h>

#include <vector>

#include "rag/chunk.hpp"
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

}  // namespace rag::testing
