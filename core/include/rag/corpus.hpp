#pragma once
// The corpus: the files a pipeline selects below its root, and reading them as chunkers need.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "rag/pipeline.hpp"
#include "rag/source_file.hpp"

namespace rag {

struct CorpusEntry {
  std::string relative_path;  ///< below the corpus root, forward slashes
  std::string name;           ///< as results name it: "<root>/<relative_path>"
  std::string path;           ///< to open it: the corpus folder joined with relative_path
  std::uintmax_t size = 0;
  /// When the file last changed, in nanoseconds since the epoch of std::filesystem's clock
  /// (file_time()): its status change time (st_ctim), which every write moves, and so do the
  /// copies and unpackings that set the modification time back (cp -p, rsync -t, tar x, touch
  /// -r); an edit that kept both the size and the modification time went unseen.
  std::int64_t changed = 0;
};

/// The time CorpusEntry::changed holds for a file changed at Unix time `seconds` +
/// `nanoseconds` (stat's st_ctim), on std::filesystem's clock.
std::int64_t file_time(std::int64_t seconds, std::int64_t nanoseconds);

struct CorpusListing {
  std::vector<CorpusEntry> files;  ///< sorted by relative_path
  std::vector<std::string> notes;  ///< files passed over and why (too large, unreadable, ...)
  /// Digest of the names, sizes and modification times: changes when the corpus does.
  std::string fingerprint;
};

/// Walks the pipeline's corpus root (symbolic links to folders are not followed, so link loops
/// are harmless; a file reached through symbolic links is listed once, under its own name when the
/// corpus holds it, else under the first link in path order, the others noted). Throws rag::Error
/// when the root is missing or not a folder.
CorpusListing list_corpus(const Pipeline& pipeline);

/// A corpus file as read.
struct SourceRead {
  std::optional<SourceFile> file;  ///< nothing for files that are not text
  std::string why;                 ///< why not: NUL bytes (binary) or invalid UTF-8
  std::uint64_t digest = 0;        ///< of its bytes, to tell a changed file from a touched one
};
/// Reads a corpus file. Throws rag::Error when the file cannot be read.
SourceRead read_source(const CorpusEntry& entry);

/// The digest of a file's bytes that tells a changed file from a touched one (never 0).
std::uint64_t content_digest(std::string_view bytes);
/// Whether the file at `path` holds the bytes whose content_digest is `digest`: false when it
/// cannot be read, or for digest 0 (a file that could not be read when it was recorded).
bool holds_content(const std::filesystem::path& path, std::uint64_t digest);

/// What the corpus held when an index was built: every file it took in, with its size, time and
/// content digest, sorted by path.
struct CorpusSnapshot {
  struct File {
    std::string relative_path;
    std::uint64_t size = 0;
    std::int64_t changed = 0;
    std::uint64_t digest = 0;  ///< 0 for a file that could not be read
  };
  std::vector<File> files;
};

/// How a corpus differs from a snapshot, decided by content: a file whose size or time differs
/// is read, and counts as changed only when its bytes do.
struct CorpusChanges {
  std::vector<std::string> changed, added, removed;  ///< paths below the corpus root
  bool empty() const { return changed.empty() && added.empty() && removed.empty(); }
  /// "2 changed (a.md, b.py), 1 added (c.md)": counts, and the first `shown` of each.
  std::string describe(std::size_t shown = 3) const;
};
CorpusChanges compare_corpus(const CorpusSnapshot& snapshot, const CorpusListing& now);

}  // namespace rag
