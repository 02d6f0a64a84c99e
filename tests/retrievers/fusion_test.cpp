#include "fusion_retriever.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bm25_retriever.hpp"
#include "retrievers/built_retriever.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;

// A retriever whose engine counts removed chunks, as xapian's does; it finds nothing.
class CountsRemoved final : public Retriever {
 public:
  void build(const SegmentChunks&, const std::filesystem::path&) override {}
  void open(const SegmentList&) override {}
  std::vector<Hit> search(std::string_view, std::size_t) const override { return {}; }
  bool updatable() const override { return true; }
  bool skips_removed() const override { return false; }
};

// Makes bm25 retrievers (and counts_removed ones), as the registry would.
class Bm25Host final : public PluginHost {
 public:
  std::unique_ptr<Retriever> make_retriever(std::string_view name, Options& options) const override {
    if (name == "counts_removed") return std::make_unique<CountsRemoved>();
    if (name != "bm25") throw Error("unknown retriever plugin '" + std::string(name) + "'");
    return std::make_unique<Bm25Retriever>(options);
  }
};

Chunk chunk(const std::string& text) { return {"f.txt", "text", "", 0, text.size(), 0, text.size(), text}; }

const std::vector<Chunk> kChunks = {chunk("running fast"), chunk("run run run slowly"), chunk("the runner"),
                                    chunk("walking")};

// Two members that rank differently: one stems ("running" = "run"), one does not.
std::unique_ptr<testing::BuiltRetriever<FusionRetriever>> make(const std::string& extra) {
  return std::make_unique<testing::BuiltRetriever<FusionRetriever>>(
      [extra] {
        const std::string member = "index_path: false, index_section: false, analysis: {default: {stopwords: none, stemmer: ";
        YAML::Node node = YAML::Load("{" + extra + "retrievers: [{plugin: bm25, options: {" + member +
                                     "english}}}}, {plugin: bm25, weight: 2, options: {" + member + "none}}}}]}");
        Options options(node, "test");
        return std::make_unique<FusionRetriever>(options, Bm25Host());
      },
      kChunks);
}

TEST(FusionRetriever, ReciprocalRankFusionByHand) {
  // Stemmed "running" -> run: chunks 1 (3x run), 0, then 2 ("runner" stems to runner) not at all.
  // Unstemmed "running": only chunk 0. RRF with k=60: chunk 0 = 1/62 + 2/61, chunk 1 = 1/61.
  const auto hits = make("method: rrf, ")->search("running", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].chunk, 0u);
  EXPECT_DOUBLE_EQ(hits[0].score, 1.0 / 62 + 2.0 / 61);
  EXPECT_EQ(hits[1].chunk, 1u);
  EXPECT_DOUBLE_EQ(hits[1].score, 1.0 / 61);
}

TEST(FusionRetriever, WeightedSumOfNormalisedScores) {
  const auto hits = make("method: weighted, ")->search("running", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].chunk, 0u);
  EXPECT_GT(hits[0].score, 2.0);  // 2 x 1 from the unstemmed member plus its stemmed share
  EXPECT_LE(hits[1].score, 1.0);  // only the stemmed member, where it may be first
}

TEST(FusionRetriever, BuildsAndOpensEveryMember) {
  const auto r = make("");
  EXPECT_TRUE(std::filesystem::exists(r->dir(0) / "0-bm25/bm25.bin"));
  EXPECT_TRUE(std::filesystem::exists(r->dir(0) / "1-bm25/bm25.bin"));
  EXPECT_TRUE(r->retriever().updatable());
  EXPECT_EQ(r->reopen()->search("running", 10)[0].score, r->search("running", 10)[0].score);
}

TEST(FusionRetriever, SkipsRemovedChunksOnlyWhenEveryMemberDoes) {
  const auto fusion = [](const std::string& members) {
    YAML::Node node = YAML::Load("{retrievers: [" + members + "]}");
    Options options(node, "test");
    return FusionRetriever(options, Bm25Host());
  };
  EXPECT_TRUE(fusion("{plugin: bm25}, {plugin: bm25}").skips_removed());
  EXPECT_FALSE(fusion("{plugin: bm25}, {plugin: counts_removed}").skips_removed());
}

TEST(FusionRetriever, RefusesBadCompositions) {
  const auto error = [](const std::string& yaml) {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "p.yaml: retriever.options");
    try {
      FusionRetriever f(options, Bm25Host());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(error("{}"), HasSubstr("retrievers: must list at least one"));
  EXPECT_THAT(error("{retrievers: {plugin: bm25}}"), HasSubstr("must be a list"));
  EXPECT_THAT(error("{retrievers: [{weight: 1}]}"), HasSubstr("retrievers[0].plugin: is required"));
  EXPECT_THAT(error("{retrievers: [{plugin: fusion}]}"), HasSubstr("cannot contain another fusion"));
  EXPECT_THAT(error("{retrievers: [{plugin: dense}]}"), HasSubstr("unknown retriever plugin 'dense'"));
  EXPECT_THAT(error("{retrievers: [{plugin: bm25, wieght: 2}]}"), HasSubstr("unknown option 'wieght'"));
  EXPECT_THAT(error("{method: borda, retrievers: [{plugin: bm25}]}"), HasSubstr("'borda' is not one of"));
  EXPECT_THAT(error("{retrievers: [{plugin: bm25, weight: 0}, {plugin: bm25, weight: 0}]}"), HasSubstr("every weight is 0"));
  EXPECT_EQ(error("{retrievers: [{plugin: bm25, weight: 0}, {plugin: bm25, weight: 1}]}"), "");  // one left out is fine
}

}  // namespace
}  // namespace rag
