#include "rag/dataset.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/responses.hpp"

namespace rag {
using json = nlohmann::ordered_json;

namespace {

json parse_json(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error(file.string() + ": file not found");
  try {
    return json::parse(read_file(file));
  } catch (const json::exception& e) {  // a syntax error, or a number JSON allows but a double cannot hold
    throw Error(file.string() + ": not valid JSON (" + e.what() + ")");
  }
}

// Reads a value of the expected JSON type or throws an error naming the file, entry and key.
class EntryReader {
 public:
  EntryReader(const json& entry, std::string where) : entry_(entry), where_(std::move(where)) {
    if (!entry_.is_object()) throw Error(where_ + ": expected an object");
  }
  bool has(const char* key) const { return entry_.contains(key) && !entry_.at(key).is_null(); }
  std::string string(const char* key) const {
    const json& v = need(key);
    if (!v.is_string()) throw Error(where_ + ": '" + key + "' must be a string");
    return v.get<std::string>();
  }
  std::size_t index(const char* key) const {
    const json& v = need(key);
    // 3307.0 is 3307 to the grader (Python compares and subtracts numbers, whatever their type).
    if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < 9e15 &&
        v.get<double>() == std::floor(v.get<double>()))
      return static_cast<std::size_t>(v.get<double>());
    if (!v.is_number_integer() || v.get<long long>() < 0)
      throw Error(where_ + ": '" + key + "' must be a non-negative integer");
    return v.get<std::size_t>();
  }
  const json& array(const char* key) const {
    const json& v = need(key);
    if (!v.is_array()) throw Error(where_ + ": '" + key + "' must be a list");
    return v;
  }
  const json& need(const char* key) const {
    if (!has(key)) throw Error(where_ + ": '" + key + "' is missing");
    return entry_.at(key);
  }
  const std::string& where() const { return where_; }

 private:
  const json& entry_;
  std::string where_;
};

}  // namespace

SourceSpan read_span(const json& j, const std::string& where) {
  EntryReader r(j, where);
  SourceSpan s{r.string("file_path"), r.index("first_character_index"), r.index("last_character_index")};
  if (s.file_path.empty()) throw Error(where + ": 'file_path' is empty");
  if (s.last < s.first) throw Error(where + ": last_character_index is before first_character_index");
  return s;
}

std::vector<Question> load_questions(const std::filesystem::path& file) {
  const json root = parse_json(file);
  const json* list = &root;
  if (root.is_object()) {
    if (!root.contains("rag_questions"))
      throw Error(file.string() + ": expected a 'rag_questions' list" +
                  (root.contains("search_results") ? " (this is a results file, which search_dataset writes: "
                                                     "is it given in the place of the dataset?)" : ""));
    list = &root.at("rag_questions");
  }
  if (!list->is_array())
    throw Error(file.string() + (list == &root ? ": expected {\"rag_questions\": [...]} or a list of questions"
                                               : ": 'rag_questions' must be a list"));
  std::vector<Question> questions;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < list->size(); ++i) {
    EntryReader r((*list)[i], file.string() + ": question " + std::to_string(i + 1));
    Question q;
    q.id = r.string("question_id");
    if (q.id.empty()) throw Error(r.where() + ": 'question_id' is empty");
    if (!r.has("question") && !r.has("question_str")) throw Error(r.where() + " (" + q.id + "): 'question' is missing");
    q.text = r.has("question") ? r.string("question") : r.string("question_str");
    if (q.text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error(r.where() + " (" + q.id + ") is empty");
    if (!ids.insert(q.id).second) throw Error(r.where() + ": duplicate question_id " + q.id);
    if (r.has("sources")) {
      const json& sources = r.array("sources");
      for (std::size_t s = 0; s < sources.size(); ++s)
        q.sources.push_back(read_span(sources[s], r.where() + ", source " + std::to_string(s + 1)));
    }
    if (r.has("answer")) q.answer = r.string("answer");
    questions.push_back(std::move(q));
  }
  // A file of no questions is a mistake (the wrong file, a filter that kept nothing): a results
  // file of none would look like a run.
  if (questions.empty()) throw Error(file.string() + ": the dataset has no questions");
  return questions;
}

ResultsFile load_results(const std::filesystem::path& file, json* document) {
  json parsed = parse_json(file);
  const json& root = document ? (*document = std::move(parsed)) : parsed;
  EntryReader top(root, file.string());
  if (root.is_object() && root.contains("rag_questions") && !root.contains("search_results"))
    throw Error(file.string() + ": a dataset of questions (rag_questions), not a results file (search_results, "
                                "which search_dataset writes): is it given in the place of the results?");
  ResultsFile results;
  results.k = top.index("k");
  if (results.k == 0 || results.k > kMaxResultsK)
    throw Error(file.string() + ": k is " + std::to_string(results.k) + ", the grader accepts 1 to 10");
  const json& list = top.array("search_results");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < list.size(); ++i) {
    EntryReader r(list[i], file.string() + ": search result " + std::to_string(i + 1));
    SearchResult result;
    result.question_id = r.string("question_id");
    result.question = r.string("question_str");
    if (!ids.insert(result.question_id).second) throw Error(r.where() + ": duplicate question_id " + result.question_id);
    const json& sources = r.array("retrieved_sources");
    if (sources.size() > kMaxResultsK) throw Error(r.where() + ": more than 10 retrieved sources");
    for (std::size_t s = 0; s < sources.size(); ++s) {
      const std::string where = r.where() + ", source " + std::to_string(s + 1);
      RetrievedSource source{read_span(sources[s], where), 0, "", "", 0, 0};
      if (source.span.last - source.span.first > kMaxSourceChars)
        throw Error(where + ": longer than 2000 characters, which the grader rejects");
      result.sources.push_back(std::move(source));
    }
    results.results.push_back(std::move(result));
  }
  return results;
}

std::vector<Question> load_answered_questions(const std::filesystem::path& file) {
  std::vector<Question> questions = load_questions(file);
  for (const auto& q : questions)
    if (q.sources.empty())
      throw Error(file.string() + ": question " + q.id + " has no sources; pass an answered dataset");
  return questions;
}

namespace {

json result_to_json(const SearchResult& r) {
  json sources = json::array();
  for (const auto& s : r.sources) {
    json source = {{"file_path", s.span.file_path},
                   {"first_character_index", s.span.first},
                   {"last_character_index", s.span.last}};
    if (s.first_line != 0) source.update({{"first_line", s.first_line}, {"last_line", s.last_line}});
    source.update({{"score", s.score}, {"file_type", s.file_type}});
    if (!s.section.empty()) source["section"] = s.section;
    sources.push_back(std::move(source));
  }
  return {{"question_id", r.question_id},
          {"question_str", r.question},
          {"question", r.question},
          {"retrieved_sources", std::move(sources)},
          {"search_time_ms", r.search_time_ms}};
}

}  // namespace

json results_to_json(const ResultsFile& results) {
  json list = json::array();
  for (const auto& r : results.results) list.push_back(result_to_json(r));
  return {{"search_results", std::move(list)}, {"k", results.k}};
}

void save_results(const std::filesystem::path& file, const ResultsFile& results) {
  // A question at a time: the whole file as one JSON tree first took search_dataset from 0.44 to
  // 1.1 GB on 50,000 questions. A file name that is not UTF-8 shows as U+FFFD, as in every output.
  std::string text = "{\n  \"search_results\": [";
  for (std::size_t i = 0; i < results.results.size(); ++i)
    text += (i ? ",\n    " : "\n    ") + json_text(result_to_json(results.results[i]));
  text += std::string(results.results.empty() ? "" : "\n  ") + "],\n  \"k\": " + std::to_string(results.k) + "\n}\n";
  write_file_atomically(file, text);
}

}  // namespace rag
