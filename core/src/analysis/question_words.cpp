#include "rag/question_words.hpp"

#include <algorithm>
#include <cctype>

namespace rag {

double QuestionWord::coverage(const std::vector<std::string>& terms) const {
  const auto has = [&](const std::string& term) { return std::binary_search(terms.begin(), terms.end(), term); };
  double best = 0;
  for (const QuestionWord* reading : readings()) {
    if (!reading->whole.empty() && has(reading->whole)) return 1.0;
    std::size_t found = 0;
    for (const auto& part : reading->parts) found += has(part);
    if (!reading->parts.empty()) best = std::max(best, static_cast<double>(found) / static_cast<double>(reading->parts.size()));
  }
  return best;
}

std::vector<const QuestionWord*> QuestionWord::readings() const {
  std::vector<const QuestionWord*> out = {this};
  for (const QuestionWord& a : alternatives) out.push_back(&a);
  return out;
}

std::vector<QuestionWord> question_words(std::string_view text, const Analyzer& analyzer) {
  const auto is_word_byte = [&](std::size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    return std::isalnum(c) != 0 || c == '_' || c >= 0x80;
  };
  const auto read = [&](std::size_t& i) {
    const std::size_t begin = i;
    while (i < text.size() &&
           (is_word_byte(i) || ((text[i] == '.' || text[i] == '-') && i + 1 < text.size() && is_word_byte(i + 1))))
      ++i;
    QuestionWord word;
    word.text = std::string(text.substr(begin, i - begin));
    word.parts = analyzer.analyze(word.text);
    if (word.parts.size() > 1) {  // the analyzer gives an identifier's parts, then the whole
      word.whole = std::move(word.parts.back());
      word.parts.pop_back();
    }
    return word;
  };
  std::vector<QuestionWord> words;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_word_byte(i)) {
      ++i;
      continue;
    }
    QuestionWord word = read(i);
    while (i + 1 < text.size() && text[i] == '|' && is_word_byte(i + 1)) {
      QuestionWord alternative = read(++i);
      if (alternative.parts.empty()) continue;
      if (word.parts.empty()) word = std::move(alternative);  // a stopword's alternative reads for it
      else word.alternatives.push_back(std::move(alternative));
    }
    const bool known = std::any_of(words.begin(), words.end(), [&](const QuestionWord& w) {
      return w.parts == word.parts && w.whole == word.whole;
    });
    if (!word.parts.empty() && !known) words.push_back(std::move(word));
  }
  return words;
}

std::vector<std::string> sorted_terms(std::string_view text, const Analyzer& analyzer) {
  std::vector<std::string> terms = analyzer.analyze(text);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

}  // namespace rag
