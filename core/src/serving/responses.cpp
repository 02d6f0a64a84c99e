#include "rag/responses.hpp"

#include <algorithm>

namespace rag {
using json = nlohmann::ordered_json;

json respelt_json(const std::vector<Respelling>& respelt) {
  json out = json::array();
  for (const Respelling& r : respelt) out.push_back({{"written", r.written}, {"read_as", r.read_as}});
  return out;
}

std::string respelt_note(const std::vector<Respelling>& respelt) {
  std::string out = "read";
  for (std::size_t i = 0; i < respelt.size(); ++i)
    out.append(i == 0 ? " " : ", ").append(respelt[i].written).append(" as ").append(respelt[i].read_as);
  return out;
}

json search_response(const Index& index, const std::string& query, const std::vector<Hit>& hits, double search_ms,
                     const std::vector<std::string>& warnings) {
  json chunks = json::array();
  for (const Hit& h : hits) {
    const ChunkView c = index.chunk(h.chunk);
    json item = {{"chunk_id", h.chunk},
                 {"file_path", c.file_path},
                 {"first_character_index", c.first_char},
                 {"last_character_index", c.last_char},
                 {"first_line", c.first_line},
                 {"last_line", c.last_line},
                 {"text", c.text},
                 {"file_type", c.kind}};
    if (!c.section.empty()) item["section"] = c.section;
    item["score"] = h.score;
    chunks.push_back(std::move(item));
  }
  json response = {{"query", query},
                   {"retrieved_chunks", std::move(chunks)},
                   {"strategy", index.strategy()},
                   {"metrics", {{"search_time_ms", search_ms}, {"total_chunks", index.chunk_count()}}}};
  if (!warnings.empty()) response["warnings"] = warnings;
  return response;
}

json evidence_json(const Evidence& e) {
  json item = {{"number", e.number},
               {"file_path", e.file_path},
               {"first_character_index", e.first_char},
               {"last_character_index", e.last_char},
               {"first_line", e.first_line},
               {"last_line", e.last_line},
               {"text", e.text},
               {"score", e.score},
               {"file_type", e.kind}};
  if (!e.section.empty()) item["section"] = e.section;
  return item;
}

json answer_response(const AnsweredQuestion& answered, const std::string& generator_plugin,
                     const std::string& generator_description, const std::string& strategy) {
  const GenerationRequest& request = answered.request;
  const std::vector<const Evidence*> cited = cited_evidence(answered.answer, request.evidence);
  json sources = json::array();
  for (const auto& e : request.evidence) {
    json item = evidence_json(e);
    item["cited"] = std::find(cited.begin(), cited.end(), &e) != cited.end();
    sources.push_back(std::move(item));
  }
  json out = {{"query", request.question},
              {"answer", answered.answer},
              {"answered", answered.answered},
              {"support", answered.support.value},
              {"language", request.language},
              {"sources", std::move(sources)}};
  if (request.query != request.question) out["retrieval_query"] = request.query;
  if (!answered.warnings.empty()) out["warnings"] = answered.warnings;
  if (!request.parents.empty()) {
    json parents = json::array();
    for (const auto& p : request.parents) parents.push_back(evidence_json(p));
    out["parent_context"] = std::move(parents);
  }
  out["generator"] = {{"plugin", generator_plugin}, {"description", generator_description}};
  out["strategy"] = strategy;
  out["timings"] = {{"retrieval_ms", answered.timings.retrieval_ms},
                    {"context_ms", answered.timings.context_ms},
                    {"generation_ms", answered.timings.generation_ms},
                    {"total_ms", answered.timings.total_ms}};
  return out;
}

}  // namespace rag
