#pragma once
// Chunks held in memory, as a source of chunks and as a segment for a retriever to build: for
// tests, tools and anything that has chunks without an index.
#include <map>
#include <string>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/retriever.hpp"

namespace rag {

class ChunkVector final : public ChunkSource, public SegmentChunks {
 public:
  /// `corpus_root`, when given, is the folder every file path starts with (slashes at its end
  /// aside): the rest of a path is its relative path (see ChunkView::relative_path); otherwise the
  /// whole path is.
  explicit ChunkVector(std::vector<Chunk> chunks, std::string corpus_root = {});

  std::size_t size() const override { return chunks_.size(); }
  std::uint32_t id_limit() const override { return static_cast<std::uint32_t>(chunks_.size()); }
  ChunkView chunk(std::uint32_t id) const override;
  std::vector<std::uint32_t> chunks_of(std::string_view file_path) const override;
  void for_each(const std::function<void(std::uint32_t, const ChunkView&)>& visit) const override;
  /// Files numbered in the order they first appear.
  std::uint32_t file_of(std::uint32_t id) const override { return file_of_[id]; }
  std::size_t file_count() const override { return by_file_.size(); }
  const std::vector<Chunk>& chunks() const { return chunks_; }

 private:
  std::vector<Chunk> chunks_;
  std::string corpus_root_;
  std::vector<std::uint32_t> file_of_;
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> by_file_;  // in span order
};

}  // namespace rag
