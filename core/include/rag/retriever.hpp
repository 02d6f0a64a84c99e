#pragma once
// The interface a retriever plugin implements, and the segments of an index it works on.
//
// An index is a list of segments (as Lucene's): each holds the chunks of some corpus files and
// the retriever's files for them, and is never changed once written; a file edited or removed
// later is marked removed in its old segment and its new chunks go to a new segment. Segments
// merge into bigger ones as they accumulate. A retriever builds its files for one segment, may
// merge several segments' files into one, and searches all of them at once, combining their
// statistics so that the results are those of one index built from scratch.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/config.hpp>

#include "rag/chunk.hpp"

namespace rag {

/// One result: an index-wide chunk id (its segment's base plus its id in the segment) and a
/// score, higher is better.
struct Hit {
  std::uint32_t chunk = 0;
  double score = 0.0;
};

/// The chunks of one segment, ids 0 to size() - 1, read in place from the index.
class BOOST_SYMBOL_VISIBLE SegmentChunks {
 public:
  virtual ~SegmentChunks() = default;
  virtual std::size_t size() const = 0;
  virtual ChunkView chunk(std::uint32_t id) const = 0;
  /// The file chunk `id` comes from, numbered 0 to file_count() - 1 in the segment. A file's
  /// chunks are all in one segment.
  virtual std::uint32_t file_of(std::uint32_t id) const = 0;
  virtual std::size_t file_count() const = 0;
};

/// A segment as a retriever sees it.
struct Segment {
  std::filesystem::path dir;  ///< the retriever's own folder in the segment
  const SegmentChunks* chunks = nullptr;
  std::uint32_t base = 0;  ///< the index-wide id of its first chunk
  /// A bit per chunk (chunk c is bit c % 64 of word c / 64), set for chunks removed since the
  /// segment was written; empty when none is.
  std::span<const std::uint64_t> removed;

  bool is_removed(std::uint32_t id) const { return id / 64 < removed.size() && (removed[id / 64] >> (id % 64) & 1U); }
};

/// The segments of an index, in order, with index-wide chunk ids.
class SegmentList {
 public:
  explicit SegmentList(std::span<const Segment> segments) : segments_(segments) {
    for (const Segment& s : segments) {
      limit_ = s.base + static_cast<std::uint32_t>(s.chunks->size());
      file_bases_.push_back(file_limit_);
      file_limit_ += static_cast<std::uint32_t>(s.chunks->file_count());
    }
  }
  std::span<const Segment> segments() const { return segments_; }
  /// Chunk ids are below this (removed chunks keep their ids).
  std::uint32_t id_limit() const { return limit_; }
  /// The segment of index-wide chunk `id` (< id_limit()).
  const Segment& segment_of(std::uint32_t id) const {
    std::size_t low = 0, high = segments_.size();
    while (high - low > 1) {
      const std::size_t mid = (low + high) / 2;
      (segments_[mid].base <= id ? low : high) = mid;
    }
    return segments_[low];
  }
  ChunkView chunk(std::uint32_t id) const {
    const Segment& s = segment_of(id);
    return s.chunks->chunk(id - s.base);
  }
  bool is_removed(std::uint32_t id) const {
    const Segment& s = segment_of(id);
    return s.is_removed(id - s.base);
  }
  /// Index-wide file numbers, below file_limit(): the file of chunk `id`.
  std::uint32_t file_of(std::uint32_t id) const {
    const Segment& s = segment_of(id);
    return file_bases_[static_cast<std::size_t>(&s - segments_.data())] + s.chunks->file_of(id - s.base);
  }
  std::uint32_t file_limit() const { return file_limit_; }
  /// The order of chunks with equal scores: by file, then span, then kind, whatever segments
  /// they are in, so that results do not depend on how the index is cut.
  bool before(std::uint32_t a, std::uint32_t b) const { return chunk_before(chunk(a), chunk(b)); }

 private:
  std::span<const Segment> segments_;
  std::uint32_t limit_ = 0;
  std::vector<std::uint32_t> file_bases_;
  std::uint32_t file_limit_ = 0;
};

class BOOST_SYMBOL_VISIBLE Retriever {
 public:
  virtual ~Retriever() = default;

  /// Writes the retriever's files for a new segment holding `chunks` into `dir`, a folder that
  /// belongs to it alone. May run in parallel internally (TBB).
  virtual void build(const SegmentChunks& chunks, const std::filesystem::path& dir) = 0;
  /// Whether an index can be updated by adding segments and removing chunks: open() then
  /// combines the statistics of several segments itself. A retriever that answers false gets a
  /// single segment, rebuilt whole when the corpus changes.
  virtual bool updatable() const { return false; }
  /// Whether open() and search() leave removed chunks out of the statistics themselves, as
  /// InvertedIndexSet does. A retriever whose engine counts every document its files hold says
  /// false: each segment that loses chunks is then written again without them, by merge() of that
  /// segment alone, in the run that removes them.
  virtual bool skips_removed() const { return true; }
  /// Writes into `dir` the files of one segment holding the chunks of `sources` that are not
  /// removed, in order: `merged` (their ids start at 0). The default builds them from `merged`;
  /// a retriever may combine the sources' files instead, which is faster.
  virtual void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) {
    (void)sources;
    build(merged, dir);
  }
  /// Opens the index made of `segments` for search. `segments` lives as long as the retriever
  /// is used. Throws rag::Error when a file is missing or damaged, saying to re-index.
  virtual void open(const SegmentList& segments) = 0;
  /// The best `k` chunks for `query` (index-wide ids, removed chunks never among them), best
  /// first, equal scores in SegmentList::before order; fewer when fewer match. Thread-safe.
  virtual std::vector<Hit> search(std::string_view query, std::size_t k) const = 0;
};

/// Tells whoever asked for the search running on this thread that its results are usable but
/// not those of the whole index (a shard of a distributed engine did not answer, say): the host
/// shows `message` as a warning with the results (on stderr, and in `warnings` of their JSON).
/// Call it from the thread that runs search(); a message given anywhere else is dropped.
BOOST_SYMBOL_VISIBLE void warn_search(std::string message);

}  // namespace rag
