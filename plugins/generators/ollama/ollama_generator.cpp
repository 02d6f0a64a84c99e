#include "ollama_generator.hpp"

#include "rag/error.hpp"

namespace rag {

using json = nlohmann::json;

OllamaGenerator::OllamaGenerator(Options& options)
    : ChatApiGenerator(options, "ollama", options.get<std::string>("model", "qwen3:0.6b"), "http://127.0.0.1:11434",
                       "the JSON of /api/chat"),
      num_ctx_(options.get_integer("num_ctx", 8192, 256, 10'000'000)),
      think_(options.get<bool>("think", false)) {
  if (model_.empty()) options.fail("model", "is empty; name an Ollama model, e.g. qwen3:0.6b");
  options.finish();
}

ServerHints OllamaGenerator::server() const {
  return {"Ollama at " + client_.base_url(),
          "start it with `ollama serve` (and `ollama pull " + model_ + "` once), or set base_url in " + where_,
          "raise timeout in " + where_ + ", or use a smaller model", "\"done\"", client_.timeout_seconds()};
}

void OllamaGenerator::fail_status(const HttpReply& reply) const {
  const std::string message = error_text(reply.body);
  const std::string server = this->server().name;
  if (reply.status == 404 && message.find("model") != std::string::npos)
    throw Error(server + " has no model '" + model_ + "': run `ollama pull " + model_ + "` (" + message + ")");
  if (reply.status == 404)
    throw Error(server + " answered 404 for /api/chat (" + message + "): is base_url in " + where_ +
                " an Ollama server?");
  throw Error(server + " answered HTTP " + std::to_string(reply.status) + ": " + message);
}

std::string OllamaGenerator::generate(const GenerationRequest& request) {
  const json body = {{"model", model_},
                     {"messages", messages_json(request)},
                     {"stream", stream_},
                     {"think", think_},
                     {"options", {{"temperature", temperature_}, {"num_predict", max_tokens_}, {"num_ctx", num_ctx_}}}};
  // {"message": {"content": text}}, whole; streamed, one such object a line, "done": true last.
  const auto content = [](const json& reply) -> const json* {
    if (!reply.is_object() || !reply.contains("message") || !reply["message"].is_object() ||
        !reply["message"].contains("content") || !reply["message"]["content"].is_string())
      return nullptr;
    return &reply["message"]["content"];
  };
  return exchange(
      request, "/api/chat", body, {},
      [&](const json& reply) -> std::optional<std::string> {
        const json* text = content(reply);
        return text == nullptr ? std::nullopt : std::optional<std::string>(text->get<std::string>());
      },
      [&](std::string_view line, StreamedAnswer& answer) {
        if (line.empty()) return true;
        const json piece = json::parse(line, nullptr, false);
        if (!piece.is_object()) return answer.reject(line);
        if (piece.contains("error")) return answer.stop(error_text(line));
        if (const json* text = content(piece); text != nullptr && !answer.add(text->get<std::string>())) return false;
        if (piece.contains("done") && piece["done"].is_boolean() && piece["done"].get<bool>()) {
          answer.mark_done();
          return false;  // the last line: a server that keeps the connection is not waited for
        }
        return true;
      });
}

}  // namespace rag
