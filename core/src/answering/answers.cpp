#include "rag/answers.hpp"

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/responses.hpp"

namespace rag {
using json = nlohmann::ordered_json;

void save_answers(const std::filesystem::path& file, json document, const std::vector<AnswerRecord>& records) {
  json& results = document.at("search_results");
  if (results.size() != records.size())
    throw Error(file.string() + ": " + std::to_string(records.size()) + " answers for " +
                std::to_string(results.size()) + " search results");
  for (std::size_t i = 0; i < records.size(); ++i) {
    json cited = json::array();
    for (const auto& s : records[i].cited) {
      json source = {{"file_path", s.span.file_path},
                     {"first_character_index", s.span.first},
                     {"last_character_index", s.span.last}};
      if (s.first_line != 0) source.update({{"first_line", s.first_line}, {"last_line", s.last_line}});
      if (cited.size() < records[i].cited_numbers.size()) source["number"] = records[i].cited_numbers[cited.size()];
      cited.push_back(std::move(source));
    }
    results[i]["answer"] = records[i].answer;
    results[i]["answered"] = records[i].answered;
    const Support& support = records[i].support;
    results[i]["support"] = {{"value", support.value},     {"coverage", support.coverage}, {"score", support.score},
                             {"weight", support.weight},   {"covered", support.covered},   {"scored", support.scored}};
    if (!support.unwritten.empty()) results[i]["support"]["unwritten"] = support.unwritten;
    results[i]["cited_sources"] = std::move(cited);
    results[i]["generation_ms"] = records[i].generation_ms;
    if (!records[i].error.empty()) results[i]["error"] = records[i].error;
  }
  write_file_atomically(file, json_text(document, 2) + "\n");  // answers quote the index's text
}

std::vector<AnsweredResult> load_answers(const std::filesystem::path& file) {
  json root;
  ResultsFile results = load_results(file, &root);
  const json& list = root.at("search_results");
  std::vector<AnsweredResult> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& entry = list[i];
    const std::string where = file.string() + ": search result " + std::to_string(i + 1) + " (" +
                              results.results[i].question_id + ")";
    if (!entry.contains("answer") || !entry["answer"].is_string())
      throw Error(where + " has no 'answer' string; make answers with `rag answer_dataset`");
    AnsweredResult a{std::move(results.results[i]), {entry["answer"].get<std::string>(), true, {}, {}, {}, 0, {}}};
    if (entry.contains("error") && entry["error"].is_string()) a.record.error = entry["error"].get<std::string>();
    if (entry.contains("answered")) {
      if (!entry["answered"].is_boolean()) throw Error(where + ": 'answered' must be true or false");
      a.record.answered = entry["answered"].get<bool>();
    }
    if (entry.contains("cited_sources")) {
      const json& cited = entry["cited_sources"];
      if (!cited.is_array()) throw Error(where + ": 'cited_sources' must be a list");
      for (std::size_t s = 0; s < cited.size(); ++s) {
        RetrievedSource source;
        source.span = read_span(cited[s], where + ", cited source " + std::to_string(s + 1));
        a.record.cited.push_back(std::move(source));
        if (cited[s].contains("number") && cited[s]["number"].is_number_integer())
          a.record.cited_numbers.push_back(cited[s]["number"].get<int>());
      }
      if (a.record.cited_numbers.size() != a.record.cited.size()) a.record.cited_numbers.clear();  // all or none
    } else {
      a.record.cited = a.result.sources;
    }
    if (entry.contains("generation_ms") && entry["generation_ms"].is_number())
      a.record.generation_ms = entry["generation_ms"].get<double>();
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace rag
