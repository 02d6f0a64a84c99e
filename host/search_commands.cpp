// `rag search` and `rag search_dataset`.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "rag/answering.hpp"
#include "rag/dataset.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/responses.hpp"
#include "rag/utf8.hpp"
#include "text_output.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using cli::milliseconds_since;

// "path:first:last" -> a span; the path may itself contain ':'.
SourceSpan parse_truth(const std::string& text) {
  const auto last_colon = text.rfind(':');
  const auto first_colon = last_colon == std::string::npos ? std::string::npos : text.rfind(':', last_colon - 1);
  // Digits only: std::stoul would read "-1" as the largest number.
  const auto number = [](const std::string& digits) {
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("number");
    return std::stoul(digits);
  };
  SourceSpan span;
  try {
    if (first_colon == std::string::npos || first_colon == 0) throw std::invalid_argument("format");
    span = {text.substr(0, first_colon), number(text.substr(first_colon + 1, last_colon - first_colon - 1)),
            number(text.substr(last_colon + 1))};
  } catch (const std::exception&) {
    throw Error("--truth wants FILE:FIRST:LAST (code points, counted from 0), got '" + text + "'");
  }
  if (span.first >= span.last)
    throw Error("--truth " + text + ": the first character must come before the last (FILE:FIRST:LAST, end exclusive)");
  return span;
}

// A --truth file that no chunk comes from scores 0 whatever the ranking: say so, and which
// indexed file it may mean.
// One query's results, as JSON, with recall@5 against the --truth spans when there are some.
json results_json(const Index& index, const std::string& query, const std::vector<Hit>& hits, double elapsed_ms,
                  const std::vector<std::string>& warnings, const std::vector<SourceSpan>& truths, std::size_t k) {
  json result = search_response(index, query, hits, elapsed_ms, warnings);
  if (!truths.empty()) {
    const Question truth{"query", query, truths, {}};
    const ResultsFile results{{{"query", query, to_sources(index, hits), elapsed_ms}}, k};
    result["metrics"]["recall@5"] = evaluate({truth}, results, {5}).recall.at(5);
  }
  return result;
}

// One query's results for people: each hit's place, section and score, then its matching lines.
std::string results_text(const Index& index, const std::string& query, const std::vector<Hit>& hits, double elapsed_ms,
                         const json& metrics) {
  const cli::Style style = cli::Style::for_stdout();
  const cli::Highlighter highlighter(query, style);
  std::ostringstream out;
  for (const Hit& h : hits) {
    const ChunkView c = index.chunk(h.chunk);
    out << style.strong(cli::location(std::string(c.file_path), c.first_line, c.last_line));
    if (!c.section.empty()) out << "  " << cli::printable(c.section);
    std::ostringstream score;
    score << std::fixed << std::setprecision(2) << h.score;
    out << "  " << style.faint(score.str()) << "\n" << highlighter.matching_lines(c.text, c.first_line, 4) << "\n";
  }
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(2) << cli::counted(hits.size(), "result") << " in " << elapsed_ms << " ms, "
          << index.strategy();
  if (metrics.contains("recall@5")) summary << ", recall@5 " << metrics["recall@5"].get<double>();
  out << style.faint(summary.str()) << "\n";
  return out.str();
}

}  // namespace

int search(const cli::Invocation& inv) {
  cli::po::options_description options("search options");
  cli::add_pipeline_options(options);
  cli::add_format_option(options);
  options.add_options()
      ("query", cli::po::value<std::vector<std::string>>(), "the question (its words, quoted or not; - reads one per line)")
      ("k,k", cli::po::value<long long>()->default_value(10), "number of results (1-1000)")
      ("truth", cli::po::value<std::vector<std::string>>(), "a ground-truth span FILE:FIRST:LAST, to report recall@5")
      ("as-written", "search the words as written: none respelt, nothing translated");
  cli::po::positional_options_description positional;
  positional.add("query", -1);
  const auto vm = cli::parse(inv, "QUERY... [-k N] [--pipeline NAME|FILE] [--set KEY=VALUE ...] [--format text|json] [--truth FILE:FIRST:LAST] [--as-written]",
                             options, positional);
  if (!vm) return 0;
  if (!vm->count("query"))
    throw Error("rag search: no query given (rag search \"your question\", or rag search - to read one query a line)");
  const std::string query = cli::joined_words((*vm)["query"].as<std::vector<std::string>>());
  const bool from_input = query == "-";
  if (!from_input && query.find_first_not_of(" \t\r\n") == std::string::npos) throw Error("rag search: the query is empty");
  const std::size_t k = cli::read_k(*vm, 1000);
  const cli::Format format = cli::read_format(*vm);
  std::vector<SourceSpan> truths;
  if (vm->count("truth"))
    for (const auto& t : (*vm)["truth"].as<std::vector<std::string>>()) truths.push_back(parse_truth(t));
  if (from_input && !truths.empty()) throw Error("rag search: --truth is for one query; with - use search_dataset and evaluate");
  if (from_input) cli::check_standard_input();  // before the index is opened

  cli::LoadedPipeline loaded(*vm);
  const Index index(loaded.stages);
  cli::warn_unindexed_truths(truths, index, "--truth");
  if (k > index.chunk_count() && !(*vm)["k"].defaulted())  // the default of 10 asks for nothing
    std::cerr << "warning: --k " << k << " is more than the " << index.chunk_count()
              << " chunks of the index; returning at most those\n";

  // A query in another language is read in English, as `rag answer` reads a question.
  const bool as_written = vm->count("as-written") > 0;
  const auto run_query = [&](const std::string& text) {
    const auto start = Clock::now();
    std::vector<std::string> warnings;
    std::vector<Respelling> respelt;
    const std::string read_as = as_written ? text : read_question(loaded.stages.translator(), index, text, &respelt);
    const std::vector<Hit> hits = index.search(read_as, k, &warnings);
    const double elapsed = milliseconds_since(start);
    for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
    json result = results_json(index, text, hits, elapsed, warnings, truths, k);
    if (!respelt.empty()) {
      result["respelt"] = respelt_json(respelt);
      if (format == cli::Format::text) std::cerr << "note: " << respelt_note(respelt) << " (--as-written searches the words as written)\n";
    } else if (read_as != text) {
      result["translated_query"] = read_as;
      if (format == cli::Format::text) std::cerr << "note: read in English as: " << read_as << "\n";
    }
    std::vector<std::string> files;
    for (const Hit& h : hits) files.emplace_back(index.chunk(h.chunk).file_path);
    cli::warn_changed(index, loaded.pipeline, files);
    if (format == cli::Format::json) cli::print(json_text(result, from_input ? -1 : 2));
    else std::cout << results_text(index, read_as, hits, elapsed, result["metrics"]) << std::flush;
    return hits.empty();
  };
  if (!from_input) {
    if (run_query(query)) std::cerr << "note: no chunk of the index matches any word of the query\n";
    return 0;
  }
  // One query a line; blank lines are passed over, a line that is not UTF-8 stops with its number.
  std::string line;
  for (std::size_t number = 1; cli::read_standard_input(line, true); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (!utf8::is_valid(line)) throw Error("standard input, line " + std::to_string(number) + ": not valid UTF-8");
    run_query(line);
  }
  return 0;
}

int search_dataset(const cli::Invocation& inv) {
  cli::po::options_description options("search_dataset options");
  cli::add_pipeline_options(options);
  options.add_options()
      ("dataset_path", cli::po::value<std::string>()->required(), "questions (JSON with rag_questions)")
      ("save_directory", cli::po::value<std::string>()->required(), "folder for the results file")
      ("k", cli::po::value<long long>()->default_value(10), "sources per question (1-10)");
  const auto vm = cli::parse(inv, "--dataset_path FILE --save_directory DIR [--k N] [--pipeline NAME|FILE] [--set KEY=VALUE ...]", options);
  if (!vm) return 0;
  const std::size_t k = cli::read_k(*vm, kMaxResultsK);
  const std::filesystem::path dataset_path = (*vm)["dataset_path"].as<std::string>();
  const std::vector<Question> questions = load_questions(dataset_path);
  const std::filesystem::path output = cli::output_for(dataset_path, (*vm)["save_directory"].as<std::string>());
  cli::LoadedPipeline loaded(*vm);
  cli::check_output_beside("save_directory", output, loaded.pipeline);
  const Index index(loaded.stages);

  const ResultsFile results = search_questions(index, questions, k);
  std::vector<std::string> files;
  for (const SearchResult& r : results.results)
    for (const RetrievedSource& source : r.sources) files.push_back(source.span.file_path);
  cli::warn_changed(index, loaded.pipeline, files);
  create_folder(output.parent_path());
  save_results(output, results);
  std::cerr << "wrote " << output.string() << " (" << questions.size() << " questions, k=" << k << ")\n";
  cli::note_results(results);
  const auto short_of_k = std::count_if(results.results.begin(), results.results.end(),
                                        [&](const SearchResult& r) { return r.sources.size() < k; });
  if (short_of_k > 0)
    std::cerr << "note: " << short_of_k << " of the questions got fewer than " << k
              << " sources: no more chunks of the index match their words\n";
  return 0;
}

}  // namespace rag::commands
