// libFuzzer target: the text chunker (paragraphs, sentences, lines) on arbitrary text, with the
// chunk invariants.
#include "chunker_fuzzer.hpp"
#include "text_chunker.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rag::fuzz::ChunkerInput input;
  if (!rag::fuzz::read_input(data, size, input)) return 0;
  const auto chunker = rag::fuzz::make_chunker<rag::TextChunker>(input.max_chars, "overlap", input.second);
  rag::fuzz::check_chunks(chunker, input, "text", input.second > 0);
  return 0;
}
