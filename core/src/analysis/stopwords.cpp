// Stopword lists. English: the common function words of English prose plus the interrogatives
// and auxiliaries that open questions ("how", "does", "can"), which carry no topic.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>
#include <string>

#include "rag/analyzer.hpp"

namespace rag {
namespace {

constexpr std::array<std::string_view, 160> kEnglish = {
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
    "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "itself", "just", "me", "might", "more", "most", "must", "my",
    "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "ought", "our",
    "ours", "ourselves", "out", "over", "own", "same", "shall", "she", "should", "so", "some", "such",
    "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what",
    "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
    "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "re", "ve", "don", "doesn", "isn",
    "aren", "wasn", "weren", "won", "let", "also", "whether", "via", "within", "without", "whose",
    "may", "cannot", "else", "ever", "etc", "e", "g", "ie", "eg"};

std::vector<std::string_view> sorted_english() {
  std::vector<std::string_view> words(kEnglish.begin(), kEnglish.end());
  std::sort(words.begin(), words.end());
  return words;
}

}  // namespace

bool is_stopword(std::string_view list, std::string_view word) {
  if (list != "english") return false;
  static const std::vector<std::string_view> words = sorted_english();
  return std::binary_search(words.begin(), words.end(), word);
}

std::vector<std::string> stopword_lists() { return {"english", "none"}; }

}  // namespace rag
