#include "rag/question_kind.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "rag/definitions.hpp"
#include "rag/span_splitter.hpp"

namespace rag {

namespace {

// The kind that one sentence asks.
QuestionKind kind_of(std::string_view question) {
  std::string q(question);
  for (char& c : q)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  const auto starts = [&](std::string_view prefix) { return q.rfind(prefix, 0) == 0; };
  const auto has_word = [&](std::string_view word) {
    for (std::size_t at = q.find(word); at != std::string::npos; at = q.find(word, at + 1)) {
      const bool before = at == 0 || std::isalnum(static_cast<unsigned char>(q[at - 1])) == 0;
      const bool after = at + word.size() >= q.size() || std::isalnum(static_cast<unsigned char>(q[at + word.size()])) == 0;
      if (before && after) return true;
    }
    return false;
  };
  if (has_word("default") || has_word("defaults")) return QuestionKind::default_value;
  // Where code lives; "where can I find information about ..." asks for a pointer, like any question.
  // A translated question may say "define" or name the "class" rather than say "defined".
  if ((starts("where") && (has_word("implemented") || has_word("defined") || has_word("define") || has_word("located") ||
                           has_word("declared") || has_word("implementation") || has_word("definition") ||
                           has_word("class") || has_word("function"))) ||
      has_word("which file") || has_word("which module"))
    return QuestionKind::where;
  if (starts("why")) return QuestionKind::why;
  if (starts("how")) return QuestionKind::how_to;
  for (const std::string_view word : {"options", "flags", "parameters", "arguments", "settings", "values", "methods",
                                      "backends", "models", "formats", "types", "modes", "kinds", "ways"})
    if ((starts("which") || starts("what")) && has_word(word)) return QuestionKind::options;
  // "What is X?" with a short X, or "what does X mean": a definition. A longer "what is the N of
  // ..." asks for a fact, not a definition, unless it asks what X does and calls X a parameter
  // (or an option, ...): "What does the temperature parameter in SamplingParams control?" ("What
  // flag do you need to ..." asks which).
  bool names_field = false;
  for (std::size_t begin = 0; begin < q.size();) {
    std::size_t end = begin;
    while (end < q.size() && std::isalnum(static_cast<unsigned char>(q[end])) != 0) ++end;
    names_field = names_field || is_field_noun(std::string_view(q).substr(begin, end - begin));
    begin = end + 1;
  }
  if (starts("what") && (has_word("mean") || has_word("do") || has_word("does") || has_word("control") ||
                         has_word("controls")) && (q.size() < 60 || (starts("what does ") && names_field)))
    return QuestionKind::what_is;
  for (const std::string_view opening : {"what is ", "what are ", "what's ", "what "}) {
    if (!starts(opening)) continue;
    std::size_t words = 0;
    for (std::size_t i = opening.size(); i < q.size(); ++i)
      words += q[i] != ' ' && (i == opening.size() || q[i - 1] == ' ');
    return words <= 4 ? QuestionKind::what_is : QuestionKind::other;
  }
  return QuestionKind::other;
}

}  // namespace

QuestionKind question_kind(std::string_view question) {
  // Users often say where they stand before they ask ("I have a BF16 model and no calibration
  // data. How can I ...?"): the sentences that end in '?' say the kind first, then the others
  // ("How do I set swap_space. Thanks!"), in order. Sentences as sentence_starts cuts them, at
  // '.', '!' or '?' before a space: neither `torch.compile` nor a URL's "?model=x" ends one.
  std::vector<std::string_view> asking, telling;
  std::vector<std::size_t> starts = sentence_starts(question, {0, question.size()});
  starts.push_back(question.size());
  std::size_t begin = 0;
  for (const std::size_t end : starts) {
    std::string_view sentence = question.substr(begin, end - begin);
    begin = end;
    const std::size_t first = sentence.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) continue;
    sentence = sentence.substr(first, sentence.find_last_not_of(" \t\r\n\f\v") + 1 - first);
    (sentence.ends_with('?') ? asking : telling).push_back(sentence);
  }
  for (const auto* sentences : {&asking, &telling})
    for (const std::string_view sentence : *sentences)
      if (const QuestionKind kind = kind_of(sentence); kind != QuestionKind::other) return kind;
  return kind_of(question);
}

}  // namespace rag
