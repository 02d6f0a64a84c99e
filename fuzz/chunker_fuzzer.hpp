#pragma once
// The invariants every chunker keeps on every input, checked by the chunker fuzz targets.
// The first three bytes of an input choose the options (max_chunk_size 1-512, overlap or
// min_chunk_size), the rest is the file; inputs that are not UTF-8 are what the corpus reader
// passes over, so they stop there.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "rag/chunker.hpp"
#include "rag/index.hpp"
#include "rag/options.hpp"
#include "rag/utf8.hpp"

namespace rag::fuzz {

struct ChunkerInput {
  std::size_t max_chars = 0;
  std::size_t second = 0;  ///< overlap or min_chunk_size, below max_chars / 2
  std::string text;
};

inline bool read_input(const std::uint8_t* data, std::size_t size, ChunkerInput& input) {
  if (size < 3) return false;
  input.max_chars = 1 + (data[0] | (data[1] & 1) << 8);
  input.second = data[2] % (input.max_chars / 2 + 1);
  input.text.assign(reinterpret_cast<const char*>(data) + 3, size - 3);
  return utf8::is_valid(input.text);
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Spans inside the file, non-empty, in order, not overlapping unless `overlap`, within
// max_chars code points, cut at code-point boundaries, sections in UTF-8; chunk text equal to
// the span's slice with code-point offsets that agree; only whitespace left out.
inline void check_chunks(const Chunker& chunker, const ChunkerInput& input, const std::string& kind, bool overlap) {
  const SourceFile file("corpus/" + kind + ".txt", kind + ".txt", input.text);
  std::vector<ChunkSpan> spans;
  try {
    spans = chunker.chunk(file);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("chunk() threw: ") + e.what());
  }
  const std::string_view text = file.text();
  std::size_t previous_begin = 0, previous_end = 0, covered = 0;
  for (const ChunkSpan& span : spans) {
    FUZZ_CHECK(span.bytes.begin < span.bytes.end, "empty span");
    FUZZ_CHECK(span.bytes.end <= text.size(), "span past the end of the file");
    FUZZ_CHECK(span.bytes.begin >= previous_begin, "spans out of order");
    FUZZ_CHECK(overlap || span.bytes.begin >= previous_end, "spans overlap");
    FUZZ_CHECK(utf8::is_lead_byte(static_cast<unsigned char>(text[span.bytes.begin])), "span starts inside a code point");
    FUZZ_CHECK(span.bytes.end == text.size() || utf8::is_lead_byte(static_cast<unsigned char>(text[span.bytes.end])),
               "span ends inside a code point");
    FUZZ_CHECK(file.char_count(span.bytes) <= input.max_chars, "span over max_chunk_size");
    FUZZ_CHECK(utf8::is_valid(span.section), "section is not UTF-8");
    for (std::size_t i = covered; i < span.bytes.begin; ++i) FUZZ_CHECK(is_space(text[i]), "text left out of every chunk");
    covered = std::max(covered, span.bytes.end);
    previous_begin = span.bytes.begin;
    previous_end = span.bytes.end;
  }
  for (std::size_t i = covered; i < text.size(); ++i) FUZZ_CHECK(is_space(text[i]), "text left out of every chunk");

  // What `rag index` stores: the text is the slice, the offsets count code points.
  const std::vector<Chunk> chunks = chunk_file(file, chunker, kind);
  FUZZ_CHECK(chunks.size() == spans.size(), "chunk_file dropped spans");
  for (const Chunk& c : chunks) {
    FUZZ_CHECK(c.text == text.substr(c.first_byte, c.last_byte - c.first_byte), "chunk text is not its slice");
    FUZZ_CHECK(c.first_char == utf8::count_code_points(text.substr(0, c.first_byte)), "first_char is not a code-point offset");
    FUZZ_CHECK(c.last_char - c.first_char == utf8::count_code_points(c.text), "span length is not in code points");
  }
}

// Builds the chunker from the input's options; its constructor must accept them.
template <class ChunkerClass>
ChunkerClass make_chunker(std::size_t max_chars, const char* second_key, std::size_t second) {
  YAML::Node node;
  node["max_chunk_size"] = max_chars;
  if (second_key) node[second_key] = second;
  Options options(node, "fuzz");
  return ChunkerClass(options);
}

}  // namespace rag::fuzz
