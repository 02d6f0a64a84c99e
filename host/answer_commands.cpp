// `rag answer`, `rag answer_dataset` and `rag evaluate_answers`.
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.hpp"
#include "rag/answer_evaluation.hpp"
#include "rag/answer_facts.hpp"
#include "rag/answering.hpp"
#include "rag/answers.hpp"
#include "rag/context.hpp"
#include "rag/dataset.hpp"
#include "rag/definitions.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/progress.hpp"
#include "rag/responses.hpp"
#include "rag/utf8.hpp"
#include "text_output.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using cli::milliseconds_since;

// The answer for people: its text (unless it was already shown as it streamed), then its
// numbered references, the ones it does not cite set back; when it declines, the closest sources.
std::string answer_text(const std::string& text, bool streamed, bool answered, const GenerationRequest& request,
                        const std::vector<const Evidence*>& cited) {
  const cli::Style style = cli::Style::for_stdout();
  std::ostringstream out;
  out << (streamed ? "" : cli::printable(text)) << "\n\n"
      << style.strong(answered ? "Sources" : "Closest sources (none answers the question)") << "\n";
  for (const auto& e : request.evidence) {
    std::ostringstream line;
    line << "[" << e.number << "] " << cli::location(e.file_path, e.first_line, e.last_line);
    if (!e.section.empty()) line << "  " << e.section;
    const bool is_cited = std::find(cited.begin(), cited.end(), &e) != cited.end();
    out << "  " << (is_cited ? cli::printable(line.str()) : style.faint(line.str() + "  (not cited)")) << "\n";
  }
  return out.str();
}

AnswerRecord record_of(const WrittenAnswer& answer, const GenerationRequest& request, double generation_ms) {
  AnswerRecord record{answer.text, answer.answered, answer.support, {}, {}, generation_ms, {}};
  for (const Evidence* e : cited_evidence(answer.text, request.evidence)) {
    record.cited.push_back({{e->file_path, e->first_char, e->last_char}, e->score, e->kind, e->section, e->first_line,
                            e->last_line});
    record.cited_numbers.push_back(e->number);
  }
  return record;
}

// `evaluate_answers ANSWERS --facts FILE`: the share accepted, by kind and by language, and each
// question not accepted with what its answer lacks.
int evaluate_facts_command(const cli::po::variables_map& vm) {
  const std::filesystem::path facts_path = vm["facts"].as<std::string>();
  const std::vector<FactQuestion> facts = load_facts(facts_path);
  const std::vector<AnsweredResult> answers = load_answers(vm["answers"].as<std::string>());
  FactsEvaluation e;
  try {
    e = evaluate_facts(facts, answers);
  } catch (const Error& error) {
    throw Error(facts_path.string() + ": " + error.what());
  }
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_kind, by_language;  // accepted, all
  json misses = json::array();
  for (const FactVerdict& v : e.verdicts) {
    for (auto* group : {&by_kind[v.question->kind], &by_language[v.question->language]}) {
      group->first += v.accepted;
      ++group->second;
    }
    if (v.accepted) continue;
    json miss = {{"question_id", v.question->id}, {"question", v.question->question}, {"answered", v.answered},
                 {"cited", v.cited}, {"answer", v.answer}};
    if (v.question->answerable) miss["missing"] = v.missing;
    misses.push_back(std::move(miss));
  }
  const auto shares = [](const std::map<std::string, std::pair<std::size_t, std::size_t>>& groups) {
    json out = json::object();
    for (const auto& [name, counts] : groups)
      out[name] = {{"accepted", counts.first}, {"questions", counts.second}};
    return out;
  };
  if (vm.count("per_question")) {
    json list = json::array();
    for (const auto& v : e.verdicts)
      list.push_back({{"question_id", v.question->id}, {"accepted", v.accepted}, {"answered", v.answered},
                      {"cited", v.cited}, {"missing", v.missing}});
    write_file_atomically(vm["per_question"].as<std::string>(), list.dump(2) + "\n");
  }
  if (vm.count("json")) {
    const json out = {{"questions", e.verdicts.size()},  {"accepted", e.accepted},
                      {"share", e.share()},              {"out_of_scope_cited", e.cited_out_of_scope},
                      {"by_kind", shares(by_kind)},      {"by_language", shares(by_language)},
                      {"misses", std::move(misses)}};
    cli::print(out.dump(2));
    return 0;
  }
  std::printf("accepted: %zu of %zu (%.1f%%); questions the sources cannot answer that were cited: %zu\n", e.accepted,
              e.verdicts.size(), 100 * e.share(), e.cited_out_of_scope);
  for (const auto& [title, groups] : {std::pair{"by kind", &by_kind}, std::pair{"by language", &by_language}}) {
    std::printf("%s:", title);
    for (const auto& [name, counts] : *groups) std::printf("  %s %zu/%zu", name.c_str(), counts.first, counts.second);
    std::printf("\n");
  }
  for (const json& m : misses) {
    std::string why = !m.contains("missing") ? "should decline, citing nothing"
                      : !m["answered"].get<bool>() ? "declined"
                                                  : "lacks: ";
    if (m.contains("missing") && m["answered"].get<bool>())
      for (const auto& f : m["missing"]) why.append("\"").append(f.get<std::string>()).append("\" ");
    std::string answer = cli::printable(m["answer"].get<std::string>());
    std::replace(answer.begin(), answer.end(), '\n', ' ');
    if (utf8::count_code_points(answer) > 160) answer = answer.substr(0, utf8::prefix_bytes(answer, 160)) + "…";
    std::printf("miss %s: %s\n  %s\n  answer: %s\n", m["question_id"].get<std::string>().c_str(),
                m["question"].get<std::string>().c_str(), why.c_str(), answer.c_str());
  }
  return 0;
}

}  // namespace

int answer(const cli::Invocation& inv) {
  cli::po::options_description options("answer options");
  cli::add_pipeline_options(options);
  cli::add_format_option(options);
  options.add_options()
      ("query", cli::po::value<std::vector<std::string>>(), "the question (its words, quoted or not; - reads it from standard input)")
      ("k,k", cli::po::value<long long>()->default_value(10), "chunks retrieved for the context (1-100)");
  cli::po::positional_options_description positional;
  positional.add("query", -1);
  const auto vm = cli::parse(inv, "QUESTION... [-k N] [--pipeline NAME|FILE] [--set KEY=VALUE ...] [--format text|json]", options, positional);
  if (!vm) return 0;
  if (!vm->count("query")) throw Error("rag answer: no question given (rag answer \"your question\")");
  std::string query = cli::joined_words((*vm)["query"].as<std::vector<std::string>>());
  if (query == "-") {  // a whole message, as a chat bot passes it on: its lines are one question
    cli::check_standard_input();
    cli::read_standard_input(query, false);
    query.erase(query.find_last_not_of(" \t\r\n") + 1);  // the line break that ends the input is not the question's
  }
  if (query.find_first_not_of(" \t\r\n") == std::string::npos) throw Error("rag answer: the question is empty");
  if (!utf8::is_valid(query)) throw Error("rag answer: the question is not valid UTF-8");
  const std::size_t k = cli::read_k(*vm, 100);
  const cli::Format format = cli::read_format(*vm);
  cli::LoadedPipeline loaded(*vm);
  const Pipeline& pipeline = loaded.pipeline;
  const Index index(loaded.stages);
  const ContextAssembler assembler(loaded.stages.context(), index, pipeline.base);

  // A streaming generator's answer is shown as it is written: as the text output itself, or on
  // stderr beside JSON when that is a terminal.
  bool shown = false;
  std::ostream& live = format == cli::Format::text ? std::cout : std::cerr;
  std::function<void(std::string_view)> show;
  if (format == cli::Format::text || ::isatty(STDERR_FILENO) == 1)
    show = [&shown, &live](std::string_view piece) {
      live << cli::printable(piece) << std::flush;
      shown = true;
    };
  AnsweredQuestion answered;
  try {
    answered = answer_question(index, loaded.stages.translator(), assembler, loaded.stages.generator(), query, k, {}, show);
  } catch (...) {
    if (shown) live << std::endl;  // the error goes on a line of its own, after what was shown
    throw;
  }
  if (shown && format == cli::Format::json) std::cerr << "\n";
  for (const std::string& w : answered.warnings) std::cerr << "warning: " << w << "\n";
  std::vector<std::string> files;
  for (const Evidence& e : answered.request.evidence) files.push_back(e.file_path);
  cli::warn_changed(index, pipeline, files);
  if (format == cli::Format::text) {
    std::cout << answer_text(answered.answer, shown, answered.answered, answered.request,
                             cited_evidence(answered.answer, answered.request.evidence))
              << std::flush;
    return 0;
  }
  const json out = answer_response(answered, pipeline.generator.plugin, loaded.stages.generator().describe(),
                                   index.strategy());
  cli::print(json_text(out, 2));
  return 0;
}

int answer_dataset(const cli::Invocation& inv) {
  cli::po::options_description options("answer_dataset options");
  cli::add_pipeline_options(options);
  options.add_options()
      ("student_search_results_path", cli::po::value<std::string>(), "a search_dataset results file to answer")
      ("dataset_path", cli::po::value<std::string>(), "or: questions to search and answer (JSON with rag_questions)")
      ("save_directory", cli::po::value<std::string>()->required(), "folder for the answers file (same name as the input)")
      ("k", cli::po::value<long long>(), "with --dataset_path: sources retrieved per question (1-10, default 10)");
  const auto vm = cli::parse(inv, "(--student_search_results_path FILE | --dataset_path FILE) --save_directory DIR "
                             "[--k N] [--pipeline NAME|FILE] [--set KEY=VALUE ...]", options);
  if (!vm) return 0;
  const bool from_results = vm->count("student_search_results_path") > 0;
  if (from_results == (vm->count("dataset_path") > 0))
    throw Error("rag answer_dataset: give either --student_search_results_path or --dataset_path (see --help)");
  if (from_results && vm->count("k"))
    throw Error("rag answer_dataset: --k applies to --dataset_path; a results file brings its own sources");
  std::size_t k = kMaxResultsK;
  if (vm->count("k")) k = cli::read_k(*vm, kMaxResultsK);
  const std::filesystem::path input =
      (*vm)[from_results ? "student_search_results_path" : "dataset_path"].as<std::string>();
  const std::filesystem::path output = cli::output_for(input, (*vm)["save_directory"].as<std::string>());

  // Inputs are read and checked before any work, so that a bad file costs nothing.
  ResultsFile results;
  std::vector<Question> questions;
  json document;
  if (from_results) results = load_results(input, &document);
  else questions = load_questions(input);
  cli::LoadedPipeline loaded(*vm);
  const Pipeline& pipeline = loaded.pipeline;
  cli::check_output_beside("save_directory", output, pipeline);
  const Index index(loaded.stages);
  const ContextAssembler assembler(loaded.stages.context(), index, pipeline.base);

  std::vector<std::vector<Hit>> hits;  // with --dataset_path, what each question retrieved
  std::vector<std::string> queries;    // and how retrieval read it (translated)
  if (!from_results) {
    // Searched here rather than by search_questions(): the answers want the hits themselves.
    Progress progress("searching", questions.size());
    ResultsFile searched;
    searched.k = k;
    for (const auto& q : questions) {
      const auto start = Clock::now();
      queries.push_back(read_question(loaded.stages.translator(), index, q.text));
      hits.push_back(index.search(queries.back(), k));
      const double search_ms = milliseconds_since(start);  // as search_questions() times it
      searched.results.push_back({q.id, q.text, to_sources(index, hits.back()), search_ms});
      progress.advance();
    }
    document = results_to_json(searched);
  }

  const std::size_t total = from_results ? results.results.size() : questions.size();
  std::vector<AnswerRecord> records;
  const SupportMeter meter(index);
  // A question the generator fails on (a model server's 429 or 500) costs that question, not the
  // others' answers; a server that fails every time stops the run.
  constexpr std::size_t kFailuresInARow = 5;
  std::size_t failed = 0, in_a_row = 0;
  std::string first_failure;
  {
    Progress progress("answering", total);
    for (std::size_t i = 0; i < total; ++i) {
      GenerationRequest request;
      bool defined = false;
      if (from_results) {
        const SearchResult& result = results.results[i];
        std::vector<SourceSpan> spans;
        for (const auto& s : result.sources) spans.push_back(s.span);
        try {
          // Without scores: a results file's may come from another retriever, on another scale
          // (load_results does not read them), so support is the sources' coverage alone.
          request = assembler.assemble(result.question, spans);
        } catch (const Error& e) {
          throw Error(input.string() + ": search result " + std::to_string(i + 1) + " (" + result.question_id + "): " +
                      e.what());
        }
        request.query = read_question(loaded.stages.translator(), index, request.question);
        defined = sources_define(request.query, request.evidence);
      } else {
        PreparedQuestion prepared = prepare_question(index, assembler, questions[i].text, queries[i], std::move(hits[i]));
        request = std::move(prepared.request);
        defined = prepared.defined;
      }
      const auto start = Clock::now();
      try {
        const WrittenAnswer written =
            write_answer(request, loaded.stages.generator(), meter, loaded.stages.context(), defined);
        records.push_back(record_of(written, request, milliseconds_since(start)));
        in_a_row = 0;
      } catch (const Error& e) {
        const std::string& id = from_results ? results.results[i].question_id : questions[i].id;
        if (failed++ == 0) first_failure = id + ": " + e.what();
        AnswerRecord none;
        none.answered = false;
        none.error = e.what();
        records.push_back(std::move(none));
        if (++in_a_row == kFailuresInARow) break;
      }
      progress.advance();
    }
  }
  if (failed == records.size())  // nothing answered: nothing worth a file
    throw Error(records.size() == total ? first_failure
                                        : "stopped after " + std::to_string(failed) + " failures in a row: " + first_failure);
  const std::size_t asked = records.size();
  for (std::size_t i = asked; i < total; ++i) {  // the run stopped: the rest were not asked
    AnswerRecord none;
    none.answered = false;
    none.error = "not asked: the run stopped after " + std::to_string(kFailuresInARow) + " failures in a row";
    records.push_back(std::move(none));
  }
  create_folder(output.parent_path());
  save_answers(output, std::move(document), records);
  std::cerr << "wrote " << output.string() << " (" << total << " answers by " << loaded.stages.generator().describe() << ")\n";
  if (failed > 0)
    throw Error(std::to_string(failed) + " of " + std::to_string(total) + " questions got no answer" +
                (asked < total ? ", and the run stopped after " + std::to_string(kFailuresInARow) + " failures in a row" : "") +
                "; each is recorded with its \"error\" in " + output.string() + " (the first: " + first_failure + ")");
  return 0;
}

int evaluate_answers(const cli::Invocation& inv) {
  cli::po::options_description options("evaluate_answers options");
  options.add_options()
      ("answers", cli::po::value<std::string>(), "answer_dataset output")
      ("dataset", cli::po::value<std::string>(), "answered dataset, with reference answers and sources")
      ("facts", cli::po::value<std::string>(), "instead of ANSWERED: a facts file (rag/answer_facts.hpp); reports the "
                                                  "share of answers a user accepts and lists the others")
      ("per_question", cli::po::value<std::string>(), "write each question's scores to this JSON file")
      ("json", "print the figures as JSON");
  cli::po::positional_options_description positional;
  positional.add("answers", 1).add("dataset", 1);
  const auto vm = cli::parse(inv, "ANSWERS (ANSWERED | --facts FILE) [--per_question FILE] [--json]", options, positional);
  if (!vm) return 0;
  std::vector<std::filesystem::path> inputs;
  for (const char* input : {"answers", "dataset", "facts"})
    if (vm->count(input)) inputs.emplace_back((*vm)[input].as<std::string>());
  cli::check_outputs(cli::outputs_given(*vm, {"per_question"}), inputs);
  if (vm->count("facts")) {
    if (!vm->count("answers") || vm->count("dataset"))
      throw Error("rag evaluate_answers: with --facts, give the answers file alone (see --help)");
    return evaluate_facts_command(*vm);
  }
  if (!vm->count("answers") || !vm->count("dataset"))
    throw Error("rag evaluate_answers: give the answers file and the answered dataset (see --help)");
  const std::filesystem::path dataset_path = (*vm)["dataset"].as<std::string>();
  const std::vector<AnsweredResult> answers = load_answers((*vm)["answers"].as<std::string>());
  const std::vector<Question> dataset = load_questions(dataset_path);
  AnswerEvaluation e;
  try {
    e = evaluate_answers(dataset, answers);
  } catch (const Error& error) {
    throw Error(dataset_path.string() + ": " + error.what());
  }

  if (vm->count("per_question")) {
    json list = json::array();
    for (const auto& s : e.scores)
      list.push_back({{"question_id", s.question_id}, {"question", s.question}, {"answered", s.answered},
                      {"declined", s.declined}, {"failed", s.failed}, {"rouge_l", s.rouge_l}, {"token_f1", s.token_f1}, {"cites_truth", s.cites_truth}});
    write_file_atomically((*vm)["per_question"].as<std::string>(), list.dump(2) + "\n");
  }
  const auto distribution = [](const Distribution& d) {
    return json{{"mean", d.mean}, {"min", d.min},   {"p25", d.p25},
                {"median", d.median}, {"p75", d.p75}, {"max", d.max}, {"histogram", d.histogram}};
  };
  if (vm->count("json")) {
    const json out = {{"questions", e.questions},          {"answered", e.answered}, {"declined", e.declined}, {"failed", e.failed},
                      {"rouge_l", distribution(e.rouge_l)}, {"token_f1", distribution(e.token_f1)},
                      {"cites_truth", e.cites_truth}};
    cli::print(out.dump(2));
    return 0;
  }
  const std::size_t missing = e.questions - e.answered - e.declined - e.failed;
  std::printf("questions: %zu (answered: %zu, declined: %zu%s%s)\n", e.questions, e.answered, e.declined,
              e.failed ? (", failed: " + std::to_string(e.failed)).c_str() : "",
              missing ? (", without an answer: " + std::to_string(missing)).c_str() : "");
  std::printf("%-12s %7s %7s %7s %7s   histogram [0-.2 .2-.4 .4-.6 .6-.8 .8-1]\n", "", "mean", "p25", "median", "p75");
  for (const auto& [name, d] : {std::pair{"ROUGE-L F1", &e.rouge_l}, std::pair{"token F1", &e.token_f1}}) {
    std::printf("%-12s %7.4f %7.4f %7.4f %7.4f  ", name, d->mean, d->p25, d->median, d->p75);
    for (const std::size_t n : d->histogram) std::printf(" %4zu", n);
    std::printf("\n");
  }
  std::printf("cited sources include the ground truth: %.4f\n", e.cites_truth);
  return 0;
}

}  // namespace rag::commands
