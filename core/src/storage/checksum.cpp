#include "rag/checksum.hpp"

#include <xxhash.h>

#include <cstdio>
#include <new>

namespace rag {
void Digest::Free::operator()(XXH3_state_s* state) const { XXH3_freeState(state); }

Digest::Digest() : state_(XXH3_createState()) {
  if (!state_ || XXH3_64bits_reset(state_.get()) != XXH_OK) throw std::bad_alloc();
}

Digest::~Digest() = default;

Digest& Digest::add(std::string_view piece) {
  const std::uint64_t size = piece.size();
  XXH3_64bits_update(state_.get(), &size, sizeof size);
  XXH3_64bits_update(state_.get(), piece.data(), piece.size());
  return *this;
}

Digest& Digest::add(std::uint64_t value) {
  return add(std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
}

std::uint64_t Digest::value() const { return XXH3_64bits_digest(state_.get()); }

std::string Digest::hex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(XXH3_64bits_digest(state_.get())));
  return buffer;
}

}  // namespace rag
