#pragma once
// A retriever over chunks held in memory, built and opened as `rag index` and Index do it: the
// chunks cut into segments, each built into a folder of its own (by a retriever of its own, as
// separate runs would), some of them marked removed, then opened together by a new retriever.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rag/chunk_vector.hpp"
#include "rag/retriever.hpp"
#include "test_support.hpp"

namespace rag::testing {

template <class R>
class BuiltRetriever {
 public:
  /// Segments start at chunk 0 and at each of `cuts` (ascending); `removed` are chunk ids.
  BuiltRetriever(std::function<std::unique_ptr<R>()> make, const std::vector<Chunk>& chunks,
                 std::vector<std::size_t> cuts = {}, const std::set<std::uint32_t>& removed = {})
      : make_(std::move(make)) {
    cuts.insert(cuts.begin(), 0);
    cuts.push_back(chunks.size());
    for (std::size_t s = 0; s + 1 < cuts.size(); ++s) {
      parts_.push_back(std::make_unique<ChunkVector>(
          std::vector<Chunk>(chunks.begin() + static_cast<std::ptrdiff_t>(cuts[s]),
                             chunks.begin() + static_cast<std::ptrdiff_t>(cuts[s + 1]))));
      std::vector<std::uint64_t> bits;
      for (const std::uint32_t id : removed)
        if (id >= cuts[s] && id < cuts[s + 1]) {
          const std::size_t local = id - cuts[s];
          bits.resize(std::max(bits.size(), local / 64 + 1), 0);
          bits[local / 64] |= std::uint64_t{1} << (local % 64);
        }
      removed_.push_back(std::move(bits));
      std::filesystem::create_directories(dir_ / std::to_string(s));
      make_()->build(*parts_.back(), dir_ / std::to_string(s));
    }
    for (std::size_t s = 0; s < parts_.size(); ++s)
      segments_.push_back({dir_ / std::to_string(s), parts_[s].get(), static_cast<std::uint32_t>(cuts[s]), removed_[s]});
    list_ = std::make_unique<SegmentList>(segments_);
    retriever_ = make_();
    retriever_->open(*list_);
  }

  std::vector<Hit> search(std::string_view query, std::size_t k) const { return retriever_->search(query, k); }
  R& retriever() { return *retriever_; }
  const SegmentList& segments() const { return *list_; }
  /// The folder segment `s` was built into.
  std::filesystem::path dir(std::size_t s) const { return dir_ / std::to_string(s); }
  /// A new retriever of the same options, opening the segments again.
  std::unique_ptr<R> reopen() const {
    auto r = make_();
    r->open(*list_);
    return r;
  }

 private:
  std::function<std::unique_ptr<R>()> make_;
  TempDir dir_;
  std::vector<std::unique_ptr<ChunkVector>> parts_;
  std::vector<std::vector<std::uint64_t>> removed_;
  std::vector<Segment> segments_;
  std::unique_ptr<SegmentList> list_;
  std::unique_ptr<R> retriever_;
};

}  // namespace rag::testing
