#pragma once
// A glossary of the field's terms for questions in other languages: words general dictionaries
// read in another sense ("планировщик" planner, where software means scheduler; "ядро" shot, for
// kernel) or not at all ("carte graphique", GPU). A file of tab-separated lines, one term a line
// (language, words, English; '#' starts a comment line):
//
//   ru<TAB>планировщик<TAB>scheduler
//   ru<TAB>пропускная способность<TAB>throughput
//
// A term's words are cut and stemmed as a question's are, so the forms of a word that share its
// Snowball stem match ("планировщика").
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rag {

class Glossary {
 public:
  struct Term {
    std::vector<std::string> stems;  ///< of its words, in order
    std::string english;
  };
  /// The stems of the words of `text` in a language (its code: fr, de, es, ru), cut as a
  /// question in that language is.
  using Stems = std::function<std::vector<std::string>(std::string_view code, std::string_view text)>;

  Glossary() = default;
  /// Reads `path`; `languages` are the codes a line may name (those questions can be translated
  /// from: a line of a language a pipeline does not translate is kept and never met). Throws
  /// rag::Error naming the file and line for a file that cannot be read, a line that is not UTF-8
  /// or lacks one of its three fields, or a language not in `languages`.
  static Glossary read(const std::filesystem::path& path, const std::vector<std::string>& languages, const Stems& stems);

  /// The longest term of language `code` whose words' stems start `stems` at `at`, nullptr when
  /// none does; `length` is set to its number of words.
  const Term* match(std::string_view code, const std::vector<std::string>& stems, std::size_t at, std::size_t& length) const;

 private:
  std::map<std::string, std::vector<Term>, std::less<>> terms_;  // by language
};

}  // namespace rag
