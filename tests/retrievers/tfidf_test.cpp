#include "tfidf_retriever.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "retrievers/toy_corpus.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using testing::text_chunk;

std::unique_ptr<testing::BuiltRetriever<TfidfRetriever>> make(const std::string& yaml) {
  return testing::make_toy<TfidfRetriever>(yaml);
}

TEST(TfidfRetriever, WeightsByTheBook) {
  const auto r = make("{tf: log, idf: smooth}");
  EXPECT_DOUBLE_EQ(r->retriever().tf_weight(1), 1.0);
  EXPECT_DOUBLE_EQ(r->retriever().tf_weight(2), 1.0 + std::log(2.0));
  EXPECT_DOUBLE_EQ(r->retriever().idf_weight(3, 2), std::log(4.0 / 3.0) + 1.0);
  const auto plain = make("{tf: raw, idf: plain}");
  EXPECT_DOUBLE_EQ(plain->retriever().tf_weight(2), 2.0);
  EXPECT_DOUBLE_EQ(plain->retriever().idf_weight(3, 1), std::log(3.0));
  EXPECT_DOUBLE_EQ(make("{tf: binary, idf: none}")->retriever().tf_weight(7), 1.0);
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

TEST(TfidfRetriever, AWordReadSeveralWaysWeighsAsOneTerm) {
  // Read apart, the rare "cherry" puts chunk 1 first; as one term with "banana" (df 1 + 2 of 3
  // chunks: an idf of 1), that idf stands for each reading's own on both sides of the product.
  const auto r = make("{tf: raw, idf: smooth, norm: none}");
  const double cherry = std::log(2.0) + 1;
  EXPECT_EQ(r->search("cherry banana", 1)[0].chunk, 1u);
  EXPECT_DOUBLE_EQ(r->search("cherry banana", 1)[0].score, cherry * cherry);
  const auto hits = r->search("cherry|banana", 10);
  ASSERT_EQ(hits.size(), 3u);
  for (const Hit& h : hits) EXPECT_DOUBLE_EQ(h.score, 1.0);
  // Normalised, the word is one dimension of the query: alone, its norm is its idf.
  const auto cosine = make("{tf: raw, idf: smooth, norm: l2}");
  const double banana = std::log(4.0 / 3.0) + 1;
  EXPECT_DOUBLE_EQ(cosine->search("cherry|banana", 10)[0].score, 1.0 / banana);  // chunk 2: "banana" alone
}

TEST(TfidfRetriever, WithoutNormalisationScoresAreDotProducts) {
  const auto r = make("{tf: raw, idf: none, norm: none}");
  const auto hits = r->search("apple apple", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_DOUBLE_EQ(hits[0].score, 4.0);  // query tf 2 x chunk tf 2
  EXPECT_DOUBLE_EQ(hits[1].score, 2.0);
}

TEST(TfidfRetriever, OpensWhatItBuiltAndRejectsBadOptions) {
  const auto r = make("{}");
  EXPECT_DOUBLE_EQ(r->reopen()->search("cherry", 1)[0].score, r->search("cherry", 1)[0].score);
  for (const char* yaml : {"{tf: squared}", "{idf: bm25}", "{norm: l1}", "{analysis: {default: {stemmer: klingon}}}"}) {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "test");
    EXPECT_THROW(TfidfRetriever{options}, Error) << yaml;
  }
}

// Vector lengths and idf come from the chunks not removed, in all segments.
TEST(TfidfRetriever, SegmentsAndRemovalsScoreAsOneIndexOfWhatRemains) {
  std::vector<Chunk> all;
  for (int i = 0; i < 30; ++i)
    all.push_back(text_chunk(std::string(i % 2 ? "apple " : "banana ") + (i % 3 ? "cherry " : "date ") +
                             (i % 5 ? "elder" : "fig fig") + std::string(static_cast<std::size_t>(i), 'x')));
  const std::set<std::uint32_t> removed = {1, 2, 14, 29};
  std::vector<Chunk> kept;
  for (std::uint32_t i = 0; i < all.size(); ++i)
    if (!removed.count(i)) kept.push_back(all[i]);
  const auto make_tfidf = testing::plain_words<TfidfRetriever>("{}");
  const testing::BuiltRetriever<TfidfRetriever> one(make_tfidf, kept), cut(make_tfidf, all, {4, 15}, removed);
  for (const std::string query : {"apple fig", "cherry date elder", "banana"}) {
    const auto a = one.search(query, 30), b = cut.search(query, 30);
    ASSERT_EQ(a.size(), b.size()) << query;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(one.segments().chunk(a[i].chunk).text, cut.segments().chunk(b[i].chunk).text) << query << " " << i;
      EXPECT_EQ(a[i].score, b[i].score) << query << " " << i;
    }
  }
}

}  // namespace
}  // namespace rag
