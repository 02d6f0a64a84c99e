#pragma once
// The words of a question as answering weighs them: each word with the terms the analyzer makes
// of it, so that an identifier ("gpu_memory_utilization") counts once, fully when a text holds it
// whole and in part when the text holds some of its parts.
#include <string>
#include <string_view>
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

/// The distinct terms of `text`, sorted.
std::vector<std::string> sorted_terms(std::string_view text, const Analyzer& analyzer);

}  // namespace rag
