#pragma once
// The `ollama` generator: Ollama's native chat API (POST /api/chat), by default with qwen3:0.6b
// and thinking off. When the server is not running or the model is not pulled, the error says
// so and what to run (`ollama serve`, `ollama pull <model>`).
#include <string>

#include "chat_api_generator.hpp"

namespace rag {

class OllamaGenerator final : public ChatApiGenerator {
 public:
  /// Options: base_url (default http://127.0.0.1:11434), model (qwen3:0.6b), temperature (0.2),
  /// max_tokens (Ollama's num_predict, 512), num_ctx (context window in tokens, 8192: Ollama's
  /// own default is smaller than our prompts), timeout (seconds for a whole answer, 120), think
  /// (false), stream (false: true reads the answer as it is written and hands the pieces to the
  /// request's on_text).
  explicit OllamaGenerator(Options& options);

  std::string generate(const GenerationRequest& request) override;

 private:
  ServerHints server() const override;
  [[noreturn]] void fail_status(const HttpReply& reply) const override;

  long long num_ctx_;
  bool think_;
};

}  // namespace rag
