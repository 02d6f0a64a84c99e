// The `extractive` generator: how it cuts sources into units and which it quotes.
#include "extractive_generator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "code_reading.hpp"
#include "restatement.hpp"
#include "shapes.hpp"
#include "units.hpp"
#include "rag/error.hpp"
#include "rag/language.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
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

TEST(ExtractiveUnits, ADocstringsFencedBlockIsCode) {
  // An example's docstring showing the command to run: its lines are statements, not one
  // sentence with the fences inside it; the sentence before it ending without a stop announces it.
  const auto units = ExtractiveGenerator::split_units(source(1, "python", R"("""
An example of tool calling. Start the server first, run

```bash
vllm serve Qwen/QwQ-32B \
     --enable-auto-tool-choice
```

Then run this script.
"""
from openai import OpenAI
)"), 0);
  EXPECT_THAT(texts(units), ::testing::ElementsAre("An example of tool calling.", "Start the server first, run",
                                                   "code: vllm serve Qwen/QwQ-32B \\\n     --enable-auto-tool-choice",
                                                   "Then run this script.", "code: from openai import OpenAI"));
  EXPECT_TRUE(units[1].announces);
  EXPECT_TRUE(units[2].block_start);
  EXPECT_TRUE(units[4].block_start);  // the script's code after the docstring is not the command's
  // The summary line announcing it; the fence closing with the docstring (on its quotes' line, or
  // never closed): the code after the docstring is another block, not the command's.
  for (const std::string closing : {"```\"\"\"", "\"\"\""}) {
    const auto after = ExtractiveGenerator::split_units(
        source(1, "python", "def helper():\n    \"\"\"Launch the tool server, run\n\n    ```bash\n    vllm serve Qwen/QwQ-32B\n    " +
                                closing + "\n    return 1\n"),
        0);
    EXPECT_THAT(texts(after), ::testing::ElementsAre("code: def helper():", "Launch the tool server, run",
                                                     "code:     vllm serve Qwen/QwQ-32B", "code:     return 1"))
        << closing;
    EXPECT_TRUE(after[1].announces) << closing;
    EXPECT_TRUE(after[3].block_start) << closing;
  }
  // A fence of another marker does not close it.
  EXPECT_THAT(texts(ExtractiveGenerator::split_units(
                  source(1, "python", "\"\"\"Run:\n~~~\nvllm serve m\n```\nvllm chat\n~~~\nDone.\n\"\"\"\n"), 0)),
              ::testing::ElementsAre("Run:", "code: vllm serve m", "code: ```", "code: vllm chat", "Done."));
}

TEST(ExtractiveUnits, MarkdownGivesSentencesItemsRowsAndFencedStatementsButNoLabels) {
  const auto units = ExtractiveGenerator::split_units(source(1, "markdown", R"([](){ #serving }

## Serving
{ #serving-title }
--8<-- "docs/serve.inc.md:flags"

Start the [server](serve.md) with the
[CLI][vllm.cli]. It listens on {class}`port` 8000, or `--port {port}`. See <gh-file:vllm/cli.py> and <gh-pr:123>.

- first item
  continues here
- second item

1. Install Docker. Then log in.
2) Start the server.

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
  EXPECT_THAT(texts(units), ::testing::ElementsAre("Start the server with the CLI.", "It listens on `port` 8000, or `--port {port}`.",
                                                   "See `vllm/cli.py` and PR #123.",
                                                   "- first item continues here", "- second item",
                                                   "1. Install Docker.", "Then log in.", "2) Start the server.",
                                                   "| flag | meaning |", "| `--port` | the port |",
                                                   "An admonition body.", "code: vllm serve model \\\n  --port 8000"));
  EXPECT_TRUE(units[0].code == false && units[0].announces == false);
}

// The first paragraph under the heading that opens a source is its lede: what the page is about.
TEST(ExtractiveUnits, TheFirstParagraphUnderAnOpeningHeadingIsTheLede) {
  const auto ledes = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Unit& u : ExtractiveGenerator::split_units(source(1, "markdown", text), 0))
      if (u.lede) out.push_back(u.text);
    return out;
  };
  EXPECT_THAT(ledes("[](){ #paged }\n# Paged Attention\n\n!!! warning\n    A historical note.\n\nvLLM uses its own\n"
                    "kernel. It stores keys in blocks.\n\nLater text.\n"),
              ::testing::ElementsAre("vLLM uses its own kernel.", "It stores keys in blocks."));
  EXPECT_THAT(ledes("# Title\n\n## Introduction\n\nThe introduction.\n- an item\n"), ::testing::ElementsAre("The introduction."));
  EXPECT_THAT(ledes("# Title\n\n!!! note\n\tA note indented by a tab.\n\nThe introduction.\n"),
              ::testing::ElementsAre("The introduction."));
  // No heading first, or code, a list or a table before any prose: no lede.
  EXPECT_THAT(ledes("Text without a title.\n"), ::testing::IsEmpty());
  EXPECT_THAT(ledes("# Title\n\n- an item\n\nThen prose.\n"), ::testing::IsEmpty());
  EXPECT_THAT(ledes("# Title\n\n```bash\nvllm serve\n```\n\nThen prose.\n"), ::testing::IsEmpty());
  EXPECT_THAT(ledes("# Title\n\n| a | b |\n\nThen prose.\n"), ::testing::IsEmpty());
}

// A comment written over several lines is read as the sentences it writes, not line by line.
TEST(ExtractiveUnits, ACommentsLinesAreReadTogether) {
  const auto units = ExtractiveGenerator::split_units(source(1, "python", R"(def load(path):
    # If opening a file fails, set the template to be the path itself to
    # ensure it is decoded. Escapes stay as written.
    return path

    # A second comment.

    # A third one.
)"), 0);
  EXPECT_THAT(texts(units), ::testing::ElementsAre("code: def load(path):",
                                                   "If opening a file fails, set the template to be the path itself to ensure it is decoded.",
                                                   "Escapes stay as written.", "code:     return path", "A second comment.",
                                                   "A third one."));
}

// A shell script is read as text: a command continued by backslashes is code, its lines kept
// (joined into one line, its backslashes no longer continue anything).
TEST(ExtractiveUnits, ACommandContinuedByBackslashesIsCodeOutsideFencesToo) {
  const auto units = ExtractiveGenerator::split_units(source(1, "text", R"(# Start the producer.
CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL \
    --port 8100 \
    --max-model-len 100 &

wait_for_server 8100
)"), 0);
  EXPECT_THAT(texts(units), ::testing::ElementsAre("code: CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL \\\n    --port 8100 \\\n    --max-model-len 100 &",
                                                   "wait_for_server 8100"));
}

TEST(ExtractiveGenerator, QuotesTheSentenceThatCoversTheQuestionAndCitesIt) {
  auto generator = make();
  const GenerationRequest r = ask("Which flag loads AWQ quantized checkpoints?",
                                  {source(1, "markdown", "vLLM runs many models. It is fast."),
                                   source(2, "markdown",
                                          "Quantization saves memory. Quantized checkpoints load with the "
                                          "`--quantization awq` flag.\n\nOther methods exist.")});
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

TEST(ExtractiveGenerator, AHowToAnswerNamesWhatToRun) {
  // The best sentence says what LoRA serving is; the command comes from a later source.
  const GenerationRequest r =
      ask("How do I serve LoRA adapters with the server?",
          {source(1, "markdown", "The server can serve LoRA adapters next to the base model, many of them at once."),
           source(2, "markdown", "Adapters are small files."),
           source(3, "markdown", "Pass `--enable-lora` for adapters.")});
  const std::string answer = make()->generate(r);
  EXPECT_THAT(answer, HasSubstr("The server can serve LoRA adapters next to the base model"));
  EXPECT_THAT(answer, HasSubstr("Pass `--enable-lora` for adapters. [3]"));
  // A question of another kind is not given a command it does not ask for.
  const GenerationRequest what = ask("What does the server do with LoRA adapters?", r.evidence);
  EXPECT_THAT(make()->generate(what), Not(HasSubstr("--enable-lora")));
}

TEST(ExtractiveCodeReading, DeclaredNamesOfClassesAndFunctions) {
  EXPECT_EQ(extractive::declared_name("class SSLCertRefresher(Base):"), "SSLCertRefresher");
  EXPECT_EQ(extractive::declared_name("    async def serve(self, port: int = 8000) -> None:"), "serve");
  EXPECT_EQ(extractive::declared_name("def f():"), "f");
  EXPECT_EQ(extractive::declared_name("classes = []"), "");
  EXPECT_EQ(extractive::declared_name("port: int = 8000"), "");
}

TEST(ExtractiveCodeReading, ShellCommandsAreToldFromPython) {
  for (const std::string command : {"vllm serve m --enable-lora", "$ pip install vllm", "  docker run -it image",
                                    "CUDA_VISIBLE_DEVICES=0 VLLM_USE_V1=1 python3 -m vllm.entrypoints.openai.api_server",
                                    "huggingface-cli download org/model"})
    EXPECT_TRUE(extractive::runs_command(command)) << command;
  for (const std::string code : {"llm = LLM(model=m)", "from vllm import LLM", "print(output)", "import torch", "x += 1",
                                 "def f(x):", "VLLM_USE_V1=1", "outputs", "Model.generate(x)", "for x in y:", "count -= 1",
                                 "x //= 2", "x in y", "match command:", "items[0] = 1", "a is b"})
    EXPECT_FALSE(extractive::runs_command(code)) << code;
}

TEST(ExtractiveGenerator, AHowToAnswerQuotesTheCommandOfTheDocumentation) {
  // The sentence and the command cover the question alike; with room for one, the command, what
  // the user runs, is it.
  const GenerationRequest r =
      ask("How do I serve a model with LoRA adapters?",
          {source(1, "markdown", "You can serve a model with LoRA adapters.\n\n```bash\nvllm serve model --lora-adapters a=b\n```\n")});
  const std::string answer = make("{max_units: 1}")->generate(r);
  EXPECT_THAT(answer, HasSubstr("vllm serve model --lora-adapters"));
  EXPECT_THAT(answer, Not(HasSubstr("You can serve"))) << answer;
}

TEST(ExtractiveGenerator, TheCodeASentenceAnnouncesComesEvenPastTheLengthCutToLines) {
  const GenerationRequest r = ask("How do I serve LoRA adapters?",
                                  {source(1, "markdown",
                                          "To serve LoRA adapters, start the server with:\n\n```bash\n"
                                          "vllm serve meta-llama/Llama-2-7b-hf \\\n    --enable-lora \\\n"
                                          "    --lora-modules sql-lora=/home/user/.cache/huggingface/hub/models/"
                                          "snapshots/0dfa347e8877a4d4ed19ee56c140fa518470028c/\n```")});
  // The line left out shows as "...": the command goes on.
  EXPECT_EQ(make("{max_chars: 100}")->generate(r),
            "To serve LoRA adapters, start the server with: [1]\n\n```\n"
            "vllm serve meta-llama/Llama-2-7b-hf \\\n    --enable-lora\n    ...\n```");
}

TEST(ExtractiveGenerator, AStatementCutWhereItsPassageEndsShowsThatItGoesOn) {
  // The passage ends inside the call: the block says the statement goes on rather than ending
  // on an open bracket as if it were whole.
  const GenerationRequest r = ask("How do I stream a chat completion?",
                                  {source(1, "markdown",
                                          "Stream a chat completion:\n\n```python\n"
                                          "stream = client.chat.completions.create(\n    model=model,\n    stream=True,\n")});
  EXPECT_THAT(make("{restate: false}")->generate(r),
              HasSubstr("```\nstream = client.chat.completions.create(\n    model=model,\n    stream=True,\n    ...\n```"));
  // A whole statement does not.
  const GenerationRequest whole = ask("How do I stream a chat completion?",
                                      {source(1, "markdown", "Stream a chat completion:\n\n```python\n"
                                                             "stream = client.chat.completions.create(model=model, stream=True)\n```\n")});
  EXPECT_THAT(make("{restate: false}")->generate(whole), Not(HasSubstr("...")));
  // One line cut short is not quoted inline as if it were whole.
  const GenerationRequest one_line = ask("How do I create the offline engine?",
                                         {source(1, "markdown", "Create the offline engine:\n\n```python\n"
                                                                "llm = LLM(model=\"facebook/opt-125m\",\n")});
  EXPECT_THAT(make("{restate: false}")->generate(one_line),
              HasSubstr("```\nllm = LLM(model=\"facebook/opt-125m\",\n    ...\n```"));
  // A statement cut to the room and another after it in the block: the "..." stands between them.
  const GenerationRequest between = ask("How do I serve LoRA adapters?",
                                        {source(1, "markdown",
                                                "To serve LoRA adapters, start the server with:\n\n```bash\n"
                                                "vllm serve meta-llama/Llama-2-7b-hf \\\n    --enable-lora \\\n"
                                                "    --lora-modules sql-lora=/home/user/.cache/huggingface/hub/models/"
                                                "snapshots/0dfa347e8877a4d4ed19ee56c140fa518470028c/\n"
                                                "curl localhost:8000/v1/models\n```")});
  EXPECT_THAT(make("{max_chars: 100, restate: false}")->generate(between),
              HasSubstr("    --enable-lora\n    ...\ncurl localhost:8000/v1/models\n```"));
}

TEST(ExtractiveGenerator, TheTableOrListASentenceAnnouncesComesPastTheLengthALineEach) {
  const std::string table =
      "vLLM provides three communication backends for expert parallelism:\n\n"
      "| Backend | Use Case | Features |\n|---|---|---|\n"
      "| `pplx` | Single node | Chunked prefill support |\n"
      "| `deepep_high_throughput` | Multi-node prefill | Grouped GEMM |\n"
      "| `deepep_low_latency` | Multi-node decode | CUDA graph support |\n";
  const GenerationRequest r = ask("What communication backends does expert parallelism have?", {source(1, "markdown", table)});
  // A table: its header row, a rule, its rows, the citation after the sentence that announces it.
  EXPECT_EQ(make("{max_chars: 100}")->generate(r),
            "vLLM provides three communication backends for expert parallelism: [1]\n\n"
            "| Backend | Use Case | Features |\n|---|---|---|\n"
            "| `pplx` | Single node | Chunked prefill support |\n"
            "| `deepep_high_throughput` | Multi-node prefill | Grouped GEMM |\n"
            "| `deepep_low_latency` | Multi-node decode | CUDA graph support |");

  const GenerationRequest items = ask("What does a model need for the Transformers backend?",
                                      {source(1, "markdown",
                                              "A model for the Transformers backend needs:\n\n- kwargs passed down to "
                                              "attention\n- `ALL_ATTENTION_FUNCTIONS` for attention\n\nLater text.")});
  EXPECT_EQ(make("{max_chars: 60}")->generate(items),
            "A model for the Transformers backend needs:\n- kwargs passed down to attention\n"
            "- `ALL_ATTENTION_FUNCTIONS` for attention [1]");
}

TEST(ExtractiveGenerator, ATableRowIsReadUnderItsHeaderAndAHeaderIsNeverQuotedAlone) {
  const std::string table =
      "| Backend | Use Case |\n|---|---|\n| `pplx` | Single node |\n| `deepep_low_latency` | Multi-node decode |\n";
  EXPECT_EQ(make()->generate(ask("Which backend suits multi-node decode?", {source(1, "markdown", table)})),
            "In `1` [1]:\n\n| Backend | Use Case |\n|---|---|\n| `deepep_low_latency` | Multi-node decode |");
  EXPECT_EQ(make()->generate(ask("Which use case?", {source(1, "markdown", "| Backend | Use Case |\n|---|---|\n")})), "");
}

TEST(ExtractiveGenerator, AConditionBringsItsBody) {
  const GenerationRequest r = ask("What happens when residual is None in the decoder layer?",
                                  {source(1, "python",
                                          "class DecoderLayer:\n"
                                          "    def forward(self, hidden, residual):\n"
                                          "        if residual is None:\n"
                                          "            residual = hidden\n"
                                          "            hidden = self.norm(hidden)\n"
                                          "        else:\n"
                                          "            hidden, residual = self.norm(hidden, residual)\n"
                                          "        return hidden, residual\n")});
  const std::string answer = make("{max_chars: 60}")->generate(r);
  EXPECT_THAT(answer, HasSubstr("if residual is None:\n    residual = hidden\n    hidden = self.norm(hidden)\n```"));
  EXPECT_THAT(answer, Not(HasSubstr("else:")));
}

TEST(ExtractiveGenerator, ACommentInACodeBlockBringsTheLinesItLabels) {
  // The comment says what the question asks, in its words; the lines under it say how. The next
  // comment labels other lines.
  const GenerationRequest r = ask("How do I disable usage stats collection?",
                                  {source(1, "markdown",
                                          "You can opt out by setting an environment variable:\n\n"
                                          "```bash\n"
                                          "# Any of the following methods can disable usage stats collection\n"
                                          "export VLLM_NO_USAGE_STATS=1\n"
                                          "export DO_NOT_TRACK=1\n"
                                          "# Then start the server\n"
                                          "vllm serve model\n"
                                          "```\n")});
  const std::string answer = make()->generate(r);
  EXPECT_THAT(answer, HasSubstr("# Any of the following methods can disable usage stats collection\n"
                                "export VLLM_NO_USAGE_STATS=1\n"
                                "export DO_NOT_TRACK=1\n```"));
  EXPECT_THAT(answer, Not(HasSubstr("vllm serve model")));
  // Nor past the end of its block: the next block is another command's, whatever it holds.
  const std::string two_blocks = make()->generate(ask("How do I disable usage stats collection?",
                                                      {source(1, "markdown",
                                                              "```bash\n"
                                                              "# Any of the following methods can disable usage stats collection\n"
                                                              "export VLLM_NO_USAGE_STATS=1\n"
                                                              "```\n\n## Serving\n\n```bash\n"
                                                              "vllm serve model\n"
                                                              "```\n")}));
  EXPECT_THAT(two_blocks, HasSubstr("export VLLM_NO_USAGE_STATS=1\n```"));
  EXPECT_THAT(two_blocks, Not(HasSubstr("vllm serve model")));
}

TEST(ExtractiveGenerator, AHowToAnswerMakesRoomForTheCommand) {
  // Two sentences that cover the question fill the length (300 code points); the one that names
  // the command takes the place of the weaker.
  const GenerationRequest r = ask(
      "How do I serve LoRA adapters with the server?",
      {source(1, "markdown",
              "The server can serve LoRA adapters next to the base model, many of them at once, each one "
              "loaded when a request first names it and kept while requests name it. Serving LoRA adapters "
              "with the server shares the GPU between them at little memory cost, and at no extra cost to the base model."),
       source(2, "markdown", "Pass `--enable-lora` for adapters.")});
  const std::string answer = make("{max_chars: 300}")->generate(r);
  EXPECT_THAT(answer, HasSubstr("The server can serve LoRA adapters next to the base model"));
  EXPECT_THAT(answer, HasSubstr("Pass `--enable-lora` for adapters. [2]"));
  EXPECT_THAT(answer, Not(HasSubstr("shares the GPU")));
}

TEST(ExtractiveGenerator, AHowToAnswerTakesTheNextSentenceOfItsParagraphThatSaysHow) {
  // The sentence that matches the question says it can be done; the next one, sharing few of
  // its words, how. A command elsewhere that scores better does not take its place.
  const std::vector<Evidence> evidence = {
      source(1, "markdown",
             "Dynamic quantization of a BF16 model to FP8 works without calibration data. You can enable the "
             "feature by specifying `--quantization=fp8`.\n\nCalibration data is gathered with `llm-compressor`."),
      source(2, "markdown", "Quantized models need less memory; `vllm serve` runs them.")};
  const std::string answer = make()->generate(ask("I have no calibration data. How do I quantize a BF16 model to FP8 dynamically?", evidence));
  EXPECT_THAT(answer, HasSubstr("works without calibration data. You can enable the feature by specifying `--quantization=fp8`. [1]"));
  // Not a sentence of another paragraph.
  const std::vector<Evidence> apart = {source(1, "markdown",
                                              "Dynamic quantization of a BF16 model to FP8 works without calibration data.\n\n"
                                              "You can enable the feature by specifying `--quantization=fp8`.")};
  EXPECT_THAT(make()->generate(ask("How do I quantize a BF16 model to FP8 dynamically without calibration data?", apart)),
              Not(HasSubstr("works without calibration data. You can enable")));
}

// The best sentence's paragraph goes on from it and often says what is asked next: its next two
// sentences come, past max_chars as announced items do, not one that points elsewhere or
// announces what follows, nor a sentence of the next paragraph.
TEST(ExtractiveGenerator, TheBestSentenceBringsTheNextSentencesOfItsParagraph) {
  const auto answer = [](const std::string& text, const std::string& options = "{restate: false}") {
    return make(options)->generate(ask("What is llmaz and how does it relate to vLLM?", {source(1, "markdown", text)}));
  };
  // The next sentences share no word with the question.
  const std::string lede = "llmaz is an easy-to-use platform that serves models with vLLM on Kubernetes.";
  EXPECT_EQ(answer(lede + " Its operator scales from zero. It caches weights. It has a logo."),
            lede + " Its operator scales from zero. It caches weights. [1]");
  // Past max_chars as announced items are.
  EXPECT_EQ(answer(lede + " Its operator scales from zero.", "{restate: false, max_chars: 80}"),
            lede + " Its operator scales from zero. [1]");
  EXPECT_EQ(answer(lede + "\n\nIts operator scales from zero."), lede + " [1]");
  for (const std::string stop : {"More information can be found here.", "Please refer to the quick start.",
                                 "Check out the guide for details.", "This page shows how to install it."})
    EXPECT_EQ(answer(lede + " " + stop + " Its operator scales from zero."), lede + " [1]") << stop;
}

// The paragraph's next sentences: not after a best sentence quoted cut (the rest of it says more),
// not past a sentence another source said already (the one after it no longer goes on from what is
// quoted); a what-is answer that puts the best sentence first brings them along; a list item's
// sentences stay on its line.
TEST(ExtractiveGenerator, TheParagraphGoesOnOnlyFromWhatIsQuoted) {
  const std::string lede = "llmaz is an easy-to-use platform that serves models with vLLM on Kubernetes.";
  const auto answer = [](std::vector<Evidence> evidence, const std::string& options = "{restate: false}",
                         const std::string& question = "What is llmaz and how does it relate to vLLM?") {
    return make(options)->generate(ask(question, std::move(evidence)));
  };
  const std::string cut = answer({source(1, "markdown", lede + " Its operator scales from zero.")}, "{restate: false, max_chars: 60}");
  EXPECT_THAT(cut, Not(HasSubstr("scales from zero"))) << cut;
  EXPECT_EQ(answer({source(1, "markdown", "Its operator is written in Go."),
                    source(2, "markdown", lede + " Its operator is written in Go. It caches weights.")}),
            lede + " [2]");
  EXPECT_EQ(answer({source(1, "markdown", "Deploying llmaz on a cluster takes one command.\n\n" + lede +
                                              " Its operator scales from zero.")},
                   "{restate: false}", "What is llmaz?"),
            lede + " Its operator scales from zero. … Deploying llmaz on a cluster takes one command. [1]");
  EXPECT_EQ(answer({source(1, "markdown", "- " + lede + " Its operator scales from zero.\n- Another item.")}),
            "- " + lede + " Its operator scales from zero. [1]");
}

TEST(ExtractiveGenerator, ASentenceThatSendsTheReaderElsewhereStatesNothing) {
  for (const std::string_view pointer : {"More information can be found here.", "See the deployment guide.",
                                         "Please refer to the quick start.", "Check out the guide for details.",
                                         "For more details, read the design document."})
    EXPECT_TRUE(extractive::points_elsewhere(pointer)) << pointer;
  for (const std::string_view statement : {"For more than 8 GPUs, use pipeline parallelism.",
                                           "Set `VLLM_LOGGING_LEVEL=DEBUG` for more details.",
                                           "Please note that the cache is disabled by default.",
                                           "The weights are stored here.", "Find the cache size with `--kv-cache-size`."})
    EXPECT_FALSE(extractive::points_elsewhere(statement)) << statement;
}

// A test calls what it tests rather than saying what it is: a test module's units weigh less than
// the code they test, unless the question asks about tests.
TEST(ExtractiveGenerator, ATestModuleWeighsLessUnlessTestsAreAskedAbout) {
  const auto answer = [](const std::string& question) {
    Evidence test = source(1, "python", "def test_stop_reason():\n    stop_reason = generate(stop_reason='.')\n");
    test.section = "tests.v1.test_outputs.test_stop_reason";
    Evidence code = source(2, "python", "class CompletionOutput:\n    \"\"\"stop_reason: the stop string that stopped it.\"\"\"\n");
    code.section = "vllm.outputs.CompletionOutput";
    return make("{max_units: 1, restate: false}")->generate(ask(question, {test, code}));
  };
  EXPECT_THAT(answer("What is stop_reason?"), HasSubstr("the stop string that stopped it"));
  EXPECT_THAT(answer("How is stop_reason tested?"), HasSubstr("test_stop_reason"));
  EXPECT_THAT(answer("Which tests cover stop_reason?"), HasSubstr("test_stop_reason"));
  // "latest" or "fastest" holds the letters, not the word.
  EXPECT_THAT(answer("What is stop_reason in the latest release?"), HasSubstr("the stop string that stopped it"));
}

// A question that asks two things is answered in one unit more and half as many code points
// again, once its best unit is chosen.
TEST(ExtractiveGenerator, AQuestionThatAsksTwoThingsGetsRoomForBoth) {
  const auto answer = [](const std::string& question) {
    const Evidence page = source(1, "markdown",
                                 "EPLB balances the experts of MoE models across the GPUs of a node.\n\n"
                                 "Turn EPLB on with the `--enable-eplb` flag of the server.\n");
    return make("{max_units: 1, max_chars: 90, restate: false}")->generate(ask(question, {page}));
  };
  const std::string both = answer("What does EPLB balance, and how do I turn EPLB on?");
  EXPECT_THAT(both, HasSubstr("balances the experts"));
  EXPECT_THAT(both, HasSubstr("--enable-eplb"));
  // One question (the same words without "and how"): one unit.
  const std::string one = answer("What does EPLB balance when I turn EPLB on?");
  EXPECT_EQ(one.find("balances the experts") == std::string::npos, one.find("--enable-eplb") != std::string::npos) << one;
}

// Each part of such a question is answered: the best unit for a part that the units chosen by the
// whole question leave out comes too ("what must I install" below, which shares one rare word
// with the question against the first part's six).
TEST(ExtractiveGenerator, EachPartOfAQuestionThatAsksSeveralThingsIsAnswered) {
  const Evidence page = source(1, "markdown",
                               "EPLB balances the experts of MoE models across the GPUs of a node.\n\n"
                               "On busy clusters, EPLB shifts heavy experts of MoE models to idle GPUs at runtime, "
                               "using live load statistics gathered per step.\n\n"
                               "Before you start, install the `kit-xb` package.\n");
  const std::string answer = make("{max_units: 1, max_chars: 90, restate: false}")
                                 ->generate(ask("How does EPLB balance the experts of MoE models across GPUs, and what must I "
                                                "install?",
                                                {page}));
  EXPECT_THAT(answer, HasSubstr("EPLB balances the experts of MoE models across the GPUs of a node."));
  EXPECT_THAT(answer, HasSubstr("install the `kit-xb` package")) << answer;
  // Within the units allowed (max_units, one more for a question that asks several things) and
  // the room: a third part finds no place, nor does a part's unit longer than the room.
  const Evidence more = source(2, "markdown", "The logs of the zorblat daemon are in `/var/log/zorblat`.\n");
  const std::string three = make("{max_units: 1, max_chars: 90, restate: false}")
                                ->generate(ask("How does EPLB balance the experts of MoE models across GPUs, and what must I "
                                               "install, and where are the zorblat logs?",
                                               {page, more}));
  EXPECT_EQ(three.find("kit-xb") == std::string::npos, three.find("zorblat") != std::string::npos) << three;
  const std::string narrow = make("{max_units: 1, max_chars: 70, restate: false}")
                                 ->generate(ask("How does EPLB balance the experts of MoE models across GPUs, and what must I "
                                                "install?",
                                                {page}));
  EXPECT_THAT(narrow, HasSubstr("EPLB balances the experts"));
  EXPECT_THAT(narrow, Not(HasSubstr("kit-xb"))) << narrow;
  // A how-to answer's command counts among the units allowed.
  const Evidence with_command = source(1, "markdown",
                                       "EPLB balances the experts of MoE models across the GPUs of a node.\n\n"
                                       "To balance experts, run `vllm serve --enable-eplb`.\n\n"
                                       "Before you start, install the kitxb package.\n");
  const std::string commanded = make("{max_units: 1, max_chars: 120, restate: false}")
                                    ->generate(ask("How does EPLB balance the experts of MoE models across GPUs, and what "
                                                   "must I install?",
                                                   {with_command}));
  EXPECT_EQ(commanded.find("--enable-eplb") == std::string::npos || commanded.find("kitxb") == std::string::npos ||
                commanded.find("EPLB balances") == std::string::npos,
            true)
      << commanded;
}

// A source merged from two neighbouring definitions is named after one of them; a block of code
// is introduced by the definition it is in.
TEST(ExtractiveGenerator, ACodeBlockIsNamedAfterTheDefinitionItIsIn) {
  Evidence merged = source(1, "python",
                           "def safetensors_iterator(files):\n    for st_file in tqdm(files, desc=\"Loading safetensors shards\",\n"
                           "                        disable=False):\n        yield st_file\n\n\n"
                           "def runai_iterator(files):\n    streamer = SafetensorsStreamer()\n    return streamer\n");
  merged.section = "pkg.weight_utils.runai_iterator";
  const std::string answer = make("{restate: false}")->generate(ask("How are safetensors shards loaded with tqdm?", {merged}));
  EXPECT_THAT(answer, HasSubstr("In `safetensors_iterator` [1]:")) << answer;
  EXPECT_THAT(answer, Not(HasSubstr("In `runai_iterator`"))) << answer;
}

TEST(ExtractiveGenerator, AClassOrFunctionDocstringIsLedByTheNameItDocuments) {
  const Evidence code = source(1, "python",
                               "class SSLCertRefresher:\n    \"\"\"A class that monitors SSL certificate files and reloads them "
                               "when they change. It watches the key file too.\"\"\"\n\n    def __init__(self):\n        pass\n\n"
                               "async def refresh_loop(period):\n    \"\"\"Checks the certificate files every period seconds.\"\"\"\n");
  EXPECT_THAT(make()->generate(ask("What reloads the SSL certificate files when they change?", {code})),
              HasSubstr("`SSLCertRefresher`: A class that monitors SSL certificate files and reloads them when they change."));
  // Once, before the docstring's first sentence taken; not when the sentence names it already.
  const std::string both = make()->generate(ask("What monitors and reloads SSL certificate files and watches the key file?", {code}));
  EXPECT_THAT(both, HasSubstr("`SSLCertRefresher`: A class that monitors"));
  EXPECT_THAT(both, HasSubstr("when they change. It watches the key file too."));
  EXPECT_THAT(make()->generate(ask("How often are the certificate files checked?", {code})),
              HasSubstr("`refresh_loop`: Checks the certificate files every period seconds."));
}

TEST(ExtractiveGenerator, AFieldsDocstringComesWithTheFieldAndSkippedTextShows) {
  const GenerationRequest r = ask("How do I get log probabilities and limit the tokens per output?",
                                  {source(1, "python",
                                          "class Params:\n    max_tokens: int = 16\n    \"\"\"Limit of tokens generated per "
                                          "output.\"\"\"\n    seed: int = 0\n    \"\"\"The random seed.\"\"\"\n"
                                          "    logprobs: int = 0\n    \"\"\"Number of log probabilities to return.\"\"\"\n")});
  EXPECT_EQ(make()->generate(r),
            "To get log probabilities and limit the tokens per output:\n\n"
            "In `Params` [1]:\n```\nmax_tokens: int = 16\n```\n\nLimit of tokens generated per output. … "
            "`logprobs: int = 0` Number of log probabilities to return. [1]");
}

TEST(ExtractiveGenerator, AFieldBringsItsDocstringEvenPastTheLength) {
  // Without its docstring a field says nothing of what it is: the docstring comes past max_chars.
  Evidence e = source(1, "python",
                      "class SamplingParams:\n    n: int = 1\n    \"\"\"Number of output sequences to return for the "
                      "given prompt.\"\"\"\n");
  e.section = "vllm.sampling_params.SamplingParams";
  const std::string answer = make("{max_chars: 40}")->generate(ask("What does the n parameter of SamplingParams mean?", {e}));
  EXPECT_THAT(answer, HasSubstr("n: int = 1"));
  EXPECT_THAT(answer, HasSubstr("Number of output sequences to return for the given prompt."));
}

TEST(ExtractiveGenerator, AFieldBringsTheRestOfItsDocstringWhileItFits) {
  // The first sentence often says only what a field is; the next ones what it does.
  const std::string docstring = "Whether to always use eager-mode PyTorch. If True, we will disable CUDA graph and always "
                                "execute the model in eager mode. If False, we use CUDA graph and eager execution in hybrid.";
  const Evidence e = source(1, "python", "class ModelConfig:\n    enforce_eager: bool = False\n    \"\"\"" + docstring + "\"\"\"\n");
  const GenerationRequest r = ask("What does enforce_eager do?", {e});
  EXPECT_THAT(make()->generate(r), HasSubstr(docstring + " [1]"));
  // Not past max_chars: the first sentence alone goes past it.
  const std::string short_answer = make("{max_chars: 60}")->generate(r);
  EXPECT_THAT(short_answer, HasSubstr("Whether to always use eager-mode PyTorch."));
  EXPECT_THAT(short_answer, Not(HasSubstr("CUDA graph")));
  // Nor what comes after the docstring: a comment before the next field is that field's.
  const Evidence commented = source(1, "python", "class ModelConfig:\n    enforce_eager: bool = False\n    \"\"\"" + docstring +
                                                     "\"\"\"\n    # Quantization settings\n    quantization: str = \"none\"\n");
  EXPECT_THAT(make()->generate(ask("What does enforce_eager do?", {commented})), Not(HasSubstr("Quantization settings")));
  // Asked its default, the value answers: the rest of the docstring would take another source's place.
  EXPECT_THAT(make()->generate(ask("What is the default value of enforce_eager?", {e})),
              AllOf(HasSubstr("enforce_eager: bool = False"), Not(HasSubstr("CUDA graph"))));
}

TEST(ExtractiveGenerator, ALaterSentenceOfADocstringBringsItsFieldToo) {
  // "than this" says nothing without the field it documents.
  const Evidence e = source(1, "python",
                            "class ModelConfig:\n    max_seq_len_to_capture: int = 8192\n    \"\"\"Maximum sequence len "
                            "covered by CUDA graphs. When a sequence has context length larger than this, we fall back "
                            "to eager mode.\"\"\"\n");
  const std::string answer = make("{max_units: 1}")->generate(ask("When does vLLM fall back to eager mode?", {e}));
  EXPECT_THAT(answer, AllOf(HasSubstr("max_seq_len_to_capture: int = 8192"), HasSubstr("we fall back to eager mode.")));
}

TEST(ExtractiveGenerator, WhatAParameterDoesIsSaidByItsFieldNotByACallThatSetsIt) {
  const GenerationRequest r =
      ask("What does the seed parameter of SamplingParams do?",
          {source(1, "python", "class SamplingParams:\n    seed: Optional[int] = None\n    \"\"\"Random seed to use.\"\"\"\n"),
           source(2, "python", "def test_seed(llm):\n    out = llm.generate(PROMPT, SamplingParams(seed=42))\n")});
  const std::string answer = make()->generate(r);
  EXPECT_THAT(answer, ::testing::StartsWith("In `SamplingParams` [1]:\n```\n"));
  EXPECT_THAT(answer, HasSubstr("seed: Optional[int] = None\n```\n\nRandom seed to use. [1]"));
}

TEST(ExtractiveGenerator, AQuestionThatNamesNoCodeIsAnsweredFromTheDocumentationFirst) {
  const std::vector<Evidence> evidence = {
      source(1, "markdown", "Pipelines split models."),
      source(2, "python", "def verify_tp(size):\n    \"\"\"Checks the tensor parallel size of a draft model.\"\"\"\n"),
      source(3, "markdown", "Tensor parallelism shards each layer of a model across GPUs.")};
  EXPECT_THAT(make()->generate(ask("What is tensor parallelism?", evidence)),
              ::testing::StartsWith("Tensor parallelism shards each layer"));
  // Naming code, it asks about that code.
  EXPECT_THAT(make("{restate: false}")->generate(ask("What does verify_tp check about tensor parallel size?", evidence)),
              ::testing::StartsWith("Checks the tensor parallel size"));
}

// An import names what a file uses, which answers nothing but how to get at it.
TEST(ExtractiveGenerator, AnImportIsQuotedOnlyForHowTo) {
  EXPECT_TRUE(extractive::is_import("  from vllm.lora.utils import (from_layer,"));
  EXPECT_TRUE(extractive::is_import("import torch.distributed as dist"));
  EXPECT_FALSE(extractive::is_import("imported = from_cache(x)"));
  EXPECT_FALSE(extractive::is_import("from_layer(x)"));
  const std::vector<Evidence> evidence = {
      source(1, "python", "import torch.distributed as dist\nREGIMES = [FP, INT8]  # the regimes\n")};
  const std::string regimes = make("{max_units: 1, restate: false}")->generate(ask("What regimes does torch distributed have?", evidence));
  EXPECT_THAT(regimes, Not(HasSubstr("import")));
  EXPECT_THAT(regimes, HasSubstr("REGIMES"));
  EXPECT_THAT(make("{max_units: 1, restate: false}")->generate(ask("How do I import torch distributed?", evidence)),
              HasSubstr("import torch.distributed as dist"));
}

TEST(ExtractiveGenerator, WhatAFieldControlsIsItsDocstringNotASentenceThatSaysControl) {
  const std::vector<Evidence> evidence = {
      source(1, "python", "gpu_memory_utilization: float = 0.9\n\"\"\"The fraction of GPU memory to be used.\"\"\"\n"),
      source(2, "markdown", "vLLM provides variables to control memory management.")};
  const std::string answer = make("{max_units: 2}")->generate(ask("What does gpu_memory_utilization control?", evidence));
  EXPECT_THAT(answer, HasSubstr("The fraction of GPU memory to be used."));
  EXPECT_THAT(answer, Not(HasSubstr("control memory management")));
  // So do the other verbs that only ask for an effect: "What does X set?", "What determines X?".
  const std::vector<Evidence> set = {
      source(1, "markdown", "This is primarily set in the engine and that value should be duplicated here."),
      source(2, "python", "max_model_len: int = None\n\"\"\"Model context length, prompt and output included.\"\"\"\n")};
  for (const char* question : {"What does the --max-model-len option set?", "What determines max_model_len?"})
    EXPECT_THAT(make("{max_units: 1, restate: false}")->generate(ask(question, set)), HasSubstr("Model context length")) << question;
  // Where control is the subject, it is what the answer must speak of.
  const std::vector<Evidence> flow = {source(1, "markdown", "Flow is a library of graphs."),
                                      source(2, "markdown", "Flow control limits how fast a sender writes.")};
  EXPECT_THAT(make("{max_units: 1}")->generate(ask("What is flow control?", flow)), ::testing::StartsWith("Flow control limits"));
}

TEST(ExtractiveGenerator, ADefiningSentenceIsReadThroughNoBreakSpaces) {
  // "Sleep Mode allows" with U+00A0 between the words, as a page of the corpus writes it.
  const std::vector<Evidence> evidence = {source(1, "markdown", "Sleep mode is enabled by a flag of the server."),
                                          source(2, "markdown", "Sleep\u00A0Mode\u00A0allows you to release GPU memory.")};
  EXPECT_THAT(make("{max_units: 1}")->generate(ask("What is sleep mode?", evidence)),
              ::testing::StartsWith("Sleep\u00A0Mode\u00A0allows"));
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

TEST(ExtractiveGenerator, DeclinesWithAnEmptyAnswerWhenNothingCoversTheQuestion) {
  EXPECT_EQ(make()->generate(ask("What is LoRA?", {})), "");
  EXPECT_EQ(make()->generate(ask("What is LoRA?", {source(1, "text", "Tensor parallel sharding.")})), "");
  EXPECT_EQ(make()->generate(ask("the of and", {source(1, "text", "The cat.")})), "");
}

TEST(ExtractiveGenerator, TellsWhatIsAsked) {
  using Kind = QuestionKind;
  EXPECT_EQ(question_kind("What is PagedAttention?"), Kind::what_is);
  EXPECT_EQ(question_kind("What does KV cache mean?"), Kind::what_is);
  EXPECT_EQ(question_kind("What is the shape of the array returned by the metadata builder?"), Kind::other);
  // Long, but asking what a parameter does; "What flag do you need ..." asks which.
  EXPECT_EQ(question_kind("What does the temperature parameter in SamplingParams control?"), Kind::what_is);
  EXPECT_EQ(question_kind("What flag do you need to specify when serving a reasoning model?"), Kind::other);
  EXPECT_EQ(question_kind("How do I start the server?"), Kind::how_to);
  EXPECT_EQ(question_kind("Which options does vllm serve take?"), Kind::options);
  EXPECT_EQ(question_kind("Which scheduling policies can the scheduler use?"), Kind::options);
  EXPECT_EQ(question_kind("What prefix caching hash algorithms are there?"), Kind::options);
  EXPECT_EQ(question_kind("What is the default value of gpu_memory_utilization?"), Kind::default_value);
  EXPECT_EQ(question_kind("Where is the scheduler implemented?"), Kind::where);
  EXPECT_EQ(question_kind("Where can I find the docs?"), Kind::other);
  EXPECT_EQ(question_kind("Why is the first request slow?"), Kind::why);
  EXPECT_EQ(question_kind("how start run OpenAI server"), Kind::how_to);  // a translated question
  // A clause before the question word.
  EXPECT_EQ(question_kind("In the Helm values file, what is pvcStorage for?"), Kind::what_is);
  EXPECT_EQ(question_kind("When streaming with AsyncLLM, how do I get only the new tokens?"), Kind::how_to);
  EXPECT_EQ(question_kind("For Llama 3, Mistral and Qwen, how do I enable tool calling?"), Kind::how_to);
  EXPECT_EQ(question_kind("How it started: I upgraded vLLM. Now, why is the first request slow?"), Kind::why);
  // "however" and "whereas" ask nothing.
  EXPECT_EQ(question_kind("I followed the guide, however the server still fails. Any ideas?"), Kind::other);
  EXPECT_EQ(question_kind("vLLM is fast, whereas the sampler function is slow. Is that expected?"), Kind::other);
}

TEST(ExtractiveGenerator, AWhatIsQuestionGetsTheDefiningSentence) {
  const GenerationRequest r = ask("What is PagedAttention?",
                                  {source(1, "python", "class PagedAttention:\n    def forward(self):\n        pass\n"),
                                   source(2, "markdown",
                                          "Kernels call PagedAttention for every layer. PagedAttention is an attention "
                                          "algorithm that stores keys and values in non-contiguous memory blocks.")});
  EXPECT_EQ(make("{max_units: 1}")->generate(r),
            "PagedAttention is an attention algorithm that stores keys and values in non-contiguous memory blocks. [2]");
  // The subject comes before what it is: "Here is the diagram of X" does not define X.
  const GenerationRequest diagram = ask("What is the block manager?",
                                        {source(1, "markdown", "Here is the diagram of the block manager."),
                                         source(2, "markdown", "The block manager is the table of pages.")});
  EXPECT_EQ(make("{max_units: 1}")->generate(diagram), "The block manager is the table of pages. [2]");
  // The subject opens a defining sentence, its verb right after it ("which is used" is said of
  // something else).
  const GenerationRequest helper = ask(
      "What is PagedAttention?",
      {source(1, "markdown", "Initializes the appropriate PagedAttention module, which is used as a helper by backends."),
       source(2, "markdown", "PagedAttention is the attention kernel that stores keys and values in blocks.")});
  EXPECT_EQ(make("{max_units: 1, restate: false}")->generate(helper),
            "PagedAttention is the attention kernel that stores keys and values in blocks. [2]");
  // The defining sentence opens its source's part, wherever it stands in the source.
  const GenerationRequest later = ask("What is speculative decoding?",
                                      {source(1, "markdown",
                                              "Currently, speculative decoding is not compatible with pipeline "
                                              "parallelism across nodes or with draft models on other devices. "
                                              "Speculative decoding is a technique which improves latency.")});
  EXPECT_EQ(make("{restate: false}")->generate(later),
            "Speculative decoding is a technique which improves latency. … Currently, speculative decoding is not "
            "compatible with pipeline parallelism across nodes or with draft models on other devices. [1]");
}

// A sentence that opens with what is asked about says something of it, whatever its verb; one
// that names it further on does not.
TEST(ExtractiveGenerator, AWhatIsAnswerPrefersASentenceThatOpensWithItsSubject) {
  const auto best = [](const std::string& second) {
    return make("{max_units: 1, restate: false}")
        ->generate(ask("What is disaggregated prefilling in vLLM?",
                       {source(1, "markdown", "Benchmarks differ when disaggregated prefilling runs in vLLM.\n\n" + second +
                                                  "\n\nvLLM is fast.")}));
  };
  EXPECT_EQ(best("Disaggregated prefilling puts the prefill and the decode of vLLM in different instances."),
            "Disaggregated prefilling puts the prefill and the decode of vLLM in different instances. [1]");
  EXPECT_EQ(best("vLLM documents the flags of disaggregated prefilling in one page."),
            "Benchmarks differ when disaggregated prefilling runs in vLLM. [1]");
  // Where the subject only qualifies another noun, the sentence is about that noun.
  EXPECT_EQ(best("The disaggregated prefilling benchmark was run in vLLM on two nodes."),
            "Benchmarks differ when disaggregated prefilling runs in vLLM. [1]");
}

// What a field is: the field first, then its docstring.
TEST(ExtractiveGenerator, AWhatIsAnswerKeepsAFieldBeforeItsDocstring) {
  Evidence field = source(1, "python", "    seed: Optional[int] = None\n    \"\"\"The seed parameter: a random seed.\"\"\"\n");
  field.section = "vllm.sampling_params.SamplingParams";
  EXPECT_EQ(make("{restate: false}")->generate(ask("What does the seed parameter of SamplingParams do?", {field})),
            "In `SamplingParams` [1]:\n```\nseed: Optional[int] = None\n```\n\nThe seed parameter: a random seed. [1]");
}

// A page titled with what is asked about opens by saying what it is, without naming it again.
TEST(ExtractiveGenerator, AWhatIsQuestionReadsTheLedeOfAPageTitledWithIt) {
  const auto titled = [](const std::string& section, const std::string& lede) {
    Evidence e = source(1, "markdown",
                        "# " + section + "\n\n!!! warning\n    This is a historical document.\n\n" + lede +
                            "\n\nLater, each paged attention block is called a block in this document.\n");
    e.section = section;
    return e;
  };
  const auto answer = [&](const Evidence& page) {
    return make("{max_units: 1, restate: false}")->generate(ask("What is PagedAttention?", {page}));
  };
  EXPECT_EQ(answer(titled("Paged Attention", "vLLM keeps the KV cache in fixed-size blocks that need not be contiguous.")),
            "vLLM keeps the KV cache in fixed-size blocks that need not be contiguous. [1]");
  // Not a title that says more than the question, nor a sentence about the page.
  EXPECT_EQ(answer(titled("Paged Attention Kernels", "vLLM keeps the KV cache in blocks.")),
            "Later, each paged attention block is called a block in this document. [1]");
  EXPECT_EQ(answer(titled("Paged Attention", "This document describes the kernel.")),
            "Later, each paged attention block is called a block in this document. [1]");
  EXPECT_EQ(answer(titled("Paged Attention", "See the kernels page for more.")),
            "Later, each paged attention block is called a block in this document. [1]");
  // A sentence of the lede that says what the subject is comes before the lede's opening.
  EXPECT_EQ(answer(titled("Paged Attention", "Kernels need it to serve. PagedAttention is the kernel that reads blocks.")),
            "PagedAttention is the kernel that reads blocks. [1]");
  // Only a page's title or its first sections': a deep section is about a detail.
  Evidence deep = titled("Paged Attention", "vLLM keeps the KV cache in blocks.");
  deep.section = "Installation > Dependencies > Paged Attention";
  EXPECT_EQ(answer(deep), "Later, each paged attention block is called a block in this document. [1]");
}

TEST(ExtractiveGenerator, ADefaultQuestionGetsTheFieldAndItsDocstring) {
  const GenerationRequest r = ask("What is the default of gpu_memory_utilization?",
                                  {source(1, "python", "class CacheConfig:\n    gpu_memory_utilization: float = 0.9\n"
                                                       "    \"\"\"The fraction of GPU memory to use.\"\"\"\n"
                                                       "    swap_space: float = 4\n")});
  EXPECT_EQ(make()->generate(r), "The default of `gpu_memory_utilization` is `0.9`. [1]\n\n"
                                 "`gpu_memory_utilization: float = 0.9` The fraction of GPU memory to use. [1]");
}

// Plain words written side by side name a field before each word alone: "tokenizer mode" is
// tokenizer_mode, not tokenizer.
TEST(ExtractiveGenerator, ADefaultOfWordsSideBySideIsTheFieldTheyName) {
  Evidence config = source(1, "python", "class ModelConfig:\n    tokenizer: str = None\n    \"\"\"Name or path of the tokenizer.\"\"\"\n"
                                        "    tokenizer_mode: str = \"auto\"\n    \"\"\"Tokenizer mode.\"\"\"\n");
  config.section = "vllm.config.ModelConfig";
  const std::string answer = make("{restate: false}")->generate(ask("Which tokenizer mode is used by default?", {config}));
  EXPECT_EQ(answer.substr(0, answer.find("\n\n")), "The default of `tokenizer_mode` is `\"auto\"`. [1]");
  // Not when the words are apart in the question.
  const std::string apart =
      make("{restate: false}")->generate(ask("Which mode does the tokenizer use by default?", {config}));
  EXPECT_EQ(apart.substr(0, apart.find("\n\n")), "The default of `tokenizer` is `None`. [1]");
}

TEST(ExtractiveGenerator, ADefaultIsReadFromADeclarationOrALookupButNotFromACall) {
  // The answer's first paragraph after the note on English sources, if any (and without the
  // question restated, which a default question's answer opens with).
  const auto lead = [](const std::string& question, const std::string& code, const std::string& language = "en",
                       const std::string& translated = "") {
    GenerationRequest r = ask(question, {source(1, "python", code)});
    r.language = language;
    r.query = translated;
    std::string answer = make("{restate: false}")->generate(r);
    if (language != "en") answer.erase(0, answer.find("\n\n") + 2);
    return answer.substr(0, answer.find("\n\n"));
  };
  EXPECT_EQ(lead("What is the default value of the dst parameter in gather?",
                 "def gather(input_: torch.Tensor,\n           dst: int = 0,\n           dim: int = -1) -> None:\n    pass\n"),
            "The default of `dst` is `0`. [1]");
  EXPECT_EQ(lead("What is the default of pin_memory in _try_stack?", "def _try_stack(nested, pin_memory=False):\n    pass\n"),
            "The default of `pin_memory` is `False`. [1]");
  EXPECT_EQ(lead("What is the default pp_locks of the executor?",
                 "def __init__(self):\n    self.pp_locks: Optional[List[asyncio.Lock]] = None  # made later\n"),
            "The default of `pp_locks` is `None`. [1]");
  EXPECT_EQ(lead("What is the default value for mlp_bias in the MLP?",
                 "bias = getattr(config, \"mlp_bias\", False)\nengine = ktc.get(\"engine_id\", config.engine_id)\n"),
            "The default of `mlp_bias` is `False`. [1]");
  // A declaration says it better than a lookup's fallback, wherever each stands.
  EXPECT_EQ(lead("What is the default top_p of SamplingParams?",
                 "top_p = params.get(\"top_p\", self._DEFAULTS[\"top_p\"])\nclass SamplingParams:\n    top_p: float = 1.0\n"),
            "The default of `top_p` is `1.0`. [1]");
  EXPECT_EQ(lead("Какое значение по умолчанию у top_p?", "class SamplingParams:\n    top_p: float = 1.0\n", "ru",
                 "what value default top_p"),
            "Значение `top_p` по умолчанию: `1.0`. [1]");
  // A value over lines, or with a backtick, is not quoted inline (it would open a code block).
  EXPECT_THAT(lead("What is the default value of the dst parameter in gather?",
                   "def gather(input_, dst: int =   \"\"\"Gather `vllm serve m`\n``\ninput.\"\"\"\n"),
              Not(HasSubstr("The default")));
  // A keyword argument of a call sets a value, and a plain assignment assigns one: no default.
  EXPECT_THAT(lead("What is the default value of the seed parameter?", "llm = LLM(model, seed=42)\nseed = 7\n"),
              Not(HasSubstr("The default")));
  // A plain word is read as a name only in a settings class (a configuration's, the engine's
  // arguments, a request's parameters): any declaration of a common word matches too loosely.
  const auto with_section = [](const std::string& question, std::vector<std::pair<std::string, std::string>> sources) {
    std::vector<Evidence> evidence;
    for (const auto& [section, code] : sources) {
      evidence.push_back(source(static_cast<int>(evidence.size() + 1), "python", code));
      evidence.back().section = section;
    }
    const std::string answer = make("{restate: false}")->generate(ask(question, evidence));
    return answer.substr(0, answer.find("\n\n"));
  };
  EXPECT_EQ(with_section("What is the default temperature in SamplingParams?",
                         {{"vllm.sampling_params.SamplingParams", "temperature: float = 1.0"}}),
            "The default of `temperature` is `1.0`. [1]");
  EXPECT_EQ(with_section("What is the default timeout of the scheduler?",
                         {{"vllm.engine.client.Client", "def call(self, timeout: float = 1.0):"},
                          {"vllm.config.SchedulerConfig", "timeout: float = 5.0"}}),
            "The default of `timeout` is `5.0`. [2]");
  EXPECT_EQ(with_section("What is the default timeout of the AsyncScheduler?",
                         {{"vllm.core.scheduler.AsyncScheduler", "def wait(self, timeout: float = 5.0):"}}),
            "The default of `timeout` is `5.0`. [1]");
  EXPECT_THAT(with_section("What timestamp format do the engine's log lines use by default?",
                           {{"vllm.v1.engine.EngineCoreOutputs", "timestamp: float = 0.0"},
                            {"vllm.logger", "_FORMAT = \"%(message)s\""}}),
              Not(HasSubstr("The default")));
  // Nor is a word that says what kind of code is asked about ("the validate_language method").
  EXPECT_THAT(with_section("What is the default language of the validate_language method in the config?",
                           {{"vllm.config.SpeculativeConfig", "method: Optional[str] = None"},
                            {"vllm.transcription.Whisper", "def validate_language(cls, language):"}}),
              Not(HasSubstr("The default")));
  // A name said once, however often the question calls it a parameter; a later name is a
  // condition unless the question joins it to the first.
  EXPECT_EQ(with_section("What is the default value of the seed parameter, and is the seed parameter required?",
                         {{"vllm.SamplingParams", "seed: int = 0"}}),
            "The default of `seed` is `0`. [1]");
  EXPECT_EQ(with_section("What is the default dtype parameter when the model option is set?",
                         {{"vllm.config.ModelConfig", "model: str = \"m\"\ndtype: str = \"auto\""}}),
            "The default of `dtype` is `\"auto\"`. [1]");
  // Each of the fields a question asks, two at most.
  EXPECT_EQ(with_section("What are the default values for the alpha and limit parameters of the activation?",
                         {{"vllm.layers.SwigluOAIAndMul", "def __init__(self, alpha: float = 1.702, limit: float = 7.0):"}}),
            "The default of `alpha` is `1.702`. [1] The default of `limit` is `7.0`. [1]");
  // Later names are conditions: the first is what is asked about.
  EXPECT_THAT(lead("What is the default lora_int_id when lora_request is None?", "def f(lora_request: Optional[R] = None):\n    pass\n"),
              Not(HasSubstr("The default")));
}

TEST(Restatement, TurnsTheQuestionIntoWhatTheQuotesAnswerFor) {
  using extractive::restatement;
  // Each question and the line its answer opens with.
  const std::pair<std::string_view, std::string_view> leads[] = {
      {"How do I enable prefix caching?", "To enable prefix caching:"},
      {"How can you view Nsight Systems profiles in vLLM?", "To view Nsight Systems profiles in vLLM:"},
      {"how to run vLLM on a CPU", "To run vLLM on a CPU:"},
      {"How do I install vLLM.  ", "To install vLLM:"},
      {"What happens when the KV cache is full?", "When the KV cache is full:"},
      {"What is the minimum version of bitsandbytes?", "The minimum version of bitsandbytes:"},
      {"What's the default port?", "The default port:"},
      {"What\u2019s the default port?", "The default port:"},
      {"What HTTP endpoint is used to load a LoRA adapter?", "The HTTP endpoint that is used to load a LoRA adapter:"},
      {"Which flag is typically required for tool calling?", "The flag that is typically required for tool calling:"},
      {"What command can be used to evaluate accuracy?", "The command that can be used to evaluate accuracy:"},
      {"What method does the LLM class provide for embeddings?", "The method the LLM class provides for embeddings:"},
      {"What backends do the kernels support?", "The backends the kernels support:"},
      {"How many bytes are allocated for the internal field?",
       "The number of bytes that are allocated for the internal field:"},
      {"How does vLLM handle sharding?", "How vLLM handles sharding:"},
      {"How does the log level affect speed?", "How the log level affects speed:"},
      {"How does it work?", "How it works:"},
      {"Why does vLLM use most of the GPU memory?", "Why vLLM uses most of the GPU memory:"},
      {"Why do I get an OOM error?", "Why I get an OOM error:"},
      {"How is the output pointer calculated in the kernel?", "How the output pointer is calculated in the kernel:"},
      {"How is the seed used?", "How the seed is used:"},
      {"How many of the GPUs are used?", "The number of the GPUs that are used:"},
      {"Which memory limits apply to the cache?", "The memory limits that apply to the cache:"},
      {"What is the default port the server listens on?", "The default port the server listens on:"},
      {"how does vllm use cuda graphs", "How vllm uses cuda graphs:"},
      {"what happens when the cache is full", "when the cache is full:"},
      {"Where can I find the parameters of the Helm chart?", "Where to find the parameters of the Helm chart:"},
      {"Which flag do I need to set for LoRA?", "The flag I need to set for LoRA:"},
      {"What parameter should I set?", "The parameter I should set:"},
      {"What GPUs have support for FP8?", "The GPUs that have support for FP8:"},
      {"Which models support the process_vision_info function?",
       "The models that support the process_vision_info function:"},
      {"What command starts the server?", "The command that starts the server:"},
      {"What memory reduction can FP8 quantization achieve?", "The memory reduction FP8 quantization can achieve:"},
      {"What should you do when a build fails?", "When a build fails:"},
      {"What does the usage property return?", "What the usage property returns:"},
      {"What does the function return when the flag is set?", "What the function returns when the flag is set:"},
      {"What does top_p control in SamplingParams?", "What top_p controls in SamplingParams:"},
      {"What does vLLM use for named function calling?", "What vLLM uses for named function calling:"},
      {"What are all the registered connector names?", "All the registered connector names:"},
      {"What are some of the test model names used in tests?", "Some of the test model names used in tests:"},
      {"What are the three key abstractions used for disaggregated prefilling?",
       "The three key abstractions used for disaggregated prefilling:"},
      {"What interface should a multimodal model class inherit from?",
       "The interface a multimodal model class should inherit from:"},
      {"How should security issues be reported?", "How security issues should be reported:"},
      {"What condition prevents tensors from being moved?", "The condition that prevents tensors from being moved:"},
      {"How does the block manager allocate blocks?", "How the block manager allocates blocks:"},
      {"What is the primary interface for doing offline inference?",
       "The primary interface for doing offline inference:"},
  };
  for (const auto& [question, lead] : leads) EXPECT_EQ(restatement(question), lead) << question;
  // Shapes whose answer would not read as a sentence are left alone: the thing asked for is the
  // object of a passive ("is vLLM served on"), a concept ("What is a block?"), what a thing is
  // for, a yes/no question, a message of several lines or questions.
  for (const std::string_view question :
       {"What port is vLLM served on?", "What is a block?", "What is PagedAttention?",
        "What is the tensor_parallel_size parameter used for?", "What does it return?", "What does I return?",
        "Why does vLLM shard and quantize weights early?", "What are all of them?", "What are all the?",
        "What does vLLM do to reduce memory?", "What does the model output look like?", "What does X support and return?",
        "How does vLLM allocate and free blocks?", "What is the scheduler used for exactly?",
        "What is the port used for when serving?",
        "What are the ports used for?", "What does the engine not return?",
        "Does vLLM support LoRA?", "Why is the cache full?", "Why does it crash?", "How do I", "How do I run it?\nAnd stop it?",
        "How do I run it? And stop it?", "Where is the Scheduler implemented?", "What determines the batch size?",
        "What reduction does AWQ achieve and what are its benefits?",
        // Words after "what" that are not what is asked for; a hanging preposition; a turn the
        // rules do not read (negation, "did", "have"); two questions joined by "and"/"or"/";".
        "What else can be configured?", "What exactly is required to run on TPU?", "What if I set max_num_seqs to 1?",
        "What is the seed parameter for?", "What is the timeout set to?", "What is the scheduler doing when idle?",
        "Which GPUs don't support FP8?", "Which version did they add LoRA in?", "What features does V1 not support?",
        "What value should max_num_seqs be set to?", "What is the timeout set to in the config?", "How do they compare?",
        "How could I have avoided the OOM?", "How are you supposed to set the chat template?",
        "How is vLLM's throughput compared to TGI?", "Where can I find out whether my GPU is supported?",
        "Where can I get the model weights from?", "What is the default dtype, and can I change it?",
        "How do I enable prefix caching; does it work with LoRA?", "What is the max length or is it computed?",
        "What GPUs cannot run FP8?", "Which models do not support FP8?", "How are requests never preempted?",
        "Why do I not see any logs?", "How is the cache not evicted?", "What GPUs can not run FP8?",
        // Too short to turn around (and no word read past the question's end).
        "How can you?", "How do you", "Why do I?", "What happens when?"})
    EXPECT_EQ(restatement(question), "") << question;
}

TEST(ExtractiveGenerator, AnEnglishAnswerOpensWithTheQuestionRestated) {
  const auto answer = [](const std::string& question, const std::string& text, const std::string& yaml = "~",
                         const std::string& language = "en") {
    GenerationRequest r = ask(question, {source(1, "markdown", text)});
    r.language = language;
    return make(yaml)->generate(r);
  };
  EXPECT_EQ(answer("How do I enable prefix caching?", "Set `enable_apc=True` in the engine."),
            "To enable prefix caching:\n\nSet `enable_apc=True` in the engine. [1]");
  // Not when the first quote says every word of it, nor when asked not to.
  EXPECT_EQ(answer("How do I enable prefix caching?", "To enable prefix caching, set `enable_prefix_caching=True`."),
            "To enable prefix caching, set `enable_prefix_caching=True`. [1]");
  EXPECT_EQ(answer("How do I enable prefix caching?", "Set `enable_apc=True` in the engine.", "{restate: false}"),
            "Set `enable_apc=True` in the engine. [1]");
  // A question in another language: its note on English sources opens the answer, not English.
  EXPECT_THAT(answer("How do I enable prefix caching?", "Set `enable_apc=True` in the engine.", "~", "fr"),
              Not(HasSubstr("To enable")));
}

TEST(ExtractiveGenerator, AWhereQuestionNamesThePlace) {
  Evidence e = source(1, "python", "class Scheduler:\n    \"\"\"Schedules requests.\"\"\"\n");
  e.section = "vllm.v1.core.sched.scheduler.Scheduler";
  e.file_path = "vllm/v1/core/sched/scheduler.py";
  e.first_line = 10;
  e.last_line = 40;
  EXPECT_THAT(make()->generate(ask("Where is the Scheduler implemented?", {e})),
              ::testing::StartsWith("`vllm.v1.core.sched.scheduler.Scheduler` is in `vllm/v1/core/sched/scheduler.py`, "
                                    "lines 10-40. [1]"));
  // Named as the repository names it, not as results name it below the corpus folder.
  e.file_path = "data/raw/vllm-0.10.1/vllm/v1/core/sched/scheduler.py";
  e.place = "vllm/v1/core/sched/scheduler.py";
  EXPECT_THAT(make()->generate(ask("Where is the Scheduler implemented?", {e})),
              ::testing::StartsWith("`vllm.v1.core.sched.scheduler.Scheduler` is in `vllm/v1/core/sched/scheduler.py`, "));
}

TEST(ExtractiveGenerator, CodeNeverOpensTheAnswerBareAndBlocksClose) {
  Evidence e = source(1, "python", "def serve():\n    run_server(port=8000,\n               host=HOST)\n");
  e.section = "vllm.entrypoints.cli.serve";
  const std::string answer = make()->generate(ask("How do I run_server on a port?", {e}));
  EXPECT_THAT(answer, ::testing::StartsWith("In `serve` [1]:\n```\n"));
  EXPECT_EQ(std::count(answer.begin(), answer.end(), '`') % 2, 0);

  // Code that holds a fence line of its own gets a longer fence, which it cannot close; code with
  // backticks never reads inline; prose that starts like a fence is escaped. (Found by
  // fuzz/extractive_fuzzer.cpp.)
  const GenerationRequest fenced =
      ask("What are the serve EXAMPLES?", {source(1, "python", "EXAMPLES = [\n```\nvllm serve m\n```\n]\n")});
  EXPECT_EQ(make()->generate(fenced), "In `1` [1]:\n````\nEXAMPLES = [\n```\nvllm serve m\n```\n]\n````");
  const GenerationRequest backticks = ask("What does the serve flag do?", {source(1, "markdown", "The serve flag:\n\n```\n`serve` flag\n```\n")});
  EXPECT_THAT(make()->generate(backticks), Not(HasSubstr("``serve`")));
  const GenerationRequest docstring =
      ask("How is the example served?", {source(1, "python", "def f():\n    \"\"\"```the example is served```\"\"\"\n")});
  EXPECT_THAT(make()->generate(docstring), HasSubstr("\\```the example is served```"));
}

TEST(ExtractiveGenerator, APassageThatStartsInCodeReadsItsProseAsProse) {
  // Cut from the middle of a code block: its first fence closes it.
  Evidence e = source(1, "text", "vllm serve model\n```\n\nMore details on the API server are in its document.");
  e.starts_in_code = true;
  EXPECT_EQ(make("{max_units: 1}")->generate(ask("Where are more details on the API server?", {e})),
            "More details on the API server are in its document. [1]");
}

TEST(ExtractiveGenerator, ReadsTheSectionAroundAStrongSource) {
  GenerationRequest r = ask("What does swap_space control?",
                            {source(1, "python", "    swap_space: float = 4\n")});
  Evidence parent = source(1, "python",
                           "class CacheConfig:\n    swap_space: float = 4\n    \"\"\"Size of the CPU swap space per GPU, in GiB.\"\"\"\n");
  r.parents.push_back(parent);
  EXPECT_THAT(make()->generate(r), HasSubstr("Size of the CPU swap space per GPU, in GiB. [1]"));
}

TEST(ExtractiveGenerator, MatchesTheTranslatedQueryAndSaysTheQuotesAreEnglish) {
  GenerationRequest r = ask("Как запустить сервер?", {source(1, "markdown", "Start the server with `vllm serve`.")});
  r.language = "ru";
  r.query = "how start run server";
  EXPECT_EQ(make()->generate(r), std::string(english_sources_note("ru")) + "\n\nStart the server with `vllm serve`. [1]");
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

TEST(ExtractiveGenerator, PrefersTheSentenceHoldingWhatTheQuestionWordAsksFor) {
  // Both sentences share the question's words; one holds the number "how much" asks for, the
  // other the variable "which environment variable" asks for.
  const auto generator = make("{max_units: 1}");
  const std::vector<Evidence> share = {source(1, "markdown",
                                              "HPU Graphs reserve memory for capture on Gaudi devices.\n\n"
                                              "By default 0.1 of the memory is reserved for graph capture.\n")};
  EXPECT_THAT(generator->generate(ask("How much memory is reserved for HPU graph capture?", share)), HasSubstr("0.1"));
  const std::vector<Evidence> variable = {source(1, "markdown",
                                                 "HPU Graphs reserve memory on Gaudi devices.\n\n"
                                                 "Set VLLM_GRAPH_RESERVED_MEM to reserve memory for graph capture.\n")};
  EXPECT_THAT(generator->generate(ask("Which environment variable reserves memory for HPU graph capture?", variable)),
              HasSubstr("VLLM_GRAPH_RESERVED_MEM"));
  // A question that asks for no such thing keeps the better-matching sentence.
  EXPECT_THAT(generator->generate(ask("Do HPU graphs reserve memory for capture on Gaudi devices?", share)),
              Not(HasSubstr("0.1")));
  // A model's name and version are no quantity.
  const std::vector<Evidence> model = {source(1, "markdown",
                                              "Llama-3.1-8B serves requests on GPUs.\n\n"
                                              "Serving needs 2 GPUs.\n")};
  EXPECT_THAT(generator->generate(ask("How many GPUs does serving Llama-3.1-8B need?", model)), HasSubstr("needs 2"));
}

TEST(ExtractiveGenerator, AHowToSentenceThatAnnouncesCodeInWordsBringsIt) {
  // No ':' announces the block, and a sentence of the paragraph comes between; the sentence
  // names code itself, so no rule looks for a command elsewhere.
  const std::vector<Evidence> page = {source(1, "markdown",
                                             "The following command serves `my-model` with data parallelism on eight GPUs. "
                                             "It needs a node with eight GPUs.\n\n"
                                             "```bash\nvllm serve m -dp 8\n```\n")};
  EXPECT_THAT(make()->generate(ask("How do I serve a model with data parallelism?", page)),
              HasSubstr("vllm serve m -dp 8"));
  // Another kind of question quotes the sentence alone.
  EXPECT_THAT(make()->generate(ask("Why serve a model with data parallelism?", page)), Not(HasSubstr("vllm serve")));
}

TEST(ExtractiveGenerator, TheCodeASentenceAnnouncesComesWholePastMaxChars) {
  // "Then ... run vLLM:" says nothing without the command, the block's last statement.
  const std::vector<Evidence> page = {source(1, "markdown",
                                             "Then set the service name for tracing and run the server:\n\n"
                                             "```bash\nexport OTEL_SERVICE_NAME=\"vllm-server\"\n"
                                             "export OTEL_EXPORTER_OTLP_TRACES_INSECURE=true\n"
                                             "vllm serve my-model --otlp-traces-endpoint=\"$ENDPOINT\"\n```\n")};
  EXPECT_THAT(make("{max_chars: 120}")->generate(ask("How do I run the server with tracing?", page)),
              HasSubstr("vllm serve my-model --otlp-traces-endpoint"));
}

TEST(ExtractiveGenerator, ASentenceWithoutAStopRightBeforeCodeAnnouncesIt) {
  // "To install X, run" then the command: the sentence says nothing without it, as after a ':'.
  const std::vector<Evidence> page = {source(1, "markdown",
                                             "LlamaIndex is a data framework.\n\nTo install the LlamaIndex client package, run\n\n"
                                             "```bash\npip install lix-vllm\n```\n")};
  EXPECT_THAT(make()->generate(ask("Which package holds the LlamaIndex client?", page)),
              HasSubstr("pip install lix-vllm"));
  // A sentence with its stop, or a heading between, announces nothing.
  const std::vector<Evidence> stopped = {source(1, "markdown",
                                                "LlamaIndex is a data framework.\n\nThe LlamaIndex client package is separate.\n\n"
                                                "```bash\npip install lix-vllm\n```\n")};
  EXPECT_THAT(make()->generate(ask("Which package holds the LlamaIndex client?", stopped)), Not(HasSubstr("pip install")));
  const std::vector<Evidence> headed = {source(1, "markdown",
                                               "The LlamaIndex client package is on PyPI\n\n## Other\n\n"
                                               "```bash\npip install something-else\n```\n")};
  EXPECT_THAT(make()->generate(ask("Which package holds the LlamaIndex client?", headed)), Not(HasSubstr("pip install")));
  // A link or emphasis at its end is no stop.
  const std::vector<Evidence> linked = {source(1, "markdown",
                                               "LlamaIndex is a data framework.\n\nThe LlamaIndex client package comes from "
                                               "[PyPI](https://pypi.org)\n\n```bash\npip install lix-vllm\n```\n")};
  EXPECT_THAT(make()->generate(ask("Which package holds the LlamaIndex client?", linked)), HasSubstr("pip install lix-vllm"));
}

TEST(ExtractiveGenerator, APagesBestSentenceLongerThanMaxCharsIsQuotedCut) {
  const std::string long_sentence =
      "The unified scheduler treats prompt and output tokens the same way, giving each request a token budget, "
      "which it spends on prefill chunks or decoding steps alike, so that chunked prefill, prefix caching and "
      "speculative decoding share one loop without a separate phase for each of them.";
  const auto answer = [](const std::string& question, const std::string& text) {
    return make("{max_chars: 160, restate: false}")->generate(ask(question, {source(1, "markdown", text)}));
  };
  const std::string cut = answer("What budget does the unified scheduler give requests for their tokens?",
                                 long_sentence + "\n\nTokens are counted.\n");
  EXPECT_THAT(cut, HasSubstr("The unified scheduler treats prompt and output tokens"));
  EXPECT_THAT(cut, Not(HasSubstr("separate phase")));
  // Not when what it says of the question would be cut away.
  EXPECT_THAT(answer("Does speculative decoding need a separate phase for each of them?",
                     long_sentence + "\n\nSpeculative decoding runs in the loop.\n"),
              StartsWith("Speculative decoding runs in the loop."));
  // Nor code: a line of a script cut mid-way reads wrong.
  const std::vector<Evidence> script = {source(1, "text",
                                               "echo unified scheduler budget tokens for every request of the batch and the "
                                               "prefill chunks and the decoding steps of the loop that runs the scheduler, "
                                               "one request at a time, for each of the steps it takes\n\n"
                                               "The scheduler gives each request a budget.\n")};
  EXPECT_THAT(make("{max_chars: 160, restate: false}")
                  ->generate(ask("What budget does the unified scheduler give requests for their tokens?", script)),
              Not(HasSubstr("echo")));
  // A cut never leaves inline code open.
  EXPECT_EQ(extractive::shorten("Run `vllm serve my-model --port 8000` to start it", 22, false), "Run …");
}

TEST(ExtractiveGenerator, ASentenceThatSaysWhatItsPageIsAboutStatesNothing) {
  const std::vector<Evidence> page = {source(1, "markdown",
                                             "This page provides instructions on running vLLM with Intel Gaudi devices.\n\n"
                                             "Running vLLM with Intel Gaudi devices needs Ubuntu 22.04 and Python 3.10.\n")};
  EXPECT_THAT(make("{max_units: 1, restate: false}")
                  ->generate(ask("What are the requirements for running vLLM with Intel Gaudi devices?", page)),
              StartsWith("Running vLLM with Intel Gaudi devices needs Ubuntu 22.04"));
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
