#include "rag/answering.hpp"

#include <chrono>

#include "rag/definitions.hpp"
#include "rag/language.hpp"

namespace rag {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

WrittenAnswer write_answer(const GenerationRequest& request, Generator& generator, const SupportMeter& meter,
                           const ContextConfig& config, bool defined) {
  WrittenAnswer out;
  out.support = meter.measure(request, config.score_knee, config.support_weight_cap);
  // Support is measured in English words: a question left in another language (no dictionary
  // for it) is the generator's to judge.
  const bool measurable = request.language == "en" || request.query != request.question;
  // A name no file writes is not the name of anything a source defines.
  const bool unwritten = !out.support.unwritten.empty();
  if (!unwritten && (out.support.value >= config.min_support || !measurable || defined))
    out.text = generator.generate(request);
  if (out.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    out.answered = false;
    out.text = std::string(no_answer_text(request.language));
    if (unwritten) {
      std::string names;
      for (const std::string& name : out.support.unwritten) names.append(names.empty() ? "`" : ", `").append(name).append("`");
      out.text.append(request.language == "zh" ? "" : " ")
          .append(render_template(unwritten_name_phrase(request.language), {{"name", names}}));
    }
    if (request.on_text) request.on_text(out.text);
  }
  return out;
}

std::string read_question(const QueryTranslator& translator, const Index& index, std::string_view question,
                          std::vector<Respelling>* respelt) {
  const auto holding = [&](std::string_view word) { return chunks_holding(index, word); };
  if (detect_language(question) == "en") return rag::respelt(question, holding, respelt);
  return translator.translate(question, holding);
}

PreparedQuestion prepare_question(const Index& index, const ContextAssembler& assembler, const std::string& question,
                                  const std::string& query, std::vector<Hit> hits) {
  const WithDefinitions found = with_definitions(index, query, std::move(hits));
  PreparedQuestion out;
  out.request = assembler.assemble(question, found.hits);
  out.request.query = found.query;
  out.defined = found.definitions > 0 || sources_define(query, out.request.evidence);
  return out;
}

AnsweredQuestion answer_question(const Index& index, const QueryTranslator& translator, const ContextAssembler& assembler,
                                 Generator& generator, const std::string& question, std::size_t k,
                                 const std::function<void(const GenerationRequest&, const AnswerTimings&)>& on_sources,
                                 std::function<void(std::string_view)> on_text) {
  AnsweredQuestion out;
  const auto start = std::chrono::steady_clock::now();
  const std::string query = read_question(translator, index, question);
  std::vector<Hit> hits = index.search(query, k, &out.warnings);
  out.timings.retrieval_ms = milliseconds_since(start);
  const auto context_start = std::chrono::steady_clock::now();
  PreparedQuestion prepared = prepare_question(index, assembler, question, query, std::move(hits));
  out.request = std::move(prepared.request);
  out.timings.context_ms = milliseconds_since(context_start);
  if (on_sources) on_sources(out.request, out.timings);
  out.request.on_text = std::move(on_text);
  const auto generation_start = std::chrono::steady_clock::now();
  WrittenAnswer written = write_answer(out.request, generator, SupportMeter(index), assembler.config(), prepared.defined);
  out.answer = std::move(written.text);
  out.answered = written.answered;
  out.support = written.support;
  out.timings.generation_ms = milliseconds_since(generation_start);
  out.timings.total_ms = milliseconds_since(start);
  return out;
}

std::vector<const Evidence*> cited_evidence(const std::string& answer, const std::vector<Evidence>& evidence) {
  std::vector<const Evidence*> out;
  for (const int n : cited_numbers(answer, evidence.size())) out.push_back(&evidence[static_cast<std::size_t>(n - 1)]);
  return out;
}

}  // namespace rag
