#pragma once
// What the `ollama` and `openai` generators share: a chat API over HTTP, the options both read,
// and one exchange, asked whole or streamed. Each says what its API's replies look like and what
// to tell users when its server fails.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "http_json_client.hpp"
#include "model_reply.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"

namespace rag {

class ChatApiGenerator : public Generator {
 public:
  std::string describe() const override;
  void cancel() override;

 protected:
  /// Reads temperature (0.2), max_tokens (512), stream (false), base_url (`default_url`) and
  /// timeout (seconds for a whole answer, 120) from `options`. `api` names the generator in
  /// describe(); `reply_kind` what the API's replies are, for the message about one that is not
  /// ("a chat completion").
  ChatApiGenerator(Options& options, std::string api, std::string model, const std::string& default_url,
                   std::string reply_kind);

  /// The request's messages as both APIs take them: [{"role", "content"}].
  static nlohmann::json messages_json(const GenerationRequest& request);

  /// The text of a whole reply, parsed: none when it is not the API's.
  using ReadWhole = std::function<std::optional<std::string>(const nlohmann::json& reply)>;
  /// One line of a streamed reply into `answer` (StreamedAnswer's add, mark_done, reject, stop);
  /// false stops the stream.
  using ReadLine = std::function<bool(std::string_view line, StreamedAnswer& answer)>;

  /// Posts `body` to `path` and returns the answer, thinking left out: the whole reply read by
  /// `whole`, or, with stream set, the lines read by `line`, each piece handed to the request's
  /// on_text. Throws rag::Error for a failed exchange, a status other than 200 (fail_status), or
  /// a reply that is not the API's.
  std::string exchange(const GenerationRequest& request, const std::string& path, const nlohmann::json& body,
                       const HttpJsonClient::Headers& headers, const ReadWhole& whole, const ReadLine& line);

  /// Who the server is and what to do when it fails, for messages.
  virtual ServerHints server() const = 0;
  /// Throws rag::Error for a reply whose status is not 200, saying what to change.
  [[noreturn]] virtual void fail_status(const HttpReply& reply) const = 0;

  std::string where_;  ///< the options' place in the pipeline, for messages
  std::string model_;
  double temperature_;
  long long max_tokens_;
  bool stream_;
  HttpJsonClient client_;

 private:
  std::string api_;
  std::string reply_kind_;
};

}  // namespace rag
