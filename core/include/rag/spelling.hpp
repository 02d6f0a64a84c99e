#pragma once
// Misspelt words of a question, read as the corpus spells them. A word that no chunk holds and
// that is no English word ("quantizaton", "tokenzier", British "optimise" where the code says
// "optimize") matches nothing; the word one edit away from it (a letter left out, added or
// changed, or two letters swapped) that the most chunks hold is what the user meant, far more
// often than not. An English word the corpus lacks ("bread", "chess") is a question about
// something else, and stays as written: English words are those of Debian's wamerican word list
// (/usr/share/dict/american-english, which scripts/setup.sh installs); without it nothing is
// respelt. Only words of plain letters are read so: identifiers, commands and names are as the
// user wrote them.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rag {

/// A word of a question and the spelling it was read as.
struct Respelling {
  std::string written;
  std::string read_as;
};

/// How many chunks of the corpus hold a word; 0 for none.
using ChunksHolding = std::function<std::size_t(std::string_view word)>;
/// Whether a word (in lower case) is English.
using IsWord = std::function<bool(std::string_view word)>;

/// `query` with each word that no chunk holds (`holding` 0) and that is not English (`is_word`;
/// by default, every word when the list is missing) replaced by the spelling one edit away that
/// the most chunks hold, when at least three do; what was replaced goes to `respelt`
/// (when given). Read so: words of kMinRespeltLetters to kMaxRespeltLetters ASCII letters, the
/// first kMaxRespeltLookups the corpus and the list lack, that are not
/// English stopwords, not in capitals alone (an acronym), not capitalised past the first word (a
/// name: "the Krebs cycle") nor with a capital inside (vLLM), and not touching '_', '-', '.', '/',
/// digits or backticks (an identifier, a flag, a path). A capitalised first word keeps its
/// capital. Words of other scripts are left alone.
std::string respelt(std::string_view query, const ChunksHolding& holding, std::vector<Respelling>* respelt = nullptr,
                    const IsWord& is_word = {});

/// Words shorter than this are not respelt: one edit away from a short word are many others.
inline constexpr std::size_t kMinRespeltLetters = 5;
/// Nor longer ones: no English word is, and a word of L letters has about 54 L spellings one
/// edit away, each counted in the index, so that a question of long random words could hold a
/// server for seconds.
inline constexpr std::size_t kMaxRespeltLetters = 24;
/// At most this many words of a question are looked up (the first ones that could be typos):
/// more unknown words than that are not typos but a question about something else, or noise.
inline constexpr std::size_t kMaxRespeltLookups = 3;

}  // namespace rag
