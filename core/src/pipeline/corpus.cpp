#include "rag/corpus.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

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
    // Size and time from one stat (file_size and last_write_time would make one each).
    struct stat status {};
    if (::stat(entry.path().c_str(), &status) != 0) {
      listing.notes.push_back(relative + ": skipped (" + std::error_code(errno, std::generic_category()).message() + ")");
      continue;
    }
    CorpusEntry file;
    file.size = static_cast<std::uintmax_t>(status.st_size);
    // As last_write_time gives it: the file clock, not the system clock.
    const auto time = std::chrono::file_clock::from_sys(std::chrono::sys_time<std::chrono::nanoseconds>(
        std::chrono::seconds(status.st_mtim.tv_sec) + std::chrono::nanoseconds(status.st_mtim.tv_nsec)));
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

namespace {

// "3 changed (a, b, c, ...)": nothing for an empty list.
std::string describe_list(const std::vector<std::string>& paths, const char* what, std::size_t shown) {
  if (paths.empty()) return "";
  std::string out = std::to_string(paths.size()) + " " + what + " (";
  for (std::size_t i = 0; i < paths.size() && i < shown; ++i) out += (i ? ", " : "") + paths[i];
  return out + (paths.size() > shown ? ", ...)" : ")");
}

}  // namespace

std::uint64_t content_digest(std::string_view bytes) { return std::max<std::uint64_t>(1, Digest().add(bytes).value()); }

SourceRead read_source(const CorpusEntry& entry) {
  SourceRead read;
  std::string text = read_file(entry.path);
  read.digest = content_digest(text);
  if (text.find('\0') != std::string::npos) {
    read.why = "binary (NUL bytes)";
  } else if (!utf8::is_valid(text)) {
    read.why = "not valid UTF-8";
  } else {
    read.file.emplace(entry.name, entry.relative_path, std::move(text));
  }
  return read;
}

std::string CorpusChanges::describe(std::size_t shown) const {
  std::string out;
  for (const auto& part : {describe_list(changed, "changed", shown), describe_list(added, "added", shown),
                           describe_list(removed, "removed", shown)})
    if (!part.empty()) out += (out.empty() ? "" : ", ") + part;
  return out;
}

CorpusChanges compare_corpus(const CorpusSnapshot& snapshot, const CorpusListing& now) {
  CorpusChanges changes;
  // Both lists are sorted by path: walk them side by side.
  auto then = snapshot.files.begin();
  auto current = now.files.begin();
  while (then != snapshot.files.end() || current != now.files.end()) {
    if (current == now.files.end() || (then != snapshot.files.end() && then->relative_path < current->relative_path)) {
      changes.removed.push_back((then++)->relative_path);
    } else if (then == snapshot.files.end() || current->relative_path < then->relative_path) {
      changes.added.push_back((current++)->relative_path);
    } else {
      bool same = then->size == current->size && then->modified == current->modified;
      if (!same && then->size == current->size && then->digest != 0) {
        try {
          same = content_digest(read_file(current->path)) == then->digest;
        } catch (const Error&) {
          // unreadable now: changed
        }
      }
      if (!same) changes.changed.push_back(current->relative_path);
      ++then;
      ++current;
    }
  }
  return changes;
}

}  // namespace rag
