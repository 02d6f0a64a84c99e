#pragma once
// Reading what chat servers send back, whatever their dialect.
#include <exception>
#include <functional>
#include <string>
#include <string_view>

#include "http_json_client.hpp"
#include "rag/error.hpp"

namespace rag {

/// The message an error reply carries: OpenAI's {"error": {"message"}}, Ollama's {"error"},
/// vLLM's {"message"}; else the start of the body.
std::string error_text(std::string_view body);

/// `text` without a leading <think>...</think> block, which reasoning models such as Qwen3 may
/// write even when asked not to think, and without the blank lines around the answer.
std::string without_thinking(std::string_view text);

/// The same for an answer that arrives in pieces: feed() returns what can be shown so far.
class ThinkingFilter {
 public:
  std::string feed(std::string_view piece);

 private:
  std::string held_;
  bool passing_ = false;
};

/// What the chat generators tell users about a failed exchange.
struct ServerHints {
  std::string name;           ///< "Ollama at http://...", for messages
  std::string start_hint;     ///< how to start it, for an unreachable server
  std::string timeout_hint;   ///< what to change when it is too slow
  std::string end_marker;     ///< what a complete stream ends with, for messages
  double timeout_seconds = 0;
};

/// Throws rag::Error for a reply whose exchange failed (reply.failure is not none).
[[noreturn]] void fail_transport(const ServerHints& server, const HttpReply& reply);

/// An answer read as it streams: the pieces, whether the server said it was complete, and what
/// stopped the stream. The stream callback feeds it, and returns what reject/stop return.
class StreamedAnswer {
 public:
  /// `on_text` (may be empty) receives what can be shown as it arrives, thinking left out.
  explicit StreamedAnswer(std::function<void(std::string_view)> on_text) : on_text_(std::move(on_text)) {}

  /// Takes the next piece. False when the reader of the answer stopped (on_text threw): the
  /// stream should stop; finish() rethrows what on_text threw.
  bool add(std::string_view piece);
  void mark_done() { done_ = true; }
  /// A line that is not what the protocol sends: stops the stream.
  bool reject(std::string_view line);
  /// An error the server sent inside the stream: stops it.
  bool stop(std::string message);

  /// The answer once post() returned. Rethrows what on_text threw; throws rag::Error for a
  /// rejected line (via `not_json`),
  /// an error in the stream, a failed exchange, a status other than 200 (via `fail_status`) or
  /// a stream that ended before it was complete.
  template <class NotJson, class FailStatus>
  std::string finish(const ServerHints& server, const HttpReply& reply, NotJson not_json, FailStatus fail_status) const {
    if (reader_failure_) std::rethrow_exception(reader_failure_);
    if (!bad_line_.empty()) throw not_json(bad_line_);
    if (!error_.empty()) throw Error(server.name + " stopped answering: " + error_);
    if (reply.status == 200 && done_) return without_thinking(text_);
    if (reply.failure != HttpReply::Failure::none) fail_transport(server, reply);
    if (reply.status != 200) fail_status(reply);
    throw Error("the answer from " + server.name + " ended before it was complete (no " + server.end_marker +
                " in the stream); is the server still running?");
  }

 private:
  std::function<void(std::string_view)> on_text_;
  ThinkingFilter filter_;
  std::string text_;
  std::string bad_line_;
  std::string error_;
  std::exception_ptr reader_failure_;
  bool done_ = false;
};

}  // namespace rag
