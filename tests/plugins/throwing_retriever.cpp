// A retriever that throws where its options say (see throwing.hpp); otherwise it returns the
// first chunks not removed, in order. `updatable: false` makes it one that cannot update an index;
// `bad_hit: unknown_id` or `nan_score` makes its first hit one the index must refuse; `warn: TEXT`
// tells each search's caller TEXT (rag::warn_search), as a retriever missing part of its index does.
#include <cmath>
#include <fstream>

#include "rag/plugin.hpp"
#include "throwing.hpp"

namespace {

class ThrowingRetriever final : public rag::Retriever {
 public:
  explicit ThrowingRetriever(rag::Options& options)
      : updatable_(options.get<bool>("updatable", true)),
        bad_hit_(options.get_choice("bad_hit", "none", {"none", "unknown_id", "nan_score"})),
        warning_(options.get<std::string>("warn", "")),
        failure_(options, {"build", "updatable", "merge", "open", "search"}) {}
  void build(const rag::SegmentChunks& chunks, const std::filesystem::path& dir) override {
    failure_.maybe_throw("build");
    std::ofstream(dir / "count") << chunks.size();
  }
  bool updatable() const override {
    failure_.maybe_throw("updatable");
    return updatable_;
  }
  void merge(const rag::SegmentList&, const rag::SegmentChunks& merged, const std::filesystem::path& dir) override {
    failure_.maybe_throw("merge");
    std::ofstream(dir / "count") << merged.size();
  }
  void open(const rag::SegmentList& segments) override {
    failure_.maybe_throw("open");
    segments_ = &segments;
  }
  std::vector<rag::Hit> search(std::string_view, std::size_t k) const override {
    failure_.maybe_throw("search");
    if (!warning_.empty()) rag::warn_search(warning_);
    std::vector<rag::Hit> hits;
    for (std::uint32_t id = 0; id < segments_->id_limit() && hits.size() < k; ++id)
      if (!segments_->is_removed(id)) hits.push_back({id, 1.0 / (1.0 + id)});
    if (!hits.empty() && bad_hit_ == "unknown_id") hits.front().chunk = segments_->id_limit() + 7;
    if (!hits.empty() && bad_hit_ == "nan_score") hits.front().score = std::nan("");
    return hits;
  }

 private:
  bool updatable_;  // read before failure_, which checks that no other option is left
  std::string bad_hit_;
  std::string warning_;
  throwing::Failure failure_;
  const rag::SegmentList* segments_ = nullptr;
};

}  // namespace

RAG_PLUGIN_CLASS(ThrowingRetriever, "throwing_retriever", "0.0.1", "a test retriever that throws on request")
