// libFuzzer target: the extractive generator on arbitrary sources and questions. The input's
// first byte chooses the sources' kind (Python or Markdown) and whether a Markdown passage starts
// inside a code block; its first line is the question, the rest one or two sources (split at a
// form feed). Invariants: no exception; a UTF-8 answer; every code fence it opens, it closes
// (as CommonMark reads fences).
#include <yaml-cpp/yaml.h>

#include "extractive_generator.hpp"
#include "fuzz_check.hpp"
#include "rag/utf8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!rag::utf8::is_valid(input)) return 0;
  const std::size_t line_end = input.find('\n');
  if (line_end == std::string_view::npos) return 0;

  rag::GenerationRequest request;
  request.question = std::string(input.substr(0, line_end));
  request.language = "en";
  std::string_view rest = input.substr(line_end + 1);
  for (int number = 1; number <= 2 && !rest.empty(); ++number) {
    const std::size_t cut = std::min(rest.find('\f'), rest.size());
    rag::Evidence e;
    e.number = number;
    e.rank = static_cast<std::size_t>(number);
    e.kind = data[0] & 1 ? "python" : "markdown";
    e.starts_in_code = (data[0] & 2) != 0;
    e.file_path = e.kind == "python" ? "vllm/module.py" : "docs/page.md";
    e.section = e.kind == "python" ? "vllm.module.Class.method" : "Page > Section";
    e.text = std::string(rest.substr(0, cut));
    request.evidence.push_back(std::move(e));
    rest.remove_prefix(std::min(cut + 1, rest.size()));
  }

  static const auto generator = [] {
    rag::Options options(YAML::Load("{max_chars: 300}"), "fuzz");
    return std::make_unique<rag::ExtractiveGenerator>(options);
  }();
  std::string answer;
  try {
    answer = generator->generate(request);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("generate() threw: ") + e.what());
  }
  FUZZ_CHECK(rag::utf8::is_valid(answer), "answer is not UTF-8");
  // Fences as CommonMark reads them: one opened by N backticks or tildes is closed by a line of
  // N or more of the same.
  std::string open;  // the open fence, empty outside one
  for (std::size_t begin = 0; begin < answer.size();) {
    const std::size_t end = std::min(answer.find('\n', begin), answer.size());
    const std::string_view line = std::string_view(answer).substr(begin, end - begin);
    const std::size_t first = line.find_first_not_of(' ');
    if (first != std::string_view::npos && first <= 3 && (line[first] == '`' || line[first] == '~')) {
      const std::size_t run = std::min(line.find_first_not_of(line[first], first), line.size()) - first;
      if (open.empty() && run >= 3) open.assign(run, line[first]);
      else if (!open.empty() && line[first] == open[0] && run >= open.size() &&
               line.find_first_not_of(' ', first + run) == std::string_view::npos)
        open.clear();
    }
    begin = end + 1;
  }
  if (!open.empty()) {
    std::string shown;  // control characters made visible
    for (const char c : answer)
      shown += (static_cast<unsigned char>(c) < 0x20 && c != '\n') ? "\\x" + std::to_string(static_cast<int>(c)) : std::string(1, c);
    FUZZ_CHECK(false, "a code block left open in this answer:\n" + shown);
  }
  return 0;
}
