#include "rag/source_file.hpp"

#include <algorithm>

#include "rag/error.hpp"
#include "rag/utf8.hpp"

namespace rag {

SourceFile::SourceFile(std::string name, std::string relative_path, std::string text)
    : name_(std::move(name)), relative_path_(std::move(relative_path)), text_(std::move(text)) {
  if (!utf8::is_valid(text_)) throw Error(name_ + ": not valid UTF-8");
  for (std::size_t at = text_.find('\n'); at != std::string::npos; at = text_.find('\n', at + 1))
    line_ends_.push_back(at);
  const bool ascii = std::all_of(text_.begin(), text_.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return;
  char_at_byte_.resize(text_.size() + 1);
  std::uint32_t index = 0;
  for (std::size_t i = 0; i < text_.size(); ++i) {
    char_at_byte_[i] = index;
    // Continuation bytes share the index of their code point.
    if (i + 1 == text_.size() || utf8::is_lead_byte(static_cast<unsigned char>(text_[i + 1]))) ++index;
  }
  char_at_byte_[text_.size()] = index;
}

std::size_t SourceFile::char_offset(std::size_t byte) const {
  if (char_at_byte_.empty()) return std::min(byte, text_.size());
  return char_at_byte_[std::min(byte, text_.size())];
}

std::size_t SourceFile::line_of(std::size_t byte) const {
  // Lines before `byte`: the line ends strictly before it.
  return 1 + static_cast<std::size_t>(std::lower_bound(line_ends_.begin(), line_ends_.end(), byte) - line_ends_.begin());
}

std::size_t SourceFile::byte_offset(std::size_t char_index) const {
  if (char_at_byte_.empty()) return std::min(char_index, text_.size());
  if (char_index >= char_at_byte_.back()) return text_.size();
  // The first byte whose code-point index reaches char_index starts that code point.
  const auto it = std::lower_bound(char_at_byte_.begin(), char_at_byte_.end(),
                                   static_cast<std::uint32_t>(char_index));
  return static_cast<std::size_t>(it - char_at_byte_.begin());
}

}  // namespace rag
