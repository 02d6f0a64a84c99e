#include "glossary.hpp"

#include <algorithm>
#include <fstream>

#include "rag/error.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// A line's tab-separated fields, without the spaces around them; empty ones left out.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t begin = 0; begin <= line.size();) {
    const std::size_t tab = std::min(line.find('\t', begin), line.size());
    const std::string_view field = line.substr(begin, tab - begin);
    if (const std::size_t first = field.find_first_not_of(" \r"); first != std::string_view::npos)
      fields.push_back(field.substr(first, field.find_last_not_of(" \r") - first + 1));
    begin = tab + 1;
  }
  return fields;
}

}  // namespace

Glossary Glossary::read(const std::filesystem::path& path, const std::vector<std::string>& languages, const Stems& stems) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("glossary " + path.string() + ": cannot be read (name a file of 'language TAB words TAB English' lines)");
  Glossary glossary;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string where = "glossary " + path.string() + ", line " + std::to_string(number) + ": ";
    if (number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a byte order mark
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    if (!utf8::is_valid(line)) throw Error(where + "is not UTF-8");
    const std::vector<std::string_view> fields = fields_of(line);
    if (fields.size() != 3) throw Error(where + "wants three fields separated by tabs: language, words, English");
    const std::string code(fields[0]);
    if (std::find(languages.begin(), languages.end(), code) == languages.end())
      throw Error(where + "'" + code + "' is not a language questions are translated from");
    Term term{stems(code, fields[1]), std::string(fields[2])};
    if (term.stems.empty()) throw Error(where + "'" + std::string(fields[1]) + "' holds no word");
    glossary.terms_[code].push_back(std::move(term));
  }
  // Longest first, so that "тензорный параллелизм" is taken before "параллелизм".
  for (auto& [code, terms] : glossary.terms_)
    std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.stems.size() > b.stems.size(); });
  return glossary;
}

const Glossary::Term* Glossary::match(std::string_view code, const std::vector<std::string>& stems, std::size_t at,
                                      std::size_t& length) const {
  const auto terms = terms_.find(code);
  if (terms == terms_.end()) return nullptr;
  for (const Term& term : terms->second)
    if (at + term.stems.size() <= stems.size() && std::equal(term.stems.begin(), term.stems.end(), stems.begin() + static_cast<std::ptrdiff_t>(at))) {
      length = term.stems.size();
      return &term;
    }
  return nullptr;
}

}  // namespace rag
