#pragma once
// What the HTTP generators share: a JSON POST to a model server with a deadline on the whole
// exchange, the reply read whole or line by line as it streams, and the ways an exchange can fail
// told apart, so that each generator can say what to do about them.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rag {

struct HttpReply {
  enum class Failure {
    none,         ///< a whole reply arrived (any status)
    unreachable,  ///< no connection: nothing listens there, or the host does not answer
    tls,          ///< a connection, but no TLS session over it (plain HTTP there, a certificate not trusted)
    timed_out,    ///< no complete reply within the timeout
    cut_short,    ///< the connection broke after the reply had started
    too_large,    ///< the reply (or one streamed line) passed HttpJsonClient::kMaxReplyBytes
    cancelled,    ///< cancel() stopped it
  };
  Failure failure = Failure::none;
  std::string detail;  ///< the transport's own words, for messages
  int status = 0;      ///< HTTP status, once the reply's head arrived
  std::string body;    ///< the body; for a streamed 200 reply, empty (its lines went to the callback)
};

class HttpJsonClient {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  /// The most of a reply kept (a whole body, or one streamed line): an answer is a few KiB, and
  /// an endpoint that streams without end (a proxy, a file server) must not fill the memory.
  static constexpr std::size_t kMaxReplyBytes = 16 << 20;

  /// `base_url` is "http://host:port" or "https://host:port", with an optional path prefix
  /// ("http://127.0.0.1:8000/v1"). Throws rag::Error "<where>: ..." when it is not such a URL or
  /// the timeout is not positive. Keeps the connection open between requests.
  HttpJsonClient(const std::string& base_url, double timeout_seconds, const std::string& where);
  ~HttpJsonClient();
  HttpJsonClient(const HttpJsonClient&) = delete;
  HttpJsonClient& operator=(const HttpJsonClient&) = delete;

  /// POSTs `json` to the prefix + `path`. With `on_line`, the body of a 200 reply is handed over
  /// line by line as it arrives (newline-delimited JSON, server-sent events), without the line
  /// ends; on_line returns false to stop reading. Bytes that are not UTF-8, in the body or a line,
  /// come as U+FFFD: a bad byte of a model's reply costs a character, not the answer.
  HttpReply post(const std::string& path, const std::string& json, const Headers& headers,
                 const std::function<bool(std::string_view line)>& on_line = {});

  /// Stops a post() under way on another thread: it returns with Failure::cancelled. Nothing
  /// when none is under way.
  void cancel();

  const std::string& base_url() const { return base_url_; }
  double timeout_seconds() const { return timeout_; }

 private:
  struct Connection;
  struct Watchdog;
  std::string base_url_;
  std::string prefix_;
  double timeout_;
  std::unique_ptr<Connection> connection_;
  std::mutex under_way_mutex_;
  Watchdog* under_way_ = nullptr;  // the post() under way's, for cancel()
};

}  // namespace rag
