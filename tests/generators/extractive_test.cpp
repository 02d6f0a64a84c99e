// The `extractive` generator: how it cuts sources into units and which it quotes.
#include "extractive_generator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/error.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Unit = ExtractiveGenerator::Unit;

std::unique_ptr<ExtractiveGenerator> make(const std::string& yaml = "~") {
  Options options(YAML::Load(yaml), "test.yaml: generator.options");
  return std::make_unique<ExtractiveGenerator>(options);
}

Evidence source(int number, const std::string& kind, const std::string& text) {
  Evidence e;
  e.number = number;
  e.rank = static_cast<std::size_t>(number);
  e.file_path = "src/" + std::to_string(number);
  e.kind = kind;
  e.text = text;
  return e;
}

GenerationRequest ask(const std::string& question, std::vector<Evidence> evidence) {
  GenerationRequest r;
  r.question = question;
  r.evidence = std::move(evidence);
  return r;
}

std::vector<std::string> texts(const std::vector<Unit>& units) {
  std::vector<std::string> out;
  for (const auto& u : units) out.push_back((u.code ? "code: " : "") + u.text);
  return out;
}

TEST(ExtractiveUnits, PythonGivesWholeStatementsAndDocstringSentences) {
  const auto units = ExtractiveGenerator::split_units(source(1, "python", R"(# SPDX-License-Identifier: Apache-2.0
def parse_port(value: str,
               default: int = 8000) -> int:
    """Parse a TCP port. It must lie in range, e.g. 1 to 65535.

    Raises ValueError otherwise.
    """
    # Reject zero.
    port = int(value) \
        or default
    return port
)"), 0);
  EXPECT_THAT(texts(units), ::testing::ElementsAre(
                                "code: def parse_port(value: str,\n               default: int = 8000) -> int:",
                                "Parse a TCP port.", "It must lie in range, e.g. 1 to 65535.",
                                "Raises ValueError otherwise.", "Reject zero.",
                                "code:     port = int(value) \\\n        or default", "code:     return port"));
}

TEST(ExtractiveUnits, MarkdownGivesSentencesItemsRowsAndFencedStatements) {
  const auto units = ExtractiveGenerator::split_units(source(1, "markdown", R"(## Serving

Start the [server](serve.md) with the
[CLI][vllm.cli]. It listens on {class}`port` 8000.

- first item
  continues here
- second item

| flag | meaning |
|------|---------|
| `--port` | the port |

!!! note
    An admonition body.

```bash
vllm serve model \
  --port 8000
```
)"), 0);
  EXPECT_THAT(texts(units), ::testing::ElementsAre("Start the server with the CLI.", "It listens on `port` 8000.",
                                                   "- first item continues here", "- second item",
                                                   "| flag | meaning |", "| `--port` | the port |",
                                                   "An admonition body.", "code: vllm serve model \\\n  --port 8000"));
  EXPECT_TRUE(units[0].code == false && units[0].ends_with_colon == false);
}

TEST(ExtractiveGenerator, QuotesTheSentenceThatCoversTheQuestionAndCitesIt) {
  auto generator = make();
  const GenerationRequest r = ask("Which flag loads AWQ quantized checkpoints?",
                                  {source(1, "markdown", "vLLM runs many models. It is fast."),
                                   source(2, "markdown",
                                          "Quantization saves memory. Quantized checkpoints load with the "
                                          "`--quantization awq` flag. Other methods exist.")});
  const std::string answer = generator->generate(r);
  EXPECT_EQ(answer, "Quantized checkpoints load with the `--quantization awq` flag. [2]");
  EXPECT_EQ(generator->generate(r), answer);  // deterministic
  EXPECT_THAT(make("{citations: false}")->generate(r), Not(HasSubstr("[2]")));
}

TEST(ExtractiveGenerator, BringsTheCodeAnAnnouncingSentencePointsTo) {
  const GenerationRequest r = ask("How do I start the OpenAI-compatible server?",
                                  {source(1, "markdown",
                                          "Start the OpenAI-compatible server with:\n\n```bash\nvllm serve "
                                          "Qwen/Qwen3-0.6B \\\n  --port 8000\n```\n\nThen query it.")});
  EXPECT_EQ(make()->generate(r),
            "Start the OpenAI-compatible server with: [1]\n\n```\nvllm serve Qwen/Qwen3-0.6B \\\n  --port 8000\n```");
}

TEST(ExtractiveGenerator, StaysWithinItsLengthAndKeepsCodeWhole) {
  std::string long_sentence = "The scheduler batches prefill requests";
  while (long_sentence.size() < 400) long_sentence += " and prefill requests again";
  const GenerationRequest r =
      ask("How does the scheduler batch prefill requests?",
          {source(1, "text", long_sentence + ". The scheduler batches prefill requests by arrival."),
           source(2, "python", "def batch(requests):\n    return scheduler.batch_prefill(requests)\n")});
  const std::string answer = make("{max_chars: 120}")->generate(r);
  EXPECT_THAT(answer, HasSubstr("The scheduler batches prefill requests by arrival. [1]"));
  EXPECT_THAT(answer, Not(HasSubstr("again")));
  // Only an over-long sentence covers the question: it is cut, with an ellipsis.
  const GenerationRequest only_long = ask("scheduler prefill batches", {source(1, "text", long_sentence)});
  const std::string cut = make("{max_chars: 60}")->generate(only_long);
  EXPECT_LE(cut.size(), 70u);
  EXPECT_THAT(cut, HasSubstr(" … [1]"));
}

TEST(ExtractiveGenerator, PutsTheSourceOfTheBestUnitFirst) {
  const GenerationRequest r = ask("What does the engine step call return, and what does abort do?",
                                  {source(1, "markdown", "The engine abort call cancels a request."),
                                   source(2, "markdown", "The engine step call returns finished outputs and metrics.")});
  EXPECT_EQ(make()->generate(r),
            "The engine step call returns finished outputs and metrics. [2]\n\n"
            "The engine abort call cancels a request. [1]");
}

TEST(ExtractiveGenerator, SaysSoWhenNothingCoversTheQuestion) {
  EXPECT_EQ(make()->generate(ask("What is LoRA?", {})), "The retrieved sources do not answer this question.");
  EXPECT_EQ(make()->generate(ask("What is LoRA?", {source(1, "text", "Tensor parallel sharding.")})),
            "The retrieved sources do not answer this question.");
  EXPECT_EQ(make()->generate(ask("the of and", {source(1, "text", "The cat.")})),
            "The retrieved sources do not answer this question.");
}

TEST(ExtractiveGenerator, OddTextNeverBreaksIt) {
  const std::vector<std::string> odd = {"",     "```",     "```python\nx = (1,\n", "\"\"\"",      "'''unclosed",
                                        "#",    "# ",      "[link](",              "[a][b",       "{role}`",
                                        "|",    "|---|",   "- ",                   "1. ",         "e.g. i.e.",
                                        "x = \\", "))))", "\xff\xfe port",        "ünï.cödé port", "port:\n"};
  auto generator = make("{max_chars: 20}");
  for (const std::string& text : odd)
    for (const char* kind : {"python", "markdown", "text"}) {
      EXPECT_NO_THROW(ExtractiveGenerator::split_units(source(1, kind, text), 0)) << kind << ": " << text;
      EXPECT_NO_THROW(generator->generate(ask("port link role", {source(1, kind, text)}))) << kind << ": " << text;
    }
}

TEST(ExtractiveGenerator, OptionsAreChecked) {
  EXPECT_THROW(make("{max_char: 10}"), Error);
  EXPECT_THROW(make("{max_chars: 5}"), Error);
  EXPECT_THROW(make("{max_units: 0}"), Error);
  EXPECT_THROW(make("{citations: maybe}"), Error);
  EXPECT_THAT(make()->describe(), HasSubstr("extractive"));
}

}  // namespace
}  // namespace rag
