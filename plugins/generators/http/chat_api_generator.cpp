#include "chat_api_generator.hpp"

#include "rag/error.hpp"

namespace rag {

using json = nlohmann::json;

ChatApiGenerator::ChatApiGenerator(Options& options, std::string api, std::string model, const std::string& default_url,
                                   std::string reply_kind)
    : where_(options.where()),
      model_(std::move(model)),
      temperature_(options.get_number("temperature", 0.2, 0.0, 2.0)),
      max_tokens_(options.get_integer("max_tokens", 512, 1, 1'000'000)),
      stream_(options.get<bool>("stream", false)),
      client_(options.get<std::string>("base_url", default_url), options.get_number("timeout", 120.0, 0.01, 86400.0),
              options.where() + ".base_url"),
      api_(std::move(api)),
      reply_kind_(std::move(reply_kind)) {}

std::string ChatApiGenerator::describe() const { return api_ + " " + model_ + " at " + client_.base_url(); }

void ChatApiGenerator::cancel() { client_.cancel(); }

json ChatApiGenerator::messages_json(const GenerationRequest& request) {
  json messages = json::array();
  for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  return messages;
}

std::string ChatApiGenerator::exchange(const GenerationRequest& request, const std::string& path, const json& body,
                                       const HttpJsonClient::Headers& headers, const ReadWhole& whole,
                                       const ReadLine& line) {
  const ServerHints server = this->server();
  const auto not_json = [&](std::string_view text) {
    return Error(server.name + " sent a reply that is not " + reply_kind_ + ": " + error_text(text));
  };
  if (!stream_) {
    const HttpReply reply = client_.post(path, body.dump(), headers);
    if (reply.failure != HttpReply::Failure::none) fail_transport(server, reply);
    if (reply.status != 200) fail_status(reply);
    const std::optional<std::string> text = whole(json::parse(reply.body, nullptr, false));
    if (!text) throw not_json(reply.body);
    return without_thinking(*text);
  }
  StreamedAnswer answer(request.on_text);
  const HttpReply reply =
      client_.post(path, body.dump(), headers, [&](std::string_view received) { return line(received, answer); });
  return answer.finish(server, reply, not_json, [this](const HttpReply& failed) { fail_status(failed); });
}

}  // namespace rag
