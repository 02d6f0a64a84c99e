// The `ollama` generator against a server that speaks Ollama's /api/chat, on 127.0.0.1.
#include "ollama_generator.hpp"

#include <atomic>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "chat_server.hpp"
#include "rag/error.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using testing::ChatServer;

std::unique_ptr<OllamaGenerator> make(const std::string& yaml) {
  Options options(YAML::Load(yaml), "test.yaml: generator.options");
  return std::make_unique<OllamaGenerator>(options);
}

GenerationRequest request() {
  GenerationRequest r;
  r.question = "How do I start the server?";
  r.messages = {{"system", "Answer from the sources."}, {"user", "Sources: [1] ...\n\nQuestion: How do I start the server?"}};
  return r;
}

std::string error_of(Generator& generator, const GenerationRequest& r = request()) {
  try {
    generator.generate(r);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

void reply_json(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

// A streamed reply: each line goes out as it is; `complete` says whether the stream ends cleanly.
void reply_lines(httplib::Response& response, std::vector<std::string> lines, bool complete) {
  response.set_chunked_content_provider("application/x-ndjson",
                                        [lines = std::move(lines), complete](std::size_t, httplib::DataSink& sink) {
                                          for (const auto& line : lines) sink.write(line.data(), line.size());
                                          if (complete) sink.done();
                                          return complete;  // false drops the connection mid-stream
                                        });
}

TEST(OllamaGenerator, SendsThePipelineSettingsAndReturnsTheAnswerWithoutThinking) {
  ChatServer server("/api/chat", [](const httplib::Request&, httplib::Response& response) {
    reply_json(response, 200,
               {{"model", "qwen3:0.6b"},
                {"message", {{"role", "assistant"}, {"content", "<think>\n\n</think>\n\nRun `vllm serve`. [1]"}}},
                {"done", true}});
  });
  auto generator = make("{base_url: '" + server.url() + "', timeout: 5}");
  EXPECT_EQ(generator->generate(request()), "Run `vllm serve`. [1]");
  EXPECT_EQ(generator->describe(), "ollama qwen3:0.6b at " + server.url());

  auto tuned = make("{base_url: '" + server.url() + "/', model: 'llama3.2:1b', temperature: 0.7, max_tokens: 64, "
                    "num_ctx: 4096, think: true, timeout: 5}");
  tuned->generate(request());
  const auto bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 2u);
  const json& first = bodies[0];
  EXPECT_EQ(first["model"], "qwen3:0.6b");
  EXPECT_EQ(first["stream"], false);
  EXPECT_EQ(first["think"], false);
  EXPECT_DOUBLE_EQ(first["options"]["temperature"].get<double>(), 0.2);
  EXPECT_EQ(first["options"]["num_predict"], 512);
  EXPECT_EQ(first["options"]["num_ctx"], 8192);
  ASSERT_EQ(first["messages"].size(), 2u);
  EXPECT_EQ(first["messages"][0], json({{"role", "system"}, {"content", "Answer from the sources."}}));
  EXPECT_EQ(first["messages"][1]["role"], "user");
  const json& second = bodies[1];
  EXPECT_EQ(second["model"], "llama3.2:1b");
  EXPECT_EQ(second["think"], true);
  EXPECT_DOUBLE_EQ(second["options"]["temperature"].get<double>(), 0.7);
  EXPECT_EQ(second["options"]["num_predict"], 64);
  EXPECT_EQ(second["options"]["num_ctx"], 4096);
}

TEST(OllamaGenerator, StreamsTheAnswerPieceByPiece) {
  ChatServer server("/api/chat", [](const httplib::Request&, httplib::Response& response) {
    reply_lines(response,
                {R"({"message":{"role":"assistant","content":"<think>"},"done":false})" "\n",
                 R"({"message":{"role":"assistant","content":"</think>\n\nRun "},"done":false})" "\n",
                 R"({"message":{"role":"assistant","content":"`vllm serve`."},"done":false})" "\n",
                 R"({"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"})"},
                true);
  });
  auto generator = make("{base_url: '" + server.url() + "', stream: true, timeout: 5}");
  GenerationRequest r = request();
  std::vector<std::string> pieces;
  r.on_text = [&](std::string_view piece) { pieces.emplace_back(piece); };
  EXPECT_EQ(generator->generate(r), "Run `vllm serve`.");
  EXPECT_EQ(pieces, (std::vector<std::string>{"Run ", "`vllm serve`."}));
  EXPECT_EQ(server.bodies().at(0)["stream"], true);
}

TEST(OllamaGenerator, NoServerSaysToStartOllama) {
  auto generator = make("{base_url: 'http://127.0.0.1:" + std::to_string(testing::closed_port()) + "', timeout: 5}");
  const std::string message = error_of(*generator);
  EXPECT_THAT(message, HasSubstr("cannot reach Ollama at http://127.0.0.1:"));
  EXPECT_THAT(message, HasSubstr("`ollama serve`"));
  EXPECT_THAT(message, HasSubstr("`ollama pull qwen3:0.6b`"));
}

TEST(OllamaGenerator, MissingModelSaysToPullIt) {
  ChatServer server("/api/chat", [](const httplib::Request&, httplib::Response& response) {
    reply_json(response, 404, {{"error", "model \"qwen3:0.6b\" not found, try pulling it first"}});
  });
  auto generator = make("{base_url: '" + server.url() + "', timeout: 5}");
  EXPECT_THAT(error_of(*generator), HasSubstr("has no model 'qwen3:0.6b': run `ollama pull qwen3:0.6b`"));
  auto streaming = make("{base_url: '" + server.url() + "', timeout: 5, stream: true}");
  EXPECT_THAT(error_of(*streaming), HasSubstr("run `ollama pull qwen3:0.6b`"));
}

TEST(OllamaGenerator, ServerErrorsAreReportedWithTheirMessage) {
  ChatServer server("/api/chat", [](const httplib::Request&, httplib::Response& response) {
    reply_json(response, 500, {{"error", "llama runner process has terminated"}});
  });
  auto generator = make("{base_url: '" + server.url() + "', timeout: 5}");
  EXPECT_THAT(error_of(*generator), HasSubstr("answered HTTP 500: llama runner process has terminated"));
}

TEST(OllamaGenerator, SlowAnswerTimesOut) {
  ChatServer* self = nullptr;
  ChatServer server("/api/chat", [&self](const httplib::Request&, httplib::Response& response) {
    self->wait_for_release(std::chrono::seconds(3));
    reply_json(response, 200, {{"message", {{"content", "late"}}}, {"done", true}});
  });
  self = &server;
  auto generator = make("{base_url: '" + server.url() + "', timeout: 0.3}");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of(*generator), HasSubstr("did not finish answering within 0.3 s: raise timeout in test.yaml"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(OllamaGenerator, CancelStopsAnAnswerTheServerHasNotBegunAndTheNextOneRuns) {
  ChatServer* self = nullptr;
  std::atomic<int> asked = 0;
  ChatServer server("/api/chat", [&](const httplib::Request&, httplib::Response& response) {
    if (asked++ == 0) self->wait_for_release(std::chrono::seconds(20));  // a model that says nothing
    reply_json(response, 200, {{"message", {{"content", "the answer [1]"}}}, {"done", true}});
  });
  self = &server;
  auto generator = make("{base_url: '" + server.url() + "', timeout: 30}");
  generator->cancel();  // none under way: nothing to stop, the next answer runs as usual
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    while (asked == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    generator->cancel();
  });
  EXPECT_THAT(error_of(*generator), HasSubstr("was cancelled"));
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(generator->generate(request()), "the answer [1]");
}

TEST(OllamaGenerator, MalformedRepliesAreErrors) {
  ChatServer server("/api/chat", [](const httplib::Request& request, httplib::Response& response) {
    if (json::parse(request.body)["stream"] == true) reply_lines(response, {"{\"message\": {\"content\": \"a\"\n"}, true);
    else response.set_content("<html>not json</html>", "text/html");
  });
  auto generator = make("{base_url: '" + server.url() + "', timeout: 5}");
  EXPECT_THAT(error_of(*generator), HasSubstr("sent a reply that is not the JSON of /api/chat: <html>not json</html>"));
  auto streaming = make("{base_url: '" + server.url() + "', timeout: 5, stream: true}");
  EXPECT_THAT(error_of(*streaming), HasSubstr("not the JSON of /api/chat"));
}

TEST(OllamaGenerator, StreamCutShortIsAnError) {
  ChatServer server("/api/chat", [](const httplib::Request& request, httplib::Response& response) {
    const bool drop = json::parse(request.body)["model"] == "drop";
    reply_lines(response, {R"({"message":{"content":"Run "},"done":false})" "\n"}, !drop);
  });
  // The server ends the stream cleanly, but before "done".
  auto ended = make("{base_url: '" + server.url() + "', timeout: 5, stream: true}");
  EXPECT_THAT(error_of(*ended), HasSubstr("ended before it was complete"));
  // The connection drops in the middle of the stream.
  auto dropped = make("{base_url: '" + server.url() + "', timeout: 5, stream: true, model: drop}");
  const std::string message = error_of(*dropped);
  EXPECT_TRUE(message.find("broke off") != std::string::npos || message.find("ended before") != std::string::npos)
      << message;
}

TEST(OllamaGenerator, BadOptionsNameTheKey) {
  EXPECT_THROW(
      {
        try {
          make("{modle: qwen3:0.6b}");
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr("test.yaml: generator.options: unknown option 'modle'"));
          throw;
        }
      },
      Error);
  EXPECT_THROW(make("{base_url: 'localhost:11434'}"), Error);
  EXPECT_THROW(make("{temperature: 3}"), Error);
  EXPECT_THROW(make("{timeout: 0}"), Error);
  EXPECT_THROW(make("{model: ''}"), Error);
}

}  // namespace
}  // namespace rag
