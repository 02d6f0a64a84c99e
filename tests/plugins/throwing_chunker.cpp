// A chunker that throws where its options say (see throwing.hpp); otherwise a file is one chunk.
#include "rag/plugin.hpp"
#include "throwing.hpp"

namespace {

class ThrowingChunker final : public rag::Chunker {
 public:
  explicit ThrowingChunker(rag::Options& options) : failure_(options, {"chunk"}) {}
  std::vector<rag::ChunkSpan> chunk(const rag::SourceFile& file) const override {
    failure_.maybe_throw("chunk");
    return {{{0, file.text().size()}, ""}};
  }

 private:
  throwing::Failure failure_;
};

}  // namespace

RAG_PLUGIN_CLASS(ThrowingChunker, "throwing_chunker", "0.0.1", "a test chunker that throws on request")
