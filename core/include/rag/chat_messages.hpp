#pragma once
// Answers cut for chat platforms, whose messages have a size limit (a bot's reply on Telegram,
// Slack, Discord): at paragraph, then sentence, then line boundaries, never inside a code block
// (a block that must be cut is closed and opened again), each part with the sources it cites.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rag {

struct ChatMessagePart {
  std::string text;
  std::vector<int> sources;  ///< the numbers of the sources it cites ([n]), in order of first citation
};

/// `answer` in parts of at most `max_chars` code points each (`max_chars` >= 40, so that a code
/// fence and some of its code fit). Parts are trimmed and never empty; an empty answer gives none.
/// `sources`: how many the answer may cite (cited_numbers).
std::vector<ChatMessagePart> split_for_chat(std::string_view answer, std::size_t max_chars, std::size_t sources = SIZE_MAX);

}  // namespace rag
