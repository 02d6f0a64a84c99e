#include "http_json_client.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>

#include "rag/error.hpp"
#include "rag/utf8.hpp"

namespace rag {

struct HttpJsonClient::Connection {
  explicit Connection(const std::string& scheme_host_port) : client(scheme_host_port) {}
  httplib::Client client;
};

// The deadline covers the whole exchange: httplib times each read alone, and a server that
// sends its head a byte at a time would hold the request as long as it liked. The watchdog also
// ends the exchange on cancel().
struct HttpJsonClient::Watchdog {
  std::mutex mutex;
  std::condition_variable wake;
  bool sent = false;
  bool cancelled = false;
  std::thread thread;
  ~Watchdog() {  // also when send() throws: a thread left joinable would end the process
    {
      const std::lock_guard lock(mutex);
      sent = true;
    }
    wake.notify_one();
    thread.join();
  }
};

void HttpJsonClient::cancel() {
  const std::lock_guard lock(under_way_mutex_);
  if (under_way_ == nullptr) return;
  {
    const std::lock_guard watchdog_lock(under_way_->mutex);
    under_way_->cancelled = true;
  }
  under_way_->wake.notify_one();
}

HttpJsonClient::HttpJsonClient(const std::string& base_url, double timeout_seconds, const std::string& where)
    : timeout_(timeout_seconds) {
  // scheme://host[:port][/prefix]; no user or password (a key goes in api_key_env, not in a URL
  // that messages print).
  static const std::regex url(R"(^(https?://([^/?#\s@:]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?)(/[^?#\s]*)?$)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(base_url, m, url) || (m[4].matched && (std::stoi(m[4].str()) < 1 || std::stoi(m[4].str()) > 65535)))
    throw Error(where + ": '" + (base_url.find('@') == std::string::npos ? base_url : "(a URL with a user or password)") +
                "' is not an http:// or https:// URL with a host and, if any, a port from 1 to 65535 and no user or password"
                " (like http://127.0.0.1:11434)");
  if (!(timeout_seconds > 0)) throw Error(where + ": the timeout must be a positive number of seconds");
  prefix_ = m[5].str();
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
  std::string origin = m[1].str();  // the scheme in lower case, as httplib reads it
  std::transform(origin.begin(), origin.begin() + static_cast<std::ptrdiff_t>(origin.find(':')), origin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  base_url_ = origin + prefix_;
  connection_ = std::make_unique<Connection>(origin);
  if (!connection_->client.is_valid()) throw Error(where + ": cannot use the URL '" + base_url + "'");
  const auto whole = static_cast<time_t>(timeout_seconds);
  const auto micros = static_cast<time_t>((timeout_seconds - static_cast<double>(whole)) * 1e6);
  connection_->client.set_connection_timeout(whole, micros);
  connection_->client.set_read_timeout(whole, micros);
  connection_->client.set_write_timeout(whole, micros);
  connection_->client.set_keep_alive(true);
  // Without it, a request's body waits behind its headers for the server's delayed ACK (~40 ms)
  // once the kept-alive connection has left TCP's quick-ACK start.
  connection_->client.set_tcp_nodelay(true);
}

HttpJsonClient::~HttpJsonClient() = default;

HttpReply HttpJsonClient::post(const std::string& path, const std::string& json, const Headers& headers,
                               const std::function<bool(std::string_view line)>& on_line) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };

  HttpReply reply;
  std::atomic<bool> deadline_passed = false;
  bool stopped_by_caller = false;
  bool too_large = false;
  std::string pending;  // a streamed line not yet complete

  httplib::Request request;
  request.method = "POST";
  request.path = prefix_ + path;
  for (const auto& [name, value] : headers) request.headers.emplace(name, value);
  request.headers.emplace("Accept", on_line ? "application/x-ndjson, text/event-stream" : "application/json");
  request.body = json;
  request.set_header("Content-Type", "application/json");
  request.response_handler = [&](const httplib::Response& response) {
    reply.status = response.status;
    return true;
  };
  request.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
    if (elapsed() > timeout_) {
      deadline_passed = true;
      return false;
    }
    if (!on_line || reply.status != 200) {
      if (reply.body.size() + size > kMaxReplyBytes) return !(too_large = true);
      reply.body.append(data, size);
      return true;
    }
    if (pending.size() + size > kMaxReplyBytes) return !(too_large = true);
    pending.append(data, size);
    std::size_t begin = 0;
    for (std::size_t end; (end = pending.find('\n', begin)) != std::string::npos; begin = end + 1) {
      std::string_view line(pending.data() + begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!on_line(utf8::repaired(line))) {
        stopped_by_caller = true;
        return false;
      }
    }
    pending.erase(0, begin);
    return true;
  };

  std::optional<httplib::Result> outcome;
  bool cancelled = false;
  {
    Watchdog watchdog;
    watchdog.thread = std::thread([&] {
      std::unique_lock lock(watchdog.mutex);
      if (watchdog.wake.wait_for(lock, std::chrono::duration<double>(timeout_), [&] { return watchdog.sent || watchdog.cancelled; })) {
        if (watchdog.sent) return;
      } else {
        deadline_passed = true;
      }
      // The read under way returns; stopped again until the exchange ends, since a stop that
      // comes before httplib has connected finds nothing to stop.
      do connection_->client.stop();
      while (!watchdog.wake.wait_for(lock, std::chrono::milliseconds(20), [&] { return watchdog.sent; }));
    });
    {
      const std::lock_guard lock(under_way_mutex_);
      under_way_ = &watchdog;
    }
    struct Done {  // also when send() throws
      HttpJsonClient& client;
      ~Done() {
        const std::lock_guard lock(client.under_way_mutex_);
        client.under_way_ = nullptr;
      }
    } done{*this};
    outcome.emplace(connection_->client.send(request));
    const std::lock_guard lock(watchdog.mutex);
    cancelled = watchdog.cancelled;
  }
  const httplib::Result& result = *outcome;
  if (cancelled) {
    reply.failure = HttpReply::Failure::cancelled;
    return reply;
  }
  if (stopped_by_caller) return reply;
  if (too_large) {
    reply.failure = HttpReply::Failure::too_large;
    return reply;
  }
  if (result && !deadline_passed) {
    if (on_line && reply.status == 200 && !pending.empty()) on_line(utf8::repaired(pending));  // a last line without '\n'
    if (!utf8::is_valid(reply.body)) reply.body = utf8::repaired(reply.body);
    return reply;
  }
  const httplib::Error error = result.error();
  reply.detail = httplib::to_string(error);
  // A read that gives up at the read timeout is reported as a read error: tell it by the clock.
  if (deadline_passed || (error == httplib::Error::Read && elapsed() >= timeout_ * 0.95))
    reply.failure = HttpReply::Failure::timed_out;
  else if (error == httplib::Error::Connection || error == httplib::Error::ConnectionTimeout ||
           error == httplib::Error::BindIPAddress)
    reply.failure = HttpReply::Failure::unreachable;
  else if (error == httplib::Error::SSLConnection || error == httplib::Error::SSLLoadingCerts ||
           error == httplib::Error::SSLServerVerification)
    reply.failure = HttpReply::Failure::tls;
  else
    reply.failure = HttpReply::Failure::cut_short;
  return reply;
}

}  // namespace rag
