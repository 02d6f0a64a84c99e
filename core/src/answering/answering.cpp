#include "rag/answering.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>

#include "rag/language.hpp"

namespace rag {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// An identifier as code names it: with '_', or a capital after the first letter (SamplingParams,
// LLM).
bool is_identifier(std::string_view word) {
  if (word.size() < 3 || std::isalpha(static_cast<unsigned char>(word[0])) == 0) return false;
  return std::all_of(word.begin(), word.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
         (word.find('_') != std::string_view::npos ||
          std::any_of(word.begin() + 1, word.end(), [](char c) { return c >= 'A' && c <= 'Z'; }));
}

// Whether code `text` defines `name` on a line of its own: `name: type = value`, `name = value`,
// `def name(`, `class name`.
bool defines(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    std::size_t line = at;
    while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
    std::string_view before = text.substr(line, at - line);
    const bool starts = (line == 0 || text[line - 1] == '\n') && (before.empty() || before == "def " || before == "class ");
    if (!starts) continue;
    const std::string_view after = text.substr(at + name.size(), 3);
    if (after.starts_with(":") || after.starts_with(" =") || after.starts_with("=") || after.starts_with("(") ||
        (before == "class " && (after.empty() || after[0] == ':' || after[0] == '(')))
      return true;
  }
  return false;
}

}  // namespace

std::vector<Hit> with_definitions(const Index& index, std::string_view query, std::vector<Hit> hits) {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < query.size();) {
    std::size_t end = i;
    while (end < query.size() && (std::isalnum(static_cast<unsigned char>(query[end])) || query[end] == '_')) ++end;
    if (end > i && is_identifier(query.substr(i, end - i))) names.push_back(query.substr(i, end - i));
    i = end + 1;
  }
  std::vector<Hit> found;
  const std::vector<Chunk>& chunks = index.chunks();
  for (const std::string_view name : names) {
    std::optional<std::uint32_t> best;  // a definition named so, else the shortest chunk defining it
    bool named = false;
    for (std::uint32_t id = 0; id < chunks.size(); ++id) {
      const Chunk& c = chunks[id];
      if (c.kind != "python" && c.kind != "cpp") continue;
      const bool is_named = c.section.size() > name.size() && c.section.ends_with(name) &&
                            (c.section[c.section.size() - name.size() - 1] == '.' ||
                             c.section[c.section.size() - name.size() - 1] == ':');
      if (!is_named && (named || !defines(c.text, name))) continue;
      if (!best || (is_named && !named) || (is_named == named && c.text.size() < chunks[*best].text.size())) best = id;
      named = named || is_named;
    }
    if (best && std::none_of(hits.begin(), hits.end(), [&](const Hit& h) { return h.chunk == *best; }) &&
        std::none_of(found.begin(), found.end(), [&](const Hit& h) { return h.chunk == *best; }))
      found.push_back({*best, hits.empty() ? 0.0 : hits.front().score});
  }
  // Right after the best hit: a definition is worth reading early, the best hit stays first.
  hits.insert(hits.begin() + (hits.empty() ? 0 : 1), found.begin(), found.end());
  return hits;
}

WrittenAnswer write_answer(const GenerationRequest& request, Generator& generator, const SupportMeter& meter,
                           const ContextConfig& config) {
  WrittenAnswer out;
  out.support = meter.measure(request, config.score_knee);
  // Support is measured in English words: a question left in another language (no dictionary
  // for it) is the generator's to judge.
  const bool measurable = request.language == "en" || request.query != request.question;
  if (out.support.value >= config.min_support || !measurable) out.text = generator.generate(request);
  if (out.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    out.answered = false;
    out.text = std::string(no_answer_text(request.language));
    if (request.on_text) request.on_text(out.text);
  }
  return out;
}

AnsweredQuestion answer_question(const Index& index, const QueryTranslator& translator, const ContextAssembler& assembler,
                                 Generator& generator, const std::string& question, std::size_t k,
                                 const std::function<void(const GenerationRequest&, const AnswerTimings&)>& on_sources,
                                 std::function<void(std::string_view)> on_text) {
  AnsweredQuestion out;
  const auto start = std::chrono::steady_clock::now();
  const std::string query =
      translator.translate(question, [&](std::string_view word) { return chunks_holding(index, word); });
  const std::vector<Hit> hits = with_definitions(index, query, index.search(query, k));
  out.timings.retrieval_ms = milliseconds_since(start);
  const auto context_start = std::chrono::steady_clock::now();
  out.request = assembler.assemble(question, hits);
  out.request.query = query;
  out.timings.context_ms = milliseconds_since(context_start);
  if (on_sources) on_sources(out.request, out.timings);
  out.request.on_text = std::move(on_text);
  const auto generation_start = std::chrono::steady_clock::now();
  WrittenAnswer written = write_answer(out.request, generator, SupportMeter(index), assembler.config());
  out.answer = std::move(written.text);
  out.answered = written.answered;
  out.support = written.support;
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
