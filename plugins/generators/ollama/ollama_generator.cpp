#include "ollama_generator.hpp"

#include <nlohmann/json.hpp>

#include "model_reply.hpp"
#include "rag/error.hpp"

namespace rag {
namespace {

using json = nlohmann::json;

}  // namespace

OllamaGenerator::OllamaGenerator(Options& options)
    : where_(options.where()),
      model_(options.get<std::string>("model", "qwen3:0.6b")),
      temperature_(options.get_number("temperature", 0.2, 0.0, 2.0)),
      max_tokens_(options.get_integer("max_tokens", 512, 1, 1'000'000)),
      num_ctx_(options.get_integer("num_ctx", 8192, 256, 10'000'000)),
      think_(options.get<bool>("think", false)),
      stream_(options.get<bool>("stream", false)),
      client_(options.get<std::string>("base_url", "http://127.0.0.1:11434"),
              options.get_number("timeout", 120.0, 0.01, 86400.0), options.where() + ".base_url") {
  if (model_.empty()) options.fail("model", "is empty; name an Ollama model, e.g. qwen3:0.6b");
  options.finish();
}

std::string OllamaGenerator::describe() const { return "ollama " + model_ + " at " + client_.base_url(); }

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
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  const json body = {{"model", model_},
                     {"messages", std::move(messages)},
                     {"stream", stream_},
                     {"think", think_},
                     {"options", {{"temperature", temperature_}, {"num_predict", max_tokens_}, {"num_ctx", num_ctx_}}}};
  const ServerHints server = this->server();
  const auto not_json = [&](std::string_view text) {
    return Error(server.name + " sent a reply that is not the JSON of /api/chat: " + error_text(text));
  };
  const auto fail = [this](const HttpReply& reply) { fail_status(reply); };

  if (!stream_) {
    const HttpReply reply = client_.post("/api/chat", body.dump(), {});
    if (reply.failure != HttpReply::Failure::none) fail_transport(server, reply);
    if (reply.status != 200) fail_status(reply);
    const json answer = json::parse(reply.body, nullptr, false);
    if (!answer.is_object() || !answer.contains("message") || !answer["message"].is_object() ||
        !answer["message"].contains("content") || !answer["message"]["content"].is_string())
      throw not_json(reply.body);
    return without_thinking(answer["message"]["content"].get<std::string>());
  }

  // Streamed: one JSON object a line, {"message": {"content": piece}, "done": false}, until done.
  StreamedAnswer answer(request.on_text);
  const HttpReply reply = client_.post("/api/chat", body.dump(), {}, [&](std::string_view line) {
    if (line.empty()) return true;
    const json piece = json::parse(line, nullptr, false);
    if (!piece.is_object()) return answer.reject(line);
    if (piece.contains("error")) return answer.stop(error_text(line));
    if (piece.contains("message") && piece["message"].is_object() && piece["message"].contains("content") &&
        piece["message"]["content"].is_string() && !answer.add(piece["message"]["content"].get<std::string>()))
      return false;
    if (piece.contains("done") && piece["done"].is_boolean() && piece["done"].get<bool>()) {
      answer.mark_done();
      return false;  // the last line: a server that keeps the connection is not waited for
    }
    return true;
  });
  return answer.finish(server, reply, not_json, fail);
}

}  // namespace rag
