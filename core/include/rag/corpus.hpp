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
  std::filesystem::path path;
  std::uintmax_t size = 0;
  std::int64_t modified = 0;  ///< nanoseconds since the epoch
};

struct CorpusListing {
  std::vector<CorpusEntry> files;  ///< sorted by relative_path
  std::vector<std::string> notes;  ///< files passed over and why (too large, unreadable, ...)
  /// Digest of the names, sizes and modification times: changes when the corpus does.
  std::string fingerprint;
};

/// Walks the pipeline's corpus root (symbolic links to folders are not followed, so link loops
/// are harmless). Throws rag::Error when the root is missing or not a folder.
CorpusListing list_corpus(const Pipeline& pipeline);

/// Reads a corpus file. Returns nothing, and sets `why`, for files that are not text:
/// NUL bytes (binary) or invalid UTF-8. Throws rag::Error when the file cannot be read.
std::optional<SourceFile> read_source(const CorpusEntry& entry, std::string& why);

}  // namespace rag
