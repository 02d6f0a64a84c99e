// A retriever that throws where its options say (see throwing.hpp); otherwise it returns the
// first chunks, in order.
#include <fstream>

#include "rag/plugin.hpp"
#include "throwing.hpp"

namespace {

class ThrowingRetriever final : public rag::Retriever {
 public:
  explicit ThrowingRetriever(rag::Options& options) : failure_(options, {"build", "save", "load", "search"}) {}
  void build(rag::ChunkList chunks) override {
    failure_.maybe_throw("build");
    count_ = chunks.size();
  }
  void save(const std::filesystem::path& dir) const override {
    failure_.maybe_throw("save");
    std::ofstream(dir / "count") << count_;
  }
  void load(const std::filesystem::path&, rag::ChunkList chunks) override {
    failure_.maybe_throw("load");
    count_ = chunks.size();
  }
  std::vector<rag::Hit> search(std::string_view, std::size_t k) const override {
    failure_.maybe_throw("search");
    std::vector<rag::Hit> hits;
    for (std::uint32_t i = 0; i < count_ && i < k; ++i) hits.push_back({i, 1.0 / (1.0 + i)});
    return hits;
  }

 private:
  throwing::Failure failure_;
  std::size_t count_ = 0;
};

}  // namespace

RAG_PLUGIN_CLASS(ThrowingRetriever, "throwing_retriever", "0.0.1", "a test retriever that throws on request")
