// `rag evaluate` (also `mesure_recall_at_k_on_dataset`).
#include <nlohmann/json.hpp>

#include <cstdio>

#include "commands.hpp"
#include "rag/dataset.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/file_io.hpp"

namespace rag::commands {

int evaluate(const cli::Invocation& inv) {
  using json = nlohmann::ordered_json;
  cli::po::options_description options("evaluate options");
  options.add_options()
      ("results", cli::po::value<std::string>(), "search_dataset output (also --student_search_results_path)")
      ("student_search_results_path", cli::po::value<std::string>(), "same as --results")
      ("dataset", cli::po::value<std::string>(), "answered dataset (also --answered_dataset_path)")
      ("answered_dataset_path", cli::po::value<std::string>(), "same as --dataset")
      ("k", cli::po::value<std::vector<long long>>()->multitoken(), "cut-offs (default 1 3 5 10)")
      ("per_question", cli::po::value<std::string>(), "write each question's outcome to this JSON file")
      ("json", "print the figures as JSON");
  cli::po::positional_options_description positional;
  positional.add("results", 1).add("dataset", 1);
  const auto vm = cli::parse(inv, "RESULTS ANSWERED [--k 1 3 5 10] [--per_question FILE] [--json]", options, positional);
  if (!vm) return 0;
  auto either = [&](const char* a, const char* b) {
    if (vm->count(a)) return (*vm)[a].as<std::string>();
    if (vm->count(b)) return (*vm)[b].as<std::string>();
    throw Error("rag " + inv.command + ": give the " + std::string(a) + " file (see --help)");
  };
  const std::string results_path = either("results", "student_search_results_path");
  const std::string dataset_path = either("dataset", "answered_dataset_path");
  std::vector<std::size_t> ks = {1, 3, 5, 10};
  if (vm->count("k")) {
    ks.clear();
    for (const long long k : (*vm)["k"].as<std::vector<long long>>()) {  // signed: "-5" is said as -5
      if (k < 1 || k > static_cast<long long>(kMaxResultsK))
        throw Error("--k values must be between 1 and 10, got " + std::to_string(k));
      ks.push_back(static_cast<std::size_t>(k));
    }
  }
  cli::check_outputs(cli::outputs_given(*vm, {"per_question"}), {results_path, dataset_path});

  const ResultsFile results = load_results(results_path);
  const std::vector<Question> dataset = load_answered_questions(dataset_path);
  const Evaluation e = evaluate(dataset, results, ks);

  if (vm->count("per_question")) {
    json list = json::array();
    for (const auto& o : e.outcomes) {
      json recalls;
      for (const std::size_t k : e.ks) recalls["recall@" + std::to_string(k)] = question_recall(o, k);
      list.push_back({{"question_id", o.question_id}, {"question", o.question}, {"found_at_rank", o.found_at},
                      {"retrieved", o.retrieved}, {"recall", recalls}});
    }
    write_file_atomically((*vm)["per_question"].as<std::string>(), list.dump(2) + "\n");
  }
  if (vm->count("json")) {
    json out = {{"questions", e.questions}, {"answered", e.answered}, {"mrr", e.mrr}};
    for (const auto& [k, r] : e.recall) out["recall@" + std::to_string(k)] = r;
    cli::print(out.dump(2));
    return 0;
  }
  std::printf("questions: %zu (with results: %zu)\n", e.questions, e.answered);
  for (const auto& [k, r] : e.recall) std::printf("recall@%-3zu %.4f\n", k, r);
  std::printf("MRR        %.4f\n", e.mrr);
  return 0;
}

}  // namespace rag::commands
