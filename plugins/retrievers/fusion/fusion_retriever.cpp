#include "fusion_retriever.hpp"

#include <algorithm>

#include "rag/file_io.hpp"
#include "rag/score_accumulator.hpp"

namespace rag {

FusionRetriever::FusionRetriever(Options& options, const PluginHost& host) {
  method_ = options.get_choice("method", "rrf", {"rrf", "weighted"}) == "rrf" ? Method::rrf : Method::weighted;
  rrf_k_ = options.get_number("rrf_k", rrf_k_, 0.0, 1e6);
  depth_ = static_cast<std::size_t>(options.get_integer("depth", 100, 1, 100000));
  for (Options& member : options.children("retrievers")) {
    Member m;
    m.plugin = member.get<std::string>("plugin", "");
    if (m.plugin.empty()) member.fail("plugin", "is required (the name of a retriever plugin)");
    if (m.plugin == "fusion") member.fail("plugin", "a fusion cannot contain another fusion");
    m.weight = member.get_number("weight", 1.0, 0.0, 1e6);
    Options member_options = member.child("options");
    m.retriever = host.make_retriever(m.plugin, member_options);
    member.finish();
    members_.push_back(std::move(m));
  }
  if (members_.empty()) options.fail("retrievers", "must list at least one retriever ({plugin, weight, options})");
  // Weight 0 leaves a retriever out (as rag tune may ask); all of them out leaves no ranking.
  if (std::none_of(members_.begin(), members_.end(), [](const Member& m) { return m.weight > 0; }))
    options.fail("retrievers", "every weight is 0: give at least one retriever a weight above 0");
  options.finish();
}

std::filesystem::path FusionRetriever::member_dir(const std::filesystem::path& dir, std::size_t i) const {
  return dir / (std::to_string(i) + "-" + members_[i].plugin);
}

std::unique_ptr<FusionRetriever::MemberSegments> FusionRetriever::segments_of(const SegmentList& segments,
                                                                             std::size_t i) const {
  std::vector<Segment> copies(segments.segments().begin(), segments.segments().end());
  for (Segment& s : copies) s.dir = member_dir(s.dir, i);
  auto made = std::unique_ptr<MemberSegments>(new MemberSegments{std::move(copies), SegmentList({})});
  made->list = SegmentList(made->segments);
  return made;
}

void FusionRetriever::build(const SegmentChunks& chunks, const std::filesystem::path& dir) {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    create_folder(member_dir(dir, i));
    members_[i].retriever->build(chunks, member_dir(dir, i));
  }
}

bool FusionRetriever::updatable() const {
  return std::all_of(members_.begin(), members_.end(), [](const Member& m) { return m.retriever->updatable(); });
}

bool FusionRetriever::skips_removed() const {
  return std::all_of(members_.begin(), members_.end(), [](const Member& m) { return m.retriever->skips_removed(); });
}

void FusionRetriever::merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    create_folder(member_dir(dir, i));
    const auto member_sources = segments_of(sources, i);
    members_[i].retriever->merge(member_sources->list, merged, member_dir(dir, i));
  }
}

void FusionRetriever::open(const SegmentList& segments) {
  segments_ = &segments;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    members_[i].opened = segments_of(segments, i);
    members_[i].retriever->open(members_[i].opened->list);
  }
}

std::vector<Hit> FusionRetriever::search(std::string_view query, std::size_t k) const {
  ScoreAccumulator fused(segments_ ? segments_->id_limit() : 0);
  for (const auto& m : members_) {
    const std::vector<Hit> hits = m.retriever->search(query, std::max(depth_, k));
    if (hits.empty()) continue;
    const double best = hits.front().score;
    for (std::size_t rank = 0; rank < hits.size(); ++rank) {
      const double contribution = method_ == Method::rrf ? m.weight / (rrf_k_ + static_cast<double>(rank) + 1.0)
                                  : best > 0             ? m.weight * hits[rank].score / best
                                                         : 0.0;
      fused.add(hits[rank].chunk, contribution);
    }
  }
  return fused.top(k, segments_);
}

}  // namespace rag
