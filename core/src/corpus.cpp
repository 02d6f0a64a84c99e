#include "rag/corpus.hpp"

#include <algorithm>

#include "rag/checksum.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/glob.hpp"
#include "rag/project.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;

CorpusListing list_corpus(const Pipeline& pipeline) {
  const fs::path& root = pipeline.corpus_dir;
  std::error_code ec;
  if (!fs::exists(root, ec))
    throw Error("corpus folder " + display_path(root) + " (corpus.root in " + pipeline.label() +
                ") does not exist; run scripts/setup.sh to unpack the corpus, or point corpus.root at your repository");
  if (!fs::is_directory(root, ec))
    throw Error("corpus.root " + display_path(root) + " in " + pipeline.label() + " is not a folder");

  CorpusListing listing;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw Error("cannot read corpus folder " + display_path(root) + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) {
      listing.notes.push_back("skipped a folder: " + ec.message());
      ec.clear();
      continue;
    }
    const fs::directory_entry& entry = *it;
    std::error_code entry_ec;
    if (!entry.is_regular_file(entry_ec)) continue;
    std::string relative = entry.path().lexically_relative(root).generic_string();
    auto matches = [&](const std::vector<std::string>& patterns) {
      return std::any_of(patterns.begin(), patterns.end(), [&](const auto& p) { return glob_match(p, relative); });
    };
    if (!matches(pipeline.include) || matches(pipeline.exclude)) continue;
    CorpusEntry file;
    file.size = entry.file_size(entry_ec);
    const auto time = entry.last_write_time(entry_ec);
    if (entry_ec) {
      listing.notes.push_back(relative + ": skipped (" + entry_ec.message() + ")");
      continue;
    }
    if (file.size > pipeline.max_file_bytes) {
      listing.notes.push_back(relative + ": skipped, " + std::to_string(file.size) + " bytes is over corpus.max_file_size");
      continue;
    }
    file.modified = std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
    file.path = entry.path();
    file.name = pipeline.corpus_root + "/" + relative;
    file.relative_path = std::move(relative);
    listing.files.push_back(std::move(file));
  }
  std::sort(listing.files.begin(), listing.files.end(),
            [](const auto& a, const auto& b) { return a.relative_path < b.relative_path; });
  Digest digest;
  for (const auto& f : listing.files)
    digest.add(f.relative_path).add(static_cast<std::uint64_t>(f.size)).add(static_cast<std::uint64_t>(f.modified));
  listing.fingerprint = digest.hex();
  return listing;
}

std::optional<SourceFile> read_source(const CorpusEntry& entry, std::string& why) {
  std::string text = read_file(entry.path);
  if (text.find('\0') != std::string::npos) {
    why = "binary (NUL bytes)";
    return std::nullopt;
  }
  if (!utf8::is_valid(text)) {
    why = "not valid UTF-8";
    return std::nullopt;
  }
  return SourceFile(entry.name, entry.relative_path, std::move(text));
}

}  // namespace rag
