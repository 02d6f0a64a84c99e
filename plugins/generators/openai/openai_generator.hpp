#pragma once
// The `openai` generator: the OpenAI-compatible chat completions API (POST <base_url>/chat/
// completions) that vLLM, llama.cpp's server and many others speak. The API key, when the server
// wants one, is read from an environment variable the pipeline names, never from the pipeline.
#include <string>

#include "chat_api_generator.hpp"

namespace rag {

class OpenAiGenerator final : public ChatApiGenerator {
 public:
  /// Options: model (required: the name the server serves), base_url (default
  /// http://127.0.0.1:8000/v1), api_key_env (the environment variable holding the key; none by
  /// default), temperature (0.2), max_tokens (512), timeout (seconds for a whole answer, 120),
  /// stream (false: true reads server-sent events and hands the pieces to the request's on_text).
  explicit OpenAiGenerator(Options& options);

  std::string generate(const GenerationRequest& request) override;

 private:
  ServerHints server() const override;
  [[noreturn]] void fail_status(const HttpReply& reply) const override;
  HttpJsonClient::Headers headers() const;

  std::string api_key_env_;
};

}  // namespace rag
