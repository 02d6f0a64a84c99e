#pragma once
// One question answered, as `rag answer` and `rag serve` do it: retrieval, context assembly and
// generation, each timed, with the sources handed out as soon as they are known.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rag/context.hpp"
#include "rag/generator.hpp"
#include "rag/index.hpp"

namespace rag {

struct AnswerTimings {
  double retrieval_ms = 0;
  double context_ms = 0;
  double generation_ms = 0;
  double total_ms = 0;
};

struct AnsweredQuestion {
  GenerationRequest request;  ///< the question, its numbered evidence and the prompt
  std::string answer;
  AnswerTimings timings;
};

/// Answers `question` from the best `k` chunks of `index`. `on_sources`, when given, is called
/// with the assembled request (its evidence numbered) and the timings so far, before the
/// generator runs; `on_text`, when given, receives the answer as the generator writes it. What
/// either callback throws stops the work and comes out of this call. Throws rag::Error for an
/// empty or non-UTF-8 question and whatever the generator fails with.
AnsweredQuestion answer_question(const Index& index, const ContextAssembler& assembler, Generator& generator,
                                 const std::string& question, std::size_t k,
                                 const std::function<void(const GenerationRequest&, const AnswerTimings&)>& on_sources = {},
                                 std::function<void(std::string_view)> on_text = {});

/// The evidence the answer cites, by the numbers in its text ([2], [1, 3]) that name a source.
std::vector<const Evidence*> cited_evidence(const std::string& answer, const std::vector<Evidence>& evidence);

}  // namespace rag
