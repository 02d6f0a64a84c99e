#pragma once
// The service behind `rag serve`, apart from HTTP: pipelines kept loaded, each on the index
// generation `rag index` last committed, and the operations the API offers (search, answer,
// source, pipelines), their input checked and their output the JSON of docs/http-api.md.
//
// Live indexes work as read-copy-update: a request takes a reference to its pipeline's current
// generation and keeps it to the end; a watcher thread loads a newly committed generation beside
// it and swaps the reference; the old generation is freed by its last request.
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "rag/context.hpp"
#include "rag/error.hpp"
#include "rag/index.hpp"
#include "rag/metrics.hpp"
#include "rag/pipeline.hpp"
#include "rag/plugin_registry.hpp"
#include "rag/stages.hpp"

namespace rag {

/// A request the service refuses or fails, with the HTTP status that says so.
class BOOST_SYMBOL_VISIBLE RequestError : public Error {
 public:
  RequestError(int status, const std::string& message) : Error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

/// Limits on what one request may ask.
struct RequestLimits {
  std::size_t max_query_bytes = 4096;
  std::size_t max_k = 100;
  std::size_t min_message_chars = 200;
  std::size_t max_message_chars = 100'000;
  std::size_t max_source_context = 50;
};

/// One pipeline as the service serves it.
class ServedPipeline {
 public:
  /// An index generation with what answers need of it. Immutable once made.
  struct Generation {
    explicit Generation(PipelineStages& stages);
    Index index;
    ContextAssembler assembler;
  };

  /// Makes the pipeline's plugins and stages and opens its index. Throws rag::Error as `rag
  /// search` does (bad pipeline, no index, damaged index).
  explicit ServedPipeline(Pipeline pipeline);
  ~ServedPipeline();
  ServedPipeline(const ServedPipeline&) = delete;
  ServedPipeline& operator=(const ServedPipeline&) = delete;

  const Pipeline& pipeline() const { return pipeline_; }
  const PipelineStages& stages() const { return *stages_; }

  /// The generation requests use now.
  std::shared_ptr<const Generation> current() const;
  /// Moves to the generation the index's manifest names, when it is another one. Returns its id
  /// when it moved, nothing otherwise. Throws rag::Error when it cannot be opened (the current
  /// generation stays). Not to be called from two threads at once.
  std::optional<std::string> refresh();

  /// A generator lent to one request, back in the pool when the lease ends.
  class GeneratorLease {
   public:
    GeneratorLease(ServedPipeline& owner, std::unique_ptr<Generator> generator);
    ~GeneratorLease();
    GeneratorLease(const GeneratorLease&) = delete;
    GeneratorLease& operator=(const GeneratorLease&) = delete;
    Generator& operator*() const { return *generator_; }

   private:
    ServedPipeline& owner_;
    std::unique_ptr<Generator> generator_;
  };
  GeneratorLease lend_generator();
  /// Cancels what every generator lent now is writing (Generator::cancel()).
  void cancel_generators();

 private:
  Pipeline pipeline_;
  std::unique_ptr<PluginRegistry> registry_;  // before the stages and generators it made
  std::unique_ptr<PipelineStages> stages_;
  mutable std::mutex current_mutex_;
  std::shared_ptr<const Generation> current_;
  std::mutex generators_mutex_;
  std::vector<std::unique_ptr<Generator>> idle_generators_;
  std::vector<Generator*> lent_generators_;
};

class Service {
 public:
  /// Called with each event of a streamed answer: "sources", then "delta"s, as they come.
  using EventSink = std::function<void(std::string_view event, const nlohmann::ordered_json& data)>;

  /// Serves `pipelines` (the first is the default), each loaded now, and watches their indexes
  /// for new generations every `poll`. `note` receives what operators should read (a switch to
  /// a new generation, one that failed to load). Throws rag::Error when a pipeline cannot be
  /// served, or two share a name.
  Service(std::vector<Pipeline> pipelines, RequestLimits limits, Metrics& metrics,
          std::function<void(const std::string&)> note, std::chrono::milliseconds poll = std::chrono::milliseconds(250));
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  /// The pipeline of that name ("" for the default), or named as commands name it
  /// ("ablation/7-fusion", whose `name:` is "7-fusion"). Throws RequestError 404.
  ServedPipeline& pipeline(std::string_view name);
  std::vector<std::string> pipeline_names() const;

  /// GET /api/pipelines.
  nlohmann::ordered_json pipelines_json() const;
  /// GET /api/search: `k` as given (checked here); the query read in English and its typos
  /// respelt unless `as_written`. Throws RequestError 400/404.
  nlohmann::ordered_json search(std::string_view pipeline, const std::string& query, long long k, bool as_written = false);
  /// Throws RequestError (400, 404) when answer() would refuse these; cheap, for a caller that
  /// must know before it starts a stream.
  void check_answer(std::string_view pipeline, const std::string& question, long long k, long long max_message_chars);
  /// POST /api/answer. With `sink`, the sources and the answer's pieces are handed to it as
  /// they come; what it throws stops the work and comes out of this call. While the answer is
  /// written, `give_up` (when given) is asked a few times a second whether to stop it (the
  /// client has gone, its time is up): when it says so, the generator is cancelled and this call
  /// throws what the generator throws. Returns the whole answer. `max_message_chars` 0 means no
  /// `messages`. Throws RequestError 503 when stop_answers() cancelled it.
  nlohmann::ordered_json answer(std::string_view pipeline, const std::string& question, long long k,
                                long long max_message_chars, const EventSink& sink = {},
                                const std::function<bool()>& give_up = {});
  /// Cancels the answers being written, and those that start from now on, for a server that is
  /// stopping: their requests end with 503. Thread-safe.
  void stop_answers();
  /// GET /api/source, by chunk id or by a file of the index and a span. A chunk id is one of the
  /// generation a search gave it (`generation`, when given): throws RequestError 409 when the
  /// index has moved to another since, 404 when the chunk was removed by an update. Throws 400
  /// (a bad span) or 404 (not a file of the index, or outside its corpus).
  nlohmann::ordered_json source(std::string_view pipeline, std::optional<long long> chunk, const std::string& generation,
                                const std::string& path, std::optional<long long> first, std::optional<long long> last,
                                long long context);

 private:
  void watch(std::chrono::milliseconds poll);
  std::string checked_query(const std::string& text, const char* what) const;
  std::size_t checked_k(long long k) const;

  RequestLimits limits_;
  Metrics& metrics_;
  std::function<void(const std::string&)> note_;
  std::vector<std::unique_ptr<ServedPipeline>> pipelines_;
  std::mutex watch_mutex_;
  std::condition_variable watch_wakeup_;
  bool stopping_ = false;
  std::thread watcher_;
  std::atomic<bool> answers_stopped_{false};
};

}  // namespace rag
