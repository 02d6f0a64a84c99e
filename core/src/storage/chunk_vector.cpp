#include "rag/chunk_vector.hpp"

#include <algorithm>

namespace rag {

ChunkVector::ChunkVector(std::vector<Chunk> chunks, std::string corpus_root)
    : chunks_(std::move(chunks)), corpus_root_(std::move(corpus_root)) {
  while (corpus_root_.size() > 1 && corpus_root_.back() == '/') corpus_root_.pop_back();  // as a pipeline reads it
  std::map<std::string_view, std::uint32_t> numbers;
  for (std::uint32_t id = 0; id < chunks_.size(); ++id) {
    const auto [it, added] = numbers.emplace(chunks_[id].file_path, static_cast<std::uint32_t>(numbers.size()));
    file_of_.push_back(it->second);
    by_file_[chunks_[id].file_path].push_back(id);
  }
  for (auto& [file, ids] : by_file_)
    std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::tie(chunks_[a].first_byte, chunks_[a].last_byte, a) < std::tie(chunks_[b].first_byte, chunks_[b].last_byte, b);
    });
}

ChunkView ChunkVector::chunk(std::uint32_t id) const {
  ChunkView v = chunks_[id].view();
  if (!corpus_root_.empty() && v.file_path.size() > corpus_root_.size() && v.file_path.starts_with(corpus_root_) &&
      v.file_path[corpus_root_.size()] == '/')
    v.relative_path = v.file_path.substr(corpus_root_.size() + 1);
  return v;
}

std::vector<std::uint32_t> ChunkVector::chunks_of(std::string_view file_path) const {
  const auto it = by_file_.find(file_path);
  return it == by_file_.end() ? std::vector<std::uint32_t>{} : it->second;
}

void ChunkVector::for_each(const std::function<void(std::uint32_t, const ChunkView&)>& visit) const {
  for (std::uint32_t id = 0; id < chunks_.size(); ++id) visit(id, chunk(id));
}

}  // namespace rag
