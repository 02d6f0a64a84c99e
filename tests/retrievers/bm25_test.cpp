#include "bm25_retriever.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "retrievers/toy_corpus.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using testing::kToyChunks;
using testing::text_chunk;

std::unique_ptr<Bm25Retriever> make(const std::string& yaml) { return testing::make_toy<Bm25Retriever>(yaml); }

// On the toy corpus (see toy_corpus.hpp).
TEST(Bm25Scoring, HandComputedValues) {
  const double n = 3, df = 2;
  const double norm0 = 1.0, norm1 = 0.25 + 0.75 * 3 / 2;
  Bm25Parameters p;
  p.variant = Bm25Variant::lucene;
  EXPECT_DOUBLE_EQ(bm25_idf(p, n, df), std::log(1.6));
  EXPECT_DOUBLE_EQ(bm25_tf_weight(p, 1, norm0), 1 / 2.2);
  EXPECT_DOUBLE_EQ(bm25_tf_weight(p, 2, norm1), 2 / 3.65);
  p.variant = Bm25Variant::robertson;
  EXPECT_DOUBLE_EQ(bm25_idf(p, n, df), std::log(0.6));
  EXPECT_DOUBLE_EQ(bm25_tf_weight(p, 1, norm0), 2.2 / 2.2);
  p.variant = Bm25Variant::bm25plus;
  p.delta = 1.0;
  EXPECT_DOUBLE_EQ(bm25_idf(p, n, df), std::log(2.0));
  EXPECT_DOUBLE_EQ(bm25_tf_weight(p, 1, norm0), 2.0);
  p.variant = Bm25Variant::bm25l;
  p.delta = 0.5;
  EXPECT_DOUBLE_EQ(bm25_idf(p, n, df), std::log(4 / 2.5));
  EXPECT_DOUBLE_EQ(bm25_tf_weight(p, 1, norm0), 2.2 * 1.5 / 2.7);
}

TEST(Bm25Retriever, RanksWithTheLuceneFormula) {
  const auto r = make("{variant: lucene}");
  const auto hits = r->search("apple", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].chunk, 1u);
  EXPECT_DOUBLE_EQ(hits[0].score, std::log(1.6) * 2 / 3.65);
  EXPECT_EQ(hits[1].chunk, 0u);
  EXPECT_DOUBLE_EQ(hits[1].score, std::log(1.6) / 2.2);
  // Two terms add up; k limits the list.
  const auto both = r->search("apple banana", 1);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_EQ(both[0].chunk, 0u);
  EXPECT_TRUE(r->search("durian", 10).empty());
}

TEST(Bm25Retriever, SavesAndLoads) {
  const auto r = make("{variant: bm25plus, k1: 0.9, b: 0.4}");
  testing::TempDir dir;
  r->save(dir.path());
  auto loaded = make("{variant: bm25plus, k1: 0.9, b: 0.4}");
  loaded->load(dir.path(), kToyChunks);
  const auto a = r->search("apple cherry", 10);
  const auto b = loaded->search("apple cherry", 10);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk, b[i].chunk);
    EXPECT_DOUBLE_EQ(a[i].score, b[i].score);
  }
  // An index saved for other chunks is refused.
  auto other = make("{}");
  EXPECT_THROW(other->load(dir.path(), std::vector<Chunk>(5, text_chunk("x"))), Error);
}

TEST(Bm25Retriever, FeedbackExpandsTheQueryWithTermsOfTheBestChunks) {
  // "cherry" alone finds chunk 1; feedback from it adds "apple", which reaches chunk 0.
  const auto plain = make("{}");
  EXPECT_EQ(plain->search("cherry", 10).size(), 1u);
  const auto expanded = make("{feedback: {documents: 1, terms: 5, weight: 0.5}}");
  const auto hits = expanded->search("cherry", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].chunk, 1u);
  EXPECT_EQ(hits[1].chunk, 0u);
}

TEST(Bm25Retriever, FileWeightLiftsChunksOfFilesThatMatchElsewhere) {
  // Chunks 0 and 2 match "alpha" equally; chunk 1, in chunk 0's file, matches "beta".
  const std::vector<Chunk> chunks = {{"a.txt", "text", "", 0, 5, 0, 5, "alpha"},
                                     {"a.txt", "text", "", 6, 10, 6, 10, "beta"},
                                     {"b.txt", "text", "", 0, 5, 0, 5, "alpha"}};
  YAML::Node node = YAML::Load("{index_path: false, index_section: false, file_weight: 0.5}");
  Options options(node, "test");
  Bm25Retriever r(options);
  r.build(chunks);
  const auto hits = r.search("alpha beta", 3);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].chunk, 1u);  // beta, lifted by alpha in the same file, or alpha lifted by beta
  EXPECT_EQ(hits[1].chunk, 0u);
  EXPECT_EQ(hits[2].chunk, 2u);
  EXPECT_GT(hits[1].score, hits[2].score);
}

TEST(Bm25Retriever, CommonTermsOnlyAddToEnoughCandidates) {
  // 1200 chunks: "needle" in the first 1100, "hay" in all. With common_share 0.5, "hay" no
  // longer brings in the last 100 once "needle" has found 1100 candidates; with 1, it does.
  std::vector<Chunk> chunks;
  for (int i = 0; i < 1200; ++i) chunks.push_back(testing::text_chunk(i < 1100 ? "needle hay" : "hay"));
  const auto search = [&](const std::string& yaml) {
    YAML::Node node = YAML::Load(yaml);
    node["index_path"] = false;
    node["index_section"] = false;
    Options options(node, "test");
    Bm25Retriever r(options);
    r.build(chunks);
    return r.search("needle hay", 2000).size();
  };
  EXPECT_EQ(search("{common_share: 1}"), 1200u);
  EXPECT_EQ(search("{common_share: 0.5}"), 1100u);
  // Under 1000 candidates every term still opens: the toy corpus is searched exactly.
  EXPECT_EQ(make("{common_share: 0.01}")->search("cherry banana", 10).size(), 3u);
}

TEST(Bm25Retriever, RejectsBadOptions) {
  for (const char* yaml : {"{variant: bm26}", "{k1: -1}", "{b: 2}", "{k3: 1}", "{feedback: {documents: -1}}",
                           "{feedback: {weight: 2}}", "{feedback: {dokuments: 3}}", "{file_weight: -1}",
                           "{common_share: 2}"}) {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "test");
    EXPECT_THROW(Bm25Retriever{options}, Error) << yaml;
  }
}

}  // namespace
}  // namespace rag
