#include "rag/code_names.hpp"

#include <algorithm>
#include <cctype>

#include "rag/analyzer.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Whether `word` is a noun `is_noun` accepts, singular or plural ("parameters", "classes").
bool in_any_number(std::string_view word, bool (*is_noun)(std::string_view)) {
  return is_noun(word) || (word.ends_with('s') && is_noun(word.substr(0, word.size() - 1))) ||
         (word.ends_with("es") && is_noun(word.substr(0, word.size() - 2)));
}

// A noun that says what kind of code something is: a method, function, class, ... or a field.
bool is_code_noun(std::string_view word) {
  for (const std::string_view noun : {"method", "function", "class", "module", "constructor", "call", "variable", "constant"})
    if (word == noun) return true;
  return is_field_noun(word);
}

}  // namespace

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool is_class_like(std::string_view name) {
  return std::any_of(name.begin(), name.end(), is_upper) && name.find('_') == std::string_view::npos;
}

std::vector<std::string> plain_words(std::string_view question) {
  std::vector<std::string> out;
  for (const std::string_view word : name_runs(question, false)) {
    if (word.size() < 3 || !std::all_of(word.begin(), word.end(), is_lower) || is_stopword("english", word)) continue;
    if (names_kind_of_code(question, word)) continue;
    // A part of a hyphenated name ("--mem-fraction-static option") is no field of its own: the
    // name is one (code_names reads it).
    const std::size_t at = static_cast<std::size_t>(word.data() - question.data());
    if ((at > 0 && question[at - 1] == '-') || (at + word.size() < question.size() && question[at + word.size()] == '-')) continue;
    if (word == "default" || word == "defaults" || word == "value" || word == "values") continue;
    if (std::find(out.begin(), out.end(), word) == out.end()) out.emplace_back(word);
  }
  return out;
}


std::vector<std::string_view> name_runs(std::string_view text, bool dots) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_name_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() &&
           (is_name_char(text[end]) || (dots && text[end] == '.' && end + 1 < text.size() && is_name_char(text[end + 1]))))
      ++end;
    out.push_back(text.substr(i, end - i));
    i = end;
  }
  return out;
}

std::vector<std::string> command_line_options(std::string_view question) {
  std::vector<std::string> out;
  for (std::size_t at = question.find("--"); at != std::string_view::npos; at = question.find("--", at + 2)) {
    if (at > 0 && (is_name_char(question[at - 1]) || question[at - 1] == '-')) continue;
    std::size_t end = at + 2;
    while (end < question.size() && (is_lower(question[end]) || is_digit(question[end]) ||
                                     (question[end] == '-' && end + 1 < question.size() && is_lower(question[end + 1]))))
      ++end;
    const std::string_view option = question.substr(at, end - at);
    if (option.size() == 2 || !is_lower(option[2]) || option.find('-', 2) == std::string_view::npos) continue;
    if (std::find(out.begin(), out.end(), option) == out.end()) out.emplace_back(option);
  }
  return out;
}

std::vector<std::string> code_names(std::string_view question) {
  std::vector<std::string> out;
  // A command-line option names the field it sets, as argparse does: --max-model-len sets
  // max_model_len.
  for (const std::string& option : command_line_options(question)) {
    std::string field = option.substr(2);
    std::replace(field.begin(), field.end(), '-', '_');
    if (std::find(out.begin(), out.end(), field) == out.end()) out.push_back(std::move(field));
  }
  for (const std::string_view whole : name_runs(question, true)) {
    const bool dotted = whole.find('.') != std::string_view::npos && whole.size() >= 5;
    const std::string_view word = last_part(whole);
    const bool letters = std::any_of(word.begin(), word.end(), [](char c) { return is_lower(c) || is_upper(c); });
    bool camel = false;
    for (std::size_t c = 1; c < word.size(); ++c) camel = camel || (is_lower(word[c - 1]) && is_upper(word[c]));
    const bool capitals = std::count_if(word.begin(), word.end(), is_upper) >= 2 && std::none_of(word.begin(), word.end(), is_lower);
    const bool underscore = word.find('_') != std::string_view::npos;
    if (letters && (camel || capitals || underscore || dotted) && std::find(out.begin(), out.end(), word) == out.end())
      out.emplace_back(word);
  }
  return out;
}

std::string_view last_part(std::string_view section) {
  for (const std::string_view separator : {" > ", "::", "."}) {
    const std::size_t cut = section.rfind(separator);
    if (cut != std::string_view::npos) return section.substr(cut + separator.size());
  }
  return section;
}

std::vector<std::string> called_fields(std::string_view question) {
  const std::vector<std::string> plain = plain_words(question);
  const auto is_plain = [&](const std::string& w) { return std::find(plain.begin(), plain.end(), w) != plain.end(); };
  const auto calls = [](std::string_view w) { return in_any_number(w, is_field_noun); };  // "parameter(s)"
  std::vector<std::string> words;
  for (const std::string_view run : name_runs(question, false)) words.push_back(utf8::lower(run));
  std::vector<std::string> out;
  const auto add = [&](const std::string& w) {
    if (is_plain(w) && !calls(w) && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  };
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (!calls(words[i])) continue;
    // "the alpha and limit parameters": the word joined to it is one too.
    if (i >= 3 && (words[i - 2] == "and" || words[i - 2] == "or")) add(words[i - 3]);
    add(words[i - 1]);
  }
  return out;
}

std::string python_module_name(std::string_view relative_path) {
  std::string name(relative_path);
  for (const std::string_view extension : {std::string_view(".py"), std::string_view(".pyi")}) {
    if (name.ends_with(extension)) {
      name.resize(name.size() - extension.size());
      break;
    }
  }
  std::replace(name.begin(), name.end(), '/', '.');
  constexpr std::string_view kPackage = ".__init__";
  if (name.ends_with(kPackage)) name.resize(name.size() - kPackage.size());
  return name;
}

bool is_settings_class(std::string_view name) {
  for (const std::string_view suffix : {"Config", "Args", "Arguments", "Params", "Parameters", "Options", "Settings"})
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  return false;
}

bool is_field_noun(std::string_view word) {
  for (const std::string_view noun : {"parameter", "option", "argument", "field", "attribute", "setting", "flag"})
    if (word == noun) return true;
  return false;
}

bool names_kind_of_code(std::string_view question, std::string_view word) {
  const std::string lower = utf8::lower(word);
  if (!in_any_number(lower, is_code_noun)) return false;
  const std::vector<std::string> code = code_names(question);
  // A field is of a class: a question that names none ("the resampling method") means the noun.
  if (std::none_of(code.begin(), code.end(), [](const std::string& name) { return is_class_like(name) && is_upper(name[0]); }))
    return true;
  std::string_view previous;
  for (const std::string_view run : name_runs(question, true)) {
    if (utf8::lower(run) == lower && !previous.empty() &&
        std::find(code.begin(), code.end(), last_part(previous)) != code.end())
      return true;
    previous = run;
  }
  return false;
}

}  // namespace rag
