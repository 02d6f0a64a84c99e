#pragma once
// Stable checksums for files, pipelines and corpora: the same bytes give the same value on
// every machine and in every version, unlike std::hash.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct XXH3_state_s;

namespace rag {

/// Accumulates a 64-bit digest (XXH3) over several pieces: tells pipeline configurations and file
/// contents apart. Pieces are length-prefixed, so ("ab", "c") and ("a", "bc") differ.
class Digest {
 public:
  Digest();
  ~Digest();
  Digest(const Digest&) = delete;
  Digest& operator=(const Digest&) = delete;

  Digest& add(std::string_view piece);
  Digest& add(std::uint64_t value);
  /// 16 lowercase hex digits.
  std::string hex() const;
  std::uint64_t value() const;

 private:
  struct Free {
    void operator()(XXH3_state_s* state) const;
  };
  std::unique_ptr<XXH3_state_s, Free> state_;
};

}  // namespace rag
