#pragma once
// The HTTP side of `rag serve` (cpp-httplib): the routes of docs/http-api.md over a Service, the
// web page, and what keeps a server on the open network sane: a bearer token, limits on bodies,
// requests in flight and connections waiting, timeouts, JSON errors, a log line per request and
// metrics.
#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <fstream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "rag/metrics.hpp"
#include "rag/service.hpp"

namespace rag::cli {

struct HttpLimits {
  std::size_t threads = 16;          ///< workers; each serves one connection at a time
  std::size_t max_in_flight = 16;    ///< requests handled at once; more get 503
  std::size_t max_waiting = 64;      ///< connections waiting for a worker; more get 503 at once
  std::size_t max_body_bytes = 64 * 1024;
  std::chrono::seconds request_timeout{120};
};

/// One JSON line per request, to stderr or a file. Thread-safe.
class RequestLog {
 public:
  /// Appends to `file`, or writes to stderr when it is empty. Throws rag::Error when the file
  /// cannot be opened.
  explicit RequestLog(const std::string& file);
  void write(const std::string& line);
  /// A note for operators ("now on index generation ..."), as a log line of its own.
  void note(const std::string& text);

 private:
  std::mutex mutex_;
  std::ofstream file_;
  std::ostream* out_;
};

class HttpApi {
 public:
  /// Sets up `server` (routes, handlers, socket options, timeouts, its worker queue) to serve
  /// `service`. `token` empty means no token is asked for; `cors_origin` empty sends no CORS
  /// headers. All references must outlive the server's run.
  HttpApi(httplib::Server& server, Service& service, Metrics& metrics, RequestLog& log, HttpLimits limits,
          std::string token, std::string cors_origin);

  /// Listens on `host`:`port` (0: a free port). Returns the port, or -1 when it cannot.
  int bind(const std::string& host, int port);

 private:
  void route(httplib::Server& server);
  httplib::Server::HandlerResponse before(const httplib::Request& request, httplib::Response& response);
  void after(const httplib::Request& request, const httplib::Response& response);
  void answer(const httplib::Request& request, httplib::Response& response);

  httplib::Server& server_;
  Service& service_;
  Metrics& metrics_;
  RequestLog& log_;
  HttpLimits limits_;
  std::string token_;
  std::string cors_origin_;
  int listen_socket_ = -1;
};

}  // namespace rag::cli
