#pragma once
// The binary files of an index: a header (magic, kind, format version), a payload of
// little-endian values and arrays, and a CRC-32 of the payload, so that a truncated or altered
// file is detected when it is read, with a message that says to re-index.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "rag/error.hpp"

namespace rag {

class BinaryWriter {
 public:
  /// `kind` names the content ("chunks", "bm25", ...) and is checked on reading.
  BinaryWriter(std::string_view kind, std::uint32_t version);

  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  template <class T>
  void array(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    u64(values.size());
    raw(values.data(), values.size_bytes());
  }

  /// Writes the file atomically (see write_file_atomically).
  void save(const std::filesystem::path& path) const;

 private:
  void raw(const void* data, std::size_t size) { payload_.append(static_cast<const char*>(data), size); }
  std::string kind_;
  std::uint32_t version_;
  std::string payload_;
};

class BinaryReader {
 public:
  /// Reads and verifies the whole file. Throws rag::Error when it is missing, of another kind
  /// or version, truncated, or fails its checksum.
  BinaryReader(const std::filesystem::path& path, std::string_view kind, std::uint32_t version);

  std::uint32_t u32() { return value<std::uint32_t>(); }
  std::uint64_t u64() { return value<std::uint64_t>(); }
  double f64() { return value<double>(); }
  std::string str() {
    const std::size_t n = size_checked(u64(), 1);
    std::string s(payload_.substr(position_, n));
    position_ += n;
    return s;
  }
  template <class T>
  std::vector<T> array() {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t n = size_checked(u64(), sizeof(T));
    std::vector<T> values(n);
    if (n) std::memcpy(values.data(), payload_.data() + position_, n * sizeof(T));
    position_ += n * sizeof(T);
    return values;
  }
  /// Throws unless every byte of the payload was read.
  void expect_end() const;

 private:
  template <class T>
  T value() {
    size_checked(1, sizeof(T));
    T v;
    std::memcpy(&v, payload_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return v;
  }
  std::size_t size_checked(std::uint64_t count, std::size_t element_size) const;
  [[noreturn]] void damaged(const std::string& what) const;

  std::filesystem::path path_;
  std::string content_;
  std::string_view payload_;
  std::size_t position_ = 0;
};

}  // namespace rag
