#include "ollama_generator.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

#include "model_reply.hpp"
#include "rag/error.hpp"

namespace rag {
namespace {

using json = nlohmann::json;

std::string seconds(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

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

void OllamaGenerator::fail_transport(const HttpReply& reply) const {
  const std::string server = "Ollama at " + client_.base_url();
  switch (reply.failure) {
    case HttpReply::Failure::unreachable:
      throw Error("cannot reach " + server + " (" + reply.detail + "): start it with `ollama serve` (and `ollama pull " +
                  model_ + "` once), or set base_url in " + where_);
    case HttpReply::Failure::timed_out:
      throw Error(server + " did not finish answering within " + seconds(client_.timeout_seconds()) +
                  " s: raise timeout in " + where_ + ", or use a smaller model");
    case HttpReply::Failure::cut_short:
      throw Error("the answer from " + server + " broke off before it was complete (" + reply.detail +
                  "); is the server still running?");
    case HttpReply::Failure::none: break;
  }
  throw Error(server + ": unexpected transport state");
}

void OllamaGenerator::fail_status(const HttpReply& reply) const {
  const std::string message = error_text(reply.body);
  const std::string server = "Ollama at " + client_.base_url();
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
  const std::string server = "Ollama at " + client_.base_url();
  const auto not_json = [&](std::string_view text) {
    return Error(server + " sent a reply that is not the JSON of /api/chat: " + error_text(text));
  };

  if (!stream_) {
    const HttpReply reply = client_.post("/api/chat", body.dump(), {});
    if (reply.failure != HttpReply::Failure::none) fail_transport(reply);
    if (reply.status != 200) fail_status(reply);
    const json answer = json::parse(reply.body, nullptr, false);
    if (!answer.is_object() || !answer.contains("message") || !answer["message"].is_object() ||
        !answer["message"].contains("content") || !answer["message"]["content"].is_string())
      throw not_json(reply.body);
    return without_thinking(answer["message"]["content"].get<std::string>());
  }

  // Streamed: one JSON object a line, {"message": {"content": piece}, "done": false}, until done.
  std::string text;
  std::string bad_line;
  std::string stream_error;
  bool done = false;
  ThinkingFilter filter;
  const HttpReply reply = client_.post("/api/chat", body.dump(), {}, [&](std::string_view line) {
    if (line.empty()) return true;
    const json piece = json::parse(line, nullptr, false);
    if (!piece.is_object()) {
      bad_line = line;
      return false;
    }
    if (piece.contains("error")) {
      stream_error = error_text(line);
      return false;
    }
    if (piece.contains("message") && piece["message"].is_object() && piece["message"].contains("content") &&
        piece["message"]["content"].is_string()) {
      const std::string content = piece["message"]["content"].get<std::string>();
      text += content;
      if (request.on_text)
        if (const std::string shown = filter.feed(content); !shown.empty()) request.on_text(shown);
    }
    done = done || (piece.contains("done") && piece["done"].is_boolean() && piece["done"].get<bool>());
    return true;
  });
  if (!bad_line.empty()) throw not_json(bad_line);
  if (!stream_error.empty()) throw Error(server + " stopped answering: " + stream_error);
  if (reply.status == 200 && done) return without_thinking(text);
  if (reply.failure != HttpReply::Failure::none) fail_transport(reply);
  if (reply.status != 200) fail_status(reply);
  throw Error("the answer from " + server + " ended before it was complete (no \"done\" in the stream); is the "
              "server still running?");
}

}  // namespace rag
