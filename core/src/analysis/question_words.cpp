#include "rag/question_words.hpp"

#include <algorithm>
#include <cctype>

namespace rag {
namespace {

// Words as the analyzer reads identifiers: runs of letters (UTF-8's bytes too), digits and '_',
// joined by '.' or '-' between them.
bool is_word_byte(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  return std::isalnum(c) != 0 || c == '_' || c >= 0x80;
}

// Where the word that begins at `i` ends.
std::size_t word_end(std::string_view text, std::size_t i) {
  while (i < text.size() && (is_word_byte(text, i) || ((text[i] == '.' || text[i] == '-') && i + 1 < text.size() &&
                                                       is_word_byte(text, i + 1))))
    ++i;
  return i;
}

// Whether another reading of the word that ends at `i` follows ("change|alter").
bool another_reading(std::string_view text, std::size_t i) {
  return i + 1 < text.size() && text[i] == '|' && is_word_byte(text, i + 1);
}

}  // namespace

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
  const auto read = [&](std::size_t& i) {
    const std::size_t begin = i;
    i = word_end(text, i);
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
    if (!is_word_byte(text, i)) {
      ++i;
      continue;
    }
    QuestionWord word = read(i);
    while (another_reading(text, i)) {
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

QueryTerms query_terms(std::string_view text, const Analyzer& analyzer) {
  QueryTerms out;
  std::string read_one_way;  // the text without its words read several ways
  std::size_t copied = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_word_byte(text, i)) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    i = word_end(text, i);
    if (!another_reading(text, i)) continue;
    std::vector<std::string> terms = analyzer.analyze(text.substr(begin, i - begin));
    while (another_reading(text, i)) {
      const std::size_t reading = ++i;
      i = word_end(text, i);
      analyzer.analyze(text.substr(reading, i - reading), terms);
    }
    read_one_way.append(text.substr(copied, begin - copied)).push_back(' ');
    copied = i;
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    if (!terms.empty()) out.read_several_ways.push_back(std::move(terms));
  }
  read_one_way.append(text.substr(copied));
  out.counted = count_terms(analyzer.analyze(read_one_way));
  return out;
}

std::vector<std::pair<std::string, double>> weigh_as_one(std::vector<std::string> readings, double documents,
                                                         const std::function<double(const std::string&)>& document_frequency,
                                                         const std::function<double(double)>& idf) {
  std::vector<double> frequencies;
  double together = 0;
  for (const std::string& term : readings) together += frequencies.emplace_back(document_frequency(term));
  const double one = idf(std::min(documents, together));
  std::vector<std::pair<std::string, double>> weighed;
  for (std::size_t r = 0; r < readings.size(); ++r) {
    if (frequencies[r] <= 0) continue;
    // Robertson's idf is 0 for a term half the chunks hold (negative past that): such a reading
    // adds nothing whatever its weight.
    const double own = idf(frequencies[r]);
    weighed.emplace_back(std::move(readings[r]), own != 0 ? one / own : 1.0);
  }
  return weighed;
}

std::vector<std::string> sorted_terms(std::string_view text, const Analyzer& analyzer) {
  std::vector<std::string> terms = analyzer.analyze(text);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

}  // namespace rag
