#pragma once
// The JSON of search results and answers, as `rag search` and `rag answer` print it and as
// `rag serve` sends it: one shape for both, fields named as the grader's results files name them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "rag/answering.hpp"
#include "rag/index.hpp"

namespace rag {

/// {query, retrieved_chunks: [{chunk_id, file_path, first_character_index, last_character_index,
/// first_line, last_line, text, file_type, section?, score}], strategy, metrics: {search_time_ms,
/// total_chunks}, warnings?: the retriever's (Index::search), when it gave any}.
nlohmann::ordered_json search_response(const Index& index, const std::string& query, const std::vector<Hit>& hits,
                                       double search_ms, const std::vector<std::string>& warnings = {});

/// The words of a query read in another spelling (read_question): [{written, read_as}], the
/// `respelt` of search responses.
nlohmann::ordered_json respelt_json(const std::vector<Respelling>& respelt);
/// The same for people: "read quantizaton as quantization, tokenzier as tokenizer".
std::string respelt_note(const std::vector<Respelling>& respelt);

/// One source of an answer: {number, file_path, first_character_index, last_character_index,
/// first_line, last_line, text, score, file_type, section?}.
nlohmann::ordered_json evidence_json(const Evidence& evidence);

/// {query, answer, answered, support, language, sources: [evidence_json + cited],
/// retrieval_query? (the question translated for retrieval), parent_context?, generator:
/// {plugin, description}, strategy, timings: {retrieval_ms, context_ms, generation_ms, total_ms}}.
nlohmann::ordered_json answer_response(const AnsweredQuestion& answered, const std::string& generator_plugin,
                                       const std::string& generator_description, const std::string& strategy);

/// `value` as JSON text (`indent` as nlohmann's dump() takes it), for every output that quotes the
/// index's text: bytes that are not UTF-8 (a damaged index, which search does not verify) show as
/// U+FFFD instead of failing the whole output.
template <class Json>
std::string json_text(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rag
