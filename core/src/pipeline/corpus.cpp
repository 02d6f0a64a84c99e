#include "rag/corpus.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <memory>
#include <tuple>

#include "rag/checksum.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/glob.hpp"
#include "rag/project.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;

namespace {

using Folder = std::unique_ptr<DIR, int (*)(DIR*)>;

// A walk of the corpus folder `root` (ending in '/') into `listing`, with `index_folder` (the index's
// path below the root, "" when it is elsewhere) left out.
struct Walk {
  const std::string& root;
  const Pipeline& pipeline;
  const std::string& index_folder;
  CorpusListing& listing;
  /// For each of listing.files, in the same order: the file it is (device and inode) and whether
  /// it was reached through a symbolic link.
  struct Identity {
    dev_t device;
    ino_t inode;
    bool link;
  };
  std::vector<Identity> identities;
};

// Lists the folder open as `fd` and the folders below it; `prefix` is its path below the corpus
// folder ("" or ending in '/'). Names are looked up and stat'ed relative to their folder's
// descriptor: a path from the root would make the kernel walk every component again for each of
// the thousands of files, the larger part of a no-op `rag index`. Symbolic links to folders are
// not followed (so link loops are harmless); links to files are taken as the files.
void list_folder(int fd, const std::string& prefix, Walk& walk) {
  const Pipeline& pipeline = walk.pipeline;
  CorpusListing& listing = walk.listing;
  const Folder folder(::fdopendir(fd), ::closedir);
  if (!folder) {
    ::close(fd);
    listing.notes.push_back("skipped a folder: " + (prefix.empty() ? "." : prefix) + " (" +
                            std::error_code(errno, std::generic_category()).message() + ")");
    return;
  }
  const auto matches = [](const std::vector<std::string>& patterns, const std::string& path) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_match(p, path); });
  };
  // A file the corpus takes in, by its include and exclude patterns.
  const auto selected = [&](const std::string& path) { return matches(pipeline.include, path) && !matches(pipeline.exclude, path); };
  while (const dirent* entry = ::readdir(folder.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::string relative = prefix + std::string(name);
    unsigned char type = entry->d_type;
    struct stat status {};
    const bool stated = type == DT_UNKNOWN || type == DT_LNK;  // some file systems give no type
    bool via_link = false;
    if (stated) {
      bool link = type == DT_LNK;
      int failed = ::fstatat(fd, entry->d_name, &status, link ? 0 : AT_SYMLINK_NOFOLLOW);
      if (failed == 0 && !link && S_ISLNK(status.st_mode)) {  // a file system that gives no type
        link = true;
        failed = ::fstatat(fd, entry->d_name, &status, 0);
      }
      if (failed != 0) {
        const int error = errno;
        if (!link)
          listing.notes.push_back(relative + ": skipped (" + std::error_code(error, std::generic_category()).message() + ")");
        else if (selected(relative))
          listing.notes.push_back(relative + ": skipped, a symbolic link that leads to no file (" +
                                  std::error_code(error, std::generic_category()).message() + ")");
        continue;
      }
      via_link = link;
      type = S_ISREG(status.st_mode) ? DT_REG : S_ISDIR(status.st_mode) && !link ? DT_DIR : DT_UNKNOWN;
    }
    if (type == DT_DIR) {
      // The index inside the corpus would index itself; a folder excluded whole (.git) is not read.
      if (relative == walk.index_folder || excludes_folder(pipeline.exclude, relative)) continue;
      const int child = ::openat(fd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) list_folder(child, relative + "/", walk);
      else  // part of the corpus that cannot be read is not indexed
        listing.notes.push_back("skipped a folder: " + relative + " (" + std::error_code(errno, std::generic_category()).message() + ")");
      continue;
    }
    if (!selected(relative)) continue;
    if (type != DT_REG) {  // a pipe, a socket, a device: nothing to read as a file (a link to a folder is not followed)
      if (type != DT_DIR && !(stated && S_ISDIR(status.st_mode)))
        listing.notes.push_back(relative + ": skipped, not a regular file");
      continue;
    }
    if (!stated && ::fstatat(fd, entry->d_name, &status, 0) != 0) {
      listing.notes.push_back(relative + ": skipped (" + std::error_code(errno, std::generic_category()).message() + ")");
      continue;
    }
    CorpusEntry file;
    file.size = static_cast<std::uintmax_t>(status.st_size);
    if (file.size > pipeline.max_file_bytes) {
      listing.notes.push_back(relative + ": skipped, " + std::to_string(file.size) + " bytes is over corpus.max_file_size");
      continue;
    }
    file.changed = file_time(status.st_ctim.tv_sec, status.st_ctim.tv_nsec);
    file.path = walk.root + relative;  // not a std::filesystem::path: that splits and stores every component
    file.name = pipeline.corpus_root + "/" + relative;
    file.relative_path = std::move(relative);
    listing.files.push_back(std::move(file));
    walk.identities.push_back({status.st_dev, status.st_ino, via_link});
  }
}

// Leaves out the files reached through a symbolic link to a file the walk also found under
// another name: under its own name, else through another link, first in path order (the same
// text twice would take two places of every result list). Hard links are files of their own.
void drop_linked_copies(Walk& walk) {
  if (std::none_of(walk.identities.begin(), walk.identities.end(), [](const Walk::Identity& id) { return id.link; }))
    return;  // the usual case, at no cost
  std::vector<CorpusEntry>& files = walk.listing.files;
  const auto key = [&](std::size_t i) { return std::pair(walk.identities[i].device, walk.identities[i].inode); };
  // Each file's name in the index: its own name before a link's, then the first in path order.
  const auto rank = [&](std::size_t i) { return std::tie(walk.identities[i].link, files[i].relative_path); };
  std::map<std::pair<dev_t, ino_t>, std::size_t> indexed_as;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (const auto [at, first] = indexed_as.emplace(key(i), i); !first && rank(i) < rank(at->second)) at->second = i;
  std::vector<bool> skipped(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::size_t as = indexed_as.at(key(i));
    if (!walk.identities[i].link || as == i) continue;
    skipped[i] = true;
    std::string note = files[i].relative_path + ": skipped, a symbolic link to ";
    note += walk.identities[as].link ? "the file " + files[as].relative_path + " also leads to, indexed as " +
                                           files[as].relative_path
                                     : files[as].relative_path + ", indexed under its own name";
    walk.listing.notes.push_back(std::move(note));
  }
  std::vector<CorpusEntry> kept;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!skipped[i]) kept.push_back(std::move(files[i]));
  files = std::move(kept);
}

}  // namespace

CorpusListing list_corpus(const Pipeline& pipeline) {
  const fs::path& root = pipeline.corpus_dir;
  std::error_code ec;
  if (!fs::exists(root, ec))
    throw Error("corpus folder " + display_path(root) + " (corpus.root in " + pipeline.label() +
                ") does not exist; point corpus.root at your repository (the vLLM corpus of this project's own "
                "pipelines is unpacked by scripts/setup.sh)");
  if (!fs::is_directory(root, ec))
    throw Error("corpus.root " + display_path(root) + " in " + pipeline.label() + " is not a folder");
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw Error("cannot read corpus folder " + display_path(root) + ": " +
                std::error_code(errno, std::generic_category()).message());

  // The index folder's path below the corpus folder, if it is there ("" if not).
  const fs::path inside = pipeline.index_dir.lexically_normal().lexically_relative(root.lexically_normal());
  std::string index_folder = inside.empty() || *inside.begin() == ".." ? "" : inside.generic_string();
  while (index_folder.ends_with('/')) index_folder.pop_back();
  CorpusListing listing;
  const std::string root_folder = (root / "").native();
  Walk walk{root_folder, pipeline, index_folder, listing, {}};
  list_folder(fd, "", walk);
  drop_linked_copies(walk);
  std::sort(listing.files.begin(), listing.files.end(),
            [](const auto& a, const auto& b) { return a.relative_path < b.relative_path; });
  Digest digest;
  for (const auto& f : listing.files)
    digest.add(f.relative_path).add(static_cast<std::uint64_t>(f.size)).add(static_cast<std::uint64_t>(f.changed));
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

std::int64_t file_time(std::int64_t seconds, std::int64_t nanoseconds) {
  const auto time = std::chrono::file_clock::from_sys(
      std::chrono::sys_time<std::chrono::nanoseconds>(std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanoseconds)));
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

bool holds_content(const std::filesystem::path& path, std::uint64_t digest) {
  if (digest == 0) return false;
  try {
    return content_digest(read_file(path)) == digest;
  } catch (const Error&) {
    return false;  // unreadable now
  }
}

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
      const bool same = then->size == current->size &&
                        (then->changed == current->changed || holds_content(current->path, then->digest));
      if (!same) changes.changed.push_back(current->relative_path);
      ++then;
      ++current;
    }
  }
  return changes;
}

}  // namespace rag
