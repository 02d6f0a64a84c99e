#pragma once
// A segment's files for the `xapian` retriever: its chunks spread over `shards` Xapian
// databases, <dir>/shard-<i>, a file's chunks all in the shard its path hashes to; and
// <dir>/xapian.bin, which maps each shard's document ids back to the segment's chunks and names
// the databases (their uuids) so that a remote server can be checked to serve these very ones.
//
// A shard's document ids follow the segment's chunk order: document j of shard i is the j-th
// chunk of the segment whose file is in shard i. Merges keep that order, so a shard none of whose
// chunks changed is reused as it is (linked, or compacted with the same shard of other segments)
// instead of being indexed again.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/binary_file.hpp"
#include "rag/inverted_index.hpp"
#include "rag/retriever.hpp"

namespace rag::xapian_shards {

/// The shard that file `relative_path` goes to, of `shards`: the same on every machine.
std::uint32_t shard_of(std::string_view relative_path, std::uint32_t shards);
std::filesystem::path shard_dir(const std::filesystem::path& dir, std::uint32_t shard);

/// An analyzer's term as a Xapian term: terms over Xapian's limit (245 bytes) are cut and end in
/// a digest of the whole, at indexing and at query time alike.
std::string xapian_term(std::string_view term);
/// The boolean term that marks the chunks of analyzer `analyzer`, when there are several.
std::string analyzer_term(std::uint32_t analyzer);

/// What a segment's databases hold of each chunk.
struct Indexing {
  const AnalyzerSet* analyzers = nullptr;
  IndexedFields fields;
  std::uint32_t shards = 1;
};

/// Writes the shard databases and xapian.bin of a new segment holding `chunks` into `dir`, the
/// shards in parallel (oneTBB).
void build(const SegmentChunks& chunks, const Indexing& indexing, const std::filesystem::path& dir);
/// Writes into `dir` the files of the segment holding the chunks of `sources` not removed, in
/// order (`merged`): a shard that lost no chunk is reused from the sources, the others are
/// indexed again from `merged`.
void merge(const SegmentList& sources, const SegmentChunks& merged, const Indexing& indexing,
           const std::filesystem::path& dir);

/// A segment's xapian.bin, read in place.
class ShardTable {
 public:
  /// Opens `<segment.dir>/xapian.bin`; throws rag::Error when it is missing or damaged, or was
  /// written for another number of shards or other chunks.
  ShardTable(const Segment& segment, std::uint32_t shards);

  /// The segment's chunk ids in the order of shard `shard`'s document ids.
  std::span<const std::uint32_t> chunks(std::uint32_t shard) const;
  /// The uuid of shard `shard`'s database.
  std::string_view uuid(std::uint32_t shard) const;
  const BinaryReader& file() const { return reader_; }

 private:
  BinaryReader reader_;
  std::span<const std::uint64_t> offsets_;  // shard i: chunk_ids_[offsets_[i], offsets_[i + 1])
  std::span<const std::uint32_t> chunk_ids_;
  std::vector<std::string_view> uuids_;
};

}  // namespace rag::xapian_shards
