#pragma once
// Which language a question is written in, so that the prompt can ask for an answer in it.
#include <string_view>

namespace rag {

/// The ISO 639-1 code of the language `text` is most likely written in: "en", "fr", "es", "de",
/// "ru" or "zh". Scripts decide first (Han, Cyrillic); Latin-script text is told apart by its
/// function words and accented letters, which code identifiers do not disturb. "en" when unsure.
std::string_view detect_language(std::string_view text);

/// True when `word` (lower case) is a function word of the language of `code` ("fr": "le",
/// "est", "pour"; "ru": "и", "в", "на"): one that carries no topic of its own.
bool is_function_word(std::string_view code, std::string_view word);

/// The English name of a code detect_language() returns ("French"); the code itself otherwise.
std::string_view language_name(std::string_view code);

/// "The sources do not answer this question." in the language of `code` (English for a code
/// detect_language() does not return): what an answer that declines says.
std::string_view no_answer_text(std::string_view code);

/// "No indexed file mentions {name}." ({name}: one or more names) in the language of `code` (English for a code
/// detect_language() does not return), a template for render_template (rag/context.hpp): what a
/// declining answer adds when the question names an option or variable no file writes
/// (Support::unwritten).
std::string_view unwritten_name_phrase(std::string_view code);

/// "The default of {name} is {value}." in the language of `code` (English for a code
/// detect_language() does not return), a template for render_template (rag/context.hpp): how an
/// answer states the default it found.
std::string_view default_is_phrase(std::string_view code);

/// For an answer that quotes the English sources to a question in another language: a sentence
/// in that language saying the quotes are in English, untranslated. Empty for English.
std::string_view english_sources_note(std::string_view code);

}  // namespace rag
