#include "rag/chunk_store.hpp"

#include <map>

#include "rag/binary_file.hpp"

namespace rag {
namespace {

constexpr std::uint32_t kFormat = 2;  // 2: line numbers
constexpr std::size_t kSpanFields = 6;  // characters, bytes and lines, first and last

}  // namespace

// Layout: a table of distinct strings (file paths, kinds, sections), then per chunk the indices
// of its strings and its spans, then all texts as one block with offsets.
void save_chunks(const std::filesystem::path& file, ChunkList chunks) {
  std::vector<std::string> strings;
  std::map<std::string, std::uint32_t, std::less<>> index_of;
  auto intern = [&](const std::string& s) {
    const auto [it, added] = index_of.emplace(s, static_cast<std::uint32_t>(strings.size()));
    if (added) strings.push_back(s);
    return it->second;
  };
  std::vector<std::uint32_t> refs;
  std::vector<std::uint64_t> spans;
  std::string texts;
  std::vector<std::uint64_t> text_ends;
  for (const auto& c : chunks) {
    refs.insert(refs.end(), {intern(c.file_path), intern(c.kind), intern(c.section)});
    spans.insert(spans.end(), {c.first_char, c.last_char, c.first_byte, c.last_byte, c.first_line, c.last_line});
    texts += c.text;
    text_ends.push_back(texts.size());
  }
  BinaryWriter out("chunks", kFormat);
  out.u64(strings.size());
  for (const auto& s : strings) out.str(s);
  out.array<std::uint32_t>(refs);
  out.array<std::uint64_t>(spans);
  out.array<std::uint64_t>(text_ends);
  out.str(texts);
  out.save(file);
}

std::vector<Chunk> load_chunks(const std::filesystem::path& file) {
  BinaryReader in(file, "chunks", kFormat);
  const std::uint64_t string_count = in.u64();
  std::vector<std::string> strings;
  for (std::uint64_t i = 0; i < string_count; ++i) strings.push_back(in.str());
  const auto refs = in.array<std::uint32_t>();
  const auto spans = in.array<std::uint64_t>();
  const auto text_ends = in.array<std::uint64_t>();
  const std::string texts = in.str();
  in.expect_end();
  const std::size_t n = text_ends.size();
  if (refs.size() != 3 * n || spans.size() != kSpanFields * n || (n && text_ends.back() != texts.size()))
    throw Error(file.string() + " is inconsistent: the index is damaged; run `rag index` to rebuild it");
  std::vector<Chunk> chunks(n);
  std::uint64_t text_begin = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (int r = 0; r < 3; ++r)
      if (refs[3 * i + r] >= strings.size())
        throw Error(file.string() + " is inconsistent: the index is damaged; run `rag index` to rebuild it");
    Chunk& c = chunks[i];
    c.file_path = strings[refs[3 * i]];
    c.kind = strings[refs[3 * i + 1]];
    c.section = strings[refs[3 * i + 2]];
    const std::uint64_t* span = &spans[kSpanFields * i];
    c.first_char = span[0];
    c.last_char = span[1];
    c.first_byte = span[2];
    c.last_byte = span[3];
    c.first_line = span[4];
    c.last_line = span[5];
    if (text_ends[i] < text_begin || text_ends[i] > texts.size())
      throw Error(file.string() + " is inconsistent: the index is damaged; run `rag index` to rebuild it");
    c.text = texts.substr(text_begin, text_ends[i] - text_begin);
    text_begin = text_ends[i];
  }
  return chunks;
}

}  // namespace rag
