#include "http_api.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "page_assets.hpp"
#include "rag/error.hpp"
#include "rag/responses.hpp"
#include "rag/utf8.hpp"

namespace rag::cli {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kFormType = "application/x-www-form-urlencoded";
constexpr const char* kTooLate = "the answer took longer than the server's request timeout (--request-timeout)";

// Whether an Accept header takes text/event-stream: one of its media ranges names it (in any case)
// with a weight above 0 ("text/event-stream;q=0" refuses it).
bool accepts_event_stream(std::string_view accept) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  for (std::size_t begin = 0; begin <= accept.size();) {
    const std::size_t end = std::min(accept.find(',', begin), accept.size());
    const std::string_view range = accept.substr(begin, end - begin);
    begin = end + 1;
    const std::size_t semicolon = std::min(range.find(';'), range.size());
    if (utf8::lower(trim(range.substr(0, semicolon))) != "text/event-stream") continue;
    double weight = 1;
    for (std::size_t p = semicolon; p < range.size();) {
      const std::size_t next = std::min(range.find(';', p + 1), range.size());
      const std::string parameter = utf8::lower(trim(range.substr(p + 1, next - p - 1)));
      if (parameter.starts_with("q=")) weight = std::strtod(parameter.c_str() + 2, nullptr);
      p = next;
    }
    if (weight > 0) return true;
  }
  return false;
}

// Set on the thread that answers a connection the queue had no room for: every request on it
// gets 503 at once, so that a flood is refused quickly instead of piling up unboundedly.
thread_local bool t_shedding = false;

// A worker pool whose queue of waiting connections is bounded (httplib's own grows without
// limit, and each kept-alive or streaming connection holds a worker). Past the bound, connections
// go to one shedding thread that answers them 503.
class BoundedQueue final : public httplib::TaskQueue {
 public:
  BoundedQueue(std::size_t workers, std::size_t max_waiting) : max_waiting_(max_waiting) {
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(jobs_, false); });
    threads_.emplace_back([this] { work(shed_, true); });
  }
  ~BoundedQueue() override = default;

  void enqueue(std::function<void()> job) override {
    {
      const std::lock_guard lock(mutex_);
      (jobs_.size() < max_waiting_ ? jobs_ : shed_).push_back(std::move(job));
    }
    ready_.notify_all();
  }

  void shutdown() override {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work(std::deque<std::function<void()>>& queue, bool shedding) {
    t_shedding = shedding;
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue.empty(); });
        if (queue.empty()) return;  // stopping, and nothing left to finish
        job = std::move(queue.front());
        queue.pop_front();
      }
      job();
    }
  }

  std::size_t max_waiting_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::deque<std::function<void()>> shed_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What the log line of the request being handled on this thread says; httplib handles a request
// on one thread from routing to logging.
struct RequestRecord {
  bool counted = false;  // in flight, to be counted out
  std::string id;
  Clock::time_point start;
  json fields = json::object();
};
thread_local RequestRecord t_request;

std::atomic<unsigned long long> g_request_number{0};

// The routes and their methods, for 404 against 405.
const std::vector<std::pair<std::string, std::string>>& routes() {
  static const std::vector<std::pair<std::string, std::string>> all = {
      {"/healthz", "GET"},      {"/metrics", "GET"},    {"/api/pipelines", "GET"}, {"/api/search", "GET"},
      {"/api/answer", "POST"},  {"/api/source", "GET"}};
  return all;
}

bool is_page(const std::string& path) {
  for (std::size_t i = 0; i < kPageAssetCount; ++i)
    if (kPageAssets[i].path == path) return true;
  return false;
}

// The method of the route at `path`, or null when no route is there.
const std::string* route_method(const std::string& path) {
  for (const auto& [route, method] : routes())
    if (route == path) return &method;
  return nullptr;
}

void send_json(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(json_text(body), "application/json");
}

void send_error(httplib::Response& response, int status, const std::string& message) {
  t_request.fields["error"] = message;
  send_json(response, status, {{"error", message}});
}

// An error refused before the request's body was read: the connection is closed after it, or the
// unread body would be taken for the next request. (httplib closes a connection whose response
// fails to write: the provider writes the whole body, then reports a failure.)
void refuse(httplib::Response& response, int status, const std::string& message) {
  t_request.fields["error"] = message;
  response.status = status;
  response.set_header("Connection", "close");
  const auto body = std::make_shared<const std::string>(json_text(json{{"error", message}}));
  response.set_content_provider(body->size(), "application/json",
                                [body](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                  sink.write(body->data() + offset, length);
                                  return false;
                                });
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Compares in time that does not depend on where the two differ.
bool same_secret(std::string_view given, std::string_view expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i)
    difference |= static_cast<unsigned char>(given[i] ^ expected[i % (expected.empty() ? 1 : expected.size())]);
  return difference == 0 && !expected.empty();
}

// The first value of the query parameter `name`, decoded, read from the request target: Debian's
// cpp-httplib (0.11) keeps what follows a pair's last '=' ("q=tensor_parallel_size=2" gives "2"),
// where a value runs from its first '=' to the next '&'.
std::optional<std::string> param(const httplib::Request& request, std::string_view name) {
  const std::size_t query = request.target.find('?');
  if (query == std::string::npos) return std::nullopt;
  const std::string_view pairs = std::string_view(request.target).substr(query + 1);
  for (std::size_t begin = 0; begin <= pairs.size();) {
    const std::size_t end = std::min(pairs.find('&', begin), pairs.size());
    const std::string_view pair = pairs.substr(begin, end - begin);
    const std::size_t equals = std::min(pair.find('='), pair.size());
    if (httplib::detail::decode_url(std::string(pair.substr(0, equals)), true) == name)
      return httplib::detail::decode_url(std::string(pair.substr(std::min(equals + 1, pair.size()))), true);
    begin = end + 1;
  }
  return std::nullopt;
}

std::optional<long long> integer_param(const httplib::Request& request, const char* name) {
  const std::optional<std::string> given = param(request, name);
  if (!given) return std::nullopt;
  const std::string& text = *given;
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw RequestError(400, std::string(name) + " must be a whole number, got '" + text + "'");
  return value;
}

// A member of the request's JSON body, of the type asked for.
template <class T>
std::optional<T> body_field(const json& body, const char* name) {
  if (!body.contains(name) || body[name].is_null()) return std::nullopt;
  const json& value = body[name];
  if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) throw RequestError(400, std::string(name) + " must be a string");
  } else {
    // 5.0 is the whole number 5, as the grader reads a results file's (Python writes a float 5 so).
    if (value.is_number_float()) {
      const double number = value.get<double>();
      if (std::isfinite(number) && number == std::floor(number) && std::fabs(number) < 1e15)
        return static_cast<T>(number);
    }
    if (!value.is_number_integer()) throw RequestError(400, std::string(name) + " must be a whole number");
  }
  return value.get<T>();
}

// The stream's reader went away (or the request ran out of time): the work stops.
struct StreamStopped {
  std::string why;  // empty when the client left, which nobody is told about
};

}  // namespace

// --- RequestLog --------------------------------------------------------------------------------

RequestLog::RequestLog(const std::string& file) : out_(&std::cerr) {
  if (file.empty()) return;
  file_.open(file, std::ios::app);
  if (!file_)
    throw Error(file + ": cannot open the log file for appending (" + std::strerror(errno) +
                "); choose a file you can write to");
  out_ = &file_;
}

void RequestLog::write(const std::string& line) {
  const std::lock_guard lock(mutex_);
  *out_ << line << std::endl;
}

void RequestLog::note(const std::string& text) { write(json_text(json{{"time", utc_now()}, {"note", text}})); }

// --- HttpApi -----------------------------------------------------------------------------------

HttpApi::HttpApi(httplib::Server& server, Service& service, Metrics& metrics, RequestLog& log, HttpLimits limits,
                 std::string token, std::string cors_origin)
    : server_(server),
      service_(service),
      metrics_(metrics),
      log_(log),
      limits_(limits),
      token_(std::move(token)),
      cors_origin_(std::move(cors_origin)) {
  server.new_task_queue = [threads = limits_.threads, waiting = limits_.max_waiting] {
    return new BoundedQueue(threads, waiting);
  };
  // Without it every kept-alive request waits ~40 ms for Nagle's algorithm.
  server.set_tcp_nodelay(true);
  // SO_REUSEADDR alone: httplib's default also sets SO_REUSEPORT, which lets a second server take
  // the same port silently.
  server.set_socket_options([this](socket_t socket) {
    const int yes = 1;
    ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_socket_ = socket;
  });
  // A slow or idle client cannot hold a worker for long; a short keep-alive also bounds stop().
  server.set_read_timeout(std::chrono::seconds(5));
  server.set_write_timeout(std::chrono::seconds(5));
  server.set_keep_alive_timeout(2);
  server.set_keep_alive_max_count(100);
  server.set_payload_max_length(limits_.max_body_bytes);
  server.set_pre_routing_handler([this](const httplib::Request& rq, httplib::Response& rs) { return before(rq, rs); });
  server.set_logger([this](const httplib::Request& rq, const httplib::Response& rs) { after(rq, rs); });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const RequestError& e) {
      send_error(response, e.status(), e.what());
    } catch (const Error& e) {
      send_error(response, 500, e.what());
    } catch (const std::bad_alloc&) {
      send_error(response, 503, "the server is out of memory; try again later");
    } catch (...) {
      send_error(response, 500, "internal error");
    }
  });
  // Statuses httplib sets itself (an unknown route, a body over the limit, a malformed request)
  // get a JSON body too.
  const httplib::Server::HandlerWithResponse error_body = [max_body = limits_.max_body_bytes](
                                                              const httplib::Request& request, httplib::Response& response) {
    if (!response.body.empty() || response.content_length_ > 0 || response.is_chunked_content_provider_)
      return httplib::Server::HandlerResponse::Unhandled;
    if (response.status == 404) {
      send_error(response, 404, "no route " + request.path + " (see docs/http-api.md)");
    } else if (response.status == 413 && request.get_header_value("Content-Type").starts_with(kFormType)) {
      // httplib caps form bodies at a size of its own, below ours (CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH).
      send_error(response, 413, "a body sent as " + std::string(kFormType) + " (what curl -d sends without -H) is limited to " +
                                    std::to_string(CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH) +
                                    " bytes: send the JSON with Content-Type: application/json (up to " +
                                    std::to_string(max_body) + " bytes)");
    } else if (response.status == 413) {
      send_error(response, 413, "the body is larger than the limit of " + std::to_string(max_body) + " bytes");
    } else {
      send_error(response, response.status,
                 response.status == 414 ? "the address is longer than " + std::to_string(CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) +
                                              " characters (a query of non-ASCII text takes three per byte, "
                                              "percent-encoded): shorten the query (a long question can go to POST /api/answer, in its body)"
                                        : std::string("a malformed request"));
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_error_handler(error_body);
  route(server);
}

int HttpApi::bind(const std::string& host, int port) {
  const int bound = port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
  // httplib listens with a backlog of 5: a burst of connections overflows it, and the kernel
  // makes the rest retry a second later. A listening socket takes a new backlog.
  if (bound >= 0) ::listen(listen_socket_, SOMAXCONN);
  return bound;
}

httplib::Server::HandlerResponse HttpApi::before(const httplib::Request& request, httplib::Response& response) {
  using Handled = httplib::Server::HandlerResponse;
  t_request = {};
  t_request.start = Clock::now();
  t_request.id = std::to_string(++g_request_number);
  response.set_header("X-Request-Id", t_request.id);
  if (!cors_origin_.empty()) {
    response.set_header("Access-Control-Allow-Origin", cors_origin_);
    response.set_header("Vary", "Origin");
  }
  metrics_.add_in_flight(1);
  t_request.counted = true;
  if (t_shedding || metrics_.in_flight() > static_cast<int>(limits_.max_in_flight)) {
    response.set_header("Retry-After", "1");
    refuse(response, 503, "too many requests at once; try again in a second");
    return Handled::Handled;
  }
  // A browser asks another origin's leave before a POST of JSON or a request with a token (a
  // CORS preflight): what the route takes, and the headers it reads.
  const std::string* const route = route_method(request.path);
  if (!cors_origin_.empty() && request.method == "OPTIONS" && route) {
    response.status = 204;
    response.set_header("Access-Control-Allow-Methods", *route);
    response.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept");
    response.set_header("Access-Control-Max-Age", "600");
    return Handled::Handled;
  }
  // A path asked with another method than its own (a route's, GET for the page's files) is refused
  // before its body is read or looked at, and an unknown path before anything about its body counts
  // ("POST /nope" without a body is not found, not a request without a Content-Length). HEAD goes
  // where GET does (httplib answers it with the GET handler's headers alone).
  static const std::string kGet = "GET";
  const bool page = is_page(request.path);
  const std::string* const method = route ? route : page ? &kGet : nullptr;
  if (!method) {
    refuse(response, 404, "no route " + request.path + " (see docs/http-api.md)");
    return Handled::Handled;
  }
  if (*method != request.method && !(*method == "GET" && request.method == "HEAD")) {
    response.set_header("Allow", *method == "GET" ? "GET, HEAD" : *method);
    refuse(response, 405, request.path + " takes " + *method + ", not " + request.method);
    return Handled::Handled;
  }
  // Bodies are taken only whole and plain: httplib checks its size limit against Content-Length
  // alone, and would inflate a compressed body past it.
  if (request.has_header("Transfer-Encoding")) {
    refuse(response, 411, "send the body with a Content-Length, not Transfer-Encoding");
    return Handled::Handled;
  }
  // A body's length is told once: with none, httplib would wait for the body until its read
  // timeout; with two (a request smuggled past a proxy), which one counts is a guess.
  if (request.method == "POST" && !request.has_header("Content-Length")) {
    refuse(response, 411, "send the body with a Content-Length");
    return Handled::Handled;
  }
  if (request.get_header_value_count("Content-Length") > 1) {
    refuse(response, 400, "one Content-Length header, not several");
    return Handled::Handled;
  }
  if (request.has_header("Content-Encoding")) {
    refuse(response, 415, "send the body uncompressed (no Content-Encoding)");
    return Handled::Handled;
  }
  // Told apart before the body is read: httplib would read a length it does not take ("-5" is
  // 2^64 - 5 to it) until its read timeout, and then refuse it as too large.
  if (request.has_header("Content-Length")) {
    const std::string length = request.get_header_value("Content-Length");
    if (length.empty() || length.find_first_not_of("0123456789") != std::string::npos) {
      refuse(response, 400, "Content-Length must be a number of bytes, not '" + length.substr(0, 40) + "'");
      return Handled::Handled;
    }
    const std::string digits = length.substr(std::min(length.find_first_not_of('0'), length.size()));
    if (digits.size() > 18 || std::stoull(digits.empty() ? "0" : digits) > limits_.max_body_bytes) {
      refuse(response, 413, "the body is larger than the limit of " + std::to_string(limits_.max_body_bytes) + " bytes");
      return Handled::Handled;
    }
  }
  const bool open = request.path == "/healthz" || page;  // other methods on the page's files were refused above
  if (!token_.empty() && !open) {
    const std::string header = request.get_header_value("Authorization");
    // The scheme's name is case-insensitive (RFC 9110), the token is not.
    const std::string_view prefix = "bearer ";
    const bool bearer = header.size() >= prefix.size() &&
                        std::equal(prefix.begin(), prefix.end(), header.begin(),
                                   [](char p, char h) { return p == std::tolower(static_cast<unsigned char>(h)); });
    if (!bearer || !same_secret(std::string_view(header).substr(prefix.size()), token_)) {
      response.set_header("WWW-Authenticate", "Bearer");
      refuse(response, 401, bearer ? "the token is not the server's" : "this server wants Authorization: Bearer TOKEN");
      return Handled::Handled;
    }
  }
  return Handled::Unhandled;
}

void HttpApi::after(const httplib::Request& request, const httplib::Response& response) {
  // A request httplib refused before any handler (414, a malformed request line) never started.
  std::optional<double> seconds;
  if (t_request.start != Clock::time_point{}) seconds = std::chrono::duration<double>(Clock::now() - t_request.start).count();
  if (t_request.counted) metrics_.add_in_flight(-1);
  const bool known = is_page(request.path) || route_method(request.path);
  const std::string route = known ? request.path : "other";
  metrics_.count_request(route, response.status, seconds);
  // Numbered all the same (its response had no X-Request-Id); a request line too long has no method.
  if (t_request.id.empty()) t_request.id = std::to_string(++g_request_number);
  json line = {{"time", utc_now()}, {"id", t_request.id}, {"method", request.method.empty() ? json(nullptr) : json(request.method)}, {"route", route},
               {"status", response.status}, {"ms", seconds ? json(*seconds * 1000) : json(nullptr)}};
  line.update(t_request.fields);
  log_.write(json_text(line));
  t_request = {};
}

void HttpApi::route(httplib::Server& server) {
  for (std::size_t i = 0; i < kPageAssetCount; ++i) {
    const PageAsset& asset = kPageAssets[i];
    server.Get(std::string(asset.path), [asset](const httplib::Request&, httplib::Response& response) {
      response.set_header("Cache-Control", "no-cache");
      response.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
    });
  }
  server.Get("/healthz", [this](const httplib::Request&, httplib::Response& response) {
    send_json(response, 200, {{"status", "ready"}, {"pipelines", service_.pipeline_names()}});
  });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics_.prometheus_text(), "text/plain; version=0.0.4");
  });
  server.Get("/api/pipelines", [this](const httplib::Request&, httplib::Response& response) {
    send_json(response, 200, service_.pipelines_json());
  });
  server.Get("/api/search", [this](const httplib::Request& request, httplib::Response& response) {
    const std::string pipeline = param(request, "pipeline").value_or("");
    const long long k = integer_param(request, "k").value_or(10);
    t_request.fields.update({{"pipeline", service_.pipeline(pipeline).pipeline().name}, {"k", k}});
    const std::string as_written = param(request, "as_written").value_or("");
    if (!as_written.empty() && as_written != "0" && as_written != "1")
      throw RequestError(400, "as_written must be 0 or 1, got '" + as_written + "'");
    const json result = service_.search(pipeline, param(request, "q").value_or(""), k, as_written == "1");
    t_request.fields.update({{"hits", result["retrieved_chunks"].size()},
                             {"timings", {{"retrieval_ms", result["metrics"]["search_time_ms"]}}}});
    send_json(response, 200, result);
  });
  server.Post("/api/answer", [this](const httplib::Request& request, httplib::Response& response) { answer(request, response); });
  server.Get("/api/source", [this](const httplib::Request& request, httplib::Response& response) {
    const std::string pipeline = param(request, "pipeline").value_or("");
    t_request.fields["pipeline"] = service_.pipeline(pipeline).pipeline().name;
    send_json(response, 200,
              service_.source(pipeline, integer_param(request, "chunk"), param(request, "generation").value_or(""),
                              param(request, "path").value_or(""),
                              integer_param(request, "first"), integer_param(request, "last"),
                              integer_param(request, "context").value_or(3)));
  });
}

void HttpApi::answer(const httplib::Request& request, httplib::Response& response) {
  static constexpr std::string_view kShape = "{\"question\": \"...\", \"k\": 10, \"pipeline\": \"...\"}";
  json body;
  try {
    body = json::parse(request.body);
  } catch (const json::exception& e) {
    // Where and what, in nlohmann's words ("[json.exception.parse_error.101] parse error at line 1,
    // column 3: ..."), without the text it last read there: that is the question, and error
    // messages are logged while questions never are.
    std::string what = e.what();
    what = what.substr(what.find(']') + 2);
    what = what.substr(0, what.find("; last read:"));
    throw RequestError(400, "the body is not valid JSON (" + what + "); send " + std::string(kShape));
  }
  if (!body.is_object()) throw RequestError(400, "the body must be a JSON object: " + std::string(kShape));
  const std::string question = body_field<std::string>(body, "question").value_or("");
  const std::string pipeline = body_field<std::string>(body, "pipeline").value_or("");
  const long long k = body_field<long long>(body, "k").value_or(10);
  const long long max_message_chars = body_field<long long>(body, "max_message_chars").value_or(0);
  t_request.fields.update({{"pipeline", service_.pipeline(pipeline).pipeline().name}, {"k", k}});
  const auto record = [](const json& answer) {
    t_request.fields.update({{"language", answer["language"]}, {"hits", answer["sources"].size()},
                             {"timings", answer["timings"]}});
  };

  const auto deadline = Clock::now() + limits_.request_timeout;
  const auto late = [deadline] { return Clock::now() > deadline; };
  if (!accepts_event_stream(request.get_header_value("Accept"))) {
    json answer;
    try {
      answer = service_.answer(pipeline, question, k, max_message_chars, {}, late);
    } catch (const RequestError&) {
      throw;
    } catch (const Error&) {
      if (late()) throw RequestError(504, kTooLate);
      throw;
    }
    record(answer);
    send_json(response, 200, answer);
    return;
  }
  // Checked before the stream starts, so that a bad request still gets its status.
  service_.check_answer(pipeline, question, k, max_message_chars);
  response.set_header("Cache-Control", "no-cache");
  response.set_header("X-Accel-Buffering", "no");
  response.set_chunked_content_provider(
      "text/event-stream",
      [this, pipeline, question, k, max_message_chars, late, record](std::size_t, httplib::DataSink& sink) {
        const auto send = [&](std::string_view event, const json& data) {
          if (late()) throw StreamStopped{kTooLate};
          const std::string frame = "event: " + std::string(event) + "\ndata: " + json_text(data) + "\n\n";
          if (!sink.is_writable() || !sink.write(frame.data(), frame.size())) throw StreamStopped{};
        };
        // Asked while the model has sent nothing yet, as well as at each piece.
        const auto give_up = [&] { return late() || !sink.is_writable(); };
        try {
          const json answer = service_.answer(pipeline, question, k, max_message_chars, send, give_up);
          record(answer);
          json done = {{"answer", answer["answer"]}, {"answered", answer["answered"]}, {"cited", json::array()}};
          for (const auto& s : answer["sources"])
            if (s["cited"].get<bool>()) done["cited"].push_back(s["number"]);
          // Everything else the JSON answer says that the sources event did not (the sources, the
          // question, its language, the pipeline and generation), so that a stream loses nothing:
          // support, retrieval_query, warnings, parent_context, messages, generator, strategy,
          // the whole timings.
          for (const auto& [key, value] : answer.items())
            if (!done.contains(key) && key != "sources" && key != "query" && key != "language" && key != "pipeline" &&
                key != "generation")
              done[key] = value;
          send("done", done);
        } catch (const StreamStopped& stopped) {
          if (stopped.why.empty()) {
            t_request.fields["error"] = "the client went away";
            return false;
          }
          t_request.fields["error"] = stopped.why;
          const std::string frame = "event: error\ndata: " + json_text(json{{"error", stopped.why}}) + "\n\n";
          sink.write(frame.data(), frame.size());
        } catch (const Error& e) {
          const bool gave_up = dynamic_cast<const RequestError*>(&e) == nullptr && give_up();
          if (gave_up && !late()) {
            t_request.fields["error"] = "the client went away";
            return false;
          }
          const std::string why = gave_up ? kTooLate : e.what();
          t_request.fields["error"] = why;
          const std::string frame = "event: error\ndata: " + json_text(json{{"error", why}}) + "\n\n";
          sink.write(frame.data(), frame.size());
        }
        sink.done();
        return true;
      });
}

}  // namespace rag::cli
