#include "openai_generator.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
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

// The text of choices[0].<field>.content, when there is one.
const json* choice_content(const json& reply, const char* field) {
  if (!reply.is_object() || !reply.contains("choices") || !reply["choices"].is_array() || reply["choices"].empty())
    return nullptr;
  const json& choice = reply["choices"][0];
  if (!choice.is_object() || !choice.contains(field) || !choice[field].is_object()) return nullptr;
  const json& message = choice[field];
  return message.contains("content") && message["content"].is_string() ? &message["content"] : nullptr;
}

}  // namespace

OpenAiGenerator::OpenAiGenerator(Options& options)
    : where_(options.where()),
      model_(options.get<std::string>("model", "")),
      api_key_env_(options.get<std::string>("api_key_env", "")),
      temperature_(options.get_number("temperature", 0.2, 0.0, 2.0)),
      max_tokens_(options.get_integer("max_tokens", 512, 1, 1'000'000)),
      stream_(options.get<bool>("stream", false)),
      client_(options.get<std::string>("base_url", "http://127.0.0.1:8000/v1"),
              options.get_number("timeout", 120.0, 0.01, 86400.0), options.where() + ".base_url") {
  if (options.has("api_key"))
    options.fail("api_key", "keys do not belong in pipeline files: put the key in an environment variable and "
                            "name that variable with api_key_env");
  if (model_.empty())
    options.fail("model", "is required: the name of a model the server serves (e.g. Qwen/Qwen3-0.6B for "
                          "`vllm serve Qwen/Qwen3-0.6B`)");
  if (!api_key_env_.empty()) {
    const char* key = std::getenv(api_key_env_.c_str());
    if (key == nullptr || *key == '\0')
      options.fail("api_key_env", "the environment variable " + api_key_env_ +
                                      " is not set; export it with the server's API key");
    api_key_ = key;
  }
  options.finish();
}

std::string OpenAiGenerator::describe() const { return "openai " + model_ + " at " + client_.base_url(); }

void OpenAiGenerator::fail_transport(const HttpReply& reply) const {
  const std::string server = "the OpenAI-compatible server at " + client_.base_url();
  switch (reply.failure) {
    case HttpReply::Failure::unreachable:
      throw Error("cannot reach " + server + " (" + reply.detail + "): start it (e.g. `vllm serve " + model_ +
                  "`), or set base_url in " + where_);
    case HttpReply::Failure::timed_out:
      throw Error(server + " did not finish answering within " + seconds(client_.timeout_seconds()) +
                  " s: raise timeout in " + where_);
    case HttpReply::Failure::cut_short:
      throw Error("the answer from " + server + " broke off before it was complete (" + reply.detail +
                  "); is the server still running?");
    case HttpReply::Failure::none: break;
  }
  throw Error(server + ": unexpected transport state");
}

void OpenAiGenerator::fail_status(const HttpReply& reply) const {
  const std::string message = error_text(reply.body);
  const std::string server = "the OpenAI-compatible server at " + client_.base_url();
  if (reply.status == 401 || reply.status == 403)
    throw Error(server + " refused the request (HTTP " + std::to_string(reply.status) + ": " + message + "): " +
                (api_key_env_.empty() ? "it wants an API key; name the environment variable holding it with "
                                        "api_key_env in " + where_
                                      : "check the key in the environment variable " + api_key_env_));
  if (reply.status == 404 && message.find("model") != std::string::npos)
    throw Error(server + " does not serve the model '" + model_ + "' (" + message + "): set model in " + where_ +
                " to one listed by GET " + client_.base_url() + "/models");
  if (reply.status == 404)
    throw Error(server + " answered 404 for /chat/completions (" + message + "): base_url in " + where_ +
                " usually ends in /v1");
  throw Error(server + " answered HTTP " + std::to_string(reply.status) + ": " + message);
}

std::string OpenAiGenerator::generate(const GenerationRequest& request) {
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  const json body = {{"model", model_},
                     {"messages", std::move(messages)},
                     {"temperature", temperature_},
                     {"max_tokens", max_tokens_},
                     {"stream", stream_}};
  HttpJsonClient::Headers headers;
  if (!api_key_.empty()) headers.emplace_back("Authorization", "Bearer " + api_key_);
  const std::string server = "the OpenAI-compatible server at " + client_.base_url();
  const auto not_json = [&](std::string_view text) {
    return Error(server + " sent a reply that is not a chat completion: " + error_text(text));
  };

  if (!stream_) {
    const HttpReply reply = client_.post("/chat/completions", body.dump(), headers);
    if (reply.failure != HttpReply::Failure::none) fail_transport(reply);
    if (reply.status != 200) fail_status(reply);
    const json answer = json::parse(reply.body, nullptr, false);
    const json* content = choice_content(answer, "message");
    if (content == nullptr) throw not_json(reply.body);
    return without_thinking(content->get<std::string>());
  }

  // Server-sent events: "data: {chunk}" lines, each with choices[0].delta.content, then
  // "data: [DONE]". A stream that stops before [DONE] or a finish_reason was cut short.
  std::string text;
  std::string bad_line;
  std::string stream_error;
  bool done = false;
  ThinkingFilter filter;
  const HttpReply reply = client_.post("/chat/completions", body.dump(), headers, [&](std::string_view line) {
    constexpr std::string_view kData = "data:";
    if (line.substr(0, kData.size()) != kData) return true;  // blank separators, comments, event names
    std::string_view data = line.substr(kData.size());
    if (!data.empty() && data.front() == ' ') data.remove_prefix(1);
    if (data == "[DONE]") {
      done = true;
      return true;
    }
    const json chunk = json::parse(data, nullptr, false);
    if (!chunk.is_object()) {
      bad_line = data;
      return false;
    }
    if (chunk.contains("error")) {
      stream_error = error_text(data);
      return false;
    }
    if (const json* content = choice_content(chunk, "delta")) {
      text += content->get<std::string>();
      if (request.on_text)
        if (const std::string shown = filter.feed(content->get<std::string>()); !shown.empty()) request.on_text(shown);
    }
    if (chunk.contains("choices") && chunk["choices"].is_array() && !chunk["choices"].empty() &&
        chunk["choices"][0].is_object() && chunk["choices"][0].contains("finish_reason") &&
        chunk["choices"][0]["finish_reason"].is_string())
      done = true;
    return true;
  });
  if (!bad_line.empty()) throw not_json(bad_line);
  if (!stream_error.empty()) throw Error(server + " stopped answering: " + stream_error);
  if (reply.status == 200 && done) return without_thinking(text);
  if (reply.failure != HttpReply::Failure::none) fail_transport(reply);
  if (reply.status != 200) fail_status(reply);
  throw Error("the answer from " + server + " ended before it was complete (no [DONE] in the stream); is the "
              "server still running?");
}

}  // namespace rag
