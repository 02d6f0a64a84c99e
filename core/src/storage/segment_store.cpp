#include "rag/segment_store.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace rag {
namespace {

constexpr std::uint32_t kFormat = 3;  // 3: files and their texts, read in place
enum Section : std::size_t { kFiles, kByName, kChunks, kFileOf, kKinds, kStrings, kTexts, kSectionCount };

static_assert(sizeof(SegmentStore::ChunkRecord) == 64 && sizeof(SegmentStore::FileRecord) == 80,
              "records are read in place: their layout is the file format");

// Strings written once each (kinds and sections repeat from chunk to chunk).
class StringPool {
 public:
  std::pair<std::uint64_t, std::uint32_t> add(std::string_view s) {
    const auto [it, added] = offsets_.emplace(std::string(s), bytes_.size());
    if (added) bytes_ += s;
    return {it->second, static_cast<std::uint32_t>(s.size())};
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::map<std::string, std::uint64_t, std::less<>> offsets_;
  std::string bytes_;
};

}  // namespace

void write_segment_store(const std::filesystem::path& file, std::span<const StoredFile> files) {
  StringPool strings;
  std::vector<SegmentStore::FileRecord> file_records;
  std::vector<SegmentStore::ChunkRecord> chunk_records;
  std::vector<std::uint64_t> kinds;
  std::map<std::string, std::uint32_t, std::less<>> kind_ids;
  std::uint64_t text_offset = 0;
  for (std::uint32_t f = 0; f < files.size(); ++f) {
    const StoredFile& in = files[f];
    SegmentStore::FileRecord r{};
    std::tie(r.name_offset, r.name_size) = strings.add(in.name);
    if (in.relative_start > in.name.size()) throw Error(in.name + ": the start of its relative path is past its end");
    r.relative_start = in.relative_start;
    std::tie(r.note_offset, r.note_size) = strings.add(in.note);
    r.size = in.size;
    r.changed = in.changed;
    r.digest = in.digest;
    r.text_offset = text_offset;
    r.text_size = in.text.size();
    text_offset += in.text.size();
    r.first_chunk = static_cast<std::uint32_t>(chunk_records.size());
    r.chunk_count = static_cast<std::uint32_t>(in.chunks.size());
    for (const Chunk& c : in.chunks) {
      if (c.last_byte > in.text.size() || c.first_byte > c.last_byte)
        throw Error("a chunk of " + in.name + " lies outside its text");
      SegmentStore::ChunkRecord cr{};
      std::uint32_t section_size = 0;
      std::tie(cr.section_offset, section_size) = strings.add(c.section);
      cr.section_size = section_size;
      cr.first_char = c.first_char;
      cr.last_char = c.last_char;
      cr.first_byte = c.first_byte;
      cr.last_byte = c.last_byte;
      cr.file = f;
      const auto [kind, added] = kind_ids.emplace(c.kind, static_cast<std::uint32_t>(kind_ids.size()));
      if (added) {
        const auto [offset, size] = strings.add(c.kind);
        kinds.insert(kinds.end(), {offset, size});
      }
      cr.kind = kind->second;
      cr.first_line = static_cast<std::uint32_t>(c.first_line);
      cr.last_line = static_cast<std::uint32_t>(c.last_line);
      chunk_records.push_back(cr);
    }
    file_records.push_back(r);
  }
  std::vector<std::uint32_t> by_name(files.size());
  std::iota(by_name.begin(), by_name.end(), 0U);
  std::sort(by_name.begin(), by_name.end(), [&](std::uint32_t a, std::uint32_t b) { return files[a].name < files[b].name; });

  // The file of each chunk again, packed: what retrievers ask of many chunks per query.
  std::vector<std::uint32_t> file_of;
  for (const auto& c : chunk_records) file_of.push_back(c.file);

  BinaryWriter out(file, "chunks", kFormat);
  out.section<SegmentStore::FileRecord>(file_records);
  out.section<std::uint32_t>(by_name);
  out.section<SegmentStore::ChunkRecord>(chunk_records);
  out.section<std::uint32_t>(file_of);
  out.section<std::uint64_t>(kinds);
  out.section(strings.bytes());
  out.begin_section();
  for (const StoredFile& f : files) out.append(f.text);
  out.end_section();
  out.commit();
}

SegmentStore::SegmentStore(const std::filesystem::path& file) : reader_(file, "chunks", kFormat) {
  if (reader_.section_count() != kSectionCount) reader_.damaged("is inconsistent");
  files_ = reader_.array<FileRecord>(kFiles);
  by_name_ = reader_.array<std::uint32_t>(kByName);
  chunks_ = reader_.array<ChunkRecord>(kChunks);
  file_of_ = reader_.array<std::uint32_t>(kFileOf);
  kinds_ = reader_.array<std::uint64_t>(kKinds);
  strings_ = reader_.bytes(kStrings);
  texts_ = reader_.bytes(kTexts);
  if (by_name_.size() != files_.size() || file_of_.size() != chunks_.size() || kinds_.size() % 2 != 0)
    reader_.damaged("is inconsistent");
}

std::string_view SegmentStore::string_at(std::uint64_t offset, std::uint64_t size) const {
  if (offset > strings_.size() || size > strings_.size() - offset) reader_.damaged("is inconsistent");
  return strings_.substr(offset, size);
}

SegmentStore::File SegmentStore::file(std::uint32_t index) const {
  const FileRecord& r = files_[index];
  if (std::uint64_t{r.first_chunk} + r.chunk_count > chunks_.size() || r.relative_start > r.name_size)
    reader_.damaged("is inconsistent");
  const std::string_view name = string_at(r.name_offset, r.name_size);
  return {name, name.substr(r.relative_start), string_at(r.note_offset, r.note_size), r.size, r.changed, r.digest,
          r.first_chunk, r.chunk_count};
}

std::string_view SegmentStore::file_text(std::uint32_t index) const {
  const FileRecord& f = files_[index];
  if (f.text_offset > texts_.size() || f.text_size > texts_.size() - f.text_offset) reader_.damaged("is inconsistent");
  return texts_.substr(f.text_offset, f.text_size);
}

ChunkView SegmentStore::chunk(std::uint32_t id) const {
  const ChunkRecord& c = chunks_[id];
  if (c.file >= files_.size() || c.kind >= kinds_.size() / 2) reader_.damaged("is inconsistent");
  const FileRecord& f = files_[c.file];
  if (f.text_offset > texts_.size() || f.text_size > texts_.size() - f.text_offset || c.first_byte > c.last_byte ||
      c.last_byte > f.text_size)
    reader_.damaged("is inconsistent");
  ChunkView v;
  v.file_path = string_at(f.name_offset, f.name_size);
  if (f.relative_start > v.file_path.size()) reader_.damaged("is inconsistent");
  v.relative_path = v.file_path.substr(f.relative_start);
  v.kind = string_at(kinds_[2 * c.kind], kinds_[2 * c.kind + 1]);
  v.section = string_at(c.section_offset, c.section_size);
  v.text = texts_.substr(f.text_offset + c.first_byte, c.last_byte - c.first_byte);
  v.first_char = c.first_char;
  v.last_char = c.last_char;
  v.first_byte = c.first_byte;
  v.last_byte = c.last_byte;
  v.first_line = c.first_line;
  v.last_line = c.last_line;
  return v;
}

std::optional<std::uint32_t> SegmentStore::find_file(std::string_view name) const {
  const auto name_of = [&](std::uint32_t i) {
    if (i >= files_.size()) reader_.damaged("is inconsistent");
    return string_at(files_[i].name_offset, files_[i].name_size);
  };
  const auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                   [&](std::uint32_t i, std::string_view wanted) { return name_of(i) < wanted; });
  if (it == by_name_.end() || name_of(*it) != name) return std::nullopt;
  return *it;
}

}  // namespace rag
