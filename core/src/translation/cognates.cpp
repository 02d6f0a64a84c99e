#include "cognates.hpp"

#include <unicode/utf8.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

namespace rag {
namespace {

// Spellings of a Russian word loanword_cognates() tries at most.
constexpr std::size_t kLoanwordSpellings = 64;

using Spellings = std::unordered_map<char32_t, std::string_view>;

// `word` with each letter found in `spellings` written as it says. A letter not there is kept as
// it is with `keep_others`; without, the word has no such spelling (empty).
std::string respelled(std::string_view word, const Spellings& spellings, bool keep_others) {
  std::string out;
  for (int32_t i = 0; i < static_cast<int32_t>(word.size());) {
    const int32_t begin = i;
    UChar32 c = 0;
    U8_NEXT(reinterpret_cast<const uint8_t*>(word.data()), i, static_cast<int32_t>(word.size()), c);
    if (const auto it = spellings.find(static_cast<char32_t>(c)); it != spellings.end()) out += it->second;
    else if (keep_others) out += word.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(i - begin));
    else return {};
  }
  return out;
}

// The word's letters without their accents ("inférence" inference, "Größe" grosse).
std::string without_accents(std::string_view word) {
  static const Spellings plain = {
      {U'á', "a"}, {U'à', "a"}, {U'â', "a"}, {U'ä', "a"}, {U'ã', "a"}, {U'é', "e"}, {U'è', "e"}, {U'ê', "e"},
      {U'ë', "e"}, {U'í', "i"}, {U'ì', "i"}, {U'î', "i"}, {U'ï', "i"}, {U'ó', "o"}, {U'ò', "o"}, {U'ô', "o"},
      {U'ö', "o"}, {U'õ', "o"}, {U'ú', "u"}, {U'ù', "u"}, {U'û', "u"}, {U'ü', "u"}, {U'ñ', "n"}, {U'ç', "c"},
      {U'ß', "ss"}, {U'œ', "oe"}, {U'æ', "ae"}};
  return respelled(word, plain, true);
}

}  // namespace

std::string transliterated(std::string_view word) {
  static const Spellings letters = {
      {U'а', "a"}, {U'б', "b"}, {U'в', "v"}, {U'г', "g"},  {U'д', "d"},  {U'е', "e"},  {U'ё', "e"}, {U'ж', "zh"},
      {U'з', "z"}, {U'и', "i"}, {U'й', "y"}, {U'к', "k"},  {U'л', "l"},  {U'м', "m"},  {U'н', "n"}, {U'о', "o"},
      {U'п', "p"}, {U'р', "r"}, {U'с', "s"}, {U'т', "t"},  {U'у', "u"},  {U'ф', "f"},  {U'х', "h"}, {U'ц', "ts"},
      {U'ч', "ch"}, {U'ш', "sh"}, {U'щ', "sch"}, {U'ъ', ""}, {U'ы', "y"}, {U'ь', ""}, {U'э', "e"}, {U'ю', "yu"},
      {U'я', "ya"}};
  return respelled(word, letters, false);
}

std::vector<std::string> cognates(std::string_view code, std::string_view word) {
  using Changes = std::vector<std::pair<std::string_view, std::string_view>>;
  static const std::map<std::string_view, Changes> endings = {
      {"es",
       {{"cion", "tion"}, {"dad", "ty"}, {"cia", "cy"}, {"cia", "ce"}, {"ia", "y"}, {"idor", "er"}, {"ador", "ator"},
        {"ico", "ic"}, {"ica", "ic"}, {"ivo", "ive"}, {"iva", "ive"}, {"oso", "ous"}, {"mente", "ly"}, {"ar", "e"},
        {"ir", "e"}, {"o", ""}, {"a", ""}, {"e", ""}}},
      {"fr",
       {{"ite", "ity"}, {"eur", "er"}, {"eur", "or"}, {"ique", "ic"}, {"oire", "ory"}, {"aire", "ary"}, {"if", "ive"},
        {"eux", "ous"}, {"isation", "ization"}, {"iser", "ize"}, {"ence", "ency"}, {"age", "ing"}, {"ie", "y"}, {"er", "e"},
        {"e", ""}}},
      {"de",
       {{"itat", "ity"}, {"tat", "ty"}, {"enz", "ence"}, {"enz", "ency"}, {"isierung", "ization"},
        {"ierung", "ation"}, {"ieren", "ize"}, {"ieren", "ate"}, {"ieren", "e"}, {"isch", "ic"}, {"ie", "y"},
        {"ik", "ic"}}},
      {"ru",
       {{"atsiya", "ation"}, {"atsii", "ation"}, {"atsiyu", "ation"}, {"tsiya", "tion"}, {"tsii", "tion"},
        {"tsiyu", "tion"}, {"irovanie", "ing"}, {"irovaniya", "ing"}, {"irovaniyu", "ing"}, {"ovanie", "ization"}, {"ovaniya", "ization"}, {"ovaniyu", "ization"}, {"ika", "ic"},
        {"iki", "ic"}, {"iku", "ic"}, {"izm", "ism"}, {"ivnoe", "ive"}, {"ivnyy", "ive"}, {"ivnaya", "ive"},
        {"ivnye", "ive"}, {"noe", ""}, {"nyy", ""}, {"naya", ""}, {"nye", ""}, {"nogo", ""}, {"nyh", ""}, {"a", ""},
        {"y", ""}, {"u", ""}, {"e", ""}}}};
  static const std::map<std::string_view, Changes> letters = {
      {"de", {{"k", "c"}, {"z", "c"}}}, {"es", {{"j", "x"}}}, {"ru", {{"kv", "qu"}, {"ks", "x"}, {"k", "c"}, {"ya", "a"}}}};
  const auto rules = endings.find(code);
  if (rules == endings.end()) return {};
  std::string plain = code == "ru" ? transliterated(word) : without_accents(word);
  if (code == "es" && plain.starts_with("cua")) plain.replace(0, 3, "qua");  // "cuantizacion"
  std::vector<std::string> guesses;
  const auto change_ending = [&](const std::string& form) {
    for (const auto& [from, to] : rules->second)
      if (form.size() >= from.size() + 2 && form.ends_with(from))
        guesses.push_back(form.substr(0, form.size() - from.size()).append(to));
  };
  change_ending(plain);
  // A Spanish plural ends as its singular does, then -s or -es ("prefijos", "servidores").
  if (code == "es" && plain.size() > 5 && plain.ends_with('s')) {
    std::vector<std::string> singulars = {plain.substr(0, plain.size() - 1)};  // "compatibles": compatible
    if (plain.ends_with("es")) singulars.push_back(plain.substr(0, plain.size() - 2));
    for (const std::string& singular : singulars) {
      change_ending(singular);
      guesses.push_back(singular);
    }
  }
  guesses.push_back(plain);
  std::vector<std::string> out;
  const auto keep = [&](const std::string& c) {
    if (c.size() >= 4 && c != word && std::find(out.begin(), out.end(), c) == out.end() &&
        std::all_of(c.begin(), c.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }))
      out.push_back(c);
  };
  const auto changes = letters.find(code);
  for (const std::string& g : guesses) {
    keep(g);
    if (changes == letters.end()) continue;
    std::string c = g;
    for (const auto& [from, to] : changes->second)
      for (std::size_t at = 0; (at = c.find(from, at)) != std::string::npos; at += to.size()) c.replace(at, from.size(), to);
    keep(c);
  }
  return out;
}

// Every combination of the spellings below (at most kLoanwordSpellings), with each ending.
std::vector<std::string> loanword_cognates(std::string_view word) {
  static const std::map<std::u32string_view, std::vector<std::string_view>> alternatives = {
      {U"э", {"e", "a"}}, {U"ш", {"sh", "ch"}}, {U"а", {"a", "u"}},        {U"з", {"z", "s"}},
      {U"в", {"v", "w"}}, {U"к", {"k", "c", "ck"}}, {U"ай", {"ay", "i", "ai"}}, {U"кс", {"ks", "x"}},
      {U"кв", {"kv", "qu"}}};
  std::u32string letters;
  std::vector<std::size_t> starts;  // of each letter in `word`, and its end
  for (int32_t i = 0; i < static_cast<int32_t>(word.size());) {
    starts.push_back(static_cast<std::size_t>(i));
    UChar32 c = 0;
    U8_NEXT(reinterpret_cast<const uint8_t*>(word.data()), i, static_cast<int32_t>(word.size()), c);
    letters.push_back(static_cast<char32_t>(c));
  }
  starts.push_back(word.size());
  std::vector<std::string> spellings = {""};
  for (std::size_t i = 0; i < letters.size();) {
    std::size_t length = 1;
    const std::vector<std::string_view>* options = nullptr;
    for (const std::size_t n : {2, 1}) {
      if (i + n > letters.size()) continue;
      if (const auto it = alternatives.find(std::u32string_view(letters).substr(i, n)); it != alternatives.end()) {
        options = &it->second;
        length = n;
        break;
      }
    }
    const std::string plain = transliterated(word.substr(starts[i], starts[i + length] - starts[i]));
    // Only ъ and ь are written as nothing; a letter transliterated() does not know is not Russian.
    if (plain.empty() && letters[i] != U'ъ' && letters[i] != U'ь') return {};
    const bool branch = options != nullptr && spellings.size() * options->size() <= kLoanwordSpellings;
    std::vector<std::string> next;
    for (const std::string& s : spellings) {
      if (!branch) next.push_back(s + plain);
      else
        for (const std::string_view o : *options) next.push_back(s + std::string(o));
    }
    spellings = std::move(next);
    i += length;
  }
  static const std::vector<std::pair<std::string_view, std::string_view>> endings = {
      {"irovanie", "ing"}, {"irovaniya", "ing"}, {"irovaniyu", "ing"}, {"irovat", "e"}, {"irovat", ""},
      {"ovat", "ize"},     {"izator", "izer"},   {"ens", "ence"},      {"nyy", ""},     {"nym", ""},
      {"nymi", ""},        {"naya", ""},         {"nuyu", ""},         {"noy", ""},     {"noe", ""},
      {"nye", ""},         {"nyh", ""},          {"nogo", ""},         {"nomu", ""},    {"ami", "s"},
      {"ah", "s"},         {"ov", "s"},          {"i", "s"},           {"i", ""},       {"y", "s"},
      {"a", ""},           {"e", ""},            {"u", ""},            {"om", ""},      {"", ""}};
  std::vector<std::string> out;
  std::set<std::string> kept;
  const auto keep = [&](std::string guess) {
    if (guess.size() >= 4 && kept.insert(guess).second) out.push_back(std::move(guess));
  };
  const auto vowel = [](char c) { return std::string_view("aeiouy").find(c) != std::string_view::npos; };
  for (const std::string& s : spellings)
    for (const auto& [from, to] : endings) {
      if (s.size() < from.size() + 2 || !s.ends_with(from)) continue;
      const std::string base = s.substr(0, s.size() - from.size());
      // English writes the sound of a final ш as -che ("кэш", "кэша": cache).
      if (to.empty() && base.ends_with("ch")) keep(base + "e");
      keep(base + std::string(to));
      // A short vowel's consonant doubles before -ing: "log" logging.
      const std::size_t n = base.size();
      if (to == "ing" && n >= 3 && !vowel(base[n - 1]) && vowel(base[n - 2]) && !vowel(base[n - 3]))
        keep(base + base.back() + "ing");
    }
  return out;
}

}  // namespace rag
