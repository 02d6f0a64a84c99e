// libFuzzer target: the dataset and results loaders on arbitrary JSON, then evaluation.
// Invariants: input is loaded or refused with rag::Error; what loads is what the grader accepts
// (ids unique, questions not blank, k in 1-10, at most 10 sources of at most 2000 code
// points, spans in order); recall and MRR lie in [0, 1].
#include <set>

#include "fuzz_check.hpp"
#include "rag/dataset.hpp"
#include "rag/error.hpp"
#include "rag/evaluation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rag::fuzz::ScratchFile scratch(".json");
  const auto& path = scratch.write({reinterpret_cast<const char*>(data), size});
  std::vector<rag::Question> questions;
  bool have_questions = false;
  try {
    questions = rag::load_questions(path);
    have_questions = true;
    std::set<std::string> ids;
    for (const auto& q : questions) {
      FUZZ_CHECK(ids.insert(q.id).second, "duplicate question id loaded");
      FUZZ_CHECK(q.text.find_first_not_of(" \t\r\n") != std::string::npos, "blank question loaded");
      for (const auto& s : q.sources) FUZZ_CHECK(s.first <= s.last, "source span backwards");
    }
  } catch (const rag::Error&) {
    // refused with a message
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("load_questions let a foreign exception through: ") + e.what());
  }
  try {
    const rag::ResultsFile results = rag::load_results(path);
    FUZZ_CHECK(results.k >= 1 && results.k <= rag::kMaxResultsK, "k outside 1-10 loaded");
    std::set<std::string> ids;
    for (const auto& r : results.results) {
      FUZZ_CHECK(ids.insert(r.question_id).second, "duplicate result id loaded");
      FUZZ_CHECK(r.sources.size() <= rag::kMaxResultsK, "more than 10 sources loaded");
      for (const auto& s : r.sources)
        FUZZ_CHECK(s.span.first <= s.span.last && s.span.last - s.span.first <= rag::kMaxSourceChars, "bad source span loaded");
    }
    if (have_questions) {
      const rag::Evaluation e = rag::evaluate(questions, results, {1, 5, 10});
      for (const auto& [k, recall] : e.recall) FUZZ_CHECK(recall >= 0 && recall <= 1, "recall outside [0, 1]");
      FUZZ_CHECK(e.mrr >= 0 && e.mrr <= 1, "MRR outside [0, 1]");
    }
  } catch (const rag::Error&) {
    // refused with a message
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("load_results or evaluate let a foreign exception through: ") + e.what());
  }
  return 0;
}
