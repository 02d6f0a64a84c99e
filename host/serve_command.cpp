// `rag serve`: the HTTP API and web page over pipelines kept loaded (see docs/http-api.md). Built
// as the module librag_serve.so, which the host loads when the command runs (see main.cpp).
#include <netdb.h>
#include <pthread.h>
#include <boost/dll/alias.hpp>
#include <signal.h>

#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include "commands.hpp"
#include "http_api.hpp"
#include "rag/error.hpp"
#include "rag/project.hpp"

namespace rag::commands {
namespace {

// How long requests in flight may take to finish once a stop is asked for.
constexpr auto kGrace = std::chrono::seconds(10);
// The last part of it, left to answers cancelled to say so.
constexpr auto kCancelled = std::chrono::seconds(3);

long long bounded(const cli::po::variables_map& vm, const char* name, long long low, long long high) {
  const long long value = vm[name].as<long long>();
  if (value < low || value > high)
    throw Error("--" + std::string(name) + " must be between " + std::to_string(low) + " and " + std::to_string(high) +
                ", got " + std::to_string(value));
  return value;
}

bool is_loopback(const std::string& host) { return host == "127.0.0.1" || host == "::1" || host == "localhost"; }

}  // namespace

int serve(const cli::Invocation& inv) {
  // A client that hangs up in the middle of a response makes the next write fail with EPIPE,
  // which cpp-httplib reports: SIGPIPE's default would kill the whole server instead.
  ::signal(SIGPIPE, SIG_IGN);
  cli::po::options_description options("serve options");
  options.add_options()
      ("pipeline", cli::po::value<std::vector<std::string>>()->composing(),
       "a pipeline to serve, by name or file (repeat for several; default: the project's default)")
      ("set", cli::po::value<std::vector<std::string>>()->composing(), "KEY=VALUE: override a key of every pipeline")
      ("host", cli::po::value<std::string>()->default_value("127.0.0.1"), "address to listen on")
      ("port", cli::po::value<long long>()->default_value(8080), "port (0: a free one)")
      ("threads", cli::po::value<long long>()->default_value(16), "worker threads (2-1024)")
      ("max-in-flight", cli::po::value<long long>(), "requests handled at once, more get 503 (default: threads; lower keeps workers free for cheap requests)")
      ("token-env", cli::po::value<std::string>(), "environment variable holding the bearer token every route but /healthz needs")
      ("log", cli::po::value<std::string>(), "append the JSON log lines to this file (default: stderr)")
      ("request-timeout", cli::po::value<long long>()->default_value(120), "seconds an answer may take, streamed or not (1-86400)")
      ("cors", cli::po::value<std::string>(), "send Access-Control-Allow-Origin with this origin");
  const auto vm = cli::parse(inv, "[--pipeline NAME|FILE ...] [--host 127.0.0.1] [--port 8080] [--threads N] [--token-env NAME]",
                             options);
  if (!vm) return 0;
  cli::HttpLimits limits;
  const std::string host = (*vm)["host"].as<std::string>();
  // Said apart from a port that is taken: "999.1.1.1" or a mistyped name is no address at all. A
  // host of digits and dots (or an IPv6 address) is read as an address only, without asking DNS.
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  if (host.find_first_not_of("0123456789.") == std::string::npos || host.find(':') != std::string::npos)
    hints.ai_flags = AI_NUMERICHOST;
  addrinfo* found = nullptr;
  if (const int failed = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); failed != 0)
    throw Error("--host " + host + " is not an address, nor a name this machine resolves (" + ::gai_strerror(failed) +
                "); give one of this machine's addresses, e.g. 127.0.0.1");
  ::freeaddrinfo(found);
  const auto port = static_cast<int>(bounded(*vm, "port", 0, 65535));
  limits.threads = static_cast<std::size_t>(bounded(*vm, "threads", 2, 1024));
  limits.max_in_flight = limits.threads;
  if (vm->count("max-in-flight"))
    limits.max_in_flight = static_cast<std::size_t>(bounded(*vm, "max-in-flight", 1, static_cast<long long>(limits.threads)));
  limits.max_waiting = 4 * limits.threads;
  limits.request_timeout = std::chrono::seconds(bounded(*vm, "request-timeout", 1, 86400));
  std::string token;
  if (vm->count("token-env")) {
    const std::string name = (*vm)["token-env"].as<std::string>();
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0')
      throw Error("the environment variable " + name + " (--token-env) is " + (value ? "empty" : "not set") +
                  "; export the token in it");
    token = value;
  }

  std::vector<Pipeline> pipelines;
  const std::vector<std::string> overrides = vm->count("set") ? (*vm)["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& spec : vm->count("pipeline") ? (*vm)["pipeline"].as<std::vector<std::string>>() : std::vector<std::string>{""}) {
    const PipelineLocation location = locate_pipeline(spec, std::filesystem::current_path());
    pipelines.push_back(Pipeline::load(location.file, overrides, location.reference));
    if (vm->count("log")) cli::check_output_beside("log", (*vm)["log"].as<std::string>(), pipelines.back());
  }

  // SIGINT and SIGTERM are taken by one thread with sigwait: blocked here, before any thread
  // starts, so that every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  cli::RequestLog log(vm->count("log") ? (*vm)["log"].as<std::string>() : "");
  Metrics metrics;
  Service service(std::move(pipelines), RequestLimits{}, metrics, [&log](const std::string& note) { log.note(note); });
  httplib::Server server;
  cli::HttpApi api(server, service, metrics, log, limits, token, vm->count("cors") ? (*vm)["cors"].as<std::string>() : "");
  const int bound = api.bind(host, port);
  if (bound < 0)
    throw Error("cannot listen on " + host + ":" + std::to_string(port) +
                " (the port is taken, or the address is not this machine's); choose another --port, or --port 0");
  std::cerr << "listening on http://" << (host.find(':') != std::string::npos ? "[" + host + "]" : host) << ":" << bound
            << std::endl;
  for (const auto& name : service.pipeline_names())
    if (const IndexState state = inspect_index(service.pipeline(name).stages()); state.kind != IndexState::Kind::current)
      log.note("warning: " + name + ": " + state.why + "; run `" + service.pipeline(name).pipeline().command("index") + "`");
  if (!is_loopback(host) && token.empty())
    log.note("warning: listening on " + host + " without a token: anyone who reaches this address can use the server "
             "(set one with --token-env)");

  std::mutex mutex;
  std::condition_variable stopped;
  bool done = false;
  std::thread signals([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    server.stop();
    std::unique_lock lock(mutex);
    const auto is_done = [&] { return done; };
    if (stopped.wait_for(lock, kGrace - kCancelled, is_done)) return;
    // Answers still being written (a model that does not answer) are cancelled, so that their
    // clients hear 503 before the process ends; again and again, for one whose model request
    // was not under way yet.
    log.note("answers still being written " + std::to_string((kGrace - kCancelled).count()) + " s after the stop: cancelling them");
    const auto end = std::chrono::steady_clock::now() + kCancelled;
    do service.stop_answers();
    while (!stopped.wait_for(lock, std::chrono::milliseconds(100), is_done) && std::chrono::steady_clock::now() < end);
    if (!done) {
      log.note("requests still in flight " + std::to_string(kGrace.count()) + " s after the stop; exiting");
      std::_Exit(0);
    }
  });
  const bool listened = server.listen_after_bind();
  {
    const std::lock_guard lock(mutex);
    done = true;
  }
  stopped.notify_all();
  pthread_kill(signals.native_handle(), SIGTERM);  // ends its sigwait when the server stopped on its own
  signals.join();
  if (!listened && server.is_valid()) log.note("the server stopped listening");
  return 0;
}

}  // namespace rag::commands

BOOST_DLL_ALIAS(rag::commands::serve, rag_serve)
