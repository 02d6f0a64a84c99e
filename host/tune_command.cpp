// `rag tune`: a pipeline's options chosen by cross-validation, with the figures held-out
// questions get (see rag/cross_validation.hpp).
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>

#include "commands.hpp"
#include "rag/cross_validation.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/options.hpp"
#include "rag/paired_test.hpp"
#include "rag/project.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kMaxConfigurations = 200;
// The first line of the pipelines rag tune writes, followed by the tuned pipeline's label.
constexpr std::string_view kWrittenByTune = "# Written by rag tune from ";

// Whether two values given as text are one: as numbers when both are ("0.9" and "0.90", "12e-1"
// and "1.2"), else as written.
bool same_value(const std::string& a, const std::string& b) { return canonical_number(a) == canonical_number(b); }

// Whether two pipelines' YAML say the same, numbers compared as numbers.
bool same_yaml(const YAML::Node& a, const YAML::Node& b) {
  if (a.Type() != b.Type()) return false;
  if (a.IsScalar()) return same_value(a.Scalar(), b.Scalar());
  if (a.IsSequence()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_yaml(a[i], b[i])) return false;
    return true;
  }
  if (a.IsMap()) {
    if (a.size() != b.size()) return false;
    for (const auto& entry : a) {
      const YAML::Node other = b[entry.first.Scalar()];
      if (!other || !same_yaml(entry.second, other)) return false;
    }
    return true;
  }
  return true;  // both null or undefined
}

// "KEY=V1,V2,...": the key and its values, split at commas outside brackets and braces so that
// a YAML list or mapping stays one value.
std::pair<std::string, std::vector<std::string>> parse_grid(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw Error("--grid " + text + ": expected KEY=VALUE,VALUE,... (e.g. retriever.options.k1=0.9,1.2,1.5)");
  std::vector<std::string> values(1);
  int depth = 0;
  for (const char c : text.substr(equals + 1)) {
    depth += (c == '[' || c == '{') - (c == ']' || c == '}');
    if (c == ',' && depth == 0) values.emplace_back();
    else values.back() += c;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    if (v.empty()) throw Error("--grid " + text + ": an empty value");
    for (std::size_t j = 0; j < i; ++j)
      if (same_value(values[j], v))
        throw Error("--grid " + text + ": " + v + (values[j] == v ? "" : " (" + values[j] + ")") + " is given twice");
  }
  return {text.substr(0, equals), values};
}

// Every combination of the grid's values, as lists of overrides; the first, empty, is the
// pipeline as given.
std::vector<std::vector<std::string>> configurations(const std::vector<std::pair<std::string, std::vector<std::string>>>& grid) {
  std::vector<std::vector<std::string>> all = {{}};
  std::vector<std::vector<std::string>> combined = {{}};
  for (const auto& [key, values] : grid) {
    std::vector<std::vector<std::string>> next;
    for (const auto& partial : combined)
      for (const auto& value : values) {
        next.push_back(partial);
        next.back().push_back(key + "=" + value);
      }
    combined = std::move(next);
    if (combined.size() > kMaxConfigurations)
      throw Error("--grid: " + std::to_string(combined.size()) + "+ configurations; at most " +
                  std::to_string(kMaxConfigurations) + " are tried (narrow the grid)");
  }
  all.insert(all.end(), combined.begin(), combined.end());
  return all;
}

std::string describe(const std::vector<std::string>& overrides) {
  std::string out;
  for (const auto& o : overrides) out += (out.empty() ? "" : " ") + o;
  return out.empty() ? "as written" : out;
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

double spread_of(const std::vector<double>& values) {
  const double m = mean_of(values);
  double squares = 0;
  for (const double v : values) squares += (v - m) * (v - m);
  return values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0.0;
}

}  // namespace

int tune(const cli::Invocation& inv) {
  cli::po::options_description options("tune options");
  cli::add_pipeline_options(options);
  options.add_options()
      ("pipeline_name", cli::po::value<std::string>(), "the pipeline to tune (or --pipeline)")
      ("dataset", cli::po::value<std::vector<std::string>>()->multitoken(), "answered datasets (one or more)")
      ("grid", cli::po::value<std::vector<std::string>>(), "KEY=V1,V2,... : values to try for a key (repeat for more keys)")
      ("folds", cli::po::value<long long>()->default_value(5), "folds of the cross-validation (2-20)")
      ("k", cli::po::value<long long>()->default_value(5), "recall@k is what is tuned (1-10)")
      ("seed", cli::po::value<long long>()->default_value(1), "the shuffle of the folds")
      ("output", cli::po::value<std::string>(), "write the chosen pipeline to this YAML file")
      ("json", cli::po::value<std::string>(), "write every figure to this JSON file");
  cli::po::positional_options_description positional;
  positional.add("pipeline_name", 1);
  const auto vm = cli::parse(inv,
                             "[PIPELINE] --dataset ANSWERED [...] --grid KEY=V1,V2 [--grid ...] [--folds 5] [--k 5] "
                             "[--output FILE.yaml] [--json FILE]",
                             options, positional);
  if (!vm) return 0;
  if (vm->count("pipeline_name") && vm->count("pipeline"))
    throw Error("rag tune: name the pipeline once (PIPELINE or --pipeline)");
  if (!vm->count("dataset")) throw Error("rag tune: give at least one answered dataset (--dataset FILE)");
  if (!vm->count("grid")) throw Error("rag tune: give the values to try (--grid KEY=V1,V2,...)");
  const long long folds = (*vm)["folds"].as<long long>();
  if (folds < 2 || folds > 20) throw Error("--folds must be between 2 and 20, got " + std::to_string(folds));
  const std::size_t k = cli::read_k(*vm, kMaxResultsK);
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  std::set<std::string> keys;
  for (const auto& g : (*vm)["grid"].as<std::vector<std::string>>()) {
    grid.push_back(parse_grid(g));
    if (!keys.insert(grid.back().first).second)
      throw Error("--grid " + grid.back().first + " is given twice: give its values in one --grid (KEY=V1,V2,...)");
  }
  std::vector<std::vector<std::string>> configs = configurations(grid);
  // The pipeline with the --set overrides every configuration shares, checked before any work.
  const std::string name = vm->count("pipeline_name") ? (*vm)["pipeline_name"].as<std::string>()
                                                      : (vm->count("pipeline") ? (*vm)["pipeline"].as<std::string>() : "");
  const PipelineLocation location = locate_pipeline(name, std::filesystem::current_path());
  const auto dataset_files = cli::read_distinct_files(*vm, "dataset");
  // The outputs, before the runs rather than after: none of them a file the runs read.
  std::vector<std::filesystem::path> inputs(dataset_files.begin(), dataset_files.end());
  inputs.push_back(location.file);
  cli::check_outputs(cli::outputs_given(*vm, {"output", "json"}), inputs);
  // Where the chosen pipeline goes: its relative paths (corpus, index) mean the same only where
  // the pipeline's own do.
  if (vm->count("output")) {
    const std::string output = (*vm)["output"].as<std::string>();
    if (pipeline_base(std::filesystem::absolute(output).lexically_normal()) != pipeline_base(location.file))
      throw Error("--output " + output + ": write the tuned pipeline where its relative paths mean what the pipeline's "
                  "own do: in the project's configs/ folder (e.g. configs/tuned.yaml)");
    // A pipeline someone wrote is theirs (configs/default.yaml); one rag tune wrote is tuned again.
    std::error_code ec;
    if (std::filesystem::exists(output, ec) && !read_file(output).starts_with(kWrittenByTune))
      throw Error("--output " + output + " is a pipeline rag tune did not write; name a new file (or remove that one first)");
  }
  const std::vector<std::string> shared = cli::read_overrides(*vm);
  std::vector<std::unique_ptr<cli::LoadedPipeline>> loaded;
  for (const auto& config : configs) {
    std::vector<std::string> overrides = shared;
    overrides.insert(overrides.end(), config.begin(), config.end());
    loaded.push_back(std::make_unique<cli::LoadedPipeline>(Pipeline::load(location.file, overrides, location.reference)));
    for (const auto& [option, path] : cli::outputs_given(*vm, {"output", "json"}))
      cli::check_output_beside(option, path, loaded.back()->pipeline);
  }
  // A grid value equal to the pipeline's own makes the pipeline as written again: tried once.
  for (std::size_t i = configs.size(); i-- > 1;)
    if (same_yaml(loaded[i]->pipeline.yaml, loaded[0]->pipeline.yaml)) {  // every key, not the index's alone
      std::cerr << "note: " << describe(configs[i]) << " is the pipeline as written; it is tried once\n";
      configs.erase(configs.begin() + static_cast<std::ptrdiff_t>(i));
      loaded.erase(loaded.begin() + static_cast<std::ptrdiff_t>(i));
    }

  std::vector<std::vector<Question>> datasets;
  TuningData data;
  data.folds = static_cast<std::size_t>(folds);
  for (const auto& file : dataset_files) {
    datasets.push_back(load_answered_questions(file));
    data.fold.push_back(assign_folds(datasets.back(), data.folds, static_cast<std::uint64_t>((*vm)["seed"].as<long long>())));
  }

  // Every configuration on every question: its index (built or brought up to date), its recall.
  for (std::size_t c = 0; c < configs.size(); ++c) {
    std::cerr << "configuration " << c + 1 << " of " << configs.size() << ": " << describe(configs[c]) << std::endl;
    // Built or brought up to date only when it is not current: a project that cannot be written
    // can still be tuned on indexes already there.
    if (inspect_index(loaded[c]->stages).kind != IndexState::Kind::current) build_index(loaded[c]->stages);
    const Index index(loaded[c]->stages);
    if (c == 0)
      for (std::size_t d = 0; d < datasets.size(); ++d) cli::warn_unindexed_truths(datasets[d], index, dataset_files[d]);
    data.score.emplace_back();
    for (const auto& questions : datasets) {
      const ResultsFile results = search_questions(index, questions, k);
      cli::note_results(results, "configuration " + std::to_string(c + 1));
      const Evaluation e = evaluate(questions, results);
      data.score.back().emplace_back();
      for (const auto& outcome : e.outcomes) data.score.back().back().push_back(question_recall(outcome, k));
    }
  }
  const CrossValidation cv = cross_validate(data);

  // The report: every configuration on all questions, then what the held-out folds say.
  const std::string metric = "recall@" + std::to_string(k);
  json report = {{"pipeline", loaded[0]->pipeline.label()}, {"metric", metric}, {"folds", data.folds}};
  // The configuration last on its row, whole: its overrides are as long as their keys.
  std::printf("%s on all questions (the choice is made on training folds only, below):\n\n  %-4s", metric.c_str(), "");
  for (const auto& file : dataset_files) std::printf(" %12.12s", std::filesystem::path(file).stem().string().c_str());
  std::printf("  configuration\n");
  for (std::size_t c = 0; c < configs.size(); ++c) {
    std::printf("  %-4zu", c);
    json scores = json::array();
    for (std::size_t d = 0; d < datasets.size(); ++d) {
      std::printf(" %12.3f", mean_of(data.score[c][d]));
      scores.push_back(mean_of(data.score[c][d]));
    }
    std::printf("  %s\n", describe(configs[c]).c_str());
    report["configurations"].push_back({{"overrides", configs[c]}, {"all_questions", scores}});
  }
  std::printf("\nheld-out folds (%zu; questions about one file kept in one fold), mean ± standard deviation over folds:\n\n",
              data.folds);
  std::printf("  %-28s %-16s %-16s %s\n", "dataset", "as written", "tuned", "tuned - as written, paired bootstrap 95% CI");
  std::size_t helped = 0;
  for (std::size_t d = 0; d < datasets.size(); ++d) {
    std::vector<double> written(data.folds, 0.0);
    for (std::size_t f = 0; f < data.folds; ++f) {
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t q = 0; q < data.fold[d].size(); ++q)
        if (data.fold[d][q] == f) sum += data.score[0][d][q], ++n;
      written[f] = n ? sum / static_cast<double>(n) : 0.0;
    }
    const PairedComparison p = compare_paired(data.score[0][d], cv.question_score[d]);
    helped += p.ci_low > 0;
    std::printf("  %-28.28s %.3f ± %.3f    %.3f ± %.3f    %+.3f [%+.3f, %+.3f]\n",
                std::filesystem::path(dataset_files[d]).filename().string().c_str(), mean_of(written), spread_of(written),
                mean_of(cv.held_out[d]), spread_of(cv.held_out[d]), p.mean_difference, p.ci_low, p.ci_high);
    report["held_out"].push_back({{"dataset", dataset_files[d]},
                                  {"as_written", written},
                                  {"tuned", cv.held_out[d]},
                                  {"difference", p.mean_difference},
                                  {"ci", {p.ci_low, p.ci_high}}});
  }
  std::printf("\nchosen on the training folds of each fold:");
  for (const std::size_t c : cv.chosen) std::printf(" %zu", c);
  std::printf("\nchosen on all questions: %zu (%s)\n", cv.chosen_on_all, describe(configs[cv.chosen_on_all]).c_str());
  const bool ships = helped * 3 >= datasets.size() * 2 && cv.chosen_on_all != 0;
  std::printf("held-out folds improved on %zu of %zu datasets (CI above 0): %s\n", helped, datasets.size(),
              cv.chosen_on_all == 0 ? "the pipeline as written stays" : ships ? "ship it" : "not enough to ship");
  report["chosen_per_fold"] = cv.chosen;
  report["chosen"] = {{"configuration", cv.chosen_on_all}, {"overrides", configs[cv.chosen_on_all]}};
  report["improved_datasets"] = helped;

  if (vm->count("output")) {
    // The chosen pipeline, named after its file, with the index folder it was measured with.
    const std::filesystem::path output = (*vm)["output"].as<std::string>();
    const Pipeline& chosen = loaded[cv.chosen_on_all]->pipeline;
    YAML::Node yaml = YAML::Clone(chosen.yaml);
    yaml["name"] = output.stem().string();
    // A pipeline tuned again says its latest tuning, not each one after the other.
    std::string untuned = chosen.description.substr(0, chosen.description.find("tuned by rag tune: "));
    if (untuned.ends_with("; ")) untuned.resize(untuned.size() - 2);
    yaml["description"] = untuned + (untuned.empty() ? "" : "; ") + "tuned by rag tune: " + describe(configs[cv.chosen_on_all]);
    yaml["index"] = std::filesystem::proximate(chosen.index_dir, chosen.base).generic_string();
    YAML::Emitter out;
    out << yaml;
    write_file_atomically(output, std::string(kWrittenByTune) + chosen.label() + ".\n" + out.c_str() + "\n");
    std::cerr << "wrote " << output.string() << "\n";
  }
  if (vm->count("json")) write_file_atomically((*vm)["json"].as<std::string>(), report.dump(2) + "\n");
  return 0;
}

}  // namespace rag::commands
