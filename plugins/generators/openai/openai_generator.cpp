#include "openai_generator.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "rag/error.hpp"

namespace rag {
namespace {

using json = nlohmann::json;

// choices[0], when it is an object.
const json* first_choice(const json& reply) {
  if (!reply.is_object() || !reply.contains("choices") || !reply["choices"].is_array() || reply["choices"].empty() ||
      !reply["choices"][0].is_object())
    return nullptr;
  return &reply["choices"][0];
}

// The text of choices[0].<field>.content, when there is one.
const json* choice_content(const json& reply, const char* field) {
  const json* choice = first_choice(reply);
  if (choice == nullptr || !choice->contains(field) || !(*choice)[field].is_object()) return nullptr;
  const json& message = (*choice)[field];
  return message.contains("content") && message["content"].is_string() ? &message["content"] : nullptr;
}

// choices[0].finish_reason, or "" while the answer goes on.
std::string finish_reason(const json& reply) {
  const json* choice = first_choice(reply);
  return choice != nullptr && choice->contains("finish_reason") && (*choice)["finish_reason"].is_string()
             ? (*choice)["finish_reason"].get<std::string>()
             : std::string();
}

}  // namespace

OpenAiGenerator::OpenAiGenerator(Options& options)
    : ChatApiGenerator(options, "openai", options.get<std::string>("model", ""), "http://127.0.0.1:8000/v1",
                       "a chat completion"),
      api_key_env_(options.get<std::string>("api_key_env", "")) {
  if (options.has("api_key"))
    options.fail("api_key", "keys do not belong in pipeline files: put the key in an environment variable and "
                            "name that variable with api_key_env");
  if (model_.empty())
    options.fail("model", "is required: the name of a model the server serves (e.g. Qwen/Qwen3-0.6B for "
                          "`vllm serve Qwen/Qwen3-0.6B`)");
  options.finish();
}

ServerHints OpenAiGenerator::server() const {
  return {"the OpenAI-compatible server at " + client_.base_url(),
          "start it (e.g. `vllm serve " + model_ + "`), or set base_url in " + where_, "raise timeout in " + where_,
          "[DONE]", client_.timeout_seconds()};
}

void OpenAiGenerator::fail_status(const HttpReply& reply) const {
  const std::string message = error_text(reply.body);
  const std::string server = this->server().name;
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

HttpJsonClient::Headers OpenAiGenerator::headers() const {
  HttpJsonClient::Headers headers;
  // The key is read when it is needed: a command that never generates (index, search) does not
  // need the variable set.
  if (api_key_env_.empty()) return headers;
  const char* key = std::getenv(api_key_env_.c_str());
  if (key == nullptr || *key == '\0')
    throw Error(where_ + ".api_key_env: the environment variable " + api_key_env_ +
                " is not set; export it with the server's API key");
  // A key read from a file keeps its newline; one with a line break inside would add headers.
  std::string_view value = key;
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
  if (value.empty() || std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    throw Error(where_ + ".api_key_env: the environment variable " + api_key_env_ +
                " holds control characters (a line break?) or only spaces; export the key alone");
  headers.emplace_back("Authorization", "Bearer " + std::string(value));
  return headers;
}

std::string OpenAiGenerator::generate(const GenerationRequest& request) {
  const json body = {{"model", model_},
                     {"messages", messages_json(request)},
                     {"temperature", temperature_},
                     {"max_tokens", max_tokens_},
                     {"stream", stream_}};
  return exchange(
      request, "/chat/completions", body, headers(),
      [&](const json& reply) -> std::optional<std::string> {
        const json* content = choice_content(reply, "message");
        if (content == nullptr && finish_reason(reply) == "length")  // a thinking model that ran out
          throw Error(server().name + " stopped at max_tokens (" + std::to_string(max_tokens_) +
                      ") before writing an answer; raise max_tokens in " + where_);
        return content == nullptr ? std::nullopt : std::optional<std::string>(content->get<std::string>());
      },
      // Server-sent events: "data: {chunk}" lines, each with choices[0].delta.content, then
      // "data: [DONE]". A stream that stops before [DONE] or a finish_reason was cut short.
      [](std::string_view line, StreamedAnswer& answer) {
        constexpr std::string_view kData = "data:";
        if (line.substr(0, kData.size()) != kData) return true;  // blank separators, comments, event names
        std::string_view data = line.substr(kData.size());
        if (!data.empty() && data.front() == ' ') data.remove_prefix(1);
        if (data == "[DONE]") {  // nothing comes after it: a server that keeps the connection is not waited for
          answer.mark_done();
          return false;
        }
        const json chunk = json::parse(data, nullptr, false);
        if (!chunk.is_object()) return answer.reject(data);
        if (chunk.contains("error")) return answer.stop(error_text(data));
        if (const json* content = choice_content(chunk, "delta"); content && !answer.add(content->get<std::string>()))
          return false;
        if (!finish_reason(chunk).empty()) answer.mark_done();
        return true;
      });
}

}  // namespace rag
