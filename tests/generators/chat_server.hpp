#pragma once
// A chat server for the generator tests, on 127.0.0.1 and an ephemeral port: it records the
// JSON bodies it is sent and answers through the test's handler. Handlers that must be slow wait
// with wait_for_release(), which the destructor ends, so no test waits longer than it means to.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace rag::testing {

class ChatServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  /// Serves POST `path` with `handler`.
  ChatServer(const std::string& path, Handler handler) {
    server_.set_keep_alive_timeout(1);
    server_.Post(path, [this, handler = std::move(handler)](const httplib::Request& request, httplib::Response& response) {
      {
        std::lock_guard lock(mutex_);
        bodies_.push_back(nlohmann::json::parse(request.body, nullptr, false));
        headers_.push_back(request.headers);
      }
      handler(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("the test server cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ChatServer() {
    release();
    server_.stop();
    thread_.join();
  }
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  /// The JSON bodies received so far (a body that is not JSON is recorded as discarded).
  std::vector<nlohmann::json> bodies() const {
    std::lock_guard lock(mutex_);
    return bodies_;
  }
  std::vector<httplib::Headers> headers() const {
    std::lock_guard lock(mutex_);
    return headers_;
  }

  /// For handlers: blocks until release() or `limit` passes.
  void wait_for_release(std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    released_cv_.wait_for(lock, limit, [this] { return released_; });
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    released_cv_.notify_all();
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::vector<nlohmann::json> bodies_;
  std::vector<httplib::Headers> headers_;
};

/// A server that misbehaves below HTTP, on 127.0.0.1 and an ephemeral port: for each connection
/// it reads the request's head and body (by Content-Length), then hands the socket to `reply`,
/// which writes what it likes; `stopping()` says when to give up (the destructor).
class RawServer {
 public:
  using Reply = std::function<void(int socket, const RawServer& server)>;

  explicit RawServer(Reply reply) : reply_(std::move(reply)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        ::listen(listener_, 8) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
      throw std::runtime_error("the raw test server cannot listen on 127.0.0.1");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int client = ::accept(listener_, nullptr, nullptr);
        if (client < 0 || stopping_) {
          if (client >= 0) ::close(client);
          return;
        }
        read_request(client);
        reply_(client, *this);
        ::close(client);
      }
    });
  }
  ~RawServer() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool stopping() const { return stopping_; }

 private:
  static void read_request(int client) {
    std::string data;
    char buffer[4096];
    std::size_t body = std::string::npos;
    while (body == std::string::npos || data.size() < body) {
      const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0) return;
      data.append(buffer, static_cast<std::size_t>(n));
      const auto head = data.find("\r\n\r\n");
      if (body == std::string::npos && head != std::string::npos) {
        const auto length = data.find("Content-Length: ");
        body = head + 4 + (length == std::string::npos ? 0 : std::stoul(data.substr(length + 16)));
      }
    }
  }

  Reply reply_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_ = false;
  std::thread thread_;
};

/// A port on 127.0.0.1 where nothing listens: bound, then let go.
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0)
    throw std::runtime_error("cannot find a free port on 127.0.0.1");
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace rag::testing
