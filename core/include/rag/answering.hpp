#pragma once
// One question answered, as `rag answer` and `rag serve` do it: the question translated for
// retrieval, retrieval, context assembly and generation, each timed, with the sources handed out
// as soon as they are known; and the answer declined when the sources do not support one.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rag/context.hpp"
#include "rag/generator.hpp"
#include "rag/index.hpp"
#include "rag/spelling.hpp"
#include "rag/support.hpp"
#include "rag/translation.hpp"

namespace rag {

struct AnswerTimings {
  double retrieval_ms = 0;
  double context_ms = 0;
  double generation_ms = 0;
  double total_ms = 0;
};

/// An answer to an assembled request.
struct WrittenAnswer {
  std::string text;
  /// False when the answer declines: `text` says, in the question's language, that the sources
  /// do not answer the question, and cites nothing.
  bool answered = true;
  Support support;
};

struct AnsweredQuestion {
  GenerationRequest request;  ///< the question, its numbered evidence and the prompt
  std::string answer;
  bool answered = true;  ///< see WrittenAnswer::answered
  Support support;
  AnswerTimings timings;
  /// What the retriever warned of while searching the sources (a remote shard left out).
  std::vector<std::string> warnings;
};

/// The answer to `request`: declined when the support of its sources (measured by `meter` with
/// config.score_knee) is under config.min_support, without asking the generator (unless the question is in another language
/// and was not translated: its words cannot be measured against English sources), or when the
/// generator's answer is empty; declined whatever else when the question names an option or
/// environment variable no file writes (Support::unwritten), saying so; else the generator's
/// answer. With request.on_text set, a declining answer is handed to it too.
/// `defined`: the first sources are the definitions the question asks about (rag/definitions.hpp),
/// found by name, which answers the question whatever its words' support (a translated question's
/// words are loose).
WrittenAnswer write_answer(const GenerationRequest& request, Generator& generator, const SupportMeter& meter,
                           const ContextConfig& config, bool defined = false);

/// `question` as retrieval reads it: in English, by `translator`, choosing among a word's
/// translations those `index` holds most (rag/translation.hpp), when it is in another language
/// and the pipeline translates; when it is English, with the words no chunk holds read as the
/// corpus spells them (rag/spelling.hpp: "quantizaton" as quantization), each listed in
/// `respelt` when given; else the question itself.
std::string read_question(const QueryTranslator& translator, const Index& index, std::string_view question,
                          std::vector<Respelling>* respelt = nullptr);

/// A question made ready for the generator: its request, and whether its sources define what it
/// asks (write_answer's `defined`).
struct PreparedQuestion {
  GenerationRequest request;
  bool defined = false;
};
/// `question`'s request from `hits`, what retrieval found for `query` (the question as
/// read_question reads it): the definitions it asks about looked up and put first
/// (rag/definitions.hpp), then the sources assembled.
PreparedQuestion prepare_question(const Index& index, const ContextAssembler& assembler, const std::string& question,
                                  const std::string& query, std::vector<Hit> hits);

/// Answers `question` from the best `k` chunks of `index`, retrieved for the question as
/// `translator` renders it. `on_sources`, when given, is called with the assembled request (its
/// evidence numbered) and the timings so far, before the generator runs; `on_text`, when given,
/// receives the answer as it is written. What either callback throws stops the work and comes out
/// of this call. Throws rag::Error for an empty or non-UTF-8 question and whatever the generator
/// fails with.
AnsweredQuestion answer_question(const Index& index, const QueryTranslator& translator, const ContextAssembler& assembler,
                                 Generator& generator, const std::string& question, std::size_t k,
                                 const std::function<void(const GenerationRequest&, const AnswerTimings&)>& on_sources = {},
                                 std::function<void(std::string_view)> on_text = {});

/// The evidence the answer cites, by the numbers in its text ([2], [1, 3]) that name a source.
std::vector<const Evidence*> cited_evidence(const std::string& answer, const std::vector<Evidence>& evidence);

}  // namespace rag
