#include "code_reading.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "rag/code_names.hpp"
#include "units.hpp"

namespace rag::extractive {
namespace {

// The first of `stops` in `code` from `at` outside strings and brackets opened after `at` (a
// closing bracket of an outer one stops too); code.size() when none comes.
std::size_t find_outside(std::string_view code, std::size_t at, std::string_view stops) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = at; i < code.size(); ++i) {
    const char c = code[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (depth == 0 && stops.find(c) != std::string_view::npos) {
      return i;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;
      --depth;
    }
  }
  return code.size();
}

}  // namespace

bool is_placeholder(std::string_view statement) {
  const std::string_view s = trim(statement);
  return s == "pass" || s == "..." || s == "raise NotImplementedError" || s.starts_with("raise NotImplementedError(");
}

bool is_import(std::string_view statement) {
  const std::string_view s = trim(statement);
  return s.starts_with("import ") || (s.starts_with("from ") && s.find(" import ") != std::string_view::npos);
}

bool opens_block(std::string_view statement) {
  const std::string_view t = trim(statement);
  if (t.empty() || t.back() != ':') return false;
  for (const std::string_view keyword : {"if ", "elif ", "else:", "for ", "while ", "with ", "try:", "except", "finally:",
                                         "async for ", "async with ", "case ", "match "})
    if (t.starts_with(keyword)) return true;
  return false;
}

bool is_code_comment(std::string_view statement) {
  const std::string_view t = trim(statement);
  return t.starts_with("# ") || t.starts_with("// ");
}

bool gives_value(std::string_view code) {
  const std::size_t eq = code.find('=');
  return eq != std::string_view::npos && eq > 0 && eq + 1 < code.size() && code[eq + 1] != '=' && code[eq - 1] != '=' &&
         code[eq - 1] != '!' && code[eq - 1] != '<' && code[eq - 1] != '>';
}

std::string_view declared_name(std::string_view statement) {
  std::string_view t = trim(statement);
  for (const std::string_view keyword : {"class ", "def ", "async def "}) {
    if (!t.starts_with(keyword)) continue;
    t.remove_prefix(keyword.size());
    std::size_t end = 0;
    while (end < t.size() && is_name_char(t[end])) ++end;
    return t.substr(0, end);
  }
  return {};
}

bool is_field(std::string_view code) {
  const std::string_view t = trim(code);
  std::size_t name = 0;
  while (name < t.size() && is_name_char(t[name])) ++name;
  return name > 0 && name < t.size() && t[name] == ':' && gives_value(t);
}

std::string_view default_of(std::string_view code, std::string_view name, bool lookup) {
  constexpr auto npos = std::string_view::npos;
  const std::string_view statement = trim(code);
  const bool def = statement.starts_with("def ") || statement.starts_with("async def ");
  const std::size_t start = code.find_first_not_of(" \t\n");
  for (std::size_t at = code.find(name); at != npos; at = code.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && is_name_char(code[at - 1])) || (end < code.size() && is_name_char(code[end]))) continue;
    std::size_t value = npos;
    const bool quoted = at > 0 && end < code.size() && (code[at - 1] == '"' || code[at - 1] == '\'') && code[end] == code[at - 1];
    if (quoted != lookup) continue;
    if (quoted) {
      // Looked up by name: the fallback is the next and last argument of the call.
      const std::size_t comma = code.find_first_not_of(" \t\n", end + 1);
      if (comma == npos || code[comma] != ',') continue;
      std::size_t open = at - 1;
      for (int depth = 0; open > 0;) {
        const char c = code[--open];
        if (c == ')') ++depth;
        else if (c == '(' && depth-- == 0) break;
      }
      std::size_t callee = open;
      while (callee > 0 && is_name_char(code[callee - 1])) --callee;
      const std::string_view call = code.substr(callee, open - callee);
      if (code[open] != '(' || (call != "getattr" && call != "get" && call != "getenv" && call != "pop")) continue;
      const std::size_t after = find_outside(code, comma + 1, ",");
      if (after >= code.size() || code[after] != ')') continue;
      value = comma + 1;
    } else {
      // A parameter of a def, or a field or attribute at the start of its statement.
      const std::size_t owner = at >= 5 && code.substr(at - 5, 5) == "self." ? at - 5 : at;
      const std::size_t before = owner == 0 ? npos : code.find_last_not_of(" \t\n", owner - 1);
      const bool parameter = def && before != npos && (code[before] == '(' || code[before] == ',');
      if (!parameter && owner != start) continue;
      std::size_t equals = code.find_first_not_of(" \t", end);
      if (equals < code.size() && code[equals] == ':') equals = find_outside(code, equals + 1, "=,\n");
      else if (!parameter) continue;  // `name = v` in a body assigns, it does not default
      if (equals >= code.size() || code[equals] != '=' || (equals + 1 < code.size() && code[equals + 1] == '='))
        continue;
      value = equals + 1;
    }
    const std::string_view v = trim(code.substr(value, find_outside(code, value, ",#\n") - value));
    if (!v.empty() && v.size() <= 80) return v;
  }
  return {};
}

std::vector<std::string> asked_names(std::string_view question) {
  std::vector<std::string> names;
  std::string previous;
  for (std::size_t i = 0; i < question.size();) {
    std::size_t end = i;
    while (end < question.size() && is_name_char(question[end])) ++end;
    if (end == i) {
      ++i;
      continue;
    }
    std::string word(question.substr(i, end - i));
    if (!previous.empty() && is_field_noun(lowered(word)) && std::find(names.begin(), names.end(), previous) == names.end())
      names.push_back(previous);
    previous = std::move(word);
    i = end;
  }
  // Also "the alpha and limit parameters".
  for (std::string& word : called_fields(question))
    if (std::find(names.begin(), names.end(), word) == names.end()) names.push_back(std::move(word));
  // The question's first identifier with '_' rather than an acronym before it ("the default RPC
  // timeout", to which the lookup added VLLM_RPC_TIMEOUT).
  const std::vector<std::string> code = code_names(question);
  auto name = std::find_if(code.begin(), code.end(), [](const std::string& n) { return n.find('_') != std::string::npos; });
  if (name == code.end()) name = code.begin();
  if (name != code.end() && std::find(names.begin(), names.end(), *name) == names.end()) names.push_back(*name);
  return names;
}

bool runs_command(std::string_view code) {
  static const std::set<std::string_view> kPython = {"from",  "import", "def",    "class", "for",    "if",     "while",
                                                     "return", "with",  "print",  "assert", "async", "await",  "try",
                                                     "except", "elif",  "else",   "lambda", "yield", "raise",  "del",
                                                     "global", "pass",  "break",  "continue", "not", "and",    "or",
                                                     "match",  "case",  "in",     "is"};
  std::string_view line = code.substr(0, code.find('\n'));
  const auto skip_blanks = [&] {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  };
  skip_blanks();
  if (line.starts_with("$ ")) line.remove_prefix(2);
  const auto token_end = [&] { return std::min(line.find_first_of(" \t"), line.size()); };
  // Settings before the program: CUDA_VISIBLE_DEVICES=0 VLLM_USE_V1=1 ...
  for (std::size_t end = token_end(); end < line.size();) {
    const std::string_view token = line.substr(0, end);
    const std::size_t equals = token.find('=');
    if (equals == std::string_view::npos || equals == 0 ||
        !std::all_of(token.begin(), token.begin() + static_cast<std::ptrdiff_t>(equals),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }))
      break;
    line.remove_prefix(end);
    skip_blanks();
    end = token_end();
  }
  const std::size_t end = token_end();
  const std::string_view program = line.substr(0, end);
  if (program.empty() || end == line.size() || !(program.front() >= 'a' && program.front() <= 'z') ||
      !std::all_of(program.begin(), program.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'; }) ||
      kPython.count(program) > 0)
    return false;
  std::string_view rest = line.substr(end);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.empty() || rest.front() == '=' || rest.front() == '(' || rest.front() == ':' || rest.front() == '[') return false;
  // An augmented assignment (x -= 1, y //= 2) or an expression (x in y, a is b) is Python.
  const std::size_t op = rest.find_first_not_of("+-*/%&|^<>@");
  if (op != 0 && op != std::string_view::npos && rest[op] == '=') return false;
  for (const std::string_view word : {"in ", "is ", "and ", "or ", "if ", "for "})
    if (rest.starts_with(word)) return false;
  return true;
}

}  // namespace rag::extractive
