#include "rag/service.hpp"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "rag/answering.hpp"
#include "rag/chat_messages.hpp"
#include "rag/corpus.hpp"
#include "rag/file_io.hpp"
#include "rag/responses.hpp"
#include "rag/source_file.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {
// How often an answer being written asks whether it is still wanted.
constexpr auto kGiveUpPoll = std::chrono::milliseconds(200);
constexpr const char* kStopping = "the server is stopping; ask again once it is back";
}  // namespace

// --- ServedPipeline ----------------------------------------------------------------------------

ServedPipeline::Generation::Generation(PipelineStages& stages)
    : index(stages), assembler(stages.context(), index, stages.pipeline().base) {}

ServedPipeline::ServedPipeline(Pipeline pipeline)
    : pipeline_(std::move(pipeline)),
      registry_(std::make_unique<PluginRegistry>(PluginRegistry::search_path(pipeline_.plugin_paths))),
      stages_(std::make_unique<PipelineStages>(pipeline_, *registry_)),
      current_(std::make_shared<const Generation>(*stages_)) {}

ServedPipeline::~ServedPipeline() = default;

std::shared_ptr<const ServedPipeline::Generation> ServedPipeline::current() const {
  const std::lock_guard lock(current_mutex_);
  return current_;
}

std::optional<std::string> ServedPipeline::refresh() {
  const std::string committed = committed_generation(pipeline_);
  if (committed.empty() || committed == current()->index.generation()) return std::nullopt;
  auto next = std::make_shared<const Generation>(*stages_);
  const std::string id = next->index.generation();
  {
    const std::lock_guard lock(current_mutex_);
    if (id == current_->index.generation()) return std::nullopt;
    current_ = std::move(next);
  }
  return id;
}

ServedPipeline::GeneratorLease::GeneratorLease(ServedPipeline& owner, std::unique_ptr<Generator> generator)
    : owner_(owner), generator_(std::move(generator)) {
  const std::lock_guard lock(owner_.generators_mutex_);
  owner_.lent_generators_.push_back(generator_.get());
}

ServedPipeline::GeneratorLease::~GeneratorLease() {
  const std::lock_guard lock(owner_.generators_mutex_);
  std::erase(owner_.lent_generators_, generator_.get());
  owner_.idle_generators_.push_back(std::move(generator_));
}

ServedPipeline::GeneratorLease ServedPipeline::lend_generator() {
  std::unique_ptr<Generator> generator;
  {
    const std::lock_guard lock(generators_mutex_);
    if (!idle_generators_.empty()) {
      generator = std::move(idle_generators_.back());
      idle_generators_.pop_back();
    }
  }
  return GeneratorLease(*this, generator ? std::move(generator) : stages_->make_generator());
}

void ServedPipeline::cancel_generators() {
  const std::lock_guard lock(generators_mutex_);
  for (Generator* generator : lent_generators_) generator->cancel();
}

// --- Service -----------------------------------------------------------------------------------

Service::Service(std::vector<Pipeline> pipelines, RequestLimits limits, Metrics& metrics,
                 std::function<void(const std::string&)> note, std::chrono::milliseconds poll)
    : limits_(limits), metrics_(metrics), note_(std::move(note)) {
  if (pipelines.empty()) throw Error("no pipeline to serve");
  for (auto& p : pipelines) {
    for (const auto& served : pipelines_)
      if (served->pipeline().name == p.name)
        throw Error(p.label() + " and " + served->pipeline().label() + " are both named '" + p.name +
                    "'; the API tells pipelines apart by name: give one another `name:`");
    pipelines_.push_back(std::make_unique<ServedPipeline>(std::move(p)));
  }
  watcher_ = std::thread([this, poll] { watch(poll); });
}

Service::~Service() {
  {
    const std::lock_guard lock(watch_mutex_);
    stopping_ = true;
  }
  watch_wakeup_.notify_all();
  watcher_.join();
}

void Service::watch(std::chrono::milliseconds poll) {
  std::map<std::string, std::string> failed;  // pipeline -> the generation that failed to load, said once
  std::unique_lock lock(watch_mutex_);
  while (!watch_wakeup_.wait_for(lock, poll, [this] { return stopping_; })) {
    lock.unlock();
    for (const auto& served : pipelines_) {
      const std::string& name = served->pipeline().name;
      try {
        if (const auto moved = served->refresh()) {
          metrics_.count_switch(name);
          note_(name + ": now on index generation " + *moved);
          failed.erase(name);
        }
      } catch (const Error& e) {
        const std::string committed = committed_generation(served->pipeline());
        if (failed[name] != committed)
          note_(name + ": the new index generation " + committed + " cannot be opened (" + e.what() + "); still on " +
                served->current()->index.generation());
        failed[name] = committed;
      }
    }
    lock.lock();
  }
}

ServedPipeline& Service::pipeline(std::string_view name) {
  if (name.empty()) return *pipelines_.front();
  for (const auto& p : pipelines_)
    if (p->pipeline().name == name) return *p;
  // As commands name it too (`rag serve --pipeline ablation/7-fusion` serves "7-fusion").
  for (const auto& p : pipelines_)
    if (!p->pipeline().reference.empty() && p->pipeline().reference == name) return *p;
  std::string known;
  for (const auto& p : pipelines_) known += (known.empty() ? "" : ", ") + p->pipeline().name;
  throw RequestError(404, "no pipeline named '" + std::string(name) + "' is served here (served: " + known + ")");
}

std::vector<std::string> Service::pipeline_names() const {
  std::vector<std::string> names;
  for (const auto& p : pipelines_) names.push_back(p->pipeline().name);
  return names;
}

std::string Service::checked_query(const std::string& text, const char* what) const {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw RequestError(400, std::string(what) + " is missing or empty");
  if (text.size() > limits_.max_query_bytes)
    throw RequestError(400, std::string(what) + " is " + std::to_string(text.size()) + " bytes long; the limit is " +
                                std::to_string(limits_.max_query_bytes));
  if (!utf8::is_valid(text)) throw RequestError(400, std::string(what) + " is not valid UTF-8");
  return text;
}

std::size_t Service::checked_k(long long k) const {
  if (k < 1 || static_cast<unsigned long long>(k) > limits_.max_k)
    throw RequestError(400, "k must be between 1 and " + std::to_string(limits_.max_k) + ", got " + std::to_string(k));
  return static_cast<std::size_t>(k);
}

json Service::pipelines_json() const {
  json list = json::array();
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    const ServedPipeline& served = *pipelines_[i];
    const Pipeline& p = served.pipeline();
    const auto generation = served.current();
    json chunkers = json::array();
    for (const auto& rule : p.chunkers) chunkers.push_back(rule.plugin);
    const IndexState state = inspect_index(served.stages());
    json index = {{"state", state.kind == IndexState::Kind::current ? "current" : "stale"},
                  {"generation", generation->index.generation()},
                  {"chunks", generation->index.chunk_count()},
                  {"built_at", generation->index.manifest().value("built_at", "")}};
    if (state.kind != IndexState::Kind::current) index["why"] = state.why;
    list.push_back({{"name", p.name},
                    {"default", i == 0},
                    {"description", p.description},
                    {"file", p.file.string()},
                    {"plugins", {{"chunkers", std::move(chunkers)}, {"retriever", p.retriever.plugin}, {"generator", p.generator.plugin}}},
                    {"index", std::move(index)}});
  }
  return {{"pipelines", std::move(list)}};
}

json Service::search(std::string_view name, const std::string& query, long long k, bool as_written) {
  ServedPipeline& served = pipeline(name);
  const std::string q = checked_query(query, "q");
  const std::size_t count = checked_k(k);
  const auto generation = served.current();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> warnings;
  // Read as an answer's question is: in English when in another language, typos respelt.
  std::vector<Respelling> respelt;
  const std::string read_as = as_written ? q : read_question(served.stages().translator(), generation->index, q, &respelt);
  const std::vector<Hit> hits = generation->index.search(read_as, count, &warnings);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  metrics_.observe_stage("retrieve", ms / 1000);
  json out = search_response(generation->index, q, hits, ms, warnings);
  if (!respelt.empty()) out["respelt"] = respelt_json(respelt);
  else if (read_as != q) out["translated_query"] = read_as;
  out["pipeline"] = served.pipeline().name;
  out["generation"] = generation->index.generation();
  return out;
}

void Service::check_answer(std::string_view name, const std::string& question, long long k, long long max_message_chars) {
  pipeline(name);
  checked_query(question, "question");
  checked_k(k);
  if (max_message_chars != 0 && (max_message_chars < static_cast<long long>(limits_.min_message_chars) ||
                                 max_message_chars > static_cast<long long>(limits_.max_message_chars)))
    throw RequestError(400, "max_message_chars must be between " + std::to_string(limits_.min_message_chars) + " and " +
                                std::to_string(limits_.max_message_chars) + ", got " + std::to_string(max_message_chars));
}

void Service::stop_answers() {
  answers_stopped_ = true;
  for (const auto& p : pipelines_) p->cancel_generators();
}

json Service::answer(std::string_view name, const std::string& question, long long k, long long max_message_chars,
                     const EventSink& sink, const std::function<bool()>& give_up) {
  check_answer(name, question, k, max_message_chars);
  ServedPipeline& served = pipeline(name);
  const std::string& q = question;
  const auto count = static_cast<std::size_t>(k);
  const auto generation = served.current();
  const ServedPipeline::GeneratorLease generator = served.lend_generator();
  const std::string pipeline_name = served.pipeline().name;
  const std::string generation_id = generation->index.generation();

  std::function<void(const GenerationRequest&, const AnswerTimings&)> on_sources;
  std::function<void(std::string_view)> on_text;
  if (sink) {
    on_sources = [&](const GenerationRequest& request, const AnswerTimings& timings) {
      json sources = json::array();
      for (const auto& e : request.evidence) sources.push_back(evidence_json(e));
      sink("sources", {{"query", request.question},
                       {"language", request.language},
                       {"sources", std::move(sources)},
                       {"pipeline", pipeline_name},
                       {"generation", generation_id},
                       {"timings", {{"retrieval_ms", timings.retrieval_ms}, {"context_ms", timings.context_ms}}}});
    };
    on_text = [&](std::string_view piece) { sink("delta", {{"text", piece}}); };
  }
  // A model server may take long before its first word: the generator is cancelled as soon as
  // the answer is no longer wanted, not at its next piece.
  struct Watch {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::thread thread;
    ~Watch() {
      if (!thread.joinable()) return;
      {
        const std::lock_guard lock(mutex);
        done = true;
      }
      finished.notify_one();
      thread.join();
    }
  } watch;
  if (give_up)
    watch.thread = std::thread([&] {
      std::unique_lock lock(watch.mutex);
      // Asked again at every poll: a cancel that comes before the model's request is under way
      // has nothing to stop yet.
      while (!watch.finished.wait_for(lock, kGiveUpPoll, [&] { return watch.done; }))
        if (give_up()) (*generator).cancel();
    });
  const auto stopped = [&] { return answers_stopped_.load(); };
  if (stopped()) throw RequestError(503, kStopping);
  AnsweredQuestion answered;
  try {
    answered = answer_question(generation->index, served.stages().translator(), generation->assembler, *generator, q,
                               count, on_sources, on_text);
  } catch (const Error&) {
    if (stopped()) throw RequestError(503, kStopping);
    throw;
  }
  metrics_.observe_stage("retrieve", answered.timings.retrieval_ms / 1000);
  metrics_.observe_stage("context", answered.timings.context_ms / 1000);
  metrics_.observe_stage("generate", answered.timings.generation_ms / 1000);
  json out = answer_response(answered, served.pipeline().generator.plugin, (*generator).describe(),
                             generation->index.strategy());
  out["pipeline"] = pipeline_name;
  out["generation"] = generation_id;
  if (max_message_chars != 0) {
    json messages = json::array();
    for (const auto& part : split_for_chat(answered.answer, static_cast<std::size_t>(max_message_chars),
                                           answered.request.evidence.size()))
      messages.push_back({{"text", part.text}, {"sources", part.sources}});
    out["messages"] = std::move(messages);
  }
  return out;
}

json Service::source(std::string_view name, std::optional<long long> chunk, const std::string& generation_id,
                     const std::string& path, std::optional<long long> first, std::optional<long long> last,
                     long long context) {
  ServedPipeline& served = pipeline(name);
  const auto generation = served.current();
  const Index& index = generation->index;
  if (context < 0 || static_cast<unsigned long long>(context) > limits_.max_source_context)
    throw RequestError(400, "context must be between 0 and " + std::to_string(limits_.max_source_context) + " lines");
  std::string file_path;
  std::size_t first_char = 0, last_char = 0;
  if (chunk) {
    // Ids are those of one generation: an update renumbers them.
    if (!generation_id.empty() && generation_id != index.generation())
      throw RequestError(409, "chunk ids of generation " + generation_id + " no longer hold: the index is now at " +
                                  index.generation() + "; search again, or ask by path, first and last");
    if (*chunk < 0 || *chunk >= index.id_limit())
      throw RequestError(404, "no chunk " + std::to_string(*chunk) + " in this index (its ids are below " +
                                  std::to_string(index.id_limit()) + ")");
    if (!index.is_live(static_cast<std::uint32_t>(*chunk)))
      throw RequestError(404, "chunk " + std::to_string(*chunk) + " was removed by an update of the index (its file "
                              "changed or went away); search again");
    const ChunkView c = index.chunk(static_cast<std::uint32_t>(*chunk));
    file_path = c.file_path;
    first_char = c.first_char;
    last_char = c.last_char;
  } else {
    if (path.empty() || !first || !last) throw RequestError(400, "give chunk, or path with first and last");
    // Only a file the index names, as it names it: nothing else can be asked for.
    const auto indexed = index.file(path);
    if (!indexed || indexed->chunk_count == 0) throw RequestError(404, "no file '" + path + "' in this index");
    if (*first < 0 || *last <= *first)
      throw RequestError(400, "first and last must be code points with first before last, got " + std::to_string(*first) +
                                  " and " + std::to_string(*last));
    file_path = path;
    first_char = static_cast<std::size_t>(*first);
    last_char = static_cast<std::size_t>(*last);
  }
  // The file on disk, if it is still inside the corpus: a link out of it is not followed.
  const Pipeline& p = served.pipeline();
  std::error_code ec;
  const fs::path on_disk = fs::weakly_canonical(p.base / file_path, ec);
  const fs::path corpus = fs::weakly_canonical(p.corpus_dir, ec);
  if (ec || !is_within(on_disk, corpus))
    throw RequestError(404, "'" + file_path + "' is not inside the corpus, or is a link that leads out of it: its text "
                                "is not served");
  std::string text;
  try {
    text = read_file(on_disk);
  } catch (const Error&) {
    throw RequestError(404, "'" + file_path + "' cannot be read now (moved or deleted since indexing?)");
  }
  if (!utf8::is_valid(text)) throw RequestError(404, "'" + file_path + "' is not UTF-8 text now");
  const SourceFile file(file_path, file_path, std::move(text));
  // Changed since indexing when its bytes are no longer those indexed.
  const auto indexed = index.file(file_path);
  const bool changed = !indexed || content_digest(file.text()) != indexed->digest;
  const std::size_t length = file.char_offset(file.text().size());
  if (last_char > length && changed)  // a span the index gave, of a file cut short since
    throw RequestError(409, file_path + " changed since it was indexed and is now shorter than the span (it ends at " +
                                std::to_string(last_char) + ", the file at " + std::to_string(length) +
                                "); search again once the index is updated");
  if (last_char > length)
    throw RequestError(400, "the span ends at " + std::to_string(last_char) + ", past the end of " + file_path + " (" +
                                std::to_string(length) + " code points)");
  const std::size_t first_byte = file.byte_offset(first_char), last_byte = file.byte_offset(last_char);
  const auto [first_line, last_line] = file.lines_of({first_byte, last_byte});
  const auto from = static_cast<std::size_t>(std::max<long long>(1, static_cast<long long>(first_line) - context));
  const std::size_t to = last_line + static_cast<std::size_t>(context);
  json lines = json::array();
  std::size_t number = 1, begin = 0;
  const std::string_view all = file.text();
  while (begin <= all.size() && number <= to) {
    std::size_t end = all.find('\n', begin);
    if (end == std::string_view::npos) end = all.size();
    if (number >= from) {
      std::string_view line = all.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      // Where the line starts, so that a reader can mark the span's own characters in it.
      lines.push_back({{"number", number}, {"first_character_index", file.char_offset(begin)}, {"text", line}});
    }
    if (end == all.size()) break;
    begin = end + 1;
    ++number;
  }
  return {{"file_path", file_path},
          {"span", {{"first_character_index", first_char},
                    {"last_character_index", last_char},
                    {"first_line", first_line},
                    {"last_line", last_line}}},
          {"lines", std::move(lines)},
          {"changed", changed}};
}

}  // namespace rag
