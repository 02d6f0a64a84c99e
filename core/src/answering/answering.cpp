#include "rag/answering.hpp"

#include <chrono>

namespace rag {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

AnsweredQuestion answer_question(const Index& index, const ContextAssembler& assembler, Generator& generator,
                                 const std::string& question, std::size_t k,
                                 const std::function<void(const GenerationRequest&, const AnswerTimings&)>& on_sources,
                                 std::function<void(std::string_view)> on_text) {
  AnsweredQuestion out;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Hit> hits = index.search(question, k);
  out.timings.retrieval_ms = milliseconds_since(start);
  const auto context_start = std::chrono::steady_clock::now();
  out.request = assembler.assemble(question, hits);
  out.timings.context_ms = milliseconds_since(context_start);
  if (on_sources) on_sources(out.request, out.timings);
  out.request.on_text = std::move(on_text);
  const auto generation_start = std::chrono::steady_clock::now();
  out.answer = generator.generate(out.request);
  out.timings.generation_ms = milliseconds_since(generation_start);
  out.timings.total_ms = milliseconds_since(start);
  return out;
}

std::vector<const Evidence*> cited_evidence(const std::string& answer, const std::vector<Evidence>& evidence) {
  std::vector<const Evidence*> out;
  for (const int n : cited_numbers(answer))
    if (n >= 1 && static_cast<std::size_t>(n) <= evidence.size()) out.push_back(&evidence[static_cast<std::size_t>(n - 1)]);
  return out;
}

}  // namespace rag
