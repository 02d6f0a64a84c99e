#pragma once
// The `fusion` retriever: runs several retrievers (any plugins, named in the pipeline) over the
// same chunks and merges their rankings, by reciprocal rank fusion or by a weighted sum of
// normalised scores.
#include <memory>
#include <string>
#include <vector>

#include "rag/plugin.hpp"

namespace rag {

class FusionRetriever final : public Retriever {
 public:
  enum class Method { rrf, weighted };

  /// Options: method (rrf | weighted, default rrf), rrf_k (default 60), depth (results taken
  /// from each retriever, default 100), retrievers (a list of {plugin, weight, options}, at
  /// least one). With rrf a chunk scores sum(weight / (rrf_k + rank)); with weighted,
  /// sum(weight * score / best score of that retriever).
  FusionRetriever(Options& options, const PluginHost& host);

  void build(const SegmentChunks& chunks, const std::filesystem::path& dir) override;
  /// Updatable when every member is.
  bool updatable() const override;
  /// Only when every member does: one that counts removed chunks (xapian) needs its segments
  /// written again without them, and so do the others, which share the segments.
  bool skips_removed() const override;
  void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) override;
  void open(const SegmentList& segments) override;
  std::vector<Hit> search(std::string_view query, std::size_t k) const override;

 private:
  /// The segments as member `i` sees them: each member has a folder of its own in a segment.
  struct MemberSegments {
    std::vector<Segment> segments;
    SegmentList list;
  };
  struct Member {
    std::string plugin;
    double weight = 1.0;
    std::unique_ptr<Retriever> retriever;
    std::unique_ptr<MemberSegments> opened;
  };
  std::filesystem::path member_dir(const std::filesystem::path& dir, std::size_t i) const;
  std::unique_ptr<MemberSegments> segments_of(const SegmentList& segments, std::size_t i) const;

  Method method_ = Method::rrf;
  double rrf_k_ = 60;
  std::size_t depth_ = 100;
  const SegmentList* segments_ = nullptr;
  std::vector<Member> members_;
};

}  // namespace rag
