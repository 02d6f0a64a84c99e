// `rag index`, `rag chunks` and `rag plugins`.
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "rag/corpus_watcher.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/project.hpp"
#include "rag/responses.hpp"
#include "text_output.hpp"

namespace rag::commands {
namespace fs = std::filesystem;

namespace {

// One line on what an index run did.
void report_index(const IndexReport& report, const Pipeline& pipeline, bool verbose) {
  if (verbose)
    for (const auto& note : report.notes) std::cerr << "note: " << cli::printable(note) << "\n";
  const std::string holds = cli::counted(report.files, "file") + ", " + cli::counted(report.chunks, "chunk") + " in " +
                            cli::counted(report.segments, "segment");
  if (!report.committed) {
    std::cerr << display_path(pipeline.index_dir) << " is up to date (" << holds << ")";
  } else if (report.full) {
    if (report.why_full != "no index yet" && report.why_full.rfind("asked for", 0) != 0)
      std::cerr << "note: building from scratch: " << report.why_full << "\n";
    std::cerr << "indexed " << cli::counted(report.files, "file") << " into " << cli::counted(report.chunks, "chunk") << " in " << report.seconds
              << " s -> " << display_path(pipeline.index_dir);
  } else {
    std::cerr << "updated " << display_path(pipeline.index_dir) << " in " << report.seconds << " s: " << report.changed
              << " changed, " << report.added << " added, " << report.removed << " removed"
              << (report.merged ? ", " + cli::counted(report.merged, "segment") + " merged" : "") << " -> " << holds;
  }
  if (report.skipped) std::cerr << " (" << cli::counted(report.skipped, "file") << " passed over" << (verbose ? "" : "; -v lists them") << ")";
  std::cerr << std::endl;
}

// Listens to the stop signals while an update of a watch runs: the first says the watch stops
// once the update is done, a second stops it at once (a killed update leaves the previous
// generation, as ever).
class StopDuringUpdate {
 public:
  explicit StopDuringUpdate(int stop_fd) : thread_([this, stop_fd] {
    for (pollfd p{stop_fd, POLLIN, 0}; !done_;) {
      if (::poll(&p, 1, 100) <= 0 || (p.revents & POLLIN) == 0) continue;
      signalfd_siginfo info{};
      if (::read(stop_fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
      if (stop_) {
        std::cerr << "stopped during an update; the index keeps its previous generation" << std::endl;
        std::_Exit(130);
      }
      stop_ = true;
      std::cerr << "stopping once this update is done (Ctrl-C again stops now)" << std::endl;
    }
  }) {}
  ~StopDuringUpdate() { finish(); }
  StopDuringUpdate(const StopDuringUpdate&) = delete;
  StopDuringUpdate& operator=(const StopDuringUpdate&) = delete;
  /// Stops listening (the update is done) and says whether a stop was asked for meanwhile; a
  /// signal read while it stops listening counts.
  bool finish() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
    return stop_;
  }

 private:
  std::atomic<bool> done_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// `rag index --watch`: updates the index whenever the corpus changes, until SIGINT or SIGTERM.
// A failed update is reported and the watch goes on: the next change may mend it.
int watch(const cli::LoadedPipeline& loaded, PipelineStages& stages, bool verbose) {
  const Pipeline& pipeline = loaded.pipeline;
  // The signals come through a descriptor the watcher polls: blocked here, before any thread is
  // made, so that no thread takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const int stop_fd = ::signalfd(-1, &stop_signals, SFD_CLOEXEC);
  if (stop_fd < 0) throw Error(std::string("rag index --watch: cannot take signals (") + std::strerror(errno) + ")");
  std::error_code ec;
  CorpusWatcher watcher(fs::weakly_canonical(pipeline.corpus_dir, ec), {fs::weakly_canonical(pipeline.index_dir, ec)},
                        pipeline.exclude);
  {
    StopDuringUpdate listening(stop_fd);
    report_index(build_index(stages), pipeline, verbose);
    if (listening.finish()) {
      ::close(stop_fd);
      std::cerr << "stopped watching" << std::endl;
      return 0;
    }
  }
  // One write: std::cerr is unbuffered, and whoever reads the log (a test, a supervisor) should
  // not see half the line.
  std::cerr << ("watching " + display_path(pipeline.corpus_dir) + " (" + std::to_string(watcher.folders()) + " folders" +
                (watcher.linked_files() == 0   ? std::string()
                 : watcher.linked_files() == 1 ? std::string(", and a file outside it that a link points to")
                                               : ", and " + std::to_string(watcher.linked_files()) + " files outside it that links point to") +
                ") for changes; Ctrl-C stops\n")
            << std::flush;
  // An update that finds another writer at work is tried again every half second until it runs.
  bool busy = false;
  // The pipeline as read at the start is the one followed: an edit of its file is said, once.
  const auto pipeline_time = [&] { return fs::last_write_time(pipeline.file, ec); };
  const auto read_at = pipeline_time();
  bool told = false;
  while (watcher.wait_for_changes(std::chrono::milliseconds(150), std::chrono::milliseconds(600), stop_fd,
                                  std::chrono::milliseconds(busy ? 500 : 0)) != CorpusWatcher::Wait::stopped) {
    if (!told && pipeline_time() != read_at) {
      std::cerr << "warning: " << pipeline.label() << " changed since the watch began; it still follows the pipeline as it was"
                << " (stop it and run `" << pipeline.command("index") << " --watch` again to follow the new one)" << std::endl;
      told = true;
    }
    StopDuringUpdate listening(stop_fd);
    try {
      report_index(build_index(stages), pipeline, verbose);
      busy = false;
    } catch (const IndexBusy& e) {
      if (!busy) std::cerr << "note: " << e.what() << "; trying again when it is done" << std::endl;
      busy = true;
    } catch (const std::exception& e) {  // rag::Error, and whatever else one update met: the watch goes on
      std::cerr << "error: " << e.what() << "; still watching" << std::endl;
      busy = false;
    }
    if (listening.finish()) break;
  }
  ::close(stop_fd);
  std::cerr << "stopped watching" << std::endl;
  return 0;
}

}  // namespace

int index(const cli::Invocation& inv) {
  cli::po::options_description options("index options");
  cli::add_pipeline_options(options);
  options.add_options()("verbose,v", "list every file passed over")("full", "rebuild from scratch instead of updating")(
      "watch", "keep the index up to date as the corpus changes (until Ctrl-C)");
  const auto vm = cli::parse(inv, "[--pipeline NAME|FILE] [--set KEY=VALUE ...] [--max_chunk_size N] [--full] [--watch] [-v]", options);
  if (!vm) return 0;
  if (vm->count("full") && vm->count("watch")) throw Error("rag index: --full and --watch do not go together; run --full first");
  cli::LoadedPipeline loaded(*vm);
  const bool verbose = vm->count("verbose") > 0;
  if (vm->count("watch")) return watch(loaded, loaded.stages, verbose);
  report_index(build_index(loaded.stages, {vm->count("full") > 0}), loaded.pipeline, verbose);
  return 0;
}

namespace {

void export_chunks(const ChunkSource& chunks, const std::string& file) {
  std::string lines;
  std::size_t count = 0;
  chunks.for_each([&](std::uint32_t id, const ChunkView& c) {
    ++count;
    lines += json_text(nlohmann::ordered_json{{"id", id},
                                                   {"file_path", c.file_path},
                                                   {"kind", c.kind},
                                                   {"section", c.section},
                                                   {"first_character_index", c.first_char},
                                                   {"last_character_index", c.last_char},
                                                   {"text", c.text}}) +
             "\n";
  });
  write_file_atomically(file, lines);
  std::cerr << "wrote " << count << " chunks to " << file << "\n";
}

// What the chunking allows at best on one answered dataset, and the spans it cannot reach.
std::string reach_report(const ChunkSource& chunks, const std::string& dataset_file, const std::vector<Question>& dataset,
                         std::size_t show) {
  const Reachability r = reachability(dataset, chunks);
  std::vector<const Reachability::Span*> missed;
  std::vector<double> best;
  for (const auto& span : r.spans) {
    best.push_back(span.best_iou);
    if (span.best_iou <= kIouThreshold) missed.push_back(&span);
  }
  std::sort(best.begin(), best.end());
  const auto quantile = [&](double q) { return best[static_cast<std::size_t>(q * static_cast<double>(best.size() - 1))]; };
  std::ostringstream out;
  out << std::fixed << std::filesystem::path(dataset_file).filename().string() << ": oracle recall "
      << std::setprecision(3) << r.recall << "; " << r.spans.size() - missed.size() << " of " << r.spans.size()
      << " ground-truth spans within reach; best IoU of a chunk with a span: p10 " << std::setprecision(2)
      << quantile(0.1) << ", median " << quantile(0.5) << "\n";
  for (std::size_t i = 0; i < missed.size() && i < show; ++i)
    out << "  out of reach: " << missed[i]->question_id << " " << missed[i]->truth.file_path << ":"
        << missed[i]->truth.first << "-" << missed[i]->truth.last << " (best IoU " << std::setprecision(3)
        << missed[i]->best_iou << ")\n";
  if (missed.size() > show) out << "  ... " << missed.size() - show << " more (--show N)\n";
  return out.str();
}

}  // namespace

int chunks(const cli::Invocation& inv) {
  cli::po::options_description options("chunks options");
  cli::add_pipeline_options(options);
  options.add_options()("export", cli::po::value<std::string>(), "write every chunk to this JSON Lines file")(
      "oracle", cli::po::value<std::vector<std::string>>()->multitoken(),
      "answered datasets: the oracle recall of the chunks (every ground-truth span that some chunk overlaps with "
      "IoU > 0.05 counted as found), and the spans out of reach")(
      "show", cli::po::value<long long>()->default_value(10), "with --oracle: spans out of reach listed per dataset");
  const auto vm = cli::parse(inv, "[--export FILE.jsonl] [--oracle ANSWERED.json ...] [--show N] [--pipeline NAME|FILE] [--set KEY=VALUE ...]", options);
  if (!vm) return 0;
  if (!vm->count("export") && !vm->count("oracle"))
    throw Error("rag chunks needs --export FILE.jsonl (write the chunks) or --oracle ANSWERED.json (measure which "
                "ground-truth spans the chunks can reach), or both");
  if (!(*vm)["show"].defaulted() && !vm->count("oracle")) throw Error("--show lists spans out of reach: use it with --oracle");
  const std::size_t show = cli::read_count(*vm, "show");
  const auto dataset_files = vm->count("oracle") ? (*vm)["oracle"].as<std::vector<std::string>>() : std::vector<std::string>{};
  std::vector<std::vector<Question>> datasets;
  for (const auto& file : dataset_files) {
    datasets.push_back(load_answered_questions(file));
  }
  cli::LoadedPipeline loaded(*vm);
  if (vm->count("export")) {
    std::vector<std::filesystem::path> inputs(dataset_files.begin(), dataset_files.end());
    inputs.push_back(loaded.pipeline.file);
    cli::check_outputs(cli::outputs_given(*vm, {"export"}), inputs);
    cli::check_output_beside("export", (*vm)["export"].as<std::string>(), loaded.pipeline);
  }
  const Index index(loaded.stages, Index::Use::chunks);  // no retriever: remote shards need not be up
  // Everything that can fail comes before the first line on stdout.
  std::string report;
  for (std::size_t i = 0; i < datasets.size(); ++i) {
    cli::warn_unindexed_truths(datasets[i], index, dataset_files[i]);
    report += reach_report(index, dataset_files[i], datasets[i], show);
  }
  if (vm->count("export")) export_chunks(index, (*vm)["export"].as<std::string>());
  std::cout << report;
  return 0;
}

int plugins(const cli::Invocation& inv) {
  cli::po::options_description options("plugins options");
  options.add_options()("pipeline", cli::po::value<std::string>(), "also search the pipeline's plugin_paths");
  const auto vm = cli::parse(inv, "[--pipeline NAME|FILE]", options);
  if (!vm) return 0;
  std::vector<std::filesystem::path> extra;
  if (vm->count("pipeline")) extra = cli::load_pipeline(*vm).plugin_paths;
  const PluginRegistry registry(PluginRegistry::search_path(extra));
  std::cout << "folders searched:";
  for (const auto& f : registry.folders()) std::cout << " " << f.string();
  std::cout << "\n\n";
  for (const auto& p : registry.plugins())
    std::cout << to_string(p.kind) << "\t" << p.name << "\t" << p.version << "\t" << p.file.string() << "\n\t"
              << p.summary << "\n";
  for (const auto& problem : registry.problems()) std::cout << "problem: " << problem << "\n";
  return 0;
}

}  // namespace rag::commands
