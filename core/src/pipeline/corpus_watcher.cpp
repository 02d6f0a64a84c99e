#include "rag/corpus_watcher.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/glob.hpp"

namespace rag {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// What changes a file's content or the set of files; reads and plain opens do not. IN_MODIFY
// too: a file cut by truncate(2) is never closed, and one written through a descriptor held open
// (a log) is closed late; the debounce of wait_for_changes batches its writes.
constexpr std::uint32_t kEvents = IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                  IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;

}  // namespace

CorpusWatcher::CorpusWatcher(fs::path root, std::vector<fs::path> ignored, std::vector<std::string> exclude)
    : root_(std::move(root)), ignored_(std::move(ignored)), exclude_(std::move(exclude)) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw Error(std::string("cannot watch the corpus: inotify is not available (") + std::strerror(errno) + ")");
  try {
    watch_tree(root_);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

CorpusWatcher::~CorpusWatcher() { ::close(fd_); }

bool CorpusWatcher::ignored(const fs::path& path) const {
  return std::any_of(ignored_.begin(), ignored_.end(), [&](const fs::path& i) { return is_within(path, i); });
}

bool CorpusWatcher::excluded(const fs::path& folder) const {
  return folder != root_ && excludes_folder(exclude_, folder.lexically_relative(root_).generic_string());
}

void CorpusWatcher::watch_tree(const fs::path& folder) {
  std::vector<fs::path> pending = {folder};
  while (!pending.empty()) {
    const fs::path current = pending.back();
    pending.pop_back();
    if (ignored(current) || excluded(current)) continue;
    const int wd = ::inotify_add_watch(fd_, current.c_str(), kEvents | IN_ONLYDIR | IN_DONT_FOLLOW);
    if (wd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) continue;  // gone again already
      throw Error("cannot watch " + current.string() + " (" + std::strerror(errno) + ")" +
                  (errno == ENOSPC ? "; raise /proc/sys/fs/inotify/max_user_watches" : ""));
    }
    folders_[wd] = current;
    std::error_code ec;
    for (fs::directory_iterator it(current, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->is_symlink(ec)) watch_link(it->path());
      else if (it->is_directory(ec)) pending.push_back(it->path());
    }
  }
}

void CorpusWatcher::forget_link(const fs::path& link) {
  for (auto it = linked_.begin(); it != linked_.end();) {
    it->second.erase(link);
    if (it->second.empty()) {
      ::inotify_rm_watch(fd_, it->first);
      it = linked_.erase(it);
    } else {
      ++it;
    }
  }
}

void CorpusWatcher::watch_link(const fs::path& link) {
  forget_link(link);  // retargeted (ln -sfn): its old file is not followed any more
  std::error_code ec;
  if (!fs::is_regular_file(link, ec)) return;  // a link to a folder, or to nothing
  const fs::path target = fs::weakly_canonical(link, ec);
  if (ec) return;
  if (is_within(target, root_)) return;  // inside: its folder is watched
  const int wd = ::inotify_add_watch(fd_, link.c_str(), kEvents);  // follows the link
  if (wd >= 0) linked_[wd].insert(link);
}

bool CorpusWatcher::read_events() {
  alignas(inotify_event) char buffer[64 * 1024];
  bool changed = false;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n <= 0) break;  // EAGAIN: nothing more for now
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      const auto folder = folders_.find(e->wd);
      if (e->mask & IN_Q_OVERFLOW) {
        changed = true;  // events were lost: the next index finds out what changed
        continue;
      }
      if (const auto linked = linked_.find(e->wd); linked != linked_.end()) {
        // A file linked from the corpus changed. Replaced (an editor's save renames a new file
        // over it), its watch ends: the link's new target is watched instead.
        if (e->mask & IN_IGNORED) {
          const std::set<fs::path> links = linked->second;
          linked_.erase(linked);
          for (const fs::path& link : links) watch_link(link);
        }
        changed = true;
        continue;
      }
      if (folder == folders_.end()) continue;
      if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        if (folder->second == root_) throw Error("the corpus folder " + root_.string() + " was removed or moved");
        continue;
      }
      if (e->mask & IN_IGNORED) {
        folders_.erase(folder);
        continue;
      }
      const fs::path path = e->len ? folder->second / e->name : folder->second;
      if (ignored(path) || ((e->mask & IN_ISDIR) && excluded(path))) continue;
      if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && (e->mask & IN_ISDIR)) watch_tree(path);
      else if (e->mask & (IN_CREATE | IN_MOVED_TO)) watch_link(path);
      else if (e->mask & (IN_DELETE | IN_MOVED_FROM)) forget_link(path);
      changed = true;
    }
  }
  return changed;
}

CorpusWatcher::Wait CorpusWatcher::wait_for_changes(std::chrono::milliseconds quiet, std::chrono::milliseconds longest,
                                                    int stop_fd, std::chrono::milliseconds idle_after) {
  std::optional<Clock::time_point> first, last;
  const auto idle_at = Clock::now() + idle_after;
  for (;;) {
    int timeout = -1;
    if (!first && idle_after.count() > 0) {
      const auto now = Clock::now();
      if (now >= idle_at) return Wait::idle;
      timeout = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(idle_at - now).count()) + 1;
    }
    if (first) {
      const auto now = Clock::now();
      const auto until = std::min(*last + quiet, *first + longest);
      if (now >= until) return Wait::changed;
      timeout = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR) throw Error(std::string("watching the corpus failed: ") + std::strerror(errno));
    if (fds[1].revents & POLLIN) return Wait::stopped;
    if ((fds[0].revents & POLLIN) && read_events()) {
      last = Clock::now();
      if (!first) first = last;
    }
  }
}

}  // namespace rag
