#pragma once
// Reading what chat servers send back, whatever their dialect.
#include <string>
#include <string_view>

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

}  // namespace rag
