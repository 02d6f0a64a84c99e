#include "model_reply.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace rag {
namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";
constexpr std::string_view kSpace = " \t\r\n";

std::string_view trim(std::string_view s) {
  const auto begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

}  // namespace

std::string error_text(std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_object()) {
    const auto& error = json.contains("error") ? json["error"] : json;
    if (error.is_string()) return error.get<std::string>();
    if (error.is_object() && error.contains("message") && error["message"].is_string())
      return error["message"].get<std::string>();
  }
  std::string start(trim(body.substr(0, 200)));
  for (char& c : start)
    if (c == '\n' || c == '\r') c = ' ';
  return start.empty() ? "no details" : start;
}

std::string without_thinking(std::string_view text) {
  std::string_view t = trim(text);
  if (t.substr(0, kOpen.size()) == kOpen) {
    const auto close = t.find(kClose);
    t = close == std::string_view::npos ? std::string_view{} : trim(t.substr(close + kClose.size()));
  }
  return std::string(t);
}

std::string ThinkingFilter::feed(std::string_view piece) {
  if (passing_) return std::string(piece);
  held_ += piece;
  const std::string_view start = trim(held_);
  // Still possibly the start of "<think>": wait for more.
  if (start.size() < kOpen.size() && kOpen.substr(0, start.size()) == start) return {};
  if (start.substr(0, kOpen.size()) != kOpen) {
    passing_ = true;
    return std::string(held_.substr(held_.find_first_not_of(kSpace)));
  }
  const auto close = held_.find(kClose);
  if (close == std::string::npos) return {};
  const std::string rest = held_.substr(close + kClose.size());
  const auto begin = rest.find_first_not_of(kSpace);
  if (begin == std::string::npos) {
    held_.clear();  // the block is over; what comes next is the answer
    return {};
  }
  passing_ = true;
  return rest.substr(begin);
}

void fail_transport(const ServerHints& server, const HttpReply& reply) {
  std::ostringstream timeout;
  timeout << server.timeout_seconds;
  switch (reply.failure) {
    case HttpReply::Failure::unreachable:
      throw Error("cannot reach " + server.name + " (" + reply.detail + "): " + server.start_hint);
    case HttpReply::Failure::tls:
      throw Error("no TLS session with " + server.name + " (" + reply.detail +
                  "): if it serves plain HTTP, write its base_url with http://; else check that its certificate is trusted");
    case HttpReply::Failure::timed_out:
      throw Error(server.name + " did not finish answering within " + timeout.str() + " s: " + server.timeout_hint);
    case HttpReply::Failure::cut_short:
      throw Error("the answer from " + server.name + " broke off before it was complete (" + reply.detail +
                  "); is the server still running?");
    case HttpReply::Failure::too_large:
      throw Error(server.name + " sent more than " + std::to_string(HttpJsonClient::kMaxReplyBytes >> 20) +
                  " MiB for one answer; is " + server.name + " a model server?");
    case HttpReply::Failure::cancelled:
      throw Error("the answer from " + server.name + " was cancelled (the client went away, the request's time was up or "
                  "the server is stopping)");
    case HttpReply::Failure::none: break;
  }
  throw Error(server.name + ": unexpected transport state");
}

bool StreamedAnswer::add(std::string_view piece) {
  text_ += piece;
  if (!on_text_) return true;
  const std::string shown = filter_.feed(piece);
  if (shown.empty()) return true;
  // Caught here, not let through the HTTP client's reading loop, which would keep the connection
  // (and the model's work) going: returning false closes it.
  try {
    on_text_(shown);
  } catch (...) {
    reader_failure_ = std::current_exception();
    return false;
  }
  return true;
}

bool StreamedAnswer::reject(std::string_view line) {
  bad_line_ = line;
  return false;
}

bool StreamedAnswer::stop(std::string message) {
  error_ = std::move(message);
  return false;
}

}  // namespace rag
