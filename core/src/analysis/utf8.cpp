#include "rag/utf8.hpp"

#include <algorithm>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace rag::utf8 {
namespace {

// Calls `visit(c, bytes)` for each code point of `text` as ICU's U8_NEXT reads it: c < 0 for a
// malformed sequence, `bytes` the text it took.
template <class Visit>
void for_each_code_point(std::string_view text, Visit visit) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const auto size = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < size;) {
    const int32_t begin = i;
    UChar32 c = 0;
    U8_NEXT(bytes, i, size, c);
    visit(c, text.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(i - begin)));
  }
}

}  // namespace

bool is_valid(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra = 0;
    unsigned long cp = 0;
    if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07u;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    static constexpr unsigned long kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += extra + 1;
  }
  return true;
}

std::string repaired(std::string_view text) {
  if (is_valid(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for_each_code_point(text, [&](UChar32 c, std::string_view bytes) {
    if (c < 0) out += "\xEF\xBF\xBD";  // U+FFFD
    else out.append(bytes);
  });
  return out;
}

std::size_t count_code_points(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += is_lead_byte(static_cast<unsigned char>(c)) ? 1 : 0;
  return n;
}

std::size_t prefix_bytes(std::string_view text, std::size_t chars) {
  std::size_t bytes = 0;
  for (std::size_t n = 0; bytes < text.size() && n < chars; ++n) {
    ++bytes;
    while (bytes < text.size() && !is_lead_byte(static_cast<unsigned char>(text[bytes]))) ++bytes;
  }
  return bytes;
}

std::string lower(std::string_view text) {
  // Most text is ASCII: lowered in place, without decoding.
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    std::string out(text);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](UChar32 c, std::string_view bytes) {
    if (c < 0) {
      out.append(bytes);
    } else if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else {
      char buffer[U8_MAX_LENGTH];
      int32_t length = 0;
      U8_APPEND_UNSAFE(buffer, length, u_tolower(c));
      out.append(buffer, static_cast<std::size_t>(length));
    }
  });
  return out;
}

}  // namespace rag::utf8
