#include "rag/binary_file.hpp"

#include <xxhash.h>

#include <cstring>
#include <new>

namespace rag {
namespace {

constexpr std::string_view kMagic = "RAGBIN02";
constexpr std::string_view kFooterMagic = "RAGEND02";
constexpr std::size_t kKindSize = 16;
constexpr std::size_t kHeaderSize = 8 + kKindSize + 8;  // magic, kind, version and padding
constexpr std::size_t kFooterSize = 32;                 // table offset, sections, checksum, magic
constexpr char kPadding[8] = {};

// Whether `bytes` begin as BinaryWriter's files do: a whole header, opened by the magic.
bool has_header(std::string_view bytes) { return bytes.size() >= kHeaderSize && bytes.starts_with(kMagic); }

std::uint64_t load_u64(const char* at) {
  std::uint64_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

}  // namespace

void BinaryWriter::FreeState::operator()(XXH3_state_s* state) const { XXH3_freeState(state); }

BinaryWriter::BinaryWriter(const std::filesystem::path& path, std::string_view kind, std::uint32_t version)
    : file_(path), checksum_(XXH3_createState()) {
  if (!checksum_ || XXH3_64bits_reset(checksum_.get()) != XXH_OK) throw std::bad_alloc();
  if (kind.size() > kKindSize) throw Error("binary file kind '" + std::string(kind) + "' is too long");
  std::string header(kMagic);
  header += kind;
  header.append(kKindSize - kind.size(), '\0');
  header.append(reinterpret_cast<const char*>(&version), sizeof version);
  header.append(4, '\0');
  write(header);
}

BinaryWriter::~BinaryWriter() = default;

void BinaryWriter::write(std::string_view bytes) {
  XXH3_64bits_update(checksum_.get(), bytes.data(), bytes.size());
  file_.write(bytes);
}

void BinaryWriter::begin_section() {
  if (in_section_) throw Error("BinaryWriter: a section is already open");
  in_section_ = true;
  table_.push_back(file_.size());
  table_.push_back(0);
}

void BinaryWriter::append(std::string_view bytes) {
  if (!in_section_) throw Error("BinaryWriter: append outside a section");
  write(bytes);
}

void BinaryWriter::end_section() {
  in_section_ = false;
  table_.back() = file_.size() - table_[table_.size() - 2];
  write(std::string_view(kPadding, (8 - file_.size() % 8) % 8));
}

void BinaryWriter::commit() {
  const std::uint64_t table_offset = file_.size();
  write(std::string_view(reinterpret_cast<const char*>(table_.data()), table_.size() * sizeof(std::uint64_t)));
  const std::uint64_t footer[3] = {table_offset, table_.size() / 2, XXH3_64bits_digest(checksum_.get())};
  file_.write(std::string_view(reinterpret_cast<const char*>(footer), sizeof footer));
  file_.write(kFooterMagic);
  file_.commit();
}

BinaryReader::BinaryReader(const std::filesystem::path& path, std::string_view kind, std::uint32_t version)
    : file_([&] {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
          throw Error(path.string() + " is missing: the index is damaged; run `rag index --full` to rebuild it");
        return MappedFile(path);
      }()) {
  const std::string_view all = file_.bytes();
  if (all.size() < kHeaderSize + kFooterSize) damaged("is truncated");
  if (all.substr(0, kMagic.size()) != kMagic) damaged("is not an index file of this program");
  std::string_view actual_kind = all.substr(8, kKindSize);
  actual_kind = actual_kind.substr(0, actual_kind.find('\0'));
  if (actual_kind != kind) damaged("holds '" + std::string(actual_kind) + "' data, expected '" + std::string(kind) + "'");
  std::uint32_t actual_version;
  std::memcpy(&actual_version, all.data() + 8 + kKindSize, sizeof actual_version);
  if (actual_version != version)
    throw Error(path.string() + ": written in format " + std::to_string(actual_version) + ", this program reads format " +
                std::to_string(version) + "; run `rag index --full` to rebuild the index");
  const char* footer = all.data() + all.size() - kFooterSize;
  if (std::string_view(footer + 24, 8) != kFooterMagic) damaged("has no footer where it ends (truncated or overwritten)");
  const std::uint64_t table_offset = load_u64(footer), sections = load_u64(footer + 8);
  checksum_ = load_u64(footer + 16);
  checked_bytes_ = all.size() - kFooterSize;
  if (table_offset < kHeaderSize || table_offset % 8 != 0 || table_offset > checked_bytes_ ||
      sections > (checked_bytes_ - table_offset) / 16 ||
      table_offset + sections * 16 != checked_bytes_)
    damaged("is inconsistent");
  table_ = {reinterpret_cast<const std::uint64_t*>(all.data() + table_offset), 2 * sections};
  for (std::size_t s = 0; s < sections; ++s) {
    const std::uint64_t offset = table_[2 * s], size = table_[2 * s + 1];
    if (offset < kHeaderSize || offset % 8 != 0 || offset > table_offset || size > table_offset - offset)
      damaged("is inconsistent");
  }
}

std::string_view BinaryReader::bytes(std::size_t section) const {
  if (section >= section_count()) damaged("is inconsistent (a section is missing)");
  return file_.bytes().substr(table_[2 * section], table_[2 * section + 1]);
}

void BinaryReader::verify() const {
  if (XXH3_64bits(file_.bytes().data(), checked_bytes_) != checksum_) damaged("fails its checksum");
}

void BinaryReader::damaged(const std::string& what) const {
  throw Error(file_.path().string() + " " + what + ": the index is damaged; run `rag index --full` to rebuild it");
}

bool is_binary_file(const std::filesystem::path& path) {
  return has_header(MappedFile(path).bytes());
}

void verify_binary_file(const std::filesystem::path& path, bool written_as_binary) {
  std::string kind;
  std::uint32_t version = 0;
  {
    const MappedFile file(path);
    const std::string_view all = file.bytes();
    // Without its header, BinaryReader says what is wrong (truncated, not a file of ours).
    if (!has_header(all)) {
      if (!written_as_binary) return;
      BinaryReader(path, "", 0);  // throws: truncated, or not a file of ours
      throw Error(path.string() + " is not an index file of this program: the index is damaged; run `rag index --full` to rebuild it");
    }
    kind = std::string(all.substr(8, kKindSize));
    kind = kind.substr(0, kind.find('\0'));
    std::memcpy(&version, all.data() + 8 + kKindSize, sizeof version);
  }
  BinaryReader(path, kind, version).verify();
}

}  // namespace rag
