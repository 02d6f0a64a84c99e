#include "rag/question_kind.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rag/code_names.hpp"
#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {

namespace {

// `text` with its ASCII letters lowered: the same offsets as `text` (utf8::lower may change them).
std::string ascii_lowered(std::string_view text) {
  std::string lower(text);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return lower;
}

// The kind that one sentence asks.
QuestionKind kind_of(std::string_view question) {
  const std::string q = ascii_lowered(question);
  // A question word whole: "however" and "whereas" ask nothing.
  const auto starts = [&](std::string_view prefix) {
    return q.starts_with(prefix) &&
           (prefix.ends_with(' ') || q.size() == prefix.size() || std::isalnum(static_cast<unsigned char>(q[prefix.size()])) == 0);
  };
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
                                      "backends", "models", "formats", "types", "modes", "kinds", "ways", "policies",
                                      "algorithms", "strategies", "choices", "levels"})
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

// The member of AnswerTypes a noun names, singular or plural ("ports", "directories"); null for
// any other word.
bool AnswerTypes::*type_named_by(std::string_view noun) {
  static const std::map<std::string_view, bool AnswerTypes::*> kNouns = {
      {"variable", &AnswerTypes::environment_variable}, {"var", &AnswerTypes::environment_variable},
      {"flag", &AnswerTypes::option},       {"argument", &AnswerTypes::option},  {"arg", &AnswerTypes::option},
      {"parameter", &AnswerTypes::option},  {"param", &AnswerTypes::option},     {"option", &AnswerTypes::option},
      {"setting", &AnswerTypes::option},    {"field", &AnswerTypes::option},     {"attribute", &AnswerTypes::option},
      {"share", &AnswerTypes::quantity},    {"percentage", &AnswerTypes::quantity}, {"fraction", &AnswerTypes::quantity},
      {"ratio", &AnswerTypes::quantity},    {"size", &AnswerTypes::quantity},    {"number", &AnswerTypes::quantity},
      {"amount", &AnswerTypes::quantity},   {"count", &AnswerTypes::quantity},   {"limit", &AnswerTypes::quantity},
      {"length", &AnswerTypes::quantity},   {"timeout", &AnswerTypes::quantity}, {"port", &AnswerTypes::quantity},
      {"version", &AnswerTypes::quantity},  {"class", &AnswerTypes::class_name}, {"file", &AnswerTypes::path},
      {"directory", &AnswerTypes::path},    {"folder", &AnswerTypes::path},      {"script", &AnswerTypes::path},
      {"module", &AnswerTypes::path},       {"path", &AnswerTypes::path},        {"command", &AnswerTypes::command}};
  for (const std::string& form : {std::string(noun), noun.ends_with("ies") ? std::string(noun.substr(0, noun.size() - 3)) + "y" : "",
                                  noun.ends_with("es") ? std::string(noun.substr(0, noun.size() - 2)) : "",
                                  noun.ends_with('s') ? std::string(noun.substr(0, noun.size() - 1)) : ""})
    if (const auto found = kNouns.find(form); !form.empty() && found != kNouns.end()) return found->second;
  return nullptr;
}

// The words that open a question, or a part of one.
const std::set<std::string_view> kQuestionWords = {"what", "which", "how", "where", "why", "when", "who", "whether"};

// A sentence cut where a second question starts: before an "and" or "or" that opens one ("What
// is EPLB, and how do I turn it on?" -> "What is EPLB" and "how do I turn it on?"), or an "and"
// followed by an auxiliary and its subject ("What does X do, and can I change it?"); not "or is it
// ..." (a choice asked once), "the difference between X and what Y does", "starts and is then
// killed", or the words of a name (use_aiter_and_is_supported). `first` is the sentence whole
// and `rest` empty when it asks one thing; `rest` starts after the "and" or "or".
struct FirstQuestion {
  std::string_view first, rest;
};
FirstQuestion first_of_several(std::string_view sentence) {
  static const std::set<std::string_view> kAuxiliaries = {"does", "do", "is", "are", "can", "should", "will", "could"};
  static const std::set<std::string_view> kSubjects = {"i", "it", "there", "we", "you", "they", "this", "that", "vllm"};
  const std::string lower = ascii_lowered(sentence);
  const std::vector<std::string_view> words = name_runs(lower, false);
  bool between = false;  // after "between", up to the "and" of "between X and Y"
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "between") between = true;
    if (((words[i] == "and" || words[i] == "or") && kQuestionWords.contains(words[i + 1]) && !between) ||
        (words[i] == "and" && kAuxiliaries.contains(words[i + 1]) && i + 2 < words.size() && kSubjects.contains(words[i + 2]))) {
      // The first part ends at its last word, before any "and/" of an "and/or".
      std::size_t end = static_cast<std::size_t>(words[i].data() - lower.data());
      if (words[i] == "or" && i > 0 && words[i - 1] == "and" &&
          lower.find_first_not_of(" /", static_cast<std::size_t>(words[i - 1].data() - lower.data()) + 3) == end)
        end = static_cast<std::size_t>(words[i - 1].data() - lower.data());
      while (end > 0 && std::string_view(" \t\r\n,;").find(lower[end - 1]) != std::string_view::npos) --end;
      const std::size_t next = static_cast<std::size_t>(words[i + 1].data() - lower.data());
      return {sentence.substr(0, end), sentence.substr(next)};
    }
    if (words[i] == "and") between = false;
  }
  return {sentence, {}};
}

// Whether `sentence` asks two things or more in parts of two words at least: "How and why does
// vLLM preempt requests?" and a follow-up's leading "And how ...?" ask once.
bool has_parts(std::string_view sentence) {
  const FirstQuestion cut = first_of_several(sentence);
  return !cut.rest.empty() && name_runs(cut.first, false).size() >= 2 && name_runs(cut.rest, false).size() >= 2;
}

// The sentences of a question, trimmed, as sentence_starts cuts them (at '.', '!' or '?' before a
// space: neither `torch.compile` nor a URL's "?model=x" ends one), and not inside code ("Why does
// `x ? y : z` fail?"): those that end in '?' and the others, each in order.
struct Sentences {
  std::vector<std::string_view> asking, telling;
};
Sentences sentences_of(std::string_view question) {
  Sentences out;
  std::vector<std::size_t> starts = sentence_starts(question, {0, question.size()});
  starts.push_back(question.size());
  std::size_t begin = 0;
  for (const std::size_t end : starts) {
    // Inside code, when a backtick closes it later ("can`t" is an apostrophe): the sentence goes on.
    if (std::count(question.begin() + static_cast<std::ptrdiff_t>(begin), question.begin() + static_cast<std::ptrdiff_t>(end), '`') % 2 != 0 &&
        question.find('`', end) != std::string_view::npos)
      continue;
    std::string_view sentence = question.substr(begin, end - begin);
    begin = end;
    const std::size_t first = sentence.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) continue;
    sentence = sentence.substr(first, sentence.find_last_not_of(" \t\r\n\f\v") + 1 - first);
    (sentence.ends_with('?') ? out.asking : out.telling).push_back(sentence);
  }
  return out;
}

// The part of `question` its kind is read from, with the kind. Users often say where they stand
// before they ask ("I have a BF16 model and no calibration data. How can I ...?"): the sentences
// that end in '?' say the kind first, then the others ("How do I set swap_space. Thanks!"), in
// order. A sentence that asks two things ("What is Anyscale, and what does it give you?") asks
// first what its first part asks, which alone may be short enough to read ("What is Anyscale").
// A clause may come before the question word ("In the Helm values file, what is pvcStorage
// for?", "For Llama 3, Mistral and Qwen, how do I ..."): the question then starts after a comma.
// An asking sentence read so still comes before the telling ones. The question whole when no
// part says a kind.
struct AskedPart {
  QuestionKind kind = QuestionKind::other;
  std::string_view part;
};
AskedPart asked_part(std::string_view question, const Sentences& sentences) {
  for (const auto* group : {&sentences.asking, &sentences.telling}) {
    for (const std::string_view sentence : *group)
      if (const QuestionKind kind = kind_of(sentence); kind != QuestionKind::other) return {kind, sentence};
    for (const std::string_view sentence : *group)
      if (const FirstQuestion cut = first_of_several(sentence); !cut.rest.empty())
        if (const QuestionKind kind = kind_of(cut.first); kind != QuestionKind::other) return {kind, cut.first};
    for (const std::string_view sentence : *group)
      for (std::size_t comma = sentence.find(", "); comma != std::string_view::npos; comma = sentence.find(", ", comma + 2))
        if (const QuestionKind kind = kind_of(sentence.substr(comma + 2)); kind != QuestionKind::other)
          return {kind, sentence.substr(comma + 2)};
  }
  return {kind_of(question), question};
}

// How many question marks end a sentence of `question`: a run of them ("??") once, none in code or
// a URL (`x ? y : z`, "?limit=1" are followed by no space), a full-width one (Chinese) wherever it
// is.
std::size_t question_marks(std::string_view question) {
  std::size_t marks = 0;
  bool code = false;
  for (std::size_t i = 0; i < question.size(); ++i) {
    if (question[i] == '`') code = !code;
    if (code) continue;
    if (question.compare(i, 3, "\uff1f") == 0) {
      ++marks;
    } else if (question[i] == '?') {
      while (i + 1 < question.size() && question[i + 1] == '?') ++i;
      marks += i + 1 == question.size() || std::isspace(static_cast<unsigned char>(question[i + 1])) != 0;
    }
  }
  return marks;
}

// Whether a sentence asks two things in English: "and" or "or" before a question word, "and"
// before an auxiliary and its subject ("and can I").
bool has_parts_in(const Sentences& sentences) {
  for (const auto* group : {&sentences.asking, &sentences.telling})
    if (std::any_of(group->begin(), group->end(), has_parts)) return true;
  return false;
}

}  // namespace

AnswerTypes answer_types(std::string_view question) {
  // The question's words, lowered, each with whether it opens a sentence or a clause ("On Intel
  // Gaudi, what share ...").
  std::vector<std::pair<std::string, bool>> words;
  bool opens = true;
  for (std::size_t i = 0; i < question.size();) {
    std::size_t end = i;
    while (end < question.size() && (std::isalnum(static_cast<unsigned char>(question[end])) != 0 || question[end] == '-')) ++end;
    if (end > i) {
      words.emplace_back(utf8::lower(question.substr(i, end - i)), opens);
      opens = false;
    }
    if (end < question.size() && std::string_view(".?!,;:").find(question[end]) != std::string_view::npos) opens = true;
    i = end + 1;
  }
  // A question word asks when it opens a sentence or a clause or follows a preposition ("In which
  // file ..."); not a relative "which" ("a setting which limits the number ...").
  // The words after "how" that ask a quantity ("how many", "how long").
  static const std::set<std::string_view> kMeasures = {"many", "much", "long", "often", "large", "big",
                                                       "fast", "far",  "high", "low",   "small"};
  static const std::set<std::string_view> kPrepositions = {"in", "on", "from", "to", "for", "at", "with", "by", "of", "under"};
  // Words that end the phrase a question word heads: an auxiliary, a preposition or a verb ("What
  // controls the batch size?" asks for a setting, not a size).
  static const std::set<std::string_view> kPhraseEnds = {
      "is",      "are",   "was",     "were",     "does",    "do",       "did",     "should",  "can",      "could",
      "will",    "would", "must",    "may",      "might",   "has",      "have",    "of",      "that",     "for",
      "in",      "on",    "to",      "when",     "if",      "which",    "with",    "by",      "controls", "control",
      "sets",    "set",   "decides", "determines", "limits", "affects", "configures", "specifies", "governs", "defines",
      "enables", "makes", "causes",  "happens",  "means",   "handles",  "uses",    "returns", "gives",    "takes",
      "needs",   "allows", "supports", "changes", "reads",  "stores",   "runs",    "starts",  "holds",    "contains"};
  constexpr std::size_t kPhraseWords = 5;
  AnswerTypes types;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].first == "how" && i + 1 < words.size() && kMeasures.contains(words[i + 1].first)) types.quantity = true;
    // A price asks for money; so does what something costs when "how much" asks it (not "the
    // memory cost of prefix caching").
    const std::string& w = words[i].first;
    if (w == "price" || w == "prices" || w == "pricing" ||
        ((w == "cost" || w == "costs") && std::any_of(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i),
                                                       [&](const auto& before) { return before.first == "much"; })))
      types.money = true;
    if ((words[i].first != "which" && words[i].first != "what") ||
        !(words[i].second || (i > 0 && kPrepositions.contains(words[i - 1].first))))
      continue;
    std::size_t at = i + 1;
    // "What is the maximum audio file size ...", "What's the port": the phrase after the article.
    if (at + 1 < words.size() && (words[at].first == "is" || words[at].first == "are" || words[at].first == "s") &&
        (words[at + 1].first == "the" || words[at + 1].first == "a" || words[at + 1].first == "an"))
      at += 2;
    // Of the phrase's nouns, the last that names a type is its head ("command line argument",
    // "audio file size"). A word in -s that names none is most often the verb ("Which script
    // finds ...").
    bool AnswerTypes::*head = nullptr;
    for (const std::size_t end = std::min(words.size(), at + kPhraseWords); at < end && !kPhraseEnds.contains(words[at].first); ++at) {
      bool AnswerTypes::*named = type_named_by(words[at].first);
      if (!named && words[at].first.size() > 2 && words[at].first.ends_with('s')) break;
      if (named) head = named;
    }
    if (head) types.*head = true;
  }
  return types;
}

bool states_money(std::string_view text) {
  const auto digit = [&](std::size_t i) { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; };
  for (const std::string_view sign : {"$", "\u20ac", "\u00a3"}) {  // $, euro, pound
    for (std::size_t at = text.find(sign); at != std::string_view::npos; at = text.find(sign, at + 1)) {
      std::size_t after = at + sign.size();
      if (after < text.size() && text[after] == ' ') ++after;
      if (digit(after)) return true;
    }
  }
  const std::string lower = utf8::lower(text);
  for (const std::string_view name : {" usd", " eur", " dollars", " dollar", " cents", " euros"}) {
    for (std::size_t at = lower.find(name); at != std::string::npos; at = lower.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if (at > 0 && digit(at - 1) && (end == lower.size() || std::isalpha(static_cast<unsigned char>(lower[end])) == 0)) return true;
    }
  }
  return false;
}

bool asks_several_things(std::string_view question, std::string_view translated) {
  if (question_marks(question) >= 2) return true;
  // The translation's words, each with its readings joined by '|' ("which|what"): two different
  // ones that ask.
  if (!translated.empty()) {
    const std::string english = utf8::lower(translated);
    std::set<std::string_view> asking;
    for (std::size_t begin = 0; begin < english.size();) {
      const std::size_t end = std::min(english.find(' ', begin), english.size());
      const std::string_view word = std::string_view(english).substr(begin, end - begin);
      for (std::size_t part = 0; part <= word.size();) {
        const std::size_t bar = std::min(word.find('|', part), word.size());
        if (kQuestionWords.contains(word.substr(part, bar - part))) {
          asking.insert(word);
          break;
        }
        part = bar + 1;
      }
      begin = end + 1;
    }
    if (asking.size() >= 2) return true;
  }
  return has_parts_in(sentences_of(question));
}

QuestionKind question_kind(std::string_view question) { return asked_part(question, sentences_of(question)).kind; }

std::vector<std::string_view> asked_parts(std::string_view question) {
  const Sentences sentences = sentences_of(question);
  const std::string_view whole = asked_part(question, sentences).part;
  if (question_marks(question) < 2 && !has_parts_in(sentences)) return {whole};
  if (sentences.asking.size() >= 2) return sentences.asking;
  // The sentence that asks: the one the kind is read from (a question may come without its '?',
  // after sentences that say where the user stands), else the one that ends in '?'; cut before
  // each "and" or "or" that opens another question.
  std::string_view asking = sentences.asking.empty() ? std::string_view() : sentences.asking.front();
  for (const auto* group : {&sentences.asking, &sentences.telling})
    for (const std::string_view sentence : *group)
      if (whole.data() >= sentence.data() && whole.data() < sentence.data() + sentence.size()) asking = sentence;
  if (!has_parts(asking)) return {whole};
  std::vector<std::string_view> parts;
  for (FirstQuestion cut{{}, asking}; !cut.rest.empty();) {
    cut = first_of_several(cut.rest);
    parts.push_back(cut.first);
  }
  return parts;
}

}  // namespace rag
