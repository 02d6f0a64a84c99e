// `rag search` and `rag search_dataset`.
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

#include "commands.hpp"
#include "rag/dataset.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/index.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using cli::milliseconds_since;

// "path:first:last" -> a span; the path may itself contain ':'.
SourceSpan parse_truth(const std::string& text) {
  const auto last_colon = text.rfind(':');
  const auto first_colon = last_colon == std::string::npos ? std::string::npos : text.rfind(':', last_colon - 1);
  try {
    if (first_colon == std::string::npos || first_colon == 0) throw std::invalid_argument("format");
    return {text.substr(0, first_colon), std::stoul(text.substr(first_colon + 1, last_colon - first_colon - 1)),
            std::stoul(text.substr(last_colon + 1))};
  } catch (const std::exception&) {
    throw Error("--truth wants FILE:FIRST:LAST (code points), got '" + text + "'");
  }
}

void warn(const Index& index) {
  for (const auto& w : index.warnings()) std::cerr << "warning: " << w << "\n";
}

}  // namespace

int search(const cli::Invocation& inv) {
  cli::po::options_description options("search options");
  cli::add_pipeline_options(options);
  options.add_options()
      ("query", cli::po::value<std::string>(), "the question")
      ("k", cli::po::value<long long>()->default_value(10), "number of results (1-1000)")
      ("truth", cli::po::value<std::vector<std::string>>(), "a ground-truth span FILE:FIRST:LAST, to report recall@5");
  cli::po::positional_options_description positional;
  positional.add("query", 1);
  const auto vm = cli::parse(inv, "QUERY [--k N] [--pipeline FILE] [--truth FILE:FIRST:LAST]", options, positional);
  if (!vm) return 0;
  if (!vm->count("query")) throw Error("rag search: no query given (rag search \"your question\")");
  const std::string query = (*vm)["query"].as<std::string>();
  if (query.find_first_not_of(" \t\r\n") == std::string::npos) throw Error("rag search: the query is empty");
  const std::size_t k = cli::read_k(*vm, 1000);
  cli::LoadedPipeline loaded(*vm);
  const Pipeline& pipeline = loaded.pipeline;
  const Index index(pipeline, loaded.stages);
  warn(index);

  if (k > index.chunks().size())
    std::cerr << "warning: --k " << k << " is more than the " << index.chunks().size()
              << " chunks of the index; returning at most those\n";

  const auto start = Clock::now();
  const std::vector<Hit> hits = index.search(query, k);
  const double elapsed = milliseconds_since(start);
  if (hits.empty()) std::cerr << "note: no chunk of the index matches any word of the query\n";

  json chunks = json::array();
  for (const Hit& h : hits) {
    const Chunk& c = index.chunks()[h.chunk];
    json item = {{"file_path", c.file_path},           {"first_character_index", c.first_char},
                 {"last_character_index", c.last_char}, {"text", c.text},
                 {"file_type", c.kind},                 {"score", h.score}};
    if (!c.section.empty()) item["section"] = c.section;
    chunks.push_back(std::move(item));
  }
  json metrics = {{"search_time_ms", elapsed}, {"total_chunks", index.chunks().size()}};
  if (vm->count("truth")) {
    Question truth{"query", query, {}, {}};
    for (const auto& t : (*vm)["truth"].as<std::vector<std::string>>()) truth.sources.push_back(parse_truth(t));
    const ResultsFile results{{{"query", query, to_sources(index, hits), elapsed}}, k};
    metrics["recall@5"] = evaluate({truth}, results, {5}).recall.at(5);
  }
  const json out = {{"query", query}, {"retrieved_chunks", std::move(chunks)}, {"strategy", index.strategy()},
                    {"metrics", std::move(metrics)}};
  cli::print(out.dump(2));
  return 0;
}

int search_dataset(const cli::Invocation& inv) {
  cli::po::options_description options("search_dataset options");
  cli::add_pipeline_options(options);
  options.add_options()
      ("dataset_path", cli::po::value<std::string>()->required(), "questions (JSON with rag_questions)")
      ("save_directory", cli::po::value<std::string>()->required(), "folder for the results file")
      ("k", cli::po::value<long long>()->default_value(10), "sources per question (1-10)");
  const auto vm = cli::parse(inv, "--dataset_path FILE --save_directory DIR [--k N] [--pipeline FILE]", options);
  if (!vm) return 0;
  const std::size_t k = cli::read_k(*vm, kMaxResultsK);
  const std::filesystem::path dataset_path = (*vm)["dataset_path"].as<std::string>();
  const std::vector<Question> questions = load_questions(dataset_path);
  const std::filesystem::path output = std::filesystem::path((*vm)["save_directory"].as<std::string>()) / dataset_path.filename();
  cli::LoadedPipeline loaded(*vm);
  const Pipeline& pipeline = loaded.pipeline;
  const Index index(pipeline, loaded.stages);
  warn(index);

  const ResultsFile results = search_questions(index, questions, k);
  save_results(output, results);
  std::cerr << "wrote " << output.string() << " (" << questions.size() << " questions, k=" << k << ")\n";
  return 0;
}

}  // namespace rag::commands
