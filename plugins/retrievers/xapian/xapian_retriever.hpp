#pragma once
// The `xapian` retriever: the chunks and terms of `bm25` (the same AnalyzerSet, the same
// fields), indexed and ranked by Xapian 1.4, in `shards` databases per segment that can be
// searched here or served by xapian-tcpsrv / xapian-progsrv on other machines. Xapian combines
// the shards of every segment into one Database and ranks with the statistics of all of them,
// so results do not depend on how the index is cut into segments and shards.
//
// Files per segment: see shard_files.hpp. Xapian counts every document its databases hold, so
// the retriever does not skip removed chunks (skips_removed() is false): the host merges a
// segment that loses chunks in the same run, and merge() indexes again only the shards that lost
// some. Connections: see shard_connections.hpp.
#include <memory>

#include "rag/analyzer.hpp"
#include "rag/inverted_index.hpp"
#include "rag/retriever.hpp"
#include "shard_connections.hpp"
#include "shard_files.hpp"

namespace rag {

class XapianRetriever final : public Retriever {
 public:
  /// Options: shards (1-256, default 1: databases per segment, a file's chunks in one);
  /// weight (bm25: Xapian's BM25Weight, or bm25plus: BM25PlusWeight, which is bm25's bm25plus
  /// variant to the rounding), k1 (1.2), b (0.75), delta (bm25plus, 1.0); index_path,
  /// index_section (see IndexedFields), analysis (see AnalyzerSet); remote (a list of
  /// `host:port` or `prog:PROGRAM ARGS...`, one per shard: search shards served by other
  /// processes instead of the index's own databases), timeout and connect_timeout (ms, 2000 and
  /// 1000: for each exchange with a remote shard) and partial_results (false: a shard that fails
  /// is an error; true: results from the others, with a warning naming it). Reads nothing from
  /// disk or the network.
  explicit XapianRetriever(Options& options);
  ~XapianRetriever() override;

  void build(const SegmentChunks& chunks, const std::filesystem::path& dir) override;
  bool updatable() const override { return true; }
  bool skips_removed() const override { return false; }
  void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) override;
  /// Opens every segment's table and connects to the shards once (a shard that cannot be
  /// reached is an error here, unless partial_results).
  void open(const SegmentList& segments) override;
  std::vector<Hit> search(std::string_view query, std::size_t k) const override;

 private:
  Xapian::Query make_query(std::string_view query) const;
  /// The best `k` hits on connection `c`, equal scores in SegmentList::before order.
  std::vector<Hit> top(const xapian_shards::Connection& c, const Xapian::Query& query, std::size_t k) const;

  std::unique_ptr<AnalyzerSet> analyzers_;
  xapian_shards::Indexing indexing_;
  bool plus_ = false;
  double k1_ = 1.2, b_ = 0.75, delta_ = 1.0;

  const SegmentList* segments_ = nullptr;
  std::vector<xapian_shards::ShardTable> tables_;  // one per segment
  std::unique_ptr<xapian_shards::ShardConnections> connections_;
};

}  // namespace rag
