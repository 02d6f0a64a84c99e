#include "bm25_retriever.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "rag/binary_file.hpp"
#include "rag/chunk_vector.hpp"
#include "retrievers/toy_corpus.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using testing::kToyChunks;
using testing::text_chunk;

using Built = testing::BuiltRetriever<Bm25Retriever>;

std::unique_ptr<Built> make(const std::string& yaml) { return testing::make_toy<Bm25Retriever>(yaml); }

// Options as a pipeline gives them, for retrievers over chunks of their own.
std::function<std::unique_ptr<Bm25Retriever>()> maker(const std::string& yaml) {
  return [yaml] {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "test");
    return std::make_unique<Bm25Retriever>(options);
  };
}

// The same hits, scores to the last bit.
void expect_same(const std::vector<Hit>& a, const std::vector<Hit>& b, const SegmentList& sa, const SegmentList& sb) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const ChunkView x = sa.chunk(a[i].chunk), y = sb.chunk(b[i].chunk);
    EXPECT_EQ(x.file_path, y.file_path) << i;
    EXPECT_EQ(x.first_char, y.first_char) << i;
    EXPECT_EQ(x.text, y.text) << i;
    EXPECT_EQ(a[i].score, b[i].score) << i;
  }
}

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

TEST(Bm25Retriever, AWordReadSeveralWaysScoresAsOneTerm) {
  const auto r = make("{variant: lucene}");
  // Read apart, the rare "cherry" (df 1) puts chunk 1 first; as one term with "banana" (df 2)
  // the readings' df is 3 and the shortest chunk holding either comes first.
  EXPECT_EQ(r->search("cherry banana", 1)[0].chunk, 1u);
  const auto hits = r->search("cherry|banana", 10);
  ASSERT_EQ(hits.size(), 3u);
  const double idf = std::log(1 + 0.5 / 3.5);
  EXPECT_EQ(hits[0].chunk, 2u);
  EXPECT_DOUBLE_EQ(hits[0].score, idf / (1 + 1.2 * (0.25 + 0.75 / 2)));
  EXPECT_EQ(hits[1].chunk, 0u);
  EXPECT_DOUBLE_EQ(hits[1].score, idf / 2.2);
  EXPECT_EQ(hits[2].chunk, 1u);
  EXPECT_DOUBLE_EQ(hits[2].score, idf / (1 + 1.2 * (0.25 + 0.75 * 3 / 2)));
}

TEST(Bm25Retriever, OpensWhatItBuilt) {
  const auto r = make("{variant: bm25plus, k1: 0.9, b: 0.4}");
  const auto again = r->reopen();
  const auto a = r->search("apple cherry", 10);
  const auto b = again->search("apple cherry", 10);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].chunk, b[i].chunk);
    EXPECT_DOUBLE_EQ(a[i].score, b[i].score);
  }
  // A segment file made for other chunks is refused.
  const ChunkVector other(std::vector<Chunk>(5, text_chunk("x")));
  const std::vector<Segment> segments = {{r->dir(0), &other, 0, {}}};
  const SegmentList list(segments);
  EXPECT_THROW(testing::plain_words<Bm25Retriever>("{}")()->open(list), Error);
}

// BM25F with every field weighed and normalised apart, page titles, and a path score of its own.
constexpr const char* kFieldOptions =
    "{fields: {text: {b: 0.6}, path: {weight: 2, b: 0.3}, section: {weight: 1.5}}, index_title: true, path_weight: 0.2}";

// A corpus where words, lengths and files vary: enough for statistics to matter.
std::vector<Chunk> varied_chunks() {
  const std::vector<std::string> words = {"paged", "attention", "kernel", "cache", "block", "server", "token",
                                          "model", "the", "of", "quantized", "weights", "scheduler", "batch"};
  std::vector<Chunk> chunks;
  for (std::size_t i = 0; i < 60; ++i) {
    std::string text;
    for (std::size_t w = 0; w < 3 + i % 7; ++w) text += words[(i * 7 + w * w * 3) % words.size()] + " ";
    const std::string file = "docs/f" + std::to_string(i / 4) + ".md";
    // Page titles differ by file (index_title takes each file's own).
    const std::string title = std::vector<std::string>{"Title", "Guide", "Paged kernel"}[i / 4 % 3];
    chunks.push_back({file, i % 3 ? "markdown" : "text", title + " > S" + std::to_string(i % 5), 100 * (i % 4),
                      100 * (i % 4) + text.size(), 100 * (i % 4), 100 * (i % 4) + text.size(), text, 1, 2});
  }
  return chunks;
}

// Segments and removals do not change results: statistics are those of the chunks not removed,
// and equal scores are ordered by file and span. What `rag index` relies on to update an index,
// where a file's chunks are in one segment and are removed together (4 chunks a file here).
TEST(Bm25Retriever, SegmentsAndRemovalsRankAsOneIndexOfWhatRemains) {
  const std::vector<Chunk> all = varied_chunks();
  const std::set<std::uint32_t> removed = {4, 5, 6, 7, 40, 41, 42, 43, 56, 57, 58, 59};
  std::vector<Chunk> kept;
  for (std::uint32_t i = 0; i < all.size(); ++i)
    if (!removed.count(i)) kept.push_back(all[i]);
  for (const std::string options : {"{}", "{file_weight: 0.3}", "{feedback: {documents: 3, terms: 5}}",
                                    "{variant: bm25l, common_share: 0.05}", "{analysis: {markdown: {stemmer: none}}}",
                                    kFieldOptions}) {
    const Built one(maker(options), kept);
    const Built cut(maker(options), all, {8, 20, 44}, removed);
    for (const std::string query : {"paged attention", "the kernel of the cache", "quantized weights model",
                                    "token scheduler batch block", "f3 s2", "title", "guide kernel"}) {
      SCOPED_TRACE(options + " " + query);
      expect_same(one.search(query, 25), cut.search(query, 25), one.segments(), cut.segments());
    }
  }
}

// Segments merged into one rank as their sources did, and as a build of the chunks they keep; the
// merged file is byte for byte the one that build writes.
void expect_merge_ranks_as_sources(const std::string& options) {
  const std::vector<Chunk> all = varied_chunks();
  const std::set<std::uint32_t> removed = {0, 1, 2, 3, 32, 33, 34, 35};
  const Built cut(maker(options), all, {12, 28}, removed);
  // Merge all three into one segment, as a merge policy would.
  std::vector<Chunk> kept;
  for (std::uint32_t i = 0; i < all.size(); ++i)
    if (!removed.count(i)) kept.push_back(all[i]);
  const ChunkVector merged(kept);
  testing::TempDir dir;
  maker(options)()->merge(cut.segments(), merged, dir.path());
  const std::vector<Segment> segments = {{dir.path(), &merged, 0, {}}};
  const SegmentList list(segments);
  const auto opened = maker(options)();
  opened->open(list);
  const Built built(maker(options), kept);
  for (const std::string query : {"paged attention kernel", "cache block server", "f4", "guide"}) {
    SCOPED_TRACE(query);
    expect_same(opened->search(query, 30), cut.search(query, 30), list, cut.segments());
    expect_same(opened->search(query, 30), built.search(query, 30), list, built.segments());
  }
  // The merged file is the one a build of those chunks writes.
  EXPECT_EQ(testing::read_all(dir / "bm25.bin"), testing::read_all(built.dir(0) / "bm25.bin"));
}

TEST(Bm25Retriever, MergedSegmentsRankAsTheirSources) {
  for (const char* options : {"{file_weight: 0.15}", kFieldOptions}) {
    SCOPED_TRACE(options);
    expect_merge_ranks_as_sources(options);
  }
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
  const Built r([&] {
    Options options(node, "test");
    return std::make_unique<Bm25Retriever>(options);
  }, chunks);
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
    const Built r([&] {
      Options options(node, "test");
      return std::make_unique<Bm25Retriever>(options);
    }, chunks);
    return r.search("needle hay", 2000).size();
  };
  EXPECT_EQ(search("{common_share: 1}"), 1200u);
  EXPECT_EQ(search("{common_share: 0.5}"), 1100u);
  // Under 1000 candidates every term still opens: the toy corpus is searched exactly.
  EXPECT_EQ(make("{common_share: 0.01}")->search("cherry banana", 10).size(), 3u);
}

TEST(Bm25Retriever, CommonTermsAddAcrossSegmentsAsInOneIndex) {
  // Past 1000 candidates (those of "straw" and "needle") "hay" only adds to them: across segments
  // with removed chunks it adds as in one index of what remains, scores to the last bit.
  std::vector<Chunk> all;
  for (int i = 0; i < 1500; ++i) {
    std::string text = i % 4 == 0 ? "hay" : "needle hay";
    if (i % 7 == 0) text += " straw straw hay";
    Chunk c = testing::text_chunk(text);
    c.file_path = "f" + std::to_string(i / 10) + ".txt";
    all.push_back(c);
  }
  // Many removed chunks, whose share of a term's postings is counted by reading the postings,
  // and a few, each looked for in them.
  std::set<std::uint32_t> many, few = {5, 700, 1301};
  for (std::uint32_t i = 5; i < all.size(); i += 11) many.insert(i);
  for (const std::set<std::uint32_t>& removed : {many, few}) {
    std::vector<Chunk> kept;
    for (std::uint32_t i = 0; i < all.size(); ++i)
      if (!removed.count(i)) kept.push_back(all[i]);
    for (const std::string options : {"{common_share: 0.5}", "{common_share: 0.5, file_weight: 0.2}"}) {
      SCOPED_TRACE(options + " with " + std::to_string(removed.size()) + " removed");
      const Built one(maker(options), kept);
      const Built cut(maker(options), all, {400, 1000}, removed);
      const std::vector<Hit> hits = one.search("needle hay straw", 2000);
      EXPECT_LT(hits.size(), kept.size());  // "hay" opened no chunk of its own
      expect_same(hits, cut.search("needle hay straw", 2000), one.segments(), cut.segments());
    }
  }
}

// A segment file whose posting lists name chunk ids past its chunks: every walk of them stops
// with an error, whether the term opens candidates or filters its postings against them.
TEST(Bm25Retriever, PostingsOfChunksOutsideTheSegmentAreAnError) {
  // "kiwi" in chunks 0-1099; "lime" in those and in chunk 5000, which a 1100-chunk segment
  // lacks, at the end of its list (past the first blocks the filter checks).
  constexpr std::uint32_t kChunks = 1100;
  testing::TempDir dir;
  {
    std::vector<std::uint32_t> posting_chunks, ones;
    for (int term = 0; term < 2; ++term)
      for (std::uint32_t c = 0; c < kChunks; ++c) posting_chunks.push_back(c);
    posting_chunks.push_back(5000);
    ones.assign(posting_chunks.size(), 1);
    const std::vector<std::uint64_t> term_offsets = {0, 4, 8}, posting_offsets = {0, kChunks, 2 * kChunks + 1};
    const std::vector<std::uint32_t> lengths(kChunks, 2), zeros(kChunks, 0), no_fields(posting_chunks.size(), 0);
    const std::vector<std::uint64_t> totals = {2 * kChunks, 0, 0};
    BinaryWriter out(dir / "bm25.bin", "bm25", 3);
    out.section("kiwilime");
    out.section<std::uint64_t>(term_offsets);
    out.section<std::uint64_t>(posting_offsets);
    out.section<std::uint32_t>(posting_chunks);
    out.section<std::uint32_t>(ones);
    out.section<std::uint32_t>(no_fields);
    out.section<std::uint32_t>(lengths);
    out.section<std::uint32_t>(zeros);
    out.section<std::uint32_t>(zeros);
    out.section<std::uint64_t>(totals);
    out.commit();
  }
  const ChunkVector chunks(std::vector<Chunk>(kChunks, text_chunk("kiwi lime")));
  const std::vector<Segment> segments = {{dir.path(), &chunks, 0, {}}};
  const SegmentList list(segments);
  const auto retriever = maker("{common_share: 0.5, index_path: false, index_section: false}")();
  retriever->open(list);
  EXPECT_EQ(retriever->search("kiwi", 10).size(), 10u);
  for (const char* query : {"lime", "kiwi lime"}) {  // "lime" opens, then filters past 1000 candidates
    SCOPED_TRACE(query);
    try {
      retriever->search(query, 10);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("inconsistent"), std::string::npos) << e.what();
    }
  }
}

// Two chunks whose fields are counted by hand (plain words): c0 has text "cherry apple" (2 terms),
// path "apple" (1), section "banana" (1); c1 has text "apple apple cherry cherry" (4), path
// "kiwi" (1), no section. Averages: text 3, path 1, section 0.5.
std::unique_ptr<Built> fields_toy(const std::string& yaml) {
  const std::vector<Chunk> chunks = {{"apple", "text", "banana", 0, 12, 0, 12, "cherry apple"},
                                     {"kiwi", "text", "", 0, 25, 0, 25, "apple apple cherry cherry"}};
  return std::make_unique<Built>([yaml] {
    YAML::Node node = YAML::Load(yaml);
    node["analysis"]["default"]["stemmer"] = "none";
    node["analysis"]["default"]["stopwords"] = "none";
    Options options(node, "test");
    return std::make_unique<Bm25Retriever>(options);
  }, chunks);
}

TEST(Bm25Retriever, FieldsWeighAndNormaliseEachFieldApart) {
  const auto r = fields_toy("{fields: {text: {b: 0.5}, path: {weight: 2, b: 0}, section: {weight: 3, b: 1}}}");
  // "apple": c0 has 1 / (0.5 + 0.5 * 2/3) = 1.2 in its text and 2 x 1 in its path, 3.2 in all;
  // c1 has 2 / (0.5 + 0.5 * 4/3) = 12/7 in its text. Saturated once with k1 = 1.2.
  const double idf = std::log(1.2);
  const auto apple = r->search("apple", 10);
  ASSERT_EQ(apple.size(), 2u);
  EXPECT_EQ(apple[0].chunk, 0u);
  EXPECT_DOUBLE_EQ(apple[0].score, idf * 3.2 / 4.4);
  EXPECT_EQ(apple[1].chunk, 1u);
  EXPECT_DOUBLE_EQ(apple[1].score, idf * (12.0 / 7) / (12.0 / 7 + 1.2));
  // "banana", in c0's section only: 3 x 1 / (1 / 0.5).
  const auto banana = r->search("banana", 10);
  ASSERT_EQ(banana.size(), 1u);
  EXPECT_DOUBLE_EQ(banana[0].score, std::log(2.0) * 1.5 / 2.7);
  // Without `fields` the fields are one text: c0 is 4 terms long, with "apple" twice.
  const auto one_text = fields_toy("{}")->search("apple", 1);
  EXPECT_DOUBLE_EQ(one_text[0].score, idf * 2 / (2 + 1.2 * (0.25 + 0.75 * 4 / 4.5)));
  // path_weight adds the path field's own score: "apple" once in a path of average length.
  const auto path = fields_toy("{path_weight: 0.5}")->search("apple", 1);
  EXPECT_DOUBLE_EQ(path[0].score, one_text[0].score + 0.5 * idf / 2.2);
}

TEST(Bm25Retriever, IndexTitleGivesEveryChunkOfAPageItsTitle) {
  // A page's passage has no header path; its title comes from the page's first Markdown chunk.
  const std::vector<Chunk> chunks = {{"guide.md", "markdown", "Zebra Handbook > Intro", 0, 11, 0, 11, "hello there"},
                                     {"guide.md", "text", "", 0, 11, 0, 11, "hello world"},
                                     {"other.md", "text", "", 0, 11, 0, 11, "hello world"}};
  // index_path: false leaves no path field to hold a title: both passages match "world" alone.
  const auto untitled = Built(testing::plain_words<Bm25Retriever>("{index_title: true}"), chunks).search("zebra world", 3);
  ASSERT_EQ(untitled.size(), 2u);
  EXPECT_EQ(untitled[0].score, untitled[1].score);
  const auto titled = Built([] {
    YAML::Node node = YAML::Load("{index_title: true, index_section: false}");
    node["analysis"]["default"]["stopwords"] = "none";
    Options options(node, "test");
    return std::make_unique<Bm25Retriever>(options);
  }, chunks).search("zebra world", 3);
  ASSERT_EQ(titled.size(), 3u);
  EXPECT_EQ(titled[0].chunk, 1u);  // the passage of the titled page
  EXPECT_GT(titled[0].score, titled[1].score);
}

TEST(Bm25Retriever, RejectsBadOptions) {
  for (const char* yaml : {"{variant: bm26}", "{k1: -1}", "{b: 2}", "{k3: 1}", "{feedback: {documents: -1}}",
                           "{feedback: {weight: 2}}", "{feedback: {dokuments: 3}}", "{file_weight: -1}",
                           "{common_share: 2}", "{fields: {body: {weight: 1}}}", "{fields: {path: {b: 2}}}",
                           "{fields: {text: {weight: -1}}}", "{fields: {section: {boost: 1}}}", "{path_weight: -1}",
                           "{index_title: maybe}"}) {
    YAML::Node node = YAML::Load(yaml);
    Options options(node, "test");
    EXPECT_THROW(Bm25Retriever{options}, Error) << yaml;
  }
}

}  // namespace
}  // namespace rag
