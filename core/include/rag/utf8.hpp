#pragma once
// UTF-8 facts the rest of the code needs: validity, and counting code points, which is how
// every offset the user sees is measured.
#include <cstddef>
#include <string>
#include <string_view>

namespace rag::utf8 {

/// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
bool is_valid(std::string_view text);

/// True for the bytes that start a code point (everything but 10xxxxxx continuation bytes).
constexpr bool is_lead_byte(unsigned char c) { return (c & 0xC0) != 0x80; }

/// `text` with each malformed sequence replaced by U+FFFD (as a decoder reading it would show
/// it); valid text comes back as it is.
std::string repaired(std::string_view text);

/// Number of code points in valid UTF-8 `text`.
std::size_t count_code_points(std::string_view text);

/// `text` in lower case, by Unicode's simple case mapping; malformed bytes are kept as they are.
std::string lower(std::string_view text);

/// Bytes taken by the first `chars` code points of `text` (all of it when it has fewer).
std::size_t prefix_bytes(std::string_view text, std::size_t chars);

}  // namespace rag::utf8
