#include "rag/answer_facts.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

#include "rag/context.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/utf8.hpp"

namespace rag {
using json = nlohmann::json;

namespace {

// `text` lower-cased with every run of whitespace one space, so that a phrasing matches across
// line breaks and indentation.
std::string normalised(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : utf8::lower(text)) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string required_string(const json& entry, const char* key, const std::string& where) {
  if (!entry.contains(key) || !entry[key].is_string() || entry[key].get<std::string>().empty())
    throw Error(where + ": '" + key + "' must be a non-empty string");
  return entry[key].get<std::string>();
}

}  // namespace

std::vector<FactQuestion> load_facts(const std::filesystem::path& file) {
  std::error_code ec;
  // Not only regular files: a facts file may come through a pipe (/dev/stdin, <(...)).
  if (!std::filesystem::exists(file, ec)) throw Error(file.string() + ": facts file not found");
  json root;
  try {
    root = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw Error(file.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!root.is_object() || !root.contains("rag_questions") || !root["rag_questions"].is_array())
    throw Error(file.string() + ": expected {\"rag_questions\": [...]} (see core/include/rag/answer_facts.hpp)");
  std::vector<FactQuestion> out;
  std::map<std::string, std::size_t> seen;
  for (const json& entry : root["rag_questions"]) {
    const std::string where = file.string() + ": question " + std::to_string(out.size() + 1);
    if (!entry.is_object()) throw Error(where + ": expected an object");
    FactQuestion q;
    q.id = required_string(entry, "question_id", where);
    const std::string named = where + " (" + q.id + ")";
    if (!seen.emplace(q.id, out.size()).second) throw Error(named + ": the id is used twice");
    q.question = required_string(entry, "question", named);
    q.kind = required_string(entry, "kind", named);
    q.language = required_string(entry, "language", named);
    if (entry.contains("answerable")) {
      if (!entry["answerable"].is_boolean()) throw Error(named + ": 'answerable' must be true or false");
      q.answerable = entry["answerable"].get<bool>();
    }
    if (entry.contains("facts")) {
      if (!q.answerable) throw Error(named + ": a question that is not answerable has no facts");
      if (!entry["facts"].is_array()) throw Error(named + ": 'facts' must be a list of lists of phrasings");
      for (const json& fact : entry["facts"]) {
        if (!fact.is_array() || fact.empty())
          throw Error(named + ": each fact must be a non-empty list of phrasings, like [\"vllm serve\"]");
        std::vector<std::string> phrasings;
        for (const json& p : fact) {
          if (!p.is_string() || normalised(p.get<std::string>()).empty())
            throw Error(named + ": a phrasing must be a non-empty string");
          phrasings.push_back(p.get<std::string>());
        }
        q.facts.push_back(std::move(phrasings));
      }
    }
    if (q.answerable && q.facts.empty())
      throw Error(named + ": an answerable question needs 'facts' (or \"answerable\": false)");
    out.push_back(std::move(q));
  }
  if (out.empty()) throw Error(file.string() + ": no questions");
  return out;
}

FactsEvaluation evaluate_facts(const std::vector<FactQuestion>& facts, const std::vector<AnsweredResult>& answers) {
  std::map<std::string_view, const AnsweredResult*> by_id;
  for (const auto& a : answers) by_id[a.result.question_id] = &a;
  FactsEvaluation out;
  for (const auto& a : answers)
    if (std::none_of(facts.begin(), facts.end(), [&](const FactQuestion& q) { return q.id == a.result.question_id; }))
      throw Error("the answers name question '" + a.result.question_id + "', which the facts file does not have");
  for (const FactQuestion& q : facts) {
    const auto it = by_id.find(q.id);
    if (it == by_id.end())
      throw Error("question '" + q.id + "' has no answer (make the answers with `rag answer_dataset --dataset_path` "
                  "on the facts file)");
    const AnswerRecord& record = it->second->record;
    FactVerdict v;
    v.question = &q;
    v.answer = record.answer;
    v.answered = record.answered;
    v.cited = !record.cited.empty() || !cited_numbers(record.answer).empty();
    if (q.answerable) {
      const std::string text = normalised(record.answer);
      for (const auto& fact : q.facts)
        if (std::none_of(fact.begin(), fact.end(),
                         [&](const std::string& p) { return text.find(normalised(p)) != std::string::npos; }))
          v.missing.push_back(fact.front());
      v.accepted = v.answered && v.missing.empty();
    } else {
      v.accepted = !v.answered && !v.cited;
      if (v.cited) ++out.cited_out_of_scope;
    }
    out.accepted += v.accepted;
    out.verdicts.push_back(std::move(v));
  }
  return out;
}

}  // namespace rag
