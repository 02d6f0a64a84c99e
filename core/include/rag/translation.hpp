#pragma once
// Questions in other languages, read in English: the corpus is English, so a question in French,
// German, Spanish or Russian is translated word by word with bilingual dictionaries (dictd files,
// as Debian's FreeDict and Mueller packages install them) before retrieval. Identifiers and
// commands (`vllm serve`, tensor_parallel_size, GPU) are kept as written; a word no dictionary
// knows is read as the English cognate the corpus uses ("latencia" -> latency), else kept (names,
// loanwords), Cyrillic ones also in Latin letters ("сервер" -> server) and in the spellings their
// sound allows ("кэширование" -> caching; core/src/translation/cognates.hpp).
//
// A pipeline's `translation:` section; absent, questions are not translated:
//
//   translation:
//     dictionaries: /usr/share/dictd        # the folder of the .index and .dict.dz files
//     glossary: configs/glossary.tsv        # the field's terms, before any dictionary (optional)
//     languages:                            # per detected language, the dictionaries to read:
//       fr: [freedict-fra-eng, {reverse: freedict-eng-fra}]   # {reverse: D} reads an English-to-X
//       ru: [{reverse: freedict-eng-rus}, {reverse: mueller7}] # dictionary from its translations
//
// Dictionaries are opened when a question in their language comes, not before: an English
// question costs nothing. A forward dictionary is read through its index (one line per
// headword) and the compressed chunks that hold the entries asked for; a reverse one is read
// whole, once.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rag/options.hpp"

namespace rag {

struct DictionaryChoice {
  std::string name;      ///< the files' name without .index / .dict.dz
  bool reverse = false;  ///< an English-to-X dictionary, read from its translations back
};

struct TranslationConfig {
  bool enabled = false;
  std::filesystem::path dictionaries = "/usr/share/dictd";
  /// By detect_language() code: "fr", "de", "es", "ru".
  std::map<std::string, std::vector<DictionaryChoice>> languages;
  /// The field's terms, read before the dictionaries (core/src/translation/glossary.hpp); none when
  /// empty.
  std::filesystem::path glossary;

  /// Reads a `translation:` section that is present (enabled; an absent one leaves the default,
  /// disabled). Without `languages`, French, German, Spanish and Russian use the FreeDict and
  /// Mueller dictionaries scripts/setup.sh installs. A relative `dictionaries` folder is
  /// resolved against `base`. Throws rag::Error naming the key for an unknown key or language, a
  /// folder that does not exist, or a dictionary whose files are not in it (saying which Debian
  /// package installs them).
  static TranslationConfig from_options(Options& options, const std::filesystem::path& base);
};

class QueryTranslator {
 public:
  /// Translates nothing.
  QueryTranslator();
  explicit QueryTranslator(TranslationConfig config);
  ~QueryTranslator();
  QueryTranslator(const QueryTranslator&) = delete;
  QueryTranslator& operator=(const QueryTranslator&) = delete;

  /// How many chunks of the corpus hold a word (or any word of a phrase), capped.
  using WordCount = std::function<std::size_t(std::string_view)>;

  /// The question as retrieval should read it: the question itself when it is English (or in a
  /// language without dictionaries); else the English translations of its words, with its
  /// identifiers and commands kept, a word's several readings joined by '|' ("change|alter").
  /// With `corpus_count`, a word's readings are the translations the corpus uses most (at most
  /// two; single words before phrases), the English word it may be a cognate of ("latencia"
  /// latency) if the corpus uses one, and the word itself (Cyrillic also in Latin letters) if the
  /// corpus uses it; a word none of these gives is kept as written ("paella"). Without counts,
  /// the dictionary's first two, else the word as written. Thread-safe. Throws rag::Error when a
  /// dictionary cannot be read (a damaged file).
  std::string translate(std::string_view question, const WordCount& corpus_count = {}) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rag
