#pragma once
// Stable checksums for files, pipelines and corpora: the same bytes give the same value on
// every machine and in every version, unlike std::hash.
#include <cstdint>
#include <string>
#include <string_view>

namespace rag {

std::uint32_t crc32(std::string_view data);

/// Accumulates a 64-bit digest over several pieces (two CRC-32 streams with different seeds).
class Digest {
 public:
  Digest& add(std::string_view piece);
  Digest& add(std::uint64_t value);
  /// 16 lowercase hex digits.
  std::string hex() const;

 private:
  std::uint32_t low_ = 0;
  std::uint32_t high_ = 0x9E3779B9u;
};

}  // namespace rag
