#include "rag/spelling.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <unordered_set>

#include "rag/analyzer.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// A spelling held by fewer chunks is more likely another rare word than what was meant.
constexpr std::size_t kMinHolding = 3;

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Typographic quotes and apostrophes, which end a word as ASCII ones do: ‘ ’ “ ” « ».
bool typographic_quote(std::string_view s) {
  for (const std::string_view q : {"\u2018", "\u2019", "\u201C", "\u201D", "\u00AB", "\u00BB"})
    if (s.starts_with(q)) return true;
  return false;
}

// Whether the run of letters query[begin, end) is part of an identifier, a flag, a path, a
// number or a word of another script: '_', digits, backticks or other letters touch it, or '.',
// '-', '/' join it to more ("tokenizer.py", "--flag", "a/b"); a sentence's full stop does not.
bool inside_identifier(std::string_view query, std::size_t begin, std::size_t end) {
  const auto joins = [](char c) { return c == '_' || c == '`' || std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (begin > 0) {
    const char before = query[begin - 1];
    if (joins(before) || before == '-' || before == '.' || before == '/') return true;
    if (static_cast<unsigned char>(before) >= 0x80) {
      std::size_t start = begin - 1;  // the character that ends there
      while (start > 0 && (static_cast<unsigned char>(query[start]) & 0xC0) == 0x80) --start;
      if (!typographic_quote(query.substr(start))) return true;
    }
  }
  if (end < query.size()) {
    const char after = query[end];
    if (joins(after)) return true;
    if ((after == '-' || after == '.' || after == '/') && end + 1 < query.size() && is_alnum(query[end + 1])) return true;
    if (static_cast<unsigned char>(after) >= 0x80 && !typographic_quote(query.substr(end))) return true;
  }
  return false;
}

// Every spelling one edit from `word` (lower case): a letter left out, two swapped, one
// changed, one added. Swaps first: the commonest slip of a typist.
std::vector<std::string> one_edit_from(const std::string& word) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < word.size(); ++i) {
    if (word[i] == word[i + 1]) continue;
    std::string s = word;
    std::swap(s[i], s[i + 1]);
    out.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < word.size(); ++i) out.push_back(word.substr(0, i) + word.substr(i + 1));
  for (std::size_t i = 0; i < word.size(); ++i)
    for (char c = 'a'; c <= 'z'; ++c)
      if (c != word[i]) {
        std::string s = word;
        s[i] = c;
        out.push_back(std::move(s));
      }
  for (std::size_t i = 0; i <= word.size(); ++i)
    for (char c = 'a'; c <= 'z'; ++c) out.push_back(word.substr(0, i) + c + word.substr(i));
  return out;
}

// The word list, lowered: its text, and a set of views into it. Empty when it cannot be read.
struct WordList {
  std::string text;
  std::unordered_set<std::string_view> words;
};

// Read in place, once: the set's views point into the text, which never moves.
const WordList& english_words() {
  static const std::unique_ptr<const WordList> list = [] {
    auto out = std::make_unique<WordList>();
    std::ifstream in("/usr/share/dict/american-english", std::ios::binary | std::ios::ate);
    const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
    if (size <= 0) return out;  // missing, or not a file one can measure
    out->text.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    if (!in.read(out->text.data(), static_cast<std::streamsize>(out->text.size()))) out->text.clear();
    std::transform(out->text.begin(), out->text.end(), out->text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out->words.reserve(out->text.size() / 8);
    for (std::size_t begin = 0; begin < out->text.size();) {
      const std::size_t end = std::min(out->text.find('\n', begin), out->text.size());
      if (end > begin) out->words.insert(std::string_view(out->text).substr(begin, end - begin));
      begin = end + 1;
    }
    return out;
  }();
  return *list;
}

bool in_english_word_list(std::string_view word) { return english_words().words.count(word) > 0; }

bool has_english_word_list() { return !english_words().words.empty(); }

}  // namespace

std::string respelt(std::string_view query, const ChunksHolding& holding, std::vector<Respelling>* respelt,
                    const IsWord& is_word) {
  // Without a word list, no word can be told from a typo: every word is taken as meant.
  const IsWord english = is_word ? is_word : IsWord([](std::string_view w) { return !has_english_word_list() || in_english_word_list(w); });
  static const Analyzer stopwords_only([] {
    AnalyzerConfig c;
    c.split_identifiers = false;
    c.stemmer = "none";
    return c;
  }());
  std::string out;
  std::size_t copied = 0;
  std::size_t lookups = 0;
  for (std::size_t i = 0; i < query.size();) {
    if (!is_letter(query[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < query.size() && is_letter(query[end])) ++end;
    const std::string_view word = query.substr(i, end - i);
    const bool identifier = inside_identifier(query, i, end);
    const bool acronym = std::all_of(word.begin(), word.end(), is_upper);
    const bool inner_capital = std::any_of(word.begin() + 1, word.end(), is_upper);
    // A capital past the query's first word marks a name ("the Krebs cycle"), not a typo.
    const bool name = is_upper(word.front()) && query.substr(0, i).find_first_not_of(" \t\"'([{¿¡") != std::string_view::npos;
    const std::size_t start = i;
    i = end;
    if (word.size() < kMinRespeltLetters || word.size() > kMaxRespeltLetters || identifier || acronym ||
        inner_capital || name)
      continue;
    const std::string lower = utf8::lower(word);
    // The index before the word list: reading the list costs more than a few searches, and
    // is needed only for a word the corpus lacks.
    if (stopwords_only.analyze(lower).empty() || holding(lower) > 0 || english(lower)) continue;
    if (lookups++ == kMaxRespeltLookups) break;
    std::string best;
    std::size_t most = 0;
    for (std::string& candidate : one_edit_from(lower))
      if (candidate.size() >= kMinRespeltLetters - 1 && !stopwords_only.analyze(candidate).empty())
        if (const std::size_t n = holding(candidate); n > most) most = n, best = std::move(candidate);
    if (most < kMinHolding) continue;
    if (is_upper(word.front())) best.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(best.front())));
    out.append(query.substr(copied, start - copied)).append(best);
    copied = end;
    if (respelt) respelt->push_back({std::string(word), best});
  }
  if (copied == 0) return std::string(query);
  return out.append(query.substr(copied));
}

}  // namespace rag
