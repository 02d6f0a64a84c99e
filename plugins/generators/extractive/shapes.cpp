#include "shapes.hpp"

#include <algorithm>
#include <cctype>

#include "code_reading.hpp"
#include "restatement.hpp"
#include "units.hpp"

namespace rag::extractive {
namespace {

// What a shell command of the documentation weighs in a how-to answer (other code 1.15, a
// sentence that names a flag 1.35): what the user will type.
constexpr double kCommandWeight = 1.3;
// What a sentence that defines what a what-is question asks about weighs (a page's lede weighs a
// little less: a sentence that says "X is" comes first).
constexpr double kDefiningWeight = 1.6;
// A defining sentence names its subject within this many bytes of its start, and says what it is
// within this many bytes after the subject.
constexpr std::size_t kSubjectOpens = 12;
constexpr std::size_t kSubjectToVerb = 25;

bool contains_any(std::string_view text, std::initializer_list<std::string_view> words) {
  const std::string t = lowered(text);
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return t.find(w) != std::string::npos; });
}

// Whether `t` (a sentence, lowered) opens with a word of `subject`, whole, and, after more of the
// question's words (`defined`: the rest of its name), a verb ("X puts ..."); not where the subject
// qualifies another noun ("The FP8 model calibration procedure is ...").
bool opens_with_subject(const std::string& t, const std::vector<std::string>& subject, const std::vector<std::string>& defined) {
  const auto in_word = [&](std::size_t i) { return i < t.size() && std::isalnum(static_cast<unsigned char>(t[i])) != 0; };
  for (const std::string& w : subject) {
    const std::size_t at = t.find(w);
    if (at > kSubjectOpens || (at > 0 && in_word(at - 1)) || in_word(at + w.size())) continue;
    for (std::size_t word = t.find(' ', at + w.size()); word != std::string::npos;) {
      const std::size_t end = std::min(t.find(' ', word + 1), t.size());
      std::string next = t.substr(word + 1, end - word - 1);
      std::erase_if(next, [](char c) { return std::string_view("`*,.;:()\"'").find(c) != std::string_view::npos; });
      if (std::find(defined.begin(), defined.end(), next) == defined.end()) return reads_as_verb(next);
      word = end < t.size() ? end : std::string::npos;
    }
  }
  return false;
}

}  // namespace

bool names_command(std::string_view prose) {
  return prose.find('`') != std::string_view::npos || prose.find(" --") != std::string_view::npos;
}

bool is_test_code(const Evidence& evidence) {
  if (evidence.kind != "python") return false;
  const std::string_view name = evidence.section;
  for (std::size_t begin = 0; begin < name.size();) {
    const std::size_t end = std::min(name.find('.', begin), name.size());
    const std::string_view part = name.substr(begin, end - begin);
    if (part == "tests" || part == "test" || part.starts_with("test_")) return true;
    begin = end + 1;
  }
  return false;
}

bool describes_the_page(std::string_view text) {
  const std::string opening = lowered(text.substr(0, 16));
  for (const std::string_view page : {"this document", "this page", "this guide", "this section", "this tutorial",
                                      "this example", "this directory", "this folder"})
    if (opening.starts_with(page)) return true;
  return false;
}

bool points_elsewhere(std::string_view text) {
  // "Set `VLLM_LOGGING_LEVEL=DEBUG` for more details." says what to do.
  if (names_command(text)) return false;
  const std::string t = lowered(trim(text));
  for (const std::string_view opening : {"see ", "refer ", "please refer", "please see", "for more information",
                                         "for more details", "for details", "for further information",
                                         "for further details", "more information", "more details", "find more"})
    if (t.starts_with(opening)) return true;
  for (const std::string_view ending : {" can be found here.", " found here.", " see here.", " for details.",
                                        " for more details.", " for more information."})
    if (t.ends_with(ending)) return true;
  return false;
}

bool speaks_of_the_page(std::string_view text) {
  if (describes_the_page(text)) return true;
  const std::string opening = lowered(text.substr(0, 16));
  for (const std::string_view page : {"in this ", "see ", "here is", "here are", "refer ", "please ", "for more"})
    if (opening.starts_with(page)) return true;
  return trim(text).ends_with(':');
}

bool announces_code(std::string_view sentence) {
  return contains_any(sentence, {"the following command", "the following code", "the following example",
                                 "the following script", "the following snippet", "the following configuration",
                                 "as follows", "command below", "code below", "example below", "script below", "snippet below",
                                 "this command"});
}

bool holds_answer_type(const AnswerTypes& types, const ExtractiveGenerator::Unit& u) {
  const std::string_view t = u.text;
  const auto at = [&](std::size_t i) { return i < t.size() ? static_cast<unsigned char>(t[i]) : '\0'; };
  const auto digit = [&](std::size_t i) { return std::isdigit(at(i)) != 0; };
  const auto upper = [&](std::size_t i) { return std::isupper(at(i)) != 0; };
  const auto lower = [&](std::size_t i) { return std::islower(at(i)) != 0; };
  const auto word_char = [&](std::size_t i) { return std::isalnum(at(i)) != 0 || at(i) == '_'; };
  // Inside backticks, where prose writes a name as code: each backtick opens or closes a span,
  // but for a last one left unclosed.
  bool quoted = u.code;
  const std::size_t unclosed = std::count(t.begin(), t.end(), '`') % 2 == 1 ? t.rfind('`') : std::string_view::npos;
  // An ordered list item's number ("2. Preparing calibration data") counts nothing.
  std::size_t from = 0;
  while (digit(from)) ++from;
  if (from == 0 || t.substr(from, 2) != ". ") from = 0;
  for (std::size_t i = from; i < t.size(); ++i) {
    if (!u.code && t[i] == '`' && i != unclosed) quoted = !quoted;
    const bool starts_word = i == 0 || !word_char(i - 1);
    // "0.1", "25 MB"; not "qwen2", nor a model's size or version ("Llama-3.1-8B", "v0.10").
    if (types.quantity && digit(i) && starts_word && !(i > 0 && std::string_view("-./").find(t[i - 1]) != std::string_view::npos))
      return true;
    if (types.environment_variable && starts_word && upper(i)) {  // VLLM_HOST_IP
      std::size_t end = i;
      bool underscore = false;
      for (; upper(end) || digit(end) || at(end) == '_'; ++end) underscore = underscore || t[end] == '_';
      if (underscore && !word_char(end) && end - i >= 4) return true;
    }
    if (types.class_name && quoted && starts_word && upper(i)) {  // `OpenAIChatGenerator`, not LoRA in prose
      bool camel = false;
      for (std::size_t end = i + 1; word_char(end); ++end) camel = camel || (lower(end - 1) && upper(end));
      if (camel) return true;
    }
    if (types.option && t.substr(i, 2) == "--" && lower(i + 2)) return true;
  }
  // A keyword argument ("LLM(model=m, quantization=\"fp8\")"), not an assignment ("x = f(y)").
  const std::size_t call = t.find('(');
  const auto keyword = [&] {
    for (std::size_t eq = t.find('=', call); eq != std::string_view::npos; eq = t.find('=', eq + 1))
      if (word_char(eq - 1) && at(eq + 1) != '=') return true;
    return false;
  };
  // A file's name or a folder of the repository; not "and/or" nor a model's id.
  const auto names_path = [&] {
    for (const std::string_view extension : {".py", ".md", ".yaml", ".yml", ".json", ".sh", ".txt", ".toml", ".cu", ".cpp"})
      if (const std::size_t found = t.find(extension); found != std::string_view::npos && !word_char(found + extension.size()))
        return true;
    const std::size_t slash = t.find('/');
    return slash != std::string_view::npos && t.find('/', slash + 1) != std::string_view::npos && word_char(slash + 1);
  };
  return (types.option && u.code && call != std::string_view::npos && keyword()) || (types.path && names_path()) ||
         (types.command && (u.code || names_command(t))) || (types.money && states_money(t));
}

double shape_weight(QuestionKind kind, const ExtractiveGenerator::Unit& u, bool in_docs,
                    const std::vector<std::string>& defined, const std::vector<std::string>& subject) {
  using Kind = QuestionKind;
  switch (kind) {
    case Kind::what_is: {
      if (u.code) return is_field(u.text) ? 1.0 : 0.5;  // a field brings its docstring
      // A defining sentence names the subject first, then says what it is ("Here is the diagram
      // of X" says nothing of what X is).
      const std::string t = lowered(u.text.substr(0, std::min<std::size_t>(u.text.size(), 120)));
      std::size_t named = std::string::npos, named_end = 0;
      for (const std::string& w : defined)
        if (const std::size_t at = t.find(w); at < 60 && at < named) named = at, named_end = at + w.size();
      std::size_t says = std::string::npos;
      for (const std::string_view verb : {" is a", " is an", " is the", " are ", " refers to", " means", " stands for",
                                          " allows", " lets ", " provides", " enables", " is used", " is designed"})
        if (const std::size_t at = t.find(verb); at != std::string::npos) says = std::min(says, at);
      // A sentence that opens with the subject and a verb says something of it even without one
      // of these verbs.
      if (says == std::string::npos) return opens_with_subject(t, subject, defined) ? 1.15 : 1.0;
      // The subject opens the sentence ("vLLM's X", "The X") and its verb follows it closely
      // ("X (Y) is a"); else the verb may be said of something else ("..., which is used").
      return named <= kSubjectOpens && says >= named_end && says - named_end <= kSubjectToVerb ? kDefiningWeight : 1.15;
    }
    case Kind::how_to:
      if (u.code) return in_docs && runs_command(u.text) ? kCommandWeight : 1.15;
      if (names_command(u.text)) return 1.35;
      return u.announces ? 1.2 : contains_any(u.text, {"you can", "use ", "run ", "set ", "pass ", "add "}) ? 1.15 : 1.0;
    case Kind::default_value:
      if (u.code) return gives_value(u.text) ? 1.6 : 0.8;
      return contains_any(u.text, {"default"}) ? 1.5 : 1.0;
    case Kind::options:
      return u.item ? 1.3 : u.code ? 1.1 : 1.0;
    case Kind::why:
      if (u.code) return 0.5;
      return contains_any(u.text, {"because", "so that", "in order to", "to avoid", "since ", "to reduce", "reduces",
                                   "improves", "to improve", "allows", "which means", "otherwise", "due to"})
                 ? 1.5
                 : 1.0;
    case Kind::where:
    case Kind::other:
      break;
  }
  return 1.0;
}

}  // namespace rag::extractive
