// libFuzzer target: the markdown chunker (md4c) on arbitrary text, with the chunk invariants;
// and the block a sentence ending in ':' announces (what context assembly adds to such a source),
// after each of the first colons. Odd inputs ask for overlap, even ones for min_chunk_size.
#include "chunker_fuzzer.hpp"
#include "markdown_chunker.hpp"
#include "rag/span_splitter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rag::fuzz::ChunkerInput input;
  if (!rag::fuzz::read_input(data, size, input)) return 0;
  const bool overlap = data[2] & 1;
  const auto chunker =
      rag::fuzz::make_chunker<rag::MarkdownChunker>(input.max_chars, overlap ? "overlap" : "min_chunk_size", input.second);
  rag::fuzz::check_chunks(chunker, input, "markdown", overlap && input.second > 0);

  const std::string_view text = input.text;
  std::size_t colon = text.find(':');
  for (int seen = 0; colon != std::string_view::npos && seen < 16; ++seen, colon = text.find(':', colon + 1)) {
    const std::size_t end = rag::announced_block_end(text, colon + 1, input.max_chars);
    FUZZ_CHECK(end >= colon + 1 && end <= text.size(), "announced block outside the file");
    FUZZ_CHECK(end == text.size() || rag::utf8::is_lead_byte(static_cast<unsigned char>(text[end])),
               "announced block ends inside a code point");
    FUZZ_CHECK(rag::utf8::count_code_points(text.substr(colon + 1, end - colon - 1)) <= input.max_chars,
               "announced block over its limit");
  }
  return 0;
}
