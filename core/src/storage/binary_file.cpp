#include "rag/binary_file.hpp"

#include "rag/checksum.hpp"
#include "rag/file_io.hpp"

namespace rag {
namespace {

constexpr std::string_view kMagic = "RAGBIN01";

}  // namespace

BinaryWriter::BinaryWriter(std::string_view kind, std::uint32_t version) : kind_(kind), version_(version) {}

void BinaryWriter::save(const std::filesystem::path& path) const {
  std::string file;
  file.reserve(payload_.size() + 64);
  file += kMagic;
  const auto append = [&file](const void* p, std::size_t n) { file.append(static_cast<const char*>(p), n); };
  const std::uint64_t kind_size = kind_.size();
  append(&kind_size, sizeof kind_size);
  file += kind_;
  append(&version_, sizeof version_);
  const std::uint64_t payload_size = payload_.size();
  append(&payload_size, sizeof payload_size);
  file += payload_;
  const std::uint32_t checksum = crc32(payload_);
  append(&checksum, sizeof checksum);
  write_file_atomically(path, file);
}

BinaryReader::BinaryReader(const std::filesystem::path& path, std::string_view kind, std::uint32_t version)
    : path_(path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) damaged("is missing");
  content_ = read_file(path);
  std::string_view rest = content_;
  auto take = [&](std::size_t n) {
    if (rest.size() < n) damaged("is truncated");
    const std::string_view head = rest.substr(0, n);
    rest.remove_prefix(n);
    return head;
  };
  auto take_u64 = [&] {
    std::uint64_t v;
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  };
  if (take(kMagic.size()) != kMagic) damaged("is not an index file of this program");
  const std::uint64_t kind_size = take_u64();
  if (kind_size > 64) damaged("has a damaged header");
  const std::string_view actual_kind = take(kind_size);
  if (actual_kind != kind) damaged("holds '" + std::string(actual_kind) + "' data, expected '" + std::string(kind) + "'");
  std::uint32_t actual_version;
  std::memcpy(&actual_version, take(sizeof actual_version).data(), sizeof actual_version);
  if (actual_version != version)
    throw Error(path_.string() + ": written in format " + std::to_string(actual_version) + ", this program reads format " +
                std::to_string(version) + "; run `rag index` to rebuild the index");
  const std::uint64_t payload_size = take_u64();
  if (payload_size > rest.size()) damaged("is truncated");
  payload_ = take(payload_size);
  std::uint32_t checksum;
  std::memcpy(&checksum, take(sizeof checksum).data(), sizeof checksum);
  if (!rest.empty()) damaged("has trailing bytes");
  if (checksum != crc32(payload_)) damaged("fails its checksum");
}

std::size_t BinaryReader::size_checked(std::uint64_t count, std::size_t element_size) const {
  if (count > (payload_.size() - position_) / element_size) damaged("is inconsistent");
  return static_cast<std::size_t>(count);
}

void BinaryReader::expect_end() const {
  if (position_ != payload_.size()) damaged("is inconsistent");
}

void BinaryReader::damaged(const std::string& what) const {
  throw Error(path_.string() + " " + what + ": the index is damaged; run `rag index` to rebuild it");
}

}  // namespace rag
