// libFuzzer target: the cpp chunker (tree-sitter) on arbitrary text, with the chunk invariants.
#include "chunker_fuzzer.hpp"
#include "cpp_chunker.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rag::fuzz::ChunkerInput input;
  if (!rag::fuzz::read_input(data, size, input)) return 0;
  const auto chunker = rag::fuzz::make_chunker<rag::CppChunker>(input.max_chars, "min_chunk_size", input.second);
  rag::fuzz::check_chunks(chunker, input, "cpp", false);
  return 0;
}
