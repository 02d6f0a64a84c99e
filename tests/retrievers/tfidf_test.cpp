#include "tfidf_retriever.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "retrievers/toy_corpus.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using testing::kToyChunks;
using testing::text_chunk;

std::unique_ptr<TfidfRetriever> make(const std::string& yaml) { return testing::make_toy<TfidfRetriever>(yaml); }

TEST(TfidfRetriever, WeightsByTheBook) {
  const auto r = make("{tf: log, idf: smooth}");
  EXPECT_DOUBLE_EQ(r->tf_weight(1), 1.0);
  EXPECT_DOUBLE_EQ(r->tf_weight(2), 1.0 + std::log(2.0));
  EXPECT_DOUBLE_EQ(r->idf_weight(3, 2), std::log(4.0 / 3.0) + 1.0);
  const auto plain = make("{tf: raw, idf: plain}");
  EXPECT_DOUBLE_EQ(plain->tf_weight(2), 2.0);
  EXPECT_DOUBLE_EQ(plain->idf_weight(3, 1), std::log(3.0));
  EXPECT_DOUBLE_EQ(make("{tf: binary, idf: none}")->tf_weight(7), 1.0);
}

// Hand-computed cosines: "apple" is a one-term query, so its unit vector picks out each
// chunk's normalised apple weight.
TEST(TfidfRetriever, ScoresAreCosines) {
  const auto r = make("{tf: log, idf: smooth, norm: l2}");
  const double idf2 = std::log(4.0 / 3.0) + 1.0;  // apple, banana: df 2 of 3
  const double idf1 = std::log(2.0) + 1.0;        // cherry: df 1
  const double apple1 = (1.0 + std::log(2.0)) * idf2;
  const auto hits = r->search("apple", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].chunk, 1u);
  EXPECT_DOUBLE_EQ(hits[0].score, apple1 / std::sqrt(apple1 * apple1 + idf1 * idf1));
  EXPECT_EQ(hits[1].chunk, 0u);
  EXPECT_DOUBLE_EQ(hits[1].score, 1.0 / std::sqrt(2.0));
  // A chunk identical to the query scores 1; unknown query terms are ignored.
  EXPECT_DOUBLE_EQ(r->search("banana durian", 1)[0].score, 1.0);
}

TEST(TfidfRetriever, WithoutNormalisationScoresAreDotProducts) {
  const auto r = make("{tf: raw, idf: none, norm: none}");
  const auto hits = r->search("apple apple", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_DOUBLE_EQ(hits[0].score, 4.0);  // query tf 2 x chunk tf 2
  EXPECT_DOUBLE_EQ(hits[1].score, 2.0);
}

TEST(TfidfRetriever, SavesLoadsAndRejectsBadOptions) {
  const auto r = make("{}");
  testing::TempDir dir;
  r->save(dir.path());
  auto loaded = make("{}");
  loaded->load(dir.path(), kToyChunks);
  EXPECT_DOUBLE_EQ(loaded->search("cherry", 1)[0].score, r->search("cherry", 1)[0].score);
  for (const char* yaml : {"{tf: squared}", "{idf: bm25}", "{norm: l1}", "{analysis: {default: {stemmer: klingon}}}"}) {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "test");
    EXPECT_THROW(TfidfRetriever{options}, Error) << yaml;
  }
}

}  // namespace
}  // namespace rag
