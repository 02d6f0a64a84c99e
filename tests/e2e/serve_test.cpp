// `rag serve` through the real binary on loopback: every route and error, Server-Sent Events,
// the token, traversal attempts, bodies the server refuses, slow clients, overload, a client
// that goes away in the middle of an answer, index rebuilds under concurrent clients, and a stop
// with requests in flight.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/fixture_repo_test.hpp"
#include "e2e/serve_process.hpp"
#include "generators/chat_server.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;
using testing::ServeProcess;

// Sends `bytes` as they are on a new connection and returns what comes back before the server
// closes it or `wait` passes.
std::string raw_exchange(int port, const std::string& bytes, std::chrono::milliseconds wait = std::chrono::seconds(3)) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "";
  }
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  timeval timeout{static_cast<time_t>(wait.count() / 1000), static_cast<suseconds_t>(wait.count() % 1000 * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return reply;
}

// Sends `bytes`, reads until `marker` has come `times` times, and closes the connection.
std::string read_then_hang_up(int port, const std::string& bytes, const std::string& marker, int times) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    timeval timeout{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    const auto count = [&] {
      int n = 0;
      for (std::size_t at = reply.find(marker); at != std::string::npos; at = reply.find(marker, at + 1)) ++n;
      return n;
    };
    for (ssize_t n; count() < times && (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
      reply.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return reply;
}

int status_of(const std::string& reply) { return reply.size() > 12 ? std::stoi(reply.substr(9, 3)) : 0; }

// The events of a Server-Sent Events body, in order: (event, data).
std::vector<std::pair<std::string, json>> events_of(const std::string& body) {
  std::vector<std::pair<std::string, json>> events;
  std::istringstream in(body);
  std::string line, event;
  while (std::getline(in, line)) {
    if (line.rfind("event: ", 0) == 0) event = line.substr(7);
    else if (line.rfind("data: ", 0) == 0) events.emplace_back(event, json::parse(line.substr(6)));
  }
  return events;
}

class ServeTest : public testing::FixtureRepoTest {
 protected:
  void SetUp() override {
    FixtureRepoTest::SetUp();
    index();
  }
  static httplib::Client client(const ServeProcess& server) {
    httplib::Client c(server.host(), server.port());
    c.set_read_timeout(std::chrono::seconds(10));
    return c;
  }
};

// A chat message's sources are the answer's citations: a list in brackets that the quoted text
// holds is not one, nor is a malformed body's question ever written to the log.
TEST_F(ServeTest, MessagesCiteOnlySourcesAndBadBodiesLogNoQuestion) {
  dir_.write("repo/docs/ranks.md", "# Adapter ranks\n\nThe adapter ranks that the kernels support are [16, 32, 64] "
                                   "and nothing else.\n");
  index();
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);
  const auto answered = c.Post("/api/answer", R"({"question": "Which adapter ranks do the kernels support?", "k": 3,
                                                  "max_message_chars": 200})", "application/json");
  ASSERT_EQ(answered->status, 200) << answered->body;
  const json answer = json::parse(answered->body);
  ASSERT_THAT(answer["answer"].get<std::string>(), HasSubstr("[16, 32, 64]"));
  const auto sources = answer["sources"].size();
  bool cited = false;
  for (const auto& message : answer["messages"])
    for (const auto& n : message["sources"]) {
      EXPECT_GE(n.get<int>(), 1) << message;
      EXPECT_LE(n.get<std::size_t>(), sources) << message;
      cited = true;
    }
  EXPECT_TRUE(cited) << answer["messages"];

  // A raw tab inside a string: nlohmann's message would quote the question up to it.
  const auto bad = c.Post("/api/answer", "{\"question\": \"my password is hunter2\t\"}", "application/json");
  ASSERT_EQ(bad->status, 400);
  EXPECT_THAT(bad->body, HasSubstr("the body is not valid JSON (parse error at line 1, column"));
  EXPECT_THAT(bad->body, Not(HasSubstr("hunter2")));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (server.log().find("\"status\":400") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_THAT(server.log(), HasSubstr("\"status\":400"));
  EXPECT_THAT(server.log(), Not(HasSubstr("hunter2")));
}

// A query value runs from its first '=' to the next '&' (Debian's cpp-httplib keeps what follows
// the last '='), "+" is a space, and the first of a repeated name counts.
TEST_F(ServeTest, QueryValuesHoldEqualsSigns) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  const auto query = [&](const std::string& target) {
    const std::string reply = raw_exchange(server.port(), "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return json::parse(reply.substr(reply.find("\r\n\r\n") + 4))["query"];
  };
  EXPECT_EQ(query("/api/search?q=port=8000+parsed&k=1"), "port=8000 parsed");
  EXPECT_EQ(query("/api/search?k=1&q=a%3Db&q=second"), "a=b");
  EXPECT_EQ(query("/api/search?q=tensor_parallel_size=2&k=1&as_written=1"), "tensor_parallel_size=2");
}

TEST_F(ServeTest, EveryRouteAnswersWithTheFieldsOfTheCommandLine) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);

  const auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["pipelines"], json::array({"pipeline"}));

  const json pipelines = json::parse(c.Get("/api/pipelines")->body);
  EXPECT_EQ(pipelines["pipelines"][0]["name"], "pipeline");
  EXPECT_EQ(pipelines["pipelines"][0]["plugins"]["retriever"], "bm25");
  EXPECT_EQ(pipelines["pipelines"][0]["index"]["state"], "current");
  EXPECT_GT(pipelines["pipelines"][0]["index"]["chunks"].get<int>(), 0);

  // Search: what `rag search` prints, with the chunk ids /api/source takes.
  const auto search = c.Get("/api/search?q=TCP%20port%20parsed&k=2");
  ASSERT_EQ(search->status, 200) << search->body;
  const json found = json::parse(search->body);
  const json cli = json::parse(rag("search 'TCP port parsed' -k 2 --pipeline pipeline.yaml").out);
  ASSERT_EQ(found["retrieved_chunks"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    for (const char* field : {"file_path", "first_character_index", "last_character_index", "first_line", "last_line",
                              "text", "score", "chunk_id"})
      EXPECT_EQ(found["retrieved_chunks"][i][field], cli["retrieved_chunks"][i][field]) << field;
  EXPECT_EQ(found["pipeline"], "pipeline");
  EXPECT_THAT(found["generation"].get<std::string>(), StartsWith("gen-"));
  const json written = json::parse(c.Get("/api/search?q=TCP%20port%20parsed&k=2&as_written=1")->body);
  EXPECT_EQ(written["retrieved_chunks"], found["retrieved_chunks"]);

  // Answer, as JSON and with chat messages.
  const auto answered = c.Post("/api/answer", R"({"question": "How is the TCP port number parsed?", "k": 3,
                                                  "max_message_chars": 200})", "application/json");
  ASSERT_EQ(answered->status, 200) << answered->body;
  const json answer = json::parse(answered->body);
  EXPECT_FALSE(answer["answer"].get<std::string>().empty());
  EXPECT_EQ(answer["sources"][0]["file_path"], "repo/pkg/server.py");
  for (const auto& message : answer["messages"]) EXPECT_LE(message["text"].get<std::string>().size(), 200u);
  EXPECT_TRUE(answer["timings"].contains("generation_ms"));

  // The same as Server-Sent Events: sources first, then the answer in pieces, then done.
  httplib::Headers sse = {{"Accept", "text/event-stream"}};
  const auto streamed = c.Post("/api/answer", sse, R"({"question": "How is the TCP port number parsed?", "k": 3,
                                                      "max_message_chars": 200})", "application/json");
  ASSERT_EQ(streamed->status, 200);
  EXPECT_EQ(streamed->get_header_value("Content-Type"), "text/event-stream");
  const auto events = events_of(streamed->body);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().first, "sources");
  EXPECT_EQ(events.front().second["sources"], [&] {
    json sources = answer["sources"];
    for (auto& s : sources) s.erase("cited");
    return sources;
  }());
  std::string pieces;
  for (std::size_t i = 1; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i].first, "delta");
    pieces += events[i].second["text"].get<std::string>();
  }
  EXPECT_EQ(events.back().first, "done");
  EXPECT_EQ(events.back().second["answer"], answer["answer"]);
  // Everything the JSON answer says is in one event or the other.
  for (const auto& [key, value] : answer.items()) {
    if (key == "answer" || key == "sources") continue;
    const json& given = (events.back().second.contains(key) ? events.back().second : events.front().second)[key];
    if (key == "timings") EXPECT_EQ(given.size(), value.size());  // each request's own
    else EXPECT_EQ(given, value) << key;
  }
  EXPECT_EQ(pieces, answer["answer"]);

  // Source: by chunk id and by file and span, lines around it.
  const int chunk = found["retrieved_chunks"][0]["chunk_id"];
  const json by_chunk = json::parse(c.Get("/api/source?chunk=" + std::to_string(chunk) + "&context=1")->body);
  EXPECT_EQ(by_chunk["file_path"], found["retrieved_chunks"][0]["file_path"]);
  EXPECT_EQ(by_chunk["span"]["first_line"], found["retrieved_chunks"][0]["first_line"]);
  EXPECT_EQ(by_chunk["changed"], false);
  const int first_line = by_chunk["span"]["first_line"];
  EXPECT_EQ(by_chunk["lines"][0]["number"], std::max(1, first_line - 1));
  const json by_path = json::parse(c.Get("/api/source?path=repo/pkg/server.py&first=0&last=10&context=0")->body);
  EXPECT_EQ(by_path["lines"].size(), 1u);
  EXPECT_EQ(by_path["lines"][0]["number"], 1);
  // Each line says the code point it starts at (the guide has non-ASCII letters on line 3).
  const json guide = json::parse(c.Get("/api/source?path=repo/docs/guide.md&first=0&last=5&context=50")->body);
  std::size_t line_start = 0, code_points = 0, at = 0;
  const std::string text = testing::read_all(dir_.path() / "repo/docs/guide.md");
  for (const json& line : guide["lines"]) {
    EXPECT_EQ(line["first_character_index"], line_start) << line;
    while (at < text.size() && text[at] != '\n')
      code_points += (static_cast<unsigned char>(text[at++]) & 0xC0) != 0x80;
    line_start = code_points += 1, ++at;  // past the newline
  }
  EXPECT_GT(guide["lines"].size(), 5u);

  // Metrics, after all of that. A client has its last byte a moment before the server counts
  // its request out: wait for the previous ones to be counted.
  std::string metrics;
  for (int attempt = 0; attempt < 100 && metrics.find("rag_requests_in_flight 1\n") == std::string::npos; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    metrics = c.Get("/metrics")->body;
  }
  EXPECT_THAT(metrics, HasSubstr("rag_requests_total{route=\"/api/search\",status=\"200\"} 2"));
  EXPECT_THAT(metrics, HasSubstr("rag_stage_seconds_bucket{stage=\"generate\",le=\"+Inf\"} 2"));
  EXPECT_THAT(metrics, HasSubstr("rag_requests_in_flight 1"));  // this request

  // The log: one JSON line per request, without the question.
  const std::string log = server.log();
  EXPECT_THAT(log, HasSubstr("\"route\":\"/api/answer\",\"status\":200"));
  EXPECT_THAT(log, Not(HasSubstr("TCP port number parsed")));
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

TEST_F(ServeTest, ErrorsAreJsonWithTheRightStatus) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);
  const auto expect = [&](const httplib::Result& r, int status, const std::string& words) {
    ASSERT_TRUE(r) << words;
    EXPECT_EQ(r->status, status) << r->body;
    const json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r->body;
    EXPECT_THAT(body["error"].get<std::string>(), HasSubstr(words));
  };
  expect(c.Get("/api/search"), 400, "q is missing or empty");
  expect(c.Get("/api/search?q=port&k=0"), 400, "k must be between 1 and 100");
  expect(c.Get("/api/search?q=port&k=ten"), 400, "k must be a whole number");
  expect(c.Get("/api/search?q=port&as_written=yes"), 400, "as_written must be 0 or 1, got 'yes'");
  expect(c.Get("/api/search?q=" + std::string(5000, 'a')), 400, "the limit is 4096");
  // Media types are read as HTTP reads them: in any case, and with their weights.
  for (const auto& [accept, type] : std::vector<std::pair<std::string, std::string>>{
           {"TEXT/Event-Stream", "text/event-stream"},
           {"application/json, text/event-stream;q=0.5", "text/event-stream"},
           {"text/event-stream;q=0", "application/json"},
           {"application/json;q=0.9, text/event-stream ; q=0.0", "application/json"}}) {
    const auto r = c.Post("/api/answer", {{"Accept", accept}}, R"({"question": "port", "k": 1})", "application/json");
    ASSERT_TRUE(r) << accept;
    EXPECT_THAT(r->get_header_value("Content-Type"), ::testing::StartsWith(type)) << accept;
  }
  // An address past httplib's limit is refused before any handler: said, counted, not timed.
  expect(c.Get("/api/search?q=" + std::string(9000, 'a')), 414, "shorten the query");
  // httplib counts and logs a request once its response is sent: the client may ask before.
  const std::string counted = "rag_requests_total{route=\"other\",status=\"414\"} 1";
  std::string metrics = c.Get("/metrics")->body;
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       metrics.find(counted) == std::string::npos && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    metrics = c.Get("/metrics")->body;
  }
  EXPECT_THAT(metrics, HasSubstr(counted));
  EXPECT_THAT(metrics, Not(HasSubstr("rag_request_seconds_count{route=\"other\"}"))) << "timed from the clock's epoch";
  const auto logged_414 = [&] { return server.log().find("\"status\":414") != std::string::npos; };
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       !logged_414() && std::chrono::steady_clock::now() < deadline;)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_THAT(server.log(), ::testing::ContainsRegex("\"id\":\"[0-9]+\",\"method\":null,\"route\":\"other\",\"status\":414,\"ms\":null"));
  expect(c.Get("/api/search?q=port&pipeline=nope"), 404, "no pipeline named 'nope'");
  // Named as its `name:` says, or as commands name it (here the file given to --pipeline).
  EXPECT_EQ(c.Get("/api/search?q=port&pipeline=pipeline")->status, 200);
  EXPECT_EQ(c.Get("/api/search?q=port&pipeline=pipeline.yaml")->status, 200);
  // What is wrong with the JSON, and where.
  expect(c.Post("/api/answer", "{not json", "application/json"), 400, "the body is not valid JSON (parse error at line 1, column 3");
  expect(c.Post("/api/answer", R"({"question": "port"} {})", "application/json"), 400, "expected end of input");
  expect(c.Post("/api/answer", R"({"question": "\ud800"})", "application/json"), 400, "surrogate");
  expect(c.Post("/api/answer", R"(["port"])", "application/json"), 400, "must be a JSON object");
  expect(c.Post("/api/answer", R"({"k": 3})", "application/json"), 400, "question is missing");
  expect(c.Post("/api/answer", R"({"question": 5})", "application/json"), 400, "question must be a string");
  expect(c.Post("/api/answer", R"({"question": "port", "k": 2.5})", "application/json"), 400, "k must be a whole number");
  const auto whole = c.Post("/api/answer", R"({"question": "port", "k": 2.0})", "application/json");
  ASSERT_EQ(whole->status, 200) << whole->body;
  EXPECT_LE(json::parse(whole->body)["sources"].size(), 2u);
  expect(c.Post("/api/answer", R"({"question": "port", "max_message_chars": 10})", "application/json"), 400,
         "max_message_chars must be between");
  expect(c.Post("/api/answer", std::string(70 * 1024, ' '), "application/json"), 413, "larger than the limit");
  expect(c.Post("/api/search", "", "text/plain"), 405, "/api/search takes GET, not POST");
  expect(c.Get("/api/nothing"), 404, "no route /api/nothing");
  expect(c.Post("/api/nothing", "", "application/json"), 404, "no route /api/nothing");
  EXPECT_EQ(status_of(raw_exchange(server.port(), "POST /nope HTTP/1.1\r\nHost: x\r\n\r\n")), 404);
  const auto page_posted = c.Post("/", "x", "text/plain");
  EXPECT_EQ(page_posted->status, 405);
  EXPECT_EQ(page_posted->get_header_value("Allow"), "GET, HEAD");
  // A form body (curl -d without -H) has httplib's smaller cap, which the refusal names.
  expect(c.Post("/api/answer", "{\"question\": \"" + std::string(9000, 'x') + "\"}", "application/x-www-form-urlencoded"),
         413, "send the JSON with Content-Type: application/json");
  expect(c.Get("/api/source?chunk=999999"), 404, "no chunk 999999 in this index (its ids are below ");
  expect(c.Get("/api/source?path=repo/pkg/server.py&first=10&last=5"), 400, "first before last");
  // A body sent chunked or compressed is refused before it is read.
  // The connection closes after a refusal, so that an unread body is never taken for a request.
  const auto start = std::chrono::steady_clock::now();
  const std::string chunked = raw_exchange(server.port(),
      "POST /api/answer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_of(chunked), 411) << chunked;
  EXPECT_EQ(chunked.find("HTTP/1.1", 1), std::string::npos) << "the body was read as a request: " << chunked;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  const std::string gzipped = raw_exchange(server.port(),
      "POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd");
  EXPECT_EQ(status_of(gzipped), 415) << gzipped;
  EXPECT_EQ(status_of(raw_exchange(server.port(), "NONSENSE\r\n\r\n", std::chrono::milliseconds(500))), 400);
  // A body's length told not at all, or twice: refused at once, not after the read timeout.
  const auto unsized_start = std::chrono::steady_clock::now();
  EXPECT_EQ(status_of(raw_exchange(server.port(), "POST /api/answer HTTP/1.1\r\nHost: x\r\n\r\n")), 411);
  EXPECT_EQ(status_of(raw_exchange(server.port(), "POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                                                  "Content-Length: 30\r\n\r\n{}")),
            400);
  // A length that is not a number, or over the limit, and a wrong method with no body.
  const std::string negative = raw_exchange(server.port(), "POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n");
  EXPECT_EQ(status_of(negative), 400) << negative;
  EXPECT_THAT(negative, HasSubstr("Content-Length must be a number of bytes, not '-5'"));
  EXPECT_EQ(status_of(raw_exchange(server.port(), "POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n")), 413);
  const std::string posted = raw_exchange(server.port(), "POST /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_of(posted), 405);
  EXPECT_THAT(posted, HasSubstr("Allow: GET, HEAD"));
  // HEAD where GET goes (an uptime monitor's probe): the status and headers, no body.
  const std::string head = raw_exchange(server.port(), "HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(head), 200) << head;
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");
  EXPECT_LT(std::chrono::steady_clock::now() - unsized_start, std::chrono::seconds(2));
  // Bytes that are not UTF-8 in a path or a header are written out (response, request log) as U+FFFD.
  EXPECT_EQ(status_of(raw_exchange(server.port(), "GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n")), 404);
  EXPECT_EQ(status_of(raw_exchange(server.port(), "POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Length: \xff\r\n\r\n")), 400);
  EXPECT_EQ(status_of(raw_exchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")), 200) << server.log();
  EXPECT_THAT(server.log(), Not(HasSubstr("terminate")));
}

// Only files of the index, at the paths it names, inside its corpus: nothing else is served.
TEST_F(ServeTest, SourceServesNothingOutsideTheIndex) {
  testing::TempDir outside;
  outside.write("secret.txt", "the secret\n");
  std::filesystem::create_symlink(outside / "secret.txt", dir_ / "repo/link.txt");
  index();  // the link is a file of the corpus: indexed, but its target is not the corpus's
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);
  for (const std::string& path : std::vector<std::string>{"../pipeline.yaml", "/etc/passwd", "repo/../pipeline.yaml", "repo%2F..%2Fpipeline.yaml", "repo/./pkg/server.py",
        (dir_ / "repo/pkg/server.py").string(), "repo/link.txt", "repo/pkg/server.py%00.md"}) {
    const auto r = c.Get("/api/source?path=" + path + "&first=0&last=5");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path << ": " << r->body;
    EXPECT_THAT(r->body, Not(HasSubstr("secret")));
  }
  EXPECT_THAT(c.Get("/api/source?path=repo/link.txt&first=0&last=5")->body, HasSubstr("a link that leads out of it"));
}

// A span the index gave, of a file cut short since: search again (409), not the client's fault.
TEST_F(ServeTest, SourceOfAFileCutShortSinceIndexingSaysSearchAgain) {
  index();
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);
  const std::string text = testing::read_all(dir_ / "repo/pkg/server.py");
  const std::string span = "&first=" + std::to_string(text.size() - 20) + "&last=" + std::to_string(text.size());
  EXPECT_EQ(c.Get("/api/source?path=repo/pkg/server.py" + span)->status, 200);
  dir_.write("repo/pkg/server.py", text.substr(0, 40));
  const auto cut = c.Get("/api/source?path=repo/pkg/server.py" + span);
  EXPECT_EQ(cut->status, 409) << cut->body;
  EXPECT_THAT(cut->body, HasSubstr("changed since it was indexed and is now shorter than the span"));
  dir_.write("repo/pkg/server.py", text);  // the same bytes again: a span past the end is the client's
  EXPECT_EQ(c.Get("/api/source?path=repo/pkg/server.py&first=0&last=99999")->status, 400);
}

TEST_F(ServeTest, TheTokenGuardsEveryRouteButHealth) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml --token-env RAG_TEST_TOKEN", "RAG_TEST_TOKEN=s3cret");
  auto c = client(server);
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  EXPECT_EQ(c.Get("/")->status, 200);  // the page holds no data; it asks for the token
  EXPECT_EQ(c.Head("/")->status, 200);  // HEAD goes where GET does
  EXPECT_EQ(c.Get("/api/search?q=port")->status, 401);
  EXPECT_EQ(c.Get("/metrics")->status, 401);
  EXPECT_EQ(c.Get("/api/search?q=port", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(c.Get("/api/search?q=port", {{"Authorization", "Bearer s3cret"}})->status, 200);
  EXPECT_EQ(c.Get("/api/search?q=port", {{"Authorization", "bearer s3cret"}})->status, 200);  // any case of the scheme
  EXPECT_EQ(c.Get("/api/search?q=port", {{"Authorization", "Bearer S3CRET"}})->status, 401);  // not of the token
  EXPECT_EQ(c.Get("/api/search?q=port", {{"Authorization", "Bearer s3cret2"}})->status, 401);
  EXPECT_THAT(server.log(), Not(HasSubstr("s3cret")));
  const testing::Outcome unset = rag("serve --pipeline pipeline.yaml --token-env RAG_TEST_UNSET_TOKEN");
  EXPECT_EQ(unset.status, 1);
  EXPECT_THAT(unset.err, HasSubstr("RAG_TEST_UNSET_TOKEN (--token-env) is not set"));
  const testing::Outcome empty = rag("serve --pipeline pipeline.yaml --token-env RAG_TEST_EMPTY_TOKEN", "RAG_TEST_EMPTY_TOKEN=");
  EXPECT_EQ(empty.status, 1);
  EXPECT_THAT(empty.err, HasSubstr("RAG_TEST_EMPTY_TOKEN (--token-env) is empty"));
}

// Idle connections time out; past the workers and the waiting room, requests get 503 at once.
TEST_F(ServeTest, SlowClientsAndOverloadDoNotHoldTheServer) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml --threads 2");
  std::vector<std::thread> idle;
  for (int i = 0; i < 3; ++i)  // more idle connections than workers: they send half a request
    idle.emplace_back([&] { raw_exchange(server.port(), "GET /healthz HTTP/1.1\r\n", std::chrono::seconds(6)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  auto c = client(server);
  const auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(7)) << "read timeouts free the workers";
  for (auto& t : idle) t.join();
}

// A stand-in LLM server that streams an answer slowly, and notes whether its client left early.
class SlowModel {
 public:
  SlowModel()
      : server_("/api/chat", [this](const httplib::Request&, httplib::Response& response) {
          response.set_chunked_content_provider("application/x-ndjson", [this](std::size_t, httplib::DataSink& sink) {
            for (int i = 0; i < 40; ++i) {
              const std::string line = json{{"message", {{"role", "assistant"}, {"content", "word "}}}, {"done", false}}.dump() + "\n";
              if (!sink.write(line.data(), line.size())) {
                cancelled_ = true;
                return false;
              }
              std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            const std::string last = json{{"message", {{"role", "assistant"}, {"content", "[1]"}}}, {"done", true}}.dump() + "\n";
            sink.write(last.data(), last.size());
            sink.done();
            return true;
          });
        }) {}
  std::string pipeline() const {
    return std::string(testing::kFixturePipeline) + "generator: {plugin: ollama, options: {base_url: '" + server_.url() +
           "', stream: true, timeout: 20}}\n";
  }
  bool cancelled() const { return cancelled_; }

 private:
  std::atomic<bool> cancelled_{false};
  testing::ChatServer server_;
};

TEST_F(ServeTest, AClientThatGoesAwayStopsTheAnswerAndTheModel) {
  SlowModel model;
  dir_.write("slow.yaml", model.pipeline());
  ServeProcess server(dir_.path(), "--pipeline slow.yaml");
  // Reads the sources and two pieces, then hangs up.
  const std::string body = R"({"question": "How is the port parsed?"})";
  std::string seen = read_then_hang_up(server.port(),
                                       "POST /api/answer HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                                       "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                           "\r\n\r\n" + body,
                                       "event: delta", 2);
  EXPECT_THAT(seen, HasSubstr("event: sources"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!model.cancelled() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(model.cancelled()) << "the request to the model server goes on after the client left";
  // The server says so once the model's request has ended, which under load comes a little later.
  while (server.log().find("the client went away") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_THAT(server.log(), HasSubstr("the client went away"));
}

TEST_F(ServeTest, StopFinishesRequestsInFlightAndExitsZero) {
  SlowModel model;
  dir_.write("slow.yaml", model.pipeline());
  ServeProcess server(dir_.path(), "--pipeline slow.yaml");
  std::string body;
  std::thread asking([&] {
    httplib::Client c(server.host(), server.port());
    c.set_read_timeout(std::chrono::seconds(20));
    const auto r = c.Post("/api/answer", {{"Accept", "text/event-stream"}}, R"({"question": "How is the port parsed?"})",
                          "application/json");
    if (r) body = r->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the answer is streaming
  server.signal(SIGTERM);
  asking.join();
  EXPECT_EQ(server.wait(), 0);
  EXPECT_THAT(body, HasSubstr("event: done")) << "the answer in flight finished";
  EXPECT_FALSE(model.cancelled());
  // Once stopped, nothing listens.
  httplib::Client late(server.host(), server.port());
  EXPECT_FALSE(late.Get("/healthz"));
}

// A model server that takes a request and writes nothing (until the test ends, or 30 s).
class SilentModel {
 public:
  SilentModel()
      : server_("/api/chat", [this](const httplib::Request&, httplib::Response& response) {
          server_.wait_for_release(std::chrono::seconds(30));
          response.set_content(json{{"message", {{"content", "late [1]"}}}, {"done", true}}.dump(), "application/json");
        }) {}
  std::string pipeline(bool stream) const {
    return std::string(testing::kFixturePipeline) + "generator: {plugin: ollama, options: {base_url: '" + server_.url() +
           "', stream: " + (stream ? "true" : "false") + ", timeout: 60}}\n";
  }

 private:
  testing::ChatServer server_;
};

TEST_F(ServeTest, AnAnswerTheModelHasNotBegunStopsWhenTheClientGoesOrItsTimeIsUp) {
  SilentModel model;
  dir_.write("silent.yaml", model.pipeline(true));
  ServeProcess server(dir_.path(), "--pipeline silent.yaml --request-timeout 2");
  const std::string body = R"({"question": "How is the port parsed?"})";
  const auto start = std::chrono::steady_clock::now();
  const std::string seen = read_then_hang_up(server.port(),
                                             "POST /api/answer HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                                             "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                                 "\r\n\r\n" + body,
                                             "event: sources", 1);
  EXPECT_THAT(seen, HasSubstr("event: sources"));
  const auto deadline = start + std::chrono::seconds(10);
  while (server.log().find("the client went away") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_THAT(server.log(), HasSubstr("the client went away"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "the answer waited for the model";

  // A client that stays past --request-timeout: an error event, streamed or not (504).
  auto c = client(server);
  const auto asked = std::chrono::steady_clock::now();
  const auto streamed = c.Post("/api/answer", {{"Accept", "text/event-stream"}}, body, "application/json");
  ASSERT_TRUE(streamed);
  const auto events = events_of(streamed->body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().first, "error");
  EXPECT_THAT(events.back().second["error"].get<std::string>(), HasSubstr("--request-timeout"));
  const auto whole = c.Post("/api/answer", body, "application/json");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 504);
  EXPECT_THAT(json::parse(whole->body)["error"].get<std::string>(), HasSubstr("--request-timeout"));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(10)) << "the answers waited for the model";
}

TEST_F(ServeTest, StopCancelsAnswersTheModelDoesNotWriteAndTheirClientsHear503) {
  SilentModel model;
  dir_.write("silent.yaml", model.pipeline(false));
  ServeProcess server(dir_.path(), "--pipeline silent.yaml");
  int status = 0;
  std::string body;
  std::thread asking([&] {
    httplib::Client c(server.host(), server.port());
    c.set_read_timeout(std::chrono::seconds(30));
    if (const auto r = c.Post("/api/answer", R"({"question": "How is the port parsed?"})", "application/json")) {
      status = r->status;
      body = r->body;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the model has the request
  const auto stop = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  asking.join();
  EXPECT_EQ(server.wait(), 0);
  EXPECT_EQ(status, 503);
  EXPECT_THAT(body, HasSubstr("the server is stopping"));
  EXPECT_LT(std::chrono::steady_clock::now() - stop, std::chrono::seconds(10));
  EXPECT_THAT(server.log(), HasSubstr("cancelling them"));
}

TEST_F(ServeTest, TooManyRequestsAtOnceGet503) {
  SlowModel model;
  dir_.write("slow.yaml", model.pipeline());
  ServeProcess server(dir_.path(), "--pipeline slow.yaml --threads 4 --max-in-flight 1");
  std::thread asking([&] {
    httplib::Client c(server.host(), server.port());
    c.set_read_timeout(std::chrono::seconds(20));
    c.Post("/api/answer", {{"Accept", "text/event-stream"}}, R"({"question": "How is the port parsed?"})", "application/json");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto c = client(server);
  const auto r = c.Get("/api/search?q=port");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  asking.join();
  // The answer's client has its last byte a moment before the server counts the request out.
  int status = 0;
  for (int attempt = 0; attempt < 100 && status != 200; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = c.Get("/api/search?q=port")->status;
  }
  EXPECT_EQ(status, 200);
}

// A chunk id is one of the generation that gave it: after an update, asked with that generation,
// the server says the ids moved rather than serve whatever chunk now has the id.
TEST_F(ServeTest, AChunkIdOfAnOlderGenerationIsRefused) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  auto c = client(server);
  const json found = json::parse(c.Get("/api/search?q=port&k=1")->body);
  const std::string generation = found["generation"];
  const long long id = found["retrieved_chunks"][0]["chunk_id"];
  const std::string file = found["retrieved_chunks"][0]["file_path"];
  const std::string asked = "/api/source?chunk=" + std::to_string(id) + "&generation=" + generation;
  EXPECT_EQ(c.Get(asked)->status, 200);
  // The chunk's file changes: its chunks are removed, new ones added.
  const std::string relative = file.substr(file.find('/') + 1);
  dir_.write("repo/" + relative, testing::read_all(dir_ / "repo" / relative) + "\n# A new part about the port\n");
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (json::parse(c.Get("/api/search?q=port&k=1")->body)["generation"] == generation &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto moved = c.Get(asked);
  EXPECT_EQ(moved->status, 409);
  EXPECT_THAT(json::parse(moved->body)["error"].get<std::string>(), HasSubstr("search again"));
  // Without a generation, the id is read in the index as it is now.
  EXPECT_EQ(c.Get("/api/source?chunk=" + std::to_string(id))->status, 200);
}

// `rag index` under load: the server moves to each new generation without a failed request.
TEST_F(ServeTest, RebuildsUnderConcurrentClientsFailNoRequest) {
  ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
  std::atomic<bool> stop{false};
  std::atomic<int> requests{0}, failures{0};
  std::mutex mutex;
  std::set<std::string> generations;
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i)
    clients.emplace_back([&, i] {
      httplib::Client c(server.host(), server.port());
      while (!stop) {
        const auto r = i % 2 ? c.Get("/api/search?q=port&k=3")
                             : c.Post("/api/answer", R"({"question": "How is the port parsed?", "k": 3})", "application/json");
        ++requests;
        if (!r || r->status != 200) {
          ++failures;
          continue;
        }
        const std::lock_guard lock(mutex);
        generations.insert(json::parse(r->body)["generation"].get<std::string>());
      }
    });
  for (int rebuild = 0; rebuild < 3; ++rebuild) {
    dir_.write("repo/docs/extra.md", "# Extra " + std::to_string(rebuild) + "\n\nThe port is parsed by parse_port.\n");
    EXPECT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
  stop = true;
  for (auto& t : clients) t.join();
  EXPECT_GT(requests, 50);
  EXPECT_EQ(failures, 0);
  EXPECT_GE(generations.size(), 3u) << "the server moved to the new generations";
  EXPECT_THAT(httplib::Client(server.host(), server.port()).Get("/metrics")->body,
              HasSubstr("rag_index_generation_switches_total{pipeline=\"pipeline\"}"));
}

TEST_F(ServeTest, AStreamedAnswerStopsAtTheRequestTimeout) {
  SlowModel model;
  dir_.write("slow.yaml", model.pipeline());
  ServeProcess server(dir_.path(), "--pipeline slow.yaml --request-timeout 1");
  auto c = client(server);
  const auto r = c.Post("/api/answer", {{"Accept", "text/event-stream"}}, R"({"question": "How is the port parsed?"})",
                        "application/json");
  ASSERT_TRUE(r);
  const auto events = events_of(r->body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().first, "error");
  EXPECT_THAT(events.back().second["error"].get<std::string>(), HasSubstr("--request-timeout"));
}

TEST_F(ServeTest, CorsOnlyWhenAskedAndAWarningOffLoopbackWithoutAToken) {
  {
    ServeProcess server(dir_.path(), "--pipeline pipeline.yaml");
    EXPECT_FALSE(client(server).Get("/healthz")->has_header("Access-Control-Allow-Origin"));
  }
  ServeProcess open(dir_.path(), "--pipeline pipeline.yaml --host 0.0.0.0 --cors https://example.org");
  httplib::Client c("127.0.0.1", open.port());
  EXPECT_EQ(c.Get("/healthz")->get_header_value("Access-Control-Allow-Origin"), "https://example.org");
  // A browser's preflight before a POST of JSON: what the route takes and the headers it reads.
  httplib::Request preflight;
  preflight.method = "OPTIONS";
  preflight.path = "/api/answer";
  preflight.headers = {{"Origin", "https://example.org"}, {"Access-Control-Request-Method", "POST"},
                       {"Access-Control-Request-Headers", "content-type"}};
  const auto allowed = c.send(preflight);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 204);
  EXPECT_EQ(allowed->get_header_value("Access-Control-Allow-Origin"), "https://example.org");
  EXPECT_EQ(allowed->get_header_value("Access-Control-Allow-Methods"), "POST");
  EXPECT_THAT(allowed->get_header_value("Access-Control-Allow-Headers"), HasSubstr("Content-Type"));
  preflight.path = "/api/nothing";
  EXPECT_EQ(c.send(preflight)->status, 404);
  EXPECT_THAT(open.log(), HasSubstr("without a token: anyone who reaches this address can use the server"));
}

TEST_F(ServeTest, BadStartsAreOneErrorLine) {
  expect_error("serve --pipeline pipeline.yaml --port 70000", "--port must be between 0 and 65535");
  expect_error("serve --pipeline pipeline.yaml --threads 1", "--threads must be between 2 and 1024");
  expect_error("serve --pipeline pipeline.yaml --pipeline pipeline.yaml", "are both named 'pipeline'");
  write_variant("unindexed.yaml", "index: index", "index: none-yet");
  expect_error("serve --pipeline unindexed.yaml", "no index at none-yet");
  ServeProcess first(dir_.path(), "--pipeline pipeline.yaml");
  expect_error("serve --pipeline pipeline.yaml --port " + std::to_string(first.port()), "cannot listen on 127.0.0.1:");
  expect_error("serve --pipeline pipeline.yaml --host 999.1.1.1",
               "--host 999.1.1.1 is not an address, nor a name this machine resolves");
  expect_error("serve --pipeline pipeline.yaml --port 0 --log nowhere/x.log",
               "nowhere/x.log: cannot open the log file for appending (No such file or directory)");
}

}  // namespace
}  // namespace rag
