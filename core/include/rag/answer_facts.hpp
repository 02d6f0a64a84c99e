#pragma once
// Whether answers are ones a user accepts: a set of everyday questions, each with the facts an
// acceptable answer must state (any of a few phrasings each), or marked as one the sources cannot
// answer, which must be declined without citing anything. `rag evaluate_answers --facts FILE`
// scores an answers file (from `rag answer_dataset --dataset_path FILE`) against it.
//
//   {"rag_questions": [
//     {"question_id": "serve-howto", "question": "How do I start the OpenAI-compatible server?",
//      "kind": "how-to", "language": "en", "facts": [["vllm serve"]]},
//     {"question_id": "oos-capital", "question": "What is the capital of France?",
//      "kind": "out-of-scope", "language": "en", "answerable": false}]}
//
// The file is a questions dataset as well (question_id, question), so that answer_dataset reads it.
#include <filesystem>
#include <string>
#include <vector>

#include "rag/answers.hpp"

namespace rag {

struct FactQuestion {
  std::string id;
  std::string question;
  std::string kind;      ///< what is asked ("what-is", "how-to", ...), for the report's breakdown
  std::string language;  ///< the question's language, for the report's breakdown
  bool answerable = true;
  /// Each fact is a list of phrasings; an answer states the fact when it contains one of them
  /// (case and runs of whitespace aside). Empty for a question that is not answerable.
  std::vector<std::vector<std::string>> facts;
};

/// Reads a facts file. Throws rag::Error naming the file and the question when it is missing or
/// not JSON, a question lacks an id, text, kind or language, an id repeats, an answerable question
/// has no facts, a fact has no phrasing or an empty one, or a question that is not answerable
/// lists facts.
std::vector<FactQuestion> load_facts(const std::filesystem::path& file);

struct FactVerdict {
  const FactQuestion* question = nullptr;
  bool accepted = false;
  bool answered = false;  ///< the answer did not decline
  bool cited = false;     ///< the answer cites a source
  std::string answer;
  /// For an answerable question: the facts (their first phrasing) the answer does not state.
  std::vector<std::string> missing;
};

struct FactsEvaluation {
  std::vector<FactVerdict> verdicts;  ///< in the facts file's order
  std::size_t accepted = 0;
  /// Questions that are not answerable whose answer cites a source all the same.
  std::size_t cited_out_of_scope = 0;
  double share() const { return verdicts.empty() ? 0.0 : static_cast<double>(accepted) / static_cast<double>(verdicts.size()); }
};

/// An answerable question is accepted when its answer does not decline and states every fact; a
/// question that is not answerable, when its answer declines and cites nothing. Throws rag::Error
/// when a question of `facts` has no answer in `answers`, or an answer's question is not in
/// `facts`.
FactsEvaluation evaluate_facts(const std::vector<FactQuestion>& facts, const std::vector<AnsweredResult>& answers);

}  // namespace rag
