#pragma once
// Which language a question is written in, so that the prompt can ask for an answer in it.
#include <string_view>

namespace rag {

/// The ISO 639-1 code of the language `text` is most likely written in: "en", "fr", "es", "de",
/// "ru" or "zh". Scripts decide first (Han, Cyrillic); Latin-script text is told apart by its
/// function words and accented letters, which code identifiers do not disturb. "en" when unsure.
std::string_view detect_language(std::string_view text);

/// The English name of a code detect_language() returns ("French"); the code itself otherwise.
std::string_view language_name(std::string_view code);

}  // namespace rag
