#include "rag/question_kind.hpp"

#include <cctype>
#include <map>
#include <set>
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

// The answer type a noun names, when it names one; a later noun of a compound is its head ("file
// size" asks a size, "environment variable" a variable).
bool type_of(std::string_view noun, AnswerTypes* types) {
  static const std::map<std::string_view, bool AnswerTypes::*> kNouns = {
      {"variable", &AnswerTypes::environment_variable}, {"variables", &AnswerTypes::environment_variable},
      {"var", &AnswerTypes::environment_variable},      {"flag", &AnswerTypes::option},
      {"flags", &AnswerTypes::option},                  {"argument", &AnswerTypes::option},
      {"arguments", &AnswerTypes::option},              {"parameter", &AnswerTypes::option},
      {"parameters", &AnswerTypes::option},             {"option", &AnswerTypes::option},
      {"options", &AnswerTypes::option},                {"setting", &AnswerTypes::option},
      {"settings", &AnswerTypes::option},               {"share", &AnswerTypes::quantity},
      {"percentage", &AnswerTypes::quantity},           {"fraction", &AnswerTypes::quantity},
      {"ratio", &AnswerTypes::quantity},                {"size", &AnswerTypes::quantity},
      {"number", &AnswerTypes::quantity},               {"amount", &AnswerTypes::quantity},
      {"limit", &AnswerTypes::quantity},                {"timeout", &AnswerTypes::quantity},
      {"port", &AnswerTypes::quantity},                 {"version", &AnswerTypes::quantity},
      {"versions", &AnswerTypes::quantity},             {"class", &AnswerTypes::class_name},
      {"classes", &AnswerTypes::class_name},            {"file", &AnswerTypes::path},
      {"files", &AnswerTypes::path},                    {"directory", &AnswerTypes::path},
      {"folder", &AnswerTypes::path},                   {"script", &AnswerTypes::path},
      {"module", &AnswerTypes::path},                   {"path", &AnswerTypes::path},
      {"command", &AnswerTypes::command},               {"commands", &AnswerTypes::command}};
  const auto found = kNouns.find(noun);
  if (found == kNouns.end()) return false;
  if (types) types->*found->second = true;
  return true;
}

}  // namespace

AnswerTypes answer_types(std::string_view question) {
  std::vector<std::string> words;  // lowered runs of letters, digits and '-'
  for (std::size_t i = 0; i < question.size();) {
    std::size_t end = i;
    while (end < question.size() && (std::isalnum(static_cast<unsigned char>(question[end])) != 0 || question[end] == '-')) ++end;
    if (end > i) {
      std::string w(question.substr(i, end - i));
      for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      words.push_back(std::move(w));
    }
    i = end + 1;
  }
  static const std::set<std::string_view> kMeasures = {"many", "much", "long", "often", "large", "big",
                                                       "fast", "far",  "high", "low",   "small"};
  // Words that end the phrase a question word heads: a verb or a preposition ("which flag do
  // I ...", "what size of ...").
  static const std::set<std::string_view> kPhraseEnds = {"is", "are", "was", "were", "does", "do", "did", "should", "can",
                                                         "could", "will", "would", "has", "have", "of", "that", "for",
                                                         "in", "on", "to", "when", "if", "which", "with"};
  constexpr std::size_t kPhraseWords = 5;
  AnswerTypes types;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "how" && i + 1 < words.size() && kMeasures.contains(words[i + 1])) types.quantity = true;
    if (words[i] != "which" && words[i] != "what") continue;
    std::size_t at = i + 1;
    // "What is the maximum audio file size ...": the phrase after "is the" names what is asked.
    if (at + 1 < words.size() && (words[at] == "is" || words[at] == "are") &&
        (words[at + 1] == "the" || words[at + 1] == "a" || words[at + 1] == "an"))
      at += 2;
    for (const std::size_t end = std::min(words.size(), at + kPhraseWords); at < end && !kPhraseEnds.contains(words[at]); ++at) {
      if (!type_of(words[at], nullptr)) continue;
      while (at + 1 < end && type_of(words[at + 1], nullptr)) ++at;
      type_of(words[at], &types);
      break;
    }
  }
  return types;
}

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
