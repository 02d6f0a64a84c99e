#include "fusion_retriever.hpp"

#include <algorithm>

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
  options.finish();
}

std::filesystem::path FusionRetriever::member_dir(const std::filesystem::path& dir, std::size_t i) const {
  return dir / (std::to_string(i) + "-" + members_[i].plugin);
}

void FusionRetriever::build(ChunkList chunks) {
  chunk_count_ = chunks.size();
  for (auto& m : members_) m.retriever->build(chunks);
}

void FusionRetriever::save(const std::filesystem::path& dir) const {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    std::error_code ec;
    std::filesystem::create_directories(member_dir(dir, i), ec);
    if (ec) throw Error(member_dir(dir, i).string() + ": cannot create folder (" + ec.message() + ")");
    members_[i].retriever->save(member_dir(dir, i));
  }
}

void FusionRetriever::load(const std::filesystem::path& dir, ChunkList chunks) {
  chunk_count_ = chunks.size();
  for (std::size_t i = 0; i < members_.size(); ++i) members_[i].retriever->load(member_dir(dir, i), chunks);
}

std::vector<Hit> FusionRetriever::search(std::string_view query, std::size_t k) const {
  ScoreAccumulator fused(chunk_count_);
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
  return fused.top(k);
}

}  // namespace rag
