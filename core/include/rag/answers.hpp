#pragma once
// Answers files: a search_dataset results file with an answer added to every search result, so
// that the grader still reads it as a results file.
//
//   {"search_results": [{question_id, question_str, retrieved_sources, answer, answered,
//                        cited_sources, generation_ms, ...}], "k": 10}
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "rag/dataset.hpp"
#include "rag/support.hpp"

namespace rag {

/// What answering adds to one search result.
struct AnswerRecord {
  std::string answer;
  /// False when the answer declines: the sources do not answer the question (see answering.hpp).
  bool answered = true;
  /// The support its sources gave the question (zero when read from a file that has none).
  Support support;
  /// The sources the answer cites ([n] in its text): spans of the files, with their lines when
  /// known (0 when read from a file that has none).
  std::vector<RetrievedSource> cited;
  /// The number each of `cited` has in the answer's text ([n]): the generator numbers the
  /// sources it was given (definitions looked up first, touching spans merged), which need not
  /// be the order of the search results. Empty when read from a file that does not give one for
  /// every source.
  std::vector<int> cited_numbers;
  double generation_ms = 0;
  /// Why there is no answer, when the generator failed (a model server's 500); else empty.
  std::string error;
};

struct AnsweredResult {
  SearchResult result;
  AnswerRecord record;
};

/// Writes `document` (a results file as JSON) with records[i] added to its i-th search result
/// as `answer`, `answered`, `support` ({value, coverage, score, weight, covered, scored}, and
/// `unwritten` when set), `cited_sources` (each with the
/// `number` the answer cites it by) and `generation_ms`, atomically. Throws rag::Error when the
/// counts differ or the file cannot be written.
void save_answers(const std::filesystem::path& file, nlohmann::ordered_json document,
                  const std::vector<AnswerRecord>& records);

/// Reads an answers file: everything load_results() checks, and an `answer` string in every
/// search result. Results without `cited_sources` cite all their retrieved sources; without
/// `answered`, the answer counts as one.
std::vector<AnsweredResult> load_answers(const std::filesystem::path& file);

}  // namespace rag
