#pragma once
// Bilingual dictionaries as Debian installs them for dictd (a headword index, name.index, and the
// entries, name.dict or dictzip's name.dict.dz), read in place; and the Snowball stemmer that
// finds a word's other forms in them. The translation of questions (translation.cpp) reads
// them.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rag/analyzer.hpp"

namespace rag {

/// The Snowball algorithm of a language code (fr, de, es, ru); empty for another.
std::string_view stemmer_name(std::string_view code);

/// The Snowball stemmer of a language, for matching a word to a dictionary's other forms of it.
/// A language without one leaves words as they are. Not thread-safe: one per thread.
class Stemmer {
 public:
  explicit Stemmer(std::string_view code);
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;

  std::string stem(std::string_view word) const { return snowball_ ? snowball_->stem(word) : std::string(word); }
  /// The form a word of stem `stem` was inflected from, when it is not a form of that stem: German
  /// adjectives in -el and -er drop that e when inflected ("kompatiblen" is "kompatibel",
  /// "teuren" "teuer"). Empty when there is none.
  std::string uninflected(std::string_view stem) const;
  /// The stem the other forms of a word of stem `stem` may have: Snowball reads the -ть of a
  /// Russian noun after а or я as a verb's infinitive ending, so "память" stems to "памя" and
  /// "памяти" to "памят" (a form of that stem counts only when it ends in -ть). Empty when there
  /// is none.
  std::string other_stem(std::string_view stem) const;

 private:
  std::unique_ptr<SnowballStemmer> snowball_;  // null for a language Snowball does not have
  bool german_ = false;
  bool russian_ = false;
};

/// A dictionary on disk, opened on first use (its index read through; a reverse lookup reads the
/// entries whole, once). Not thread-safe. Throws rag::Error for files that cannot be read or are
/// damaged.
class Dictionary {
 public:
  Dictionary(std::filesystem::path index, std::filesystem::path text);
  ~Dictionary();
  Dictionary(const Dictionary&) = delete;
  Dictionary& operator=(const Dictionary&) = delete;

  /// Forward (an X-to-English dictionary): the translations of each of `words` (lower case), in
  /// the entry's order, or, when a word itself is not a headword, of one of the same stem, or of
  /// the form it was inflected from. Words without any are left out.
  std::map<std::string, std::vector<std::string>> translate(const std::vector<std::string>& words, const Stemmer& stemmer);
  /// Reverse (an English-to-X dictionary): the English headwords whose entries translate to a word
  /// of stem `stem` (or `word` itself), those that give it first before the others.
  std::vector<std::string> headwords_for(const std::string& word, const std::string& stem, const Stemmer& stemmer);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rag
