// Misspelt question words read as the corpus spells them (rag/spelling.hpp).
#include "rag/spelling.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace rag {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

// A corpus that holds these words, each in so many chunks; an English word list of these.
const std::map<std::string, std::size_t, std::less<>> kHolding = {
    {"tokenizer", 40}, {"tokenizers", 5}, {"scheduler", 90}, {"speculative", 30}, {"color", 6},
    {"kerbs", 1},      {"cache", 200},    {"read", 300},     {"write", 150},     {"casting", 12}};
const std::set<std::string, std::less<>> kEnglish = {"bread", "chess", "castling", "colour", "read", "write"};

std::string read(std::string_view query, std::vector<Respelling>* respelt = nullptr) {
  return rag::respelt(
      query, [](std::string_view w) { return kHolding.count(w) ? kHolding.find(w)->second : std::size_t{0}; }, respelt,
      [](std::string_view w) { return kEnglish.count(w) > 0; });
}

TEST(Spelling, AWordTheCorpusLacksIsReadAsTheNearestItHolds) {
  std::vector<Respelling> respelt;
  EXPECT_EQ(read("How big is the tokenzier cache?", &respelt), "How big is the tokenizer cache?");
  EXPECT_THAT(respelt, ElementsAre(AllOf(Field(&Respelling::written, "tokenzier"), Field(&Respelling::read_as, "tokenizer"))));
  // Each kind of edit: a letter left out, added, changed; two swapped. A capital stays.
  EXPECT_EQ(read("schedulr preemption"), "scheduler preemption");
  EXPECT_EQ(read("Schedduler"), "Scheduler");
  EXPECT_EQ(read("speculatove decoding"), "speculative decoding");
  EXPECT_EQ(read("tokneizer"), "tokenizer");
  // Punctuation around a word is not an identifier's.
  EXPECT_EQ(read("How do I fix the tokenzier."), "How do I fix the tokenizer.");
  EXPECT_EQ(read("Fix the tokenzier. Then run it"), "Fix the tokenizer. Then run it");
  EXPECT_EQ(read("the tokenzier\u2019s vocabulary"), "the tokenizer\u2019s vocabulary");
  EXPECT_EQ(read("what is \u201Ctokenzier\u201D"), "what is \u201Ctokenizer\u201D");
  EXPECT_EQ(read("(tokenzier)"), "(tokenizer)");
}

TEST(Spelling, WordsThatAreMeantAreKept) {
  std::vector<Respelling> respelt;
  // English words the corpus lacks: a question about something else ("bread" is one edit from "read").
  EXPECT_EQ(read("How do I bake bread? The rules of chess castling", &respelt), "How do I bake bread? The rules of chess castling");
  // Held by the corpus; too short; stopwords.
  EXPECT_EQ(read("tokenizer cache wrte about", &respelt), "tokenizer cache wrte about");
  // Identifiers, flags, paths, numbers, backticks, acronyms, names and inner capitals.
  for (const std::string q : {"max_tokenzier", "--tokenzier", "tokenzier.py", "a/tokenzier", "tokenzier2", "`tokenzier`",
                              "TOKENZIER", "the Tokenzier class", "tokenZier", "téléphone"})
    EXPECT_EQ(read(q, &respelt), q);
  // A spelling held by fewer than three chunks is another rare word, not what was meant.
  EXPECT_EQ(read("krebs cycle", &respelt), "krebs cycle");
  EXPECT_TRUE(respelt.empty());
}

TEST(Spelling, ABritishSpellingReadsAsTheCorpusOne) {
  // Not in the (American) word list, one edit from the corpus's spelling.
  EXPECT_EQ(rag::respelt("the colour of the logo", [](std::string_view w) { return w == "color" ? std::size_t{6} : 0; },
                         nullptr, [](std::string_view) { return false; }),
            "the color of the logo");
}

TEST(Spelling, TheWorkIsBoundedWhateverTheQuestion) {
  // A served question may be 4 KB of letters: each spelling one edit away is a count in the
  // index, so only words of kMaxRespeltLetters or fewer are read, kMaxRespeltLookups at most.
  std::size_t counted = 0;
  const auto holding = [&](std::string_view w) {
    ++counted;
    return kHolding.count(w) ? kHolding.find(w)->second : std::size_t{0};
  };
  const auto none = [](std::string_view) { return false; };
  const std::string long_word(4000, 'a');
  EXPECT_EQ(rag::respelt(long_word, holding, nullptr, none), long_word);
  EXPECT_EQ(counted, 0u);
  std::string many;
  for (int i = 0; i < 100; ++i) many += "qwertyuiop" + std::string(1, static_cast<char>('a' + i % 26)) + " ";
  counted = 0;
  EXPECT_EQ(rag::respelt(many, holding, nullptr, none), many);
  EXPECT_LE(counted, kMaxRespeltLookups * (1 + 54 * (kMaxRespeltLetters + 1)) + 100);
  // The typos within reach are still read.
  EXPECT_EQ(rag::respelt("tokenzier schedulr speculatove", holding, nullptr, none), "tokenizer scheduler speculative");
}

}  // namespace
}  // namespace rag
