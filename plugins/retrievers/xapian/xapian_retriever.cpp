#include "xapian_retriever.hpp"

#include <algorithm>
#include <cmath>

#include "rag/question_words.hpp"

namespace rag {
using namespace xapian_shards;

namespace {

// Results asked of Xapian beyond k, every one of them checked (check_at_least): equal scores at
// the cut are ordered by SegmentList::before here, not by Xapian's document ids, which depend on
// the layout; and Xapian 1.4.22 combining several databases was measured to miss a better
// document now and then when it may stop checking at k.
constexpr Xapian::doccount kTieMargin = 10;

// Xapian adds up a document's term weights in an order that depends on how the shards and
// segments are laid out, so scores equal on paper can differ in their last bits: they are kept
// to this many significant bits, which makes them equal, and then ordered by SegmentList::before.
constexpr int kScoreBits = 36;

double rounded(double weight) {
  int exponent = 0;
  const double mantissa = std::frexp(weight, &exponent);
  return std::ldexp(std::round(std::ldexp(mantissa, kScoreBits)), exponent - kScoreBits);
}

}  // namespace

XapianRetriever::XapianRetriever(Options& options) {
  indexing_.shards = static_cast<std::uint32_t>(options.get_integer("shards", 1, 1, 256));
  plus_ = options.get_choice("weight", "bm25", {"bm25", "bm25plus"}) == "bm25plus";
  k1_ = options.get_number("k1", k1_, 0.0, 100.0);
  b_ = options.get_number("b", b_, 0.0, 1.0);
  delta_ = options.get_number("delta", delta_, 0.0, 100.0);
  indexing_.fields = IndexedFields::from_options(options);
  ConnectionSettings settings;
  const auto remotes = options.get<std::vector<std::string>>("remote", {});
  settings.timeout_ms = static_cast<unsigned>(options.get_integer("timeout", settings.timeout_ms, 1, 600000));
  settings.connect_timeout_ms =
      static_cast<unsigned>(options.get_integer("connect_timeout", settings.connect_timeout_ms, 1, 600000));
  settings.partial_results = options.get<bool>("partial_results", false);
  Options analysis = options.child("analysis");
  analyzers_ = std::make_unique<AnalyzerSet>(analysis);
  indexing_.analyzers = analyzers_.get();
  options.finish();
  if (!remotes.empty() && remotes.size() != indexing_.shards)
    options.fail("remote", "lists " + std::to_string(remotes.size()) + " servers for " + std::to_string(indexing_.shards) +
                               " shards: name one server a shard, in shard order");
  for (const std::string& r : remotes) {
    try {
      settings.remotes.push_back(RemoteShard::parse(r));
    } catch (const Error& e) {
      options.fail("remote", e.what());
    }
  }
  connections_ = std::make_unique<ShardConnections>(std::move(settings));
}

XapianRetriever::~XapianRetriever() = default;

void XapianRetriever::build(const SegmentChunks& chunks, const std::filesystem::path& dir) {
  xapian_shards::build(chunks, indexing_, dir);
}

void XapianRetriever::merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) {
  xapian_shards::merge(sources, merged, indexing_, dir);
}

void XapianRetriever::open(const SegmentList& segments) {
  segments_ = &segments;
  tables_.clear();
  tables_.reserve(segments.segments().size());
  std::vector<std::filesystem::path> dirs;
  for (const Segment& s : segments.segments()) {
    tables_.emplace_back(s, indexing_.shards);
    dirs.push_back(s.dir);
  }
  std::vector<std::string> uuids(indexing_.shards);
  for (std::uint32_t shard = 0; shard < indexing_.shards; ++shard)
    for (const ShardTable& t : tables_) {
      if (!uuids[shard].empty()) uuids[shard] += ':';
      uuids[shard] += t.uuid(shard);
    }
  // Connecting to a remote shard makes Xapian's client set SIGPIPE to ignored for the whole
  // process. Nothing in rag relies on SIGPIPE's default: a write to a closed pipe or socket then
  // fails with EPIPE, which the standard streams (rag's output) and cpp-httplib (rag serve) report
  // as a failed write instead of the process being killed.
  connections_->open(std::move(dirs), std::move(uuids));
}

Xapian::Query XapianRetriever::make_query(std::string_view query) const {
  const auto& analyzers = analyzers_->analyzers();
  std::vector<Xapian::Query> per_analyzer;
  for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
    std::vector<Xapian::Query> terms;
    // A word the query repeats weighs as often, as in bm25 (BM25's own wqf factor is off: k3 = 0).
    QueryTerms read = query_terms(query, *analyzers[a]);
    for (const auto& [term, count] : read.counted)
      terms.emplace_back(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(xapian_term(term)), count);
    // A word read several ways is one term (question_words.hpp), by Xapian's synonym operator:
    // the readings' counts in a chunk added before saturation and the frequency of their union
    // estimated, where bm25's weigh_as_one saturates each alone and sums their frequencies.
    for (const std::vector<std::string>& readings : read.read_several_ways) {
      std::vector<Xapian::Query> each;
      for (const std::string& term : readings) each.emplace_back(xapian_term(term));
      terms.emplace_back(Xapian::Query::OP_SYNONYM, each.begin(), each.end());
    }
    if (terms.empty()) continue;
    Xapian::Query any(Xapian::Query::OP_OR, terms.begin(), terms.end());
    // Each analyzer's terms score only the chunks it analyzed; document frequencies are over all.
    per_analyzer.push_back(analyzers.size() == 1 ? any
                                                 : Xapian::Query(Xapian::Query::OP_FILTER, any, Xapian::Query(analyzer_term(a))));
  }
  return Xapian::Query(Xapian::Query::OP_OR, per_analyzer.begin(), per_analyzer.end());
}

std::vector<Hit> XapianRetriever::top(const Connection& c, const Xapian::Query& query, std::size_t k) const {
  Xapian::Enquire enquire(c.db);
  enquire.set_query(query);
  // min_normlen 0: the length normalisation of bm25, not clamped for short chunks.
  if (plus_) enquire.set_weighting_scheme(Xapian::BM25PlusWeight(k1_, 0, 0, b_, 0, delta_));
  else enquire.set_weighting_scheme(Xapian::BM25Weight(k1_, 0, 0, b_, 0));
  std::vector<Hit> hits;
  for (auto want = static_cast<Xapian::doccount>(k) + kTieMargin;; want *= 2) {
    const Xapian::MSet mset = enquire.get_mset(0, want, want);
    hits.clear();
    for (auto it = mset.begin(); it != mset.end(); ++it) {
      const Connection::Place p = c.place(*it);
      const Segment& segment = segments_->segments()[p.segment];
      const auto ids = tables_[p.segment].chunks(p.shard);
      if (p.index >= ids.size() || ids[p.index] >= segment.chunks->size())
        tables_[p.segment].file().damaged("does not match its shard databases");
      if (segment.is_removed(ids[p.index])) continue;
      hits.push_back({segment.base + ids[p.index], rounded(it.get_weight())});
    }
    // Done when Xapian had no more, or when what it left out scores below the k-th.
    if (mset.size() < want ||
        rounded(mset[static_cast<Xapian::doccount>(k) - 1].get_weight()) > rounded(mset[want - 1].get_weight()))
      break;
  }
  std::sort(hits.begin(), hits.end(), [&](const Hit& x, const Hit& y) {
    return x.score != y.score ? x.score > y.score : segments_->before(x.chunk, y.chunk);
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

std::vector<Hit> XapianRetriever::search(std::string_view query, std::size_t k) const {
  if (!segments_ || k == 0) return {};
  const Xapian::Query q = make_query(query);
  if (q.empty()) return {};
  return connections_->run([&](const Connection& c) { return top(c, q, k); });
}

}  // namespace rag
