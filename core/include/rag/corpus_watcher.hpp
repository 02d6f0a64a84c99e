#pragma once
// Following a corpus as it is edited (`rag index --watch`): inotify watches on the corpus folder
// and every folder below it, new ones as they appear, and on the files outside the corpus that
// its symbolic links to files point to (the listing reads them; their folders are not watched).
// Symbolic links to folders are not followed, as the corpus listing does not follow them; folders
// the corpus excludes whole (`**/.git/**`) are not watched, as the listing does not read them.
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rag {

class CorpusWatcher {
 public:
  /// Watches `root` and the folders below it, except those below `ignored` (an index folder
  /// inside the corpus) and those the corpus's `exclude` patterns exclude whole. Throws
  /// rag::Error when the folder cannot be watched (inotify's limit of watches, in
  /// /proc/sys/fs/inotify/max_user_watches, says how many folders can be).
  CorpusWatcher(std::filesystem::path root, std::vector<std::filesystem::path> ignored,
                std::vector<std::string> exclude = {});
  ~CorpusWatcher();
  CorpusWatcher(const CorpusWatcher&) = delete;
  CorpusWatcher& operator=(const CorpusWatcher&) = delete;

  enum class Wait { changed, stopped, idle };
  /// Waits for a change below the root, then for the changes that follow it to settle: returns
  /// once nothing more has happened for `quiet`, or `longest` after the first change, so that an
  /// editor's save (a temporary file, a rename) or a `git checkout` is taken as one batch.
  /// Returns `stopped` as soon as `stop_fd` becomes readable (a signalfd, say), and `idle` when
  /// `idle_after` (if not 0) passes with no change. Throws rag::Error when the root itself goes away.
  Wait wait_for_changes(std::chrono::milliseconds quiet, std::chrono::milliseconds longest, int stop_fd,
                        std::chrono::milliseconds idle_after = std::chrono::milliseconds(0));

  std::size_t folders() const { return folders_.size(); }
  /// Files outside the corpus watched through the links that point to them.
  std::size_t linked_files() const { return linked_.size(); }

 private:
  /// Whether `path` is below one of the ignored folders.
  bool ignored(const std::filesystem::path& path) const;
  /// Whether `folder` is one the corpus excludes whole.
  bool excluded(const std::filesystem::path& folder) const;
  void watch_tree(const std::filesystem::path& folder);
  /// Watches the file `link` points to when it is a link to a file outside the corpus (and no
  /// longer the file it pointed to before).
  void watch_link(const std::filesystem::path& link);
  /// Forgets `link`; a file no link points to any more is no longer watched.
  void forget_link(const std::filesystem::path& link);
  /// Reads the pending events; true when one of them is a change of the corpus.
  bool read_events();

  std::filesystem::path root_;
  std::vector<std::filesystem::path> ignored_;
  std::vector<std::string> exclude_;
  int fd_ = -1;
  std::map<int, std::filesystem::path> folders_;  // watch descriptor -> folder
  std::map<int, std::set<std::filesystem::path>> linked_;  // watch descriptor -> the links to the file it watches
};

}  // namespace rag
