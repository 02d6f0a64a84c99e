#pragma once
// The words of a question as answering weighs them: each word with the terms the analyzer makes
// of it, so that an identifier ("gpu_memory_utilization") counts once, fully when a text holds it
// whole and in part when the text holds some of its parts.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rag/analyzer.hpp"

namespace rag {

struct QuestionWord {
  std::string text;                ///< as the question writes it
  std::vector<std::string> parts;  ///< its terms; an identifier's parts
  std::string whole;               ///< an identifier's whole term (keep_compound), else empty
  /// Other readings of the same word, any of which stands for it: a translated word's other
  /// translations ("change|alter|modify" in a translated query).
  std::vector<QuestionWord> alternatives;

  /// How much of the word `terms` (sorted, without repeats) hold: 1 with the whole identifier or
  /// every part, else the share of its parts; the most that any of its readings gets.
  double coverage(const std::vector<std::string>& terms) const;
  /// Its readings: itself, then its alternatives.
  std::vector<const QuestionWord*> readings() const;
};

/// The words of `text` that carry meaning (runs of letters, digits and '_', joined by '.' or '-'
/// between them, as the analyzer reads identifiers), analysed with `analyzer`; stopwords, and
/// words already seen, left out. Words joined by '|' are one word read in several ways (a
/// translated query's alternatives).
std::vector<QuestionWord> question_words(std::string_view text, const Analyzer& analyzer);

/// A query's terms as retrieval weighs them. Words read one way count as the analyzer makes
/// them (count_terms: a repeated word counts again); a word read several ways, its readings
/// joined by '|' as a translated query writes them ("change|alter|modify"), is one word: the
/// distinct terms of its readings are kept apart, for the retriever to weigh as one.
struct QueryTerms {
  std::vector<std::pair<std::string, std::uint32_t>> counted;  ///< the words read one way
  std::vector<std::vector<std::string>> read_several_ways;     ///< per such word, its readings' terms
};
QueryTerms query_terms(std::string_view text, const Analyzer& analyzer);

/// The weights that make the terms of one word read several ways (QueryTerms) score as a single
/// term would, as Pirkola's structured queries do: that term's document frequency is theirs
/// summed (at most `documents`), so each term is weighed by the single term's idf over its own; a
/// rare reading ("severally" beside "several") no longer outweighs the question's other words.
/// (Each term is still saturated alone: readings of one word seldom meet in one chunk.) Terms no
/// chunk holds are left out. `document_frequency` and `idf` are the retriever's.
std::vector<std::pair<std::string, double>> weigh_as_one(std::vector<std::string> readings, double documents,
                                                         const std::function<double(const std::string&)>& document_frequency,
                                                         const std::function<double(double)>& idf);

/// The distinct terms of `text`, sorted.
std::vector<std::string> sorted_terms(std::string_view text, const Analyzer& analyzer);

}  // namespace rag
