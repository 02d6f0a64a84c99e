#pragma once
// `rag serve --port 0` run by a test: started in a folder, its port read from the first line on
// stderr ("listening on http://HOST:PORT"), stopped with a signal, its exit status and log read
// back. Bounded in time: a server that does not come up in 20 s fails the test.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "e2e/rag_process.hpp"

namespace rag::testing {

class ServeProcess {
 public:
  /// Starts `rag serve --port 0 <args>` in `cwd`; `prefix` goes before the program (environment
  /// assignments). Throws std::runtime_error when it exits or stays silent.
  ServeProcess(const std::filesystem::path& cwd, const std::string& args, const std::string& prefix = "")
      : log_(scratch_ / "stderr") {
    const std::string command = rag_command(cwd, "serve --port 0 " + args, prefix + " exec") + " 2>'" + log_.string() + "'";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string text = read_all(log_);
      const auto at = text.find("listening on http://");
      const auto end = text.find('\n', at);
      if (at == 0 && end != std::string::npos) {
        const std::string address = text.substr(20, end - 20);
        port_ = std::stoi(address.substr(address.rfind(':') + 1));
        host_ = address.substr(0, address.rfind(':'));
        return;
      }
      if (finished()) throw std::runtime_error("rag serve exited with " + std::to_string(status_) + ": " + text);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("rag serve did not say where it listens within 20 s: " + read_all(log_));
  }
  ~ServeProcess() {
    if (pid_ > 0 && !finished()) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  const std::string& host() const { return host_; }
  std::string url() const { return "http://" + host_ + ":" + std::to_string(port_); }
  /// Everything it wrote on stderr so far: the listening line, then a JSON line per request.
  std::string log() const { return read_all(log_); }

  void signal(int number) { ::kill(pid_, number); }
  bool finished() {
    if (done_) return true;
    int raw = 0;
    if (::waitpid(pid_, &raw, WNOHANG) == pid_) {
      done_ = true;
      status_ = decode_status(raw);
    }
    return done_;
  }
  /// Waits at most `limit` for the end; the exit status, or -1 when it is still running.
  int wait(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!finished() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done_ ? status_ : -1;
  }

 private:
  TempDir scratch_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = -1;
  int port_ = 0;
  std::string host_;
};

}  // namespace rag::testing
