#include "rag/checksum.hpp"

#include <zlib.h>

#include <cstdio>

namespace rag {
namespace {

// zlib's CRC-32 (table-driven, several bytes a step): index files are checked at every load.
std::uint32_t crc32_from(std::uint32_t running, std::string_view data) {
  return static_cast<std::uint32_t>(
      ::crc32_z(running, reinterpret_cast<const Bytef*>(data.data()), static_cast<z_size_t>(data.size())));
}

}  // namespace

std::uint32_t crc32(std::string_view data) { return crc32_from(0, data); }

Digest& Digest::add(std::string_view piece) {
  // The length goes in first so that ("ab", "c") and ("a", "bc") differ.
  const std::uint64_t size = piece.size();
  const std::string_view size_bytes(reinterpret_cast<const char*>(&size), sizeof size);
  low_ = crc32_from(crc32_from(low_, size_bytes), piece);
  high_ = crc32_from(crc32_from(high_ ^ 0xA5A5A5A5u, size_bytes), piece);
  return *this;
}

Digest& Digest::add(std::uint64_t value) {
  return add(std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
}

std::string Digest::hex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%08x%08x", high_, low_);
  return buffer;
}

}  // namespace rag
