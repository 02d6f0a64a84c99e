// libFuzzer target: the markdown chunker (md4c) on arbitrary text, with the chunk invariants.
// Odd inputs ask for overlap, even ones for min_chunk_size.
#include "chunker_fuzzer.hpp"
#include "markdown_chunker.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rag::fuzz::ChunkerInput input;
  if (!rag::fuzz::read_input(data, size, input)) return 0;
  const bool overlap = data[2] & 1;
  const auto chunker =
      rag::fuzz::make_chunker<rag::MarkdownChunker>(input.max_chars, overlap ? "overlap" : "min_chunk_size", input.second);
  rag::fuzz::check_chunks(chunker, input, "markdown", overlap && input.second > 0);
  return 0;
}
