#pragma once
// A glossary of the field's terms for questions in other languages: words general dictionaries
// read in another sense ("планировщик" planner, where software means scheduler; "ядро" shot, for
// kernel) or not at all ("carte graphique", GPU). A tab-separated file, one term a line:
//
//   # language  words                     English
//   ru          планировщик               scheduler
//   ru          пропускная способность    throughput
//
// Words match a question's words by their Snowball stem, so any form of them does ("планировщика").
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
  /// A word's stem in a language (its code: fr, de, es, ru).
  using Stem = std::function<std::string(std::string_view code, std::string_view word)>;

  Glossary() = default;
  /// Reads `path`; `languages` are the codes a line may name. Throws rag::Error naming the file
  /// and line for a file that cannot be read, a line without its three fields or a language not
  /// in `languages`.
  static Glossary read(const std::filesystem::path& path, const std::vector<std::string>& languages, const Stem& stem);

  /// The longest term of language `code` whose words' stems start `stems` at `at`, nullptr when
  /// none does; `length` is set to its number of words.
  const Term* match(std::string_view code, const std::vector<std::string>& stems, std::size_t at, std::size_t& length) const;

 private:
  std::map<std::string, std::vector<Term>, std::less<>> terms_;  // by language
};

}  // namespace rag
