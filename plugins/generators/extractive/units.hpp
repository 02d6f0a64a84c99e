#pragma once
// The extractive generator's units: a source cut into sentences and code statements
// (ExtractiveGenerator::split_units, defined in units.cpp), and the operations on their text
// that answers are written with.
#include <string>
#include <string_view>
#include <vector>

namespace rag::extractive {

/// `s` without the spaces, tabs and carriage returns around it (line breaks stay).
std::string_view trim(std::string_view s);
/// `s` without the spaces, tabs and carriage returns after it.
std::string_view trim_right(std::string_view s);
/// The lines of `text`, without their line breaks.
std::vector<std::string_view> lines_of(std::string_view text);
/// How many spaces and tabs start `line` (its length when it holds nothing else).
std::size_t indentation(std::string_view line);
/// `text` cut to about `max_chars`: whole lines for code (at least one), words and an ellipsis
/// for prose.
std::string shorten(const std::string& text, std::size_t max_chars, bool code);
/// `text` with its ASCII capitals lowered and its no-break spaces as spaces: what phrases are
/// looked for in ("Sleep Mode allows" is often written with U+00A0 between the words).
std::string lowered(std::string_view text);

}  // namespace rag::extractive
