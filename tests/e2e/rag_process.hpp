#pragma once
// Running the real `rag` binary from the hardening tests: to completion (exit status, stdout,
// stderr), or in the background, to be killed or waited for.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace rag::testing {

struct Outcome {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

inline int decode_status(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw); }

// The shell command that runs `rag <args>` in `cwd`; `prefix` goes before `rag` (environment
// assignments, `ulimit -f 1 &&`, `setpriv ... --`).
inline std::string rag_command(const std::filesystem::path& cwd, const std::string& args, const std::string& prefix = "") {
  return "cd '" + cwd.string() + "' && " + prefix + " '" RAG_BINARY_DIR "/rag' " + args;
}

// Runs `rag <args>` in `cwd` through the shell (quote arguments as needed) and waits.
inline Outcome run_rag(const std::filesystem::path& cwd, const std::string& args, const std::string& prefix = "") {
  TempDir capture;
  // Appended piece by piece: `"(" + temporary` trips a false -Wrestrict of GCC 12 at -O3.
  std::string command = "(";
  command += rag_command(cwd, args, prefix);
  command += ") >'" + (capture / "out").string() + "' 2>'" + (capture / "err").string() + "'";
  Outcome r;
  r.status = decode_status(std::system(command.c_str()));
  r.out = read_all(capture / "out");
  r.err = read_all(capture / "err");
  return r;
}

// `rag <args>` running in the background, its output discarded (or its stderr written to
// `stderr_file`); killed when still running at destruction.
class BackgroundRag {
 public:
  BackgroundRag(const std::filesystem::path& cwd, const std::string& args, const std::string& stderr_file = "/dev/null") {
    // exec: the shell becomes rag, so that a kill reaches rag itself.
    const std::string command = rag_command(cwd, args, "exec") + " >/dev/null 2>'" + stderr_file + "'";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~BackgroundRag() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  BackgroundRag(const BackgroundRag&) = delete;
  BackgroundRag& operator=(const BackgroundRag&) = delete;

  bool started() const { return pid_ > 0; }
  /// True once the process has ended (reaped); does not block.
  bool finished() {
    if (done_) return true;
    int raw = 0;
    if (::waitpid(pid_, &raw, WNOHANG) == pid_) {
      done_ = true;
      status_ = decode_status(raw);
    }
    return done_;
  }
  void kill_now() { signal(SIGKILL); }
  void signal(int number) {
    if (!finished()) ::kill(pid_, number);
  }
  /// Waits for the end; the exit status (128 + signal when killed).
  int wait() {
    if (!done_) {
      int raw = 0;
      while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
      }
      done_ = true;
      status_ = decode_status(raw);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = -1;
};

}  // namespace rag::testing
