// The `openai` generator against a server that speaks the OpenAI chat completions API (as vLLM
// and llama.cpp's server do), on 127.0.0.1.
#include "openai_generator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "chat_server.hpp"
#include "rag/error.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using testing::ChatServer;
using testing::RawServer;

std::unique_ptr<OpenAiGenerator> make(const std::string& yaml) {
  Options options(YAML::Load(yaml), "test.yaml: generator.options");
  return std::make_unique<OpenAiGenerator>(options);
}

GenerationRequest request() {
  GenerationRequest r;
  r.question = "How do I start the server?";
  r.messages = {{"system", "Answer from the sources."}, {"user", "Question: How do I start the server?"}};
  return r;
}

std::string error_of(Generator& generator) {
  try {
    generator.generate(request());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string construction_error(const std::string& yaml) {
  try {
    make(yaml);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

json completion(const std::string& content) {
  return {{"id", "chatcmpl-1"},
          {"object", "chat.completion"},
          {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}}};
}

void reply_json(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

void reply_events(httplib::Response& response, std::vector<std::string> events, bool complete) {
  response.set_chunked_content_provider("text/event-stream",
                                        [events = std::move(events), complete](std::size_t, httplib::DataSink& sink) {
                                          for (const auto& e : events) {
                                            const std::string line = "data: " + e + "\n\n";
                                            sink.write(line.data(), line.size());
                                          }
                                          if (complete) sink.done();
                                          return complete;
                                        });
}

std::string delta(const std::string& content) {
  return json({{"choices", {{{"index", 0}, {"delta", {{"content", content}}}, {"finish_reason", nullptr}}}}}).dump();
}

class OpenAiGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("RAG_TEST_API_KEY", "sk-test-123", 1); }
  void TearDown() override { ::unsetenv("RAG_TEST_API_KEY"); }
};

TEST_F(OpenAiGeneratorTest, SendsTheRequestWithTheKeyFromTheEnvironment) {
  ChatServer server("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
    reply_json(response, 200, completion("Run `vllm serve MODEL`. [1]"));
  });
  auto generator = make("{base_url: '" + server.url() + "/v1', model: Qwen/Qwen3-0.6B, api_key_env: RAG_TEST_API_KEY, "
                        "max_tokens: 100, temperature: 0, timeout: 5}");
  EXPECT_EQ(generator->generate(request()), "Run `vllm serve MODEL`. [1]");
  EXPECT_EQ(generator->describe(), "openai Qwen/Qwen3-0.6B at " + server.url() + "/v1");
  const json body = server.bodies().at(0);
  EXPECT_EQ(body["model"], "Qwen/Qwen3-0.6B");
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.0);
  EXPECT_EQ(body["stream"], false);
  EXPECT_EQ(body["messages"][1], json({{"role", "user"}, {"content", "Question: How do I start the server?"}}));
  const httplib::Headers headers = server.headers().at(0);
  ASSERT_EQ(headers.count("Authorization"), 1u);
  EXPECT_EQ(headers.find("Authorization")->second, "Bearer sk-test-123");
  // One read from a file, with its newline, is the key.
  ::setenv("RAG_TEST_API_KEY", "sk-test-123\n", 1);
  generator->generate(request());
  EXPECT_EQ(server.headers().at(1).find("Authorization")->second, "Bearer sk-test-123");
}

TEST_F(OpenAiGeneratorTest, StreamsServerSentEvents) {
  ChatServer server("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
    reply_events(response,
                 {delta("Run "), delta("`vllm serve`."),
                  json({{"choices", {{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}}}}).dump(),
                  "[DONE]"},
                 true);
  });
  auto generator = make("{base_url: '" + server.url() + "/v1', model: m, stream: true, timeout: 5}");
  GenerationRequest r = request();
  std::string shown;
  r.on_text = [&](std::string_view piece) { shown += piece; };
  EXPECT_EQ(generator->generate(r), "Run `vllm serve`.");
  EXPECT_EQ(shown, "Run `vllm serve`.");
  EXPECT_EQ(server.bodies().at(0)["stream"], true);
  EXPECT_EQ(server.headers().at(0).count("Authorization"), 0u);  // no api_key_env, no key
}

TEST_F(OpenAiGeneratorTest, KeysComeFromTheEnvironmentOnly) {
  EXPECT_THAT(construction_error("{model: m, api_key: sk-secret}"), HasSubstr("api_key: keys do not belong in pipeline files"));
  // An unset variable matters only when an answer is asked for (a search builds the generator too).
  const auto unset = make("{model: m, base_url: 'http://127.0.0.1:9/v1', api_key_env: RAG_TEST_UNSET_VARIABLE}");
  EXPECT_THAT(error_of(*unset), HasSubstr("api_key_env: the environment variable RAG_TEST_UNSET_VARIABLE is not set"));
  // A key with a line break inside would write headers of its own: refused, before any request.
  ::setenv("RAG_TEST_API_KEY", "sk-A\r\nX-Injected: yes", 1);
  const auto injected = make("{model: m, base_url: 'http://127.0.0.1:9/v1', api_key_env: RAG_TEST_API_KEY}");
  EXPECT_THAT(error_of(*injected), HasSubstr("holds control characters"));
  EXPECT_THAT(construction_error("{base_url: 'http://127.0.0.1:8000/v1'}"), HasSubstr("test.yaml: generator.options.model: is required"));
  EXPECT_THAT(construction_error("{model: m, max_token: 5}"), HasSubstr("unknown option 'max_token'"));
  EXPECT_THAT(construction_error("{model: m, base_url: 'ftp://host'}"), HasSubstr("is not an http:// or https:// URL"));
  EXPECT_THAT(construction_error("{model: m, base_url: 'http://127.0.0.1:99999/v1'}"), HasSubstr("a port from 1 to 65535"));
  EXPECT_THAT(construction_error("{model: m, base_url: 'http://127.0.0.1:abc/v1'}"), HasSubstr("is not an http://"));
  const std::string secret = construction_error("{model: m, base_url: 'http://user:pw@127.0.0.1:8000/v1'}");
  EXPECT_THAT(secret, HasSubstr("no user or password"));
  EXPECT_EQ(secret.find("pw@"), std::string::npos);  // the password is not printed
  EXPECT_EQ(make("{model: m, base_url: 'HTTP://127.0.0.1:8000/v1'}")->describe(), "openai m at http://127.0.0.1:8000/v1");
  EXPECT_EQ(make("{model: m, base_url: 'http://[::1]:8000/v1'}")->describe(), "openai m at http://[::1]:8000/v1");
}

TEST_F(OpenAiGeneratorTest, NoServerSaysWhereItLooked) {
  auto generator =
      make("{model: m, base_url: 'http://127.0.0.1:" + std::to_string(testing::closed_port()) + "/v1', timeout: 5}");
  const std::string message = error_of(*generator);
  EXPECT_THAT(message, HasSubstr("cannot reach the OpenAI-compatible server at http://127.0.0.1:"));
  EXPECT_THAT(message, HasSubstr("start it (e.g. `vllm serve m`)"));
  // https:// to a server of plain HTTP: it is there, so not "start it".
  ChatServer plain("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
    reply_json(response, 200, completion("ok"));
  });
  std::string https = plain.url();
  https.insert(4, "s");
  auto tls = make("{model: m, base_url: '" + https + "/v1', timeout: 5}");
  EXPECT_THAT(error_of(*tls), HasSubstr("if it serves plain HTTP, write its base_url with http://"));
}

TEST_F(OpenAiGeneratorTest, HttpErrorsSayWhatToFix) {
  ChatServer server("/v1/chat/completions", [](const httplib::Request& request, httplib::Response& response) {
    const std::string model = json::parse(request.body)["model"];
    if (model == "locked") reply_json(response, 401, {{"error", {{"message", "Invalid API key"}, {"type", "auth"}}}});
    else if (model == "broken") reply_json(response, 500, {{"object", "error"}, {"message", "CUDA out of memory"}});
    else reply_json(response, 404, {{"object", "error"}, {"message", "The model `" + model + "` does not exist."}});
  });
  const std::string base = "{base_url: '" + server.url() + "/v1', timeout: 5, ";
  auto unknown = make(base + "model: nope}");
  EXPECT_THAT(error_of(*unknown), HasSubstr("does not serve the model 'nope' (The model `nope` does not exist.)"));
  auto locked = make(base + "model: locked, api_key_env: RAG_TEST_API_KEY}");
  EXPECT_THAT(error_of(*locked), HasSubstr("refused the request (HTTP 401: Invalid API key): check the key in the "
                                           "environment variable RAG_TEST_API_KEY"));
  auto broken = make(base + "model: broken}");
  EXPECT_THAT(error_of(*broken), HasSubstr("answered HTTP 500: CUDA out of memory"));
  auto wrong_path = make("{base_url: '" + server.url() + "', timeout: 5, model: m}");  // no /v1
  EXPECT_THAT(error_of(*wrong_path), HasSubstr("answered 404 for /chat/completions"));
}

TEST_F(OpenAiGeneratorTest, SlowAnswerTimesOut) {
  ChatServer* self = nullptr;
  ChatServer server("/v1/chat/completions", [&self](const httplib::Request&, httplib::Response& response) {
    self->wait_for_release(std::chrono::seconds(3));
    reply_json(response, 200, completion("late"));
  });
  self = &server;
  auto generator = make("{base_url: '" + server.url() + "/v1', model: m, timeout: 0.3}");
  EXPECT_THAT(error_of(*generator), HasSubstr("did not finish answering within 0.3 s"));
}

// The timeout bounds the whole exchange: a head sent a byte at a time does not hold it longer.
TEST_F(OpenAiGeneratorTest, AHeadSentSlowlyTimesOutToo) {
  RawServer server([](int socket, const RawServer& self) {
    const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: " + std::string(200, 'a');
    for (const char c : head) {
      if (self.stopping() || ::send(socket, &c, 1, MSG_NOSIGNAL) != 1) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  auto generator = make("{base_url: '" + server.url() + "/v1', model: m, timeout: 0.5}");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of(*generator), HasSubstr("did not finish answering within 0.5 s"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

// A reply without end is cut at HttpJsonClient::kMaxReplyBytes, not kept until memory runs out;
// a stream's [DONE] ends the answer even when the server keeps the connection open.
TEST_F(OpenAiGeneratorTest, RepliesAreBoundedAndEndAtTheirMarker) {
  RawServer endless([](int socket, const RawServer& self) {
    std::string chunk = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                        R"({"choices": [{"message": {"content": ")";
    while (!self.stopping() && ::send(socket, chunk.data(), chunk.size(), MSG_NOSIGNAL) > 0) chunk.assign(1 << 16, 'A');
  });
  auto flooded = make("{base_url: '" + endless.url() + "/v1', model: m, timeout: 20}");
  EXPECT_THAT(error_of(*flooded), HasSubstr("sent more than 16 MiB for one answer"));
  RawServer lingering([](int socket, const RawServer& self) {
    const std::string events = "data: " + delta("Run it.") + "\n\ndata: [DONE]\n\n";
    const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + events;
    ::send(socket, reply.data(), reply.size(), MSG_NOSIGNAL);
    while (!self.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the connection stays
  });
  auto streamed = make("{base_url: '" + lingering.url() + "/v1', model: m, stream: true, timeout: 10}");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(streamed->generate(request()), "Run it.");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(OpenAiGeneratorTest, MalformedAndCutShortRepliesAreErrors) {
  ChatServer server("/v1/chat/completions", [](const httplib::Request& request, httplib::Response& response) {
    const json body = json::parse(request.body);
    const std::string model = body["model"];
    if (model == "garbled") reply_json(response, 200, {{"choices", json::array()}});
    else if (model == "latin1")
      response.set_content("{\"choices\": [{\"message\": {\"content\": \"caf\xE9 [1]\"}}]}", "application/json");
    else if (model == "thinker")
      reply_json(response, 200, {{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", nullptr}}},
                                                {"finish_reason", "length"}}}}});
    else if (model == "garbled-stream") reply_events(response, {"{not json"}, true);
    else if (model == "unfinished") reply_events(response, {delta("Run ")}, true);
    else reply_events(response, {delta("Run ")}, false);
  });
  const std::string base = "{base_url: '" + server.url() + "/v1', timeout: 5, ";
  auto garbled = make(base + "model: garbled}");
  EXPECT_THAT(error_of(*garbled), HasSubstr("sent a reply that is not a chat completion"));
  auto latin1 = make(base + "model: latin1}");  // a byte that is not UTF-8 costs its character, not the answer
  EXPECT_EQ(latin1->generate(request()), "caf\xEF\xBF\xBD [1]");
  auto thinker = make(base + "model: thinker, max_tokens: 64}");
  EXPECT_THAT(error_of(*thinker), HasSubstr("stopped at max_tokens (64) before writing an answer; raise max_tokens in test.yaml"));
  auto garbled_stream = make(base + "model: garbled-stream, stream: true}");
  EXPECT_THAT(error_of(*garbled_stream), HasSubstr("not a chat completion"));
  auto unfinished = make(base + "model: unfinished, stream: true}");
  EXPECT_THAT(error_of(*unfinished), HasSubstr("ended before it was complete (no [DONE] in the stream)"));
  auto dropped = make(base + "model: dropped, stream: true}");
  const std::string message = error_of(*dropped);
  EXPECT_TRUE(message.find("broke off") != std::string::npos || message.find("ended before") != std::string::npos)
      << message;
}

}  // namespace
}  // namespace rag
