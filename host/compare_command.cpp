// `rag compare`: A/B (and more) comparison of pipelines on answered datasets.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/paired_test.hpp"
#include "rag/project.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;

struct Contender {
  std::string letter;  // "A", "B", ...
  std::string label;   // the pipeline's name; its file and overrides when names collide
  std::unique_ptr<cli::LoadedPipeline> loaded;  // declared before the index, which it outlives
  std::unique_ptr<Index> index;
  double index_seconds = 0;  ///< how long a full build of its index took (this run's, or the last)
  bool reused = false;       ///< the index was current
  bool updated = false;      ///< the index was brought up to date by an update, not built whole
  std::uintmax_t index_bytes = 0;
};

struct DatasetRun {
  Evaluation evaluation;
  double latency_mean_ms = 0;
  double latency_p95_ms = 0;
};

// Indexes what is missing or stale, reuses the rest.
void prepare(Contender& c) {
  const Pipeline& pipeline = c.loaded->pipeline;
  const IndexState state = inspect_index(c.loaded->stages);
  if (state.kind == IndexState::Kind::missing) {
    std::cerr << c.letter << " (" << c.label << "): building its index (none yet at "
              << display_path(pipeline.index_dir) << ")\n";
  } else if (state.kind == IndexState::Kind::stale) {
    std::cerr << c.letter << " (" << c.label << "): bringing its index up to date: " << state.why << "\n";
  }
  if (state.kind != IndexState::Kind::current) c.updated = !build_index(c.loaded->stages).full;
  else c.reused = true;
  c.index = std::make_unique<Index>(c.loaded->stages);
  // The manifest's build_seconds is the last full build's, this run's when it built one: an
  // update's few files say nothing of what the pipeline costs to index.
  const json& manifest = c.index->manifest();
  if (const auto built = manifest.find("build_seconds"); built != manifest.end() && built->is_number())
    c.index_seconds = built->get<double>();
  for (const auto& f : c.index->manifest().at("files")) c.index_bytes += f.at("size").get<std::uintmax_t>();
}

DatasetRun run(const Contender& c, const std::vector<Question>& questions) {
  const ResultsFile results = search_questions(*c.index, questions, kMaxResultsK);
  cli::note_results(results, c.letter + " (" + c.label + ")");
  DatasetRun r;
  r.evaluation = evaluate(questions, results);
  std::vector<double> latencies;
  for (const auto& q : results.results) latencies.push_back(q.search_time_ms);
  std::sort(latencies.begin(), latencies.end());
  if (!latencies.empty()) {
    for (const double l : latencies) r.latency_mean_ms += l / static_cast<double>(latencies.size());
    r.latency_p95_ms = latencies[std::min(latencies.size() - 1, latencies.size() * 95 / 100)];
  }
  return r;
}

// First rank within the results at which any of the question's truths is found (0: none).
std::size_t first_rank(const QuestionOutcome& o) {
  std::size_t best = 0;
  for (const std::size_t r : o.found_at)
    if (r != 0 && (best == 0 || r < best)) best = r;
  return best;
}

std::string p_value(double p) {
  char text[32];
  std::snprintf(text, sizeof text, p < 1e-4 ? "p < 0.0001" : "p = %.4f", p);
  return text;
}

std::string rank_text(std::size_t rank) { return rank ? std::to_string(rank) : "-"; }

std::string verdict(const std::string& a, const std::string& b, const PairedComparison& p) {
  char line[160];
  if (p.ci_low > 0)
    std::snprintf(line, sizeof line, "%s is better than %s by %+.3f (95%% CI excludes 0)", b.c_str(), a.c_str(), p.mean_difference);
  else if (p.ci_high < 0)
    std::snprintf(line, sizeof line, "%s is worse than %s by %+.3f (95%% CI excludes 0)", b.c_str(), a.c_str(), p.mean_difference);
  else
    std::snprintf(line, sizeof line, "no significant difference between %s and %s (%+.3f, 95%% CI includes 0)", b.c_str(),
                  a.c_str(), p.mean_difference);
  return line;
}

void print_table(const std::string& file, std::size_t questions, const std::vector<Contender>& contenders,
                 const std::vector<DatasetRun>& runs) {
  // Columns as wide as the longest heading, so that labels that differ only at the end stay apart.
  int width = 14;
  for (const auto& c : contenders) width = std::max(width, static_cast<int>((c.letter + ": " + c.label).size()));
  std::printf("\n== %s (%zu questions)\n\n%-24s", file.c_str(), questions, "");
  for (const auto& c : contenders) std::printf(" %*s", width, (c.letter + ": " + c.label).c_str());
  for (std::size_t i = 1; i < contenders.size(); ++i) std::printf(" %9s", (contenders[i].letter + "-A").c_str());
  std::printf("\n");
  auto row = [&](const char* label, auto value, bool difference) {
    std::printf("%-24s", label);
    for (const auto& r : runs) std::printf(" %*.3f", width, value(r));
    if (difference)
      for (std::size_t i = 1; i < runs.size(); ++i) std::printf(" %+9.3f", value(runs[i]) - value(runs[0]));
    std::printf("\n");
  };
  for (const std::size_t cut : {1, 3, 5, 10})
    row(("recall@" + std::to_string(cut)).c_str(), [cut](const DatasetRun& r) { return r.evaluation.recall.at(cut); }, true);
  row("MRR", [](const DatasetRun& r) { return r.evaluation.mrr; }, true);
  row("nDCG@10", [](const DatasetRun& r) { return r.evaluation.ndcg10; }, true);
  row("query latency mean (ms)", [](const DatasetRun& r) { return r.latency_mean_ms; }, false);
  row("query latency p95 (ms)", [](const DatasetRun& r) { return r.latency_p95_ms; }, false);
  std::printf("%-24s", "index time (s)");
  for (const auto& c : contenders) {
    char cell[32];
    std::snprintf(cell, sizeof cell, c.reused ? "%.2f (reused)" : c.updated ? "%.2f (updated)" : "%.2f", c.index_seconds);
    std::printf(" %*s", width, cell);
  }
  std::printf("\n%-24s", "index size (MB)");
  for (const auto& c : contenders) std::printf(" %*.1f", width, static_cast<double>(c.index_bytes) / 1e6);
  std::printf("\n");
}

std::string markdown_table(const std::string& file, std::size_t questions, const std::vector<Contender>& contenders,
                           const std::vector<DatasetRun>& runs) {
  std::string md = "### " + std::filesystem::path(file).filename().string() + " (" + std::to_string(questions) +
                   " questions)\n\n| pipeline | recall@1 | recall@3 | recall@5 | recall@10 | MRR | nDCG@10 | mean ms |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Evaluation& e = runs[i].evaluation;
    char line[512];
    std::snprintf(line, sizeof line, "| %s: %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
                  contenders[i].letter.c_str(), contenders[i].label.c_str(), e.recall.at(1), e.recall.at(3),
                  e.recall.at(5), e.recall.at(10), e.mrr, e.ndcg10, runs[i].latency_mean_ms);
    md += line;
  }
  return md + "\n";
}

json results_json(const Contender& c, const DatasetRun& run) {
  json r = {{"pipeline", c.letter}};
  for (const auto& [cut, value] : run.evaluation.recall) r["recall@" + std::to_string(cut)] = value;
  r["mrr"] = run.evaluation.mrr;
  r["ndcg@10"] = run.evaluation.ndcg10;
  r["latency_mean_ms"] = run.latency_mean_ms;
  r["latency_p95_ms"] = run.latency_p95_ms;
  return r;
}

// The paired test of `b` against A on recall@k, and the questions one finds and the other
// misses: printed (`show` questions a side), and returned as JSON.
json compare_with_baseline(const std::string& b, const DatasetRun& base_run, const DatasetRun& other_run, std::size_t k,
                           std::size_t show) {
  const auto& base = base_run.evaluation.outcomes;
  const auto& other = other_run.evaluation.outcomes;
  std::vector<double> a_scores, b_scores;
  for (const auto& o : base) a_scores.push_back(question_recall(o, k));
  for (const auto& o : other) b_scores.push_back(question_recall(o, k));
  const PairedComparison p = compare_paired(a_scores, b_scores);
  const std::string a = "A", at_k = "recall@" + std::to_string(k);
  std::printf("\n%s-A on %s: %+.3f, 95%% CI [%+.3f, %+.3f] (paired bootstrap, %zu resamples, %s); "
              "sign test: %s wins %zu, loses %zu, ties %zu, %s\n=> %s\n",
              b.c_str(), at_k.c_str(), p.mean_difference, p.ci_low, p.ci_high, p.resamples, p_value(p.bootstrap_p).c_str(),
              b.c_str(), p.wins, p.losses, p.ties, p_value(p.sign_p).c_str(), verdict(a, b, p).c_str());
  json only_a = json::array(), only_b = json::array();
  for (std::size_t q = 0; q < base.size(); ++q) {
    const std::size_t ra = first_rank(base[q]), rb = first_rank(other[q]);
    const bool found_a = ra != 0 && ra <= k, found_b = rb != 0 && rb <= k;
    if (found_a == found_b) continue;
    json entry = {{"question_id", base[q].question_id}, {"question", base[q].question}, {"rank_a", ra}, {"rank_b", rb}};
    (found_a ? only_a : only_b).push_back(std::move(entry));
  }
  for (const auto& [side, list] : {std::pair{a, &only_a}, std::pair{b, &only_b}}) {
    std::printf("\nonly %s finds within %zu (%zu):%s\n", side.c_str(), k, list->size(), list->empty() ? " none" : "");
    std::size_t shown = 0;
    for (const auto& e : *list) {
      if (shown++ == show) {
        std::printf("  ... %zu more (--show N, or --json FILE for all)\n", list->size() - show);
        break;
      }
      std::printf("  [A %2s | %s %2s] %s  %s\n", rank_text(e["rank_a"]).c_str(), b.c_str(), rank_text(e["rank_b"]).c_str(),
                  e["question_id"].get<std::string>().substr(0, 8).c_str(), e["question"].get<std::string>().c_str());
    }
  }
  return {{"a", a},
          {"b", b},
          {"metric", at_k},
          {"mean_difference", p.mean_difference},
          {"ci95", {p.ci_low, p.ci_high}},
          {"bootstrap_p", p.bootstrap_p},
          {"bootstrap_resamples", p.resamples},
          {"sign_test", {{"wins", p.wins}, {"losses", p.losses}, {"ties", p.ties}, {"p", p.sign_p}}},
          {"verdict", verdict(a, b, p)},
          {"only_a", std::move(only_a)},
          {"only_b", std::move(only_b)}};
}

}  // namespace

int compare(const cli::Invocation& inv) {
  cli::po::options_description options("compare options");
  options.add_options()
      ("pipeline", cli::po::value<std::vector<std::string>>(), "pipelines, by name or file; the first is the baseline")
      ("set", cli::po::value<std::vector<std::string>>()->composing(),
       "[LETTER:]KEY=VALUE: override a key of pipeline LETTER (A, B, ...), or of every pipeline; repeatable")
      ("dataset", cli::po::value<std::vector<std::string>>(), "answered dataset(s) (JSON with sources)")
      ("k", cli::po::value<long long>()->default_value(5), "the cut-off the significance test and the lists use (1-10)")
      ("show", cli::po::value<long long>()->default_value(10), "questions listed per side (0: none)")
      ("json", cli::po::value<std::string>(), "also write everything as JSON to this file")
      ("markdown", cli::po::value<std::string>(), "also write the per-dataset tables as Markdown to this file");
  cli::po::positional_options_description positional;
  positional.add("pipeline", -1);
  const auto vm = cli::parse(inv, "A B [C ...] --dataset ANSWERED.json [--dataset ...] [--set B:KEY=VALUE] [--k 5] [--json FILE]",
                             options, positional);
  if (!vm) return 0;
  if (!vm->count("pipeline") || (*vm)["pipeline"].as<std::vector<std::string>>().size() < 2)
    throw Error("rag compare: give at least two pipelines (rag compare default tfidf --dataset FILE; the same one twice "
                "with --set B:KEY=VALUE compares an option)");
  if (!vm->count("dataset")) throw Error("rag compare: give at least one --dataset (an answered dataset)");
  const std::size_t k = cli::read_k(*vm, kMaxResultsK);
  const std::size_t show = cli::read_count(*vm, "show");
  const auto specs = (*vm)["pipeline"].as<std::vector<std::string>>();
  if (specs.size() > 26) throw Error("rag compare: at most 26 pipelines (A to Z)");
  const auto dataset_files = cli::read_distinct_files(*vm, "dataset");
  std::vector<PipelineLocation> locations;
  for (const auto& spec : specs) locations.push_back(locate_pipeline(spec, std::filesystem::current_path()));
  // The outputs, before the searches rather than after: none of them a file the comparison reads.
  std::vector<std::filesystem::path> inputs(dataset_files.begin(), dataset_files.end());
  for (const auto& location : locations) inputs.push_back(location.file);
  cli::check_outputs(cli::outputs_given(*vm, {"json", "markdown"}), inputs);
  std::vector<std::pair<std::string, std::vector<Question>>> datasets;
  for (const auto& file : dataset_files) {
    datasets.emplace_back(file, load_answered_questions(file));
  }

  // Overrides by letter: "B:retriever.options.k1=0.9" for B alone, "KEY=VALUE" for all.
  std::vector<std::vector<std::string>> overrides(specs.size());
  for (const auto& assignment : vm->count("set") ? (*vm)["set"].as<std::vector<std::string>>() : std::vector<std::string>{}) {
    const bool lettered = assignment.size() > 2 && assignment[1] == ':' && assignment[0] >= 'A' && assignment[0] <= 'Z';
    if (!lettered) {
      for (auto& list : overrides) list.push_back(assignment);
      continue;
    }
    const auto at = static_cast<std::size_t>(assignment[0] - 'A');
    if (at >= specs.size())
      throw Error("rag compare: --set " + assignment + " names pipeline " + assignment[0] + ", but there are only " +
                  std::to_string(specs.size()) + " (A to " + std::string(1, static_cast<char>('A' + specs.size() - 1)) + ")");
    overrides[at].push_back(assignment.substr(2));
  }
  std::vector<Contender> contenders;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const PipelineLocation& location = locations[i];
    Contender c;
    c.letter = std::string(1, static_cast<char>('A' + i));
    c.loaded = std::make_unique<cli::LoadedPipeline>(Pipeline::load(location.file, overrides[i], location.reference));
    const Pipeline& p = c.loaded->pipeline;
    for (const auto& other : contenders)
      if (other.loaded->pipeline.index_dir == p.index_dir && other.loaded->pipeline.content_hash() != p.content_hash())
        throw Error(p.label() + " and " + other.loaded->pipeline.label() + " use the same index folder " +
                    display_path(p.index_dir) + "; give each pipeline its own `index:`");
    for (const auto& [option, path] : cli::outputs_given(*vm, {"json", "markdown"})) cli::check_output_beside(option, path, p);
    contenders.push_back(std::move(c));
  }
  // Columns say the pipelines' names, unless two share one: then what tells them apart.
  for (auto& c : contenders) {
    const Pipeline& p = c.loaded->pipeline;
    const bool shared = std::count_if(contenders.begin(), contenders.end(), [&](const Contender& o) {
                          return o.loaded->pipeline.name == p.name;
                        }) > 1;
    c.label = p.name;
    if (shared) {
      c.label = specs[static_cast<std::size_t>(c.letter[0] - 'A')];
      for (const auto& o : p.overrides) c.label += " " + o;
    }
    std::cerr << c.letter << ": " << c.label << " (" << p.label() << ")\n";
  }
  for (auto& c : contenders) prepare(c);
  // Ground truth checked against each corpus the pipelines list (most compare one corpus).
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const Pipeline& p = contenders[i].loaded->pipeline;
    const bool listed_before = std::any_of(contenders.begin(), contenders.begin() + static_cast<std::ptrdiff_t>(i), [&](const Contender& o) {
      const Pipeline& q = o.loaded->pipeline;
      return q.corpus_dir == p.corpus_dir && q.include == p.include && q.exclude == p.exclude;
    });
    if (listed_before) continue;
    for (const auto& [file, questions] : datasets)
      cli::warn_unindexed_truths(questions, *contenders[i].index, i == 0 ? file : file + " (" + contenders[i].letter + ")");
  }

  json out = {{"k", k}, {"pipelines", json::array()}, {"datasets", json::array()}};
  for (const auto& c : contenders)
    out["pipelines"].push_back({{"label", c.letter},
                                {"name", c.loaded->pipeline.name},
                                {"column", c.label},
                                {"file", c.loaded->pipeline.file.string()},
                                {"overrides", c.loaded->pipeline.overrides},
                                {"index_seconds", c.index_seconds},
                                {"index_reused", c.reused},
                                {"index_updated", c.updated},
                                {"index_bytes", c.index_bytes}});

  std::string markdown;
  for (const auto& [file, questions] : datasets) {
    std::vector<DatasetRun> runs;
    for (const auto& c : contenders) runs.push_back(run(c, questions));
    print_table(file, questions.size(), contenders, runs);
    markdown += markdown_table(file, questions.size(), contenders, runs);
    json dataset = {{"file", file}, {"questions", questions.size()}, {"results", json::array()}, {"comparisons", json::array()}};
    for (std::size_t i = 0; i < runs.size(); ++i) dataset["results"].push_back(results_json(contenders[i], runs[i]));
    for (std::size_t i = 1; i < runs.size(); ++i)
      dataset["comparisons"].push_back(compare_with_baseline(contenders[i].letter, runs[0], runs[i], k, show));
    out["datasets"].push_back(std::move(dataset));
  }
  if (vm->count("json")) write_file_atomically((*vm)["json"].as<std::string>(), out.dump(2) + "\n");
  if (vm->count("markdown")) write_file_atomically((*vm)["markdown"].as<std::string>(), markdown);
  return 0;
}

}  // namespace rag::commands
