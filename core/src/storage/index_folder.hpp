#pragma once
// What the index and its writer share of the index folder: the manifest, and the segments it
// names opened with their removals. Private to core/src/storage.
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rag/binary_file.hpp"
#include "rag/pipeline.hpp"
#include "rag/retriever.hpp"
#include "rag/segment_store.hpp"
#include "rag/stages.hpp"

namespace rag::index_folder {

inline constexpr const char* kManifest = "manifest.json";
inline constexpr const char* kChunks = "chunks.bin";
inline constexpr const char* kRetrieverDir = "retriever";
inline constexpr std::uint32_t kRemovedFormat = 1;  // <segment>/removed-<generation>.bin: a bit per file

/// The manifest: nothing when there is none, null when it is damaged.
std::optional<nlohmann::json> try_manifest(const Pipeline& pipeline);
/// The manifest, or an error saying how to make one.
nlohmann::json read_manifest(const Pipeline& pipeline);
/// The string at `pointer` in the manifest, or "" when it is absent or not a string.
std::string string_at(const nlohmann::json& manifest, const char* pointer);
/// The plugins whose output the index holds (the chunkers and the retriever), with their
/// versions: what the manifest records as "plugins".
nlohmann::json indexed_plugins(const PipelineStages& stages);
/// What makes the index of `manifest` unusable for the stages' pipeline (another format,
/// configuration, or version of a chunker or the retriever), or "".
std::string incompatibility(const nlohmann::json& manifest, const PipelineStages& stages);
/// The files whose time moved since they were indexed while their bytes did not (a touch), with
/// their time now: the manifest's "retimed", by path below the corpus root. Their records keep
/// the time they were indexed with; this is the one to compare.
using RetimedFiles = std::map<std::string, std::int64_t, std::less<>>;
RetimedFiles retimed_files(const nlohmann::json& manifest);
/// The time to compare `file` of the index with its file on disk: the one `retimed` holds for it,
/// else its record's.
std::int64_t indexed_time(const RetimedFiles& retimed, const SegmentStore::File& file);
/// "<index> is damaged; run `rag index ...` to rebuild it".
std::string damaged(const Pipeline& pipeline);
/// The first file `manifest` lists that is not in the index folder with the size it was written
/// with ("seg-000001/chunks.bin is missing"), or "": a truncated or missing file is found before
/// anything reads it. A path that leaves the folder is damage too.
std::string missing_or_resized(const Pipeline& pipeline, const nlohmann::json& manifest);
/// A file's modification time as the manifest records it (file_time() of st_mtim).
std::int64_t modified_time(const std::filesystem::path& file);
/// The entries of the files `manifest` lists whose modification time is not the one recorded when
/// they were written: index files are written once, so such a file was written since (or copied
/// without its times) and is to be verified before it is trusted. Files recorded without a time
/// are not listed.
std::vector<nlohmann::json> rewritten_files(const Pipeline& pipeline, const nlohmann::json& manifest);
/// Whether a manifest's entry says BinaryWriter wrote its file ("binary"); nullopt for an entry
/// that does not say (manifests before the mark).
std::optional<bool> listed_binary(const nlohmann::json& entry);
/// verify_binary_file() of the file a manifest's entry lists, as the BinaryWriter file it was
/// written as when the entry says so ("binary": manifests before it do not, and such files are
/// checked only while their header is whole).
void verify_listed_file(const Pipeline& pipeline, const nlohmann::json& entry);

/// A segment of a generation, opened: its store read in place and its removals.
struct OpenSegment {
  std::string name;  ///< "seg-000001"
  std::unique_ptr<SegmentStore> store;
  std::string removed_file;  ///< below the index folder, "" when nothing is removed
  std::vector<std::uint64_t> removed_files;   ///< a bit per file of the store
  std::vector<std::uint64_t> removed_chunks;  ///< a bit per chunk, from removed_files
  std::size_t live_chunks = 0;
  std::map<std::string, std::size_t, std::less<>> stored_kinds;  ///< all chunks of the store, by kind
  std::map<std::string, std::size_t, std::less<>> kinds;         ///< chunks not removed, by kind

  bool file_removed(std::uint32_t f) const { return f / 64 < removed_files.size() && (removed_files[f / 64] >> (f % 64) & 1U); }
  /// The numbers of the store's files not removed, in order.
  std::vector<std::uint32_t> live_files() const;
  /// Marks file `f` removed, and its chunks; their kinds are counted out of `kinds` (which reads
  /// their records: not done for removals the manifest already counted).
  void remove_file(std::uint32_t f, bool count_kinds = true);
};

/// Opens the segments `manifest` names, in order. Throws rag::Error when one is missing or damaged.
/// (Each entry: name, chunk counts by kind of all chunks and of those not removed, and `removed`,
/// the file of its removals, if any.)
std::vector<OpenSegment> open_segments(const Pipeline& pipeline, const nlohmann::json& manifest);

/// Whether `file`, recorded as one that could not be read (no digest), can be read at `path` now:
/// a chmod changes neither its size nor its time.
bool readable_again(const SegmentStore::File& file, const std::string& path);
/// Whether any file of `segments` is readable_again in the pipeline's corpus.
bool any_readable_again(const Pipeline& pipeline, const std::vector<OpenSegment>& segments);

/// Segments as a retriever sees them (its folders, bases from 0, removals), in order; they point
/// into `segments`.
std::vector<Segment> retriever_view(const Pipeline& pipeline, const std::vector<const OpenSegment*>& segments);

}  // namespace rag::index_folder
