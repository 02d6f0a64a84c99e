// Runs the real `rag` binary's answer commands on the fixture repository: `answer`,
// `answer_dataset`, `evaluate_answers`, with the offline generator and with an Ollama server
// started by the test, and the errors users get.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "generators/chat_server.hpp"
#include "e2e/fixture_repo_test.hpp"
#include "rag/context.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

using testing::Outcome;

constexpr const char* kAnswered = R"({"rag_questions": [
  {"question_id": "q1", "question": "Which flag loads AWQ quantized checkpoints?",
   "answer": "Quantized checkpoints load with the --quantization awq flag.",
   "sources": [{"file_path": "repo/docs/guide.md", "first_character_index": 200, "last_character_index": 300}]},
  {"question_id": "q2", "question": "How is the TCP port number parsed?",
   "answer": "parse_port converts the value to an int and checks it lies between 0 and 65536.",
   "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 85, "last_character_index": 300}]}]})";

class AnswerCliTest : public testing::FixtureRepoTest {
 protected:
  void SetUp() override {
    FixtureRepoTest::SetUp();
    dir_.write("answered.json", kAnswered);
    index();
  }
};

TEST_F(AnswerCliTest, AnswerPrintsTheAnswerItsSourcesAndTimings) {
  const Outcome r = rag("answer 'Which flag loads AWQ quantized checkpoints?' --pipeline pipeline.yaml --k 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["query"], "Which flag loads AWQ quantized checkpoints?");
  EXPECT_THAT(out["answer"].get<std::string>(), HasSubstr("--quantization awq"));
  EXPECT_THAT(out["answer"].get<std::string>(), HasSubstr("[1]"));
  EXPECT_EQ(out["language"], "en");
  const json& top = out["sources"][0];
  EXPECT_EQ(top["number"], 1);
  EXPECT_EQ(top["file_path"], "repo/docs/guide.md");
  EXPECT_EQ(top["cited"], true);
  EXPECT_THAT(top["text"].get<std::string>(), HasSubstr("Quantized checkpoints load"));
  EXPECT_LT(top["first_character_index"].get<std::size_t>(), top["last_character_index"].get<std::size_t>());
  EXPECT_TRUE(top.contains("score"));
  EXPECT_EQ(out["generator"]["plugin"], "extractive");
  for (const char* t : {"retrieval_ms", "context_ms", "generation_ms", "total_ms"}) EXPECT_TRUE(out["timings"].contains(t)) << t;
}

TEST_F(AnswerCliTest, AQuestionTheSourcesDoNotAnswerIsDeclinedCitingNothing) {
  const Outcome r = rag("answer 'Who painted the Sistine Chapel ceiling?' --pipeline pipeline.yaml --k 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["answered"], false);
  EXPECT_EQ(out["answer"], "The sources do not answer this question.");
  EXPECT_LT(out["support"].get<double>(), kDefaultMinSupport);
  for (const auto& s : out["sources"]) EXPECT_EQ(s["cited"], false);
  const Outcome text = rag("answer 'Who painted the Sistine Chapel ceiling?' --pipeline pipeline.yaml --format text");
  EXPECT_THAT(text.out, HasSubstr("The sources do not answer this question.\n\nClosest sources (none answers the question)"));
  // Asked in French, declined in French.
  const json fr = json::parse(rag("answer 'Qui a peint le plafond de la chapelle Sixtine ?' --pipeline pipeline.yaml").out);
  EXPECT_EQ(fr["answer"], "Les sources ne répondent pas à cette question.");
  // A test's input states nothing: a prompt that names the painter is no source for the answer
  // (kept among the closest sources), while the same text as a page of the project is.
  const std::string prompt = "Who painted the Sistine Chapel ceiling? Michelangelo painted the Sistine Chapel ceiling.\n";
  dir_.write("repo/tests/prompts/art.txt", prompt);
  index();
  const json from_prompt = json::parse(rag("answer 'Who painted the Sistine Chapel ceiling?' --pipeline pipeline.yaml").out);
  EXPECT_EQ(from_prompt["answered"], false);
  EXPECT_EQ(from_prompt["sources"][0]["file_path"], "repo/tests/prompts/art.txt");
  std::filesystem::remove(dir_ / "repo/tests/prompts/art.txt");
  dir_.write("repo/docs/art.txt", prompt);
  index();
  EXPECT_EQ(json::parse(rag("answer 'Who painted the Sistine Chapel ceiling?' --pipeline pipeline.yaml").out)["answered"], true);
  std::filesystem::remove(dir_ / "repo/docs/art.txt");
  // A price is an amount of money: sources that share the question's other words but state none
  // do not answer it.
  dir_.write("repo/docs/cloud.md", "# Cloud\n\nRun the server on an AWS p5 instance with eight H100 GPUs per hour of work.\n");
  index();
  const std::string price = "answer 'How much does an AWS p5 instance with eight H100 GPUs cost per hour?' --pipeline pipeline.yaml";
  EXPECT_EQ(json::parse(rag(price).out)["answered"], false);
  dir_.write("repo/docs/cloud.md", "# Cloud\n\nAn AWS p5 instance with eight H100 GPUs costs $98.32 per hour.\n");
  index();
  EXPECT_EQ(json::parse(rag(price).out)["answered"], true);
  std::filesystem::remove(dir_ / "repo/docs/cloud.md");
  // Words of one character alone name nothing to answer about, however many chunks hold them.
  dir_.write("repo/pkg/points.py", "def shift(x, y):\n    \"\"\"Shifts x by y: x is x plus y.\"\"\"\n    x = x + y\n    return x\n");
  index();
  for (const char* bare : {"x", "x?", "What is x?"}) {
    const json out_bare = json::parse(rag(std::string("answer '") + bare + "' --pipeline pipeline.yaml").out);
    EXPECT_EQ(out_bare["answered"], false) << bare;
  }
  // min_support 0 answers whatever the sources are.
  dir_.write("eager.yaml", std::string(testing::kFixturePipeline) + "context: {min_support: 0}\n");
  EXPECT_EQ(json::parse(rag("answer 'Which flag loads AWQ quantized checkpoints?' --pipeline eager.yaml").out)["answered"], true);
  const json supported = json::parse(rag("answer 'Which flag loads AWQ quantized checkpoints?' --pipeline pipeline.yaml").out);
  EXPECT_EQ(supported["answered"], true);
  EXPECT_GE(supported["support"].get<double>(), kDefaultMinSupport);
  // A long question's context ("I am tired of guessing ...") does not count against the sources
  // past the weight cap (10 here: the weight of the question's last clause in this small corpus,
  // whose words are rarer in the vLLM one); with no cap its words, which no source holds, weigh
  // the most.
  const std::string long_question =
      "'I have been trying for a whole afternoon and I am tired of guessing from forum threads and old blog "
      "posts: which flag loads AWQ quantized checkpoints?'";
  dir_.write("capped.yaml", std::string(testing::kFixturePipeline) + "context: {support_weight_cap: 10}\n");
  EXPECT_EQ(json::parse(rag("answer " + long_question + " --pipeline capped.yaml").out)["answered"], true);
  dir_.write("uncapped.yaml", std::string(testing::kFixturePipeline) + "context: {support_weight_cap: 0}\n");
  EXPECT_EQ(json::parse(rag("answer " + long_question + " --pipeline uncapped.yaml").out)["answered"], false);
}

TEST_F(AnswerCliTest, AnOptionOrVariableNoFileWritesIsDeclinedByName) {
  dir_.write("repo/docs/offload.md",
             "# Offloading\n\nOffload model layers to the GPU with `--gpu-memory-utilization`. Set VLLM_KEEP_ALIVE=1 to "
             "keep the server alive after the engine dies. The `--max-model-len` flag caps the context.\n");
  dir_.write("repo/pkg/limits.py",
             "def check(cpu_offload_gb):\n    \"\"\"Checks how many gigabytes the CPU offload takes.\"\"\"\n\n\n"
             "class Offload:\n    enable_offload: bool = True\n    \"\"\"Whether layers offload to the CPU.\"\"\"\n\n\n"
             "def run_on_gpu(layers):\n    \"\"\"Runs the layers on the GPU.\"\"\"\n");
  index();
  const auto ask = [&](const std::string& question) {
    const Outcome r = rag("answer '" + question + "' --pipeline pipeline.yaml");
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  };
  // Users copy an option or a variable exactly: one no file writes is another program's, whatever
  // words the sources share with the question. A name inside a longer one is not written
  // (on_gpu in run_on_gpu); a translated question's names are read as written.
  for (const auto& [question, said] : std::vector<std::pair<std::string, std::string>>{
           {"How many model layers does --n-gpu-layers offload to the GPU?",
            "The sources do not answer this question. No indexed file mentions `--n-gpu-layers`."},
           {"How do I set OLLAMA_KEEP_ALIVE to keep the server alive?",
            "The sources do not answer this question. No indexed file mentions `OLLAMA_KEEP_ALIVE`."},
           {"How do I set OLLAMA_KEEP_ALIVE and OLLAMA_HOST to keep the server alive?",
            "The sources do not answer this question. No indexed file mentions `OLLAMA_KEEP_ALIVE`, `OLLAMA_HOST`."},
           {"Which layers does --on-gpu run on the GPU?",
            "The sources do not answer this question. No indexed file mentions `--on-gpu`."},
           {"Comment définir la variable OLLAMA_KEEP_ALIVE ?",
            "Les sources ne répondent pas à cette question. Aucun fichier indexé ne mentionne `OLLAMA_KEEP_ALIVE`."}}) {
    const json out = ask(question);
    EXPECT_EQ(out["answered"], false) << question;
    EXPECT_EQ(out["answer"], said);
    for (const auto& source : out["sources"]) EXPECT_EQ(source["cited"], false) << question;
  }
  // Translation reads an option as a word ("n-gpu-layers"): its name is read as the user wrote it.
  dir_.write("translated.yaml", std::string(testing::kFixturePipeline) + "translation: {dictionaries: " + RAG_TEST_FIXTURES +
                                    "/dictd, languages: {fr: [tiny-fra-eng]}}\n");
  const Outcome fr = rag("answer 'Combien de couches --n-gpu-layers décharge-t-il sur le GPU ?' --pipeline translated.yaml");
  ASSERT_EQ(fr.status, 0) << fr.err;
  EXPECT_NE(json::parse(fr.out)["retrieval_query"].get<std::string>().find("n-gpu-layers"), std::string::npos);
  EXPECT_EQ(json::parse(fr.out)["answer"],
            "Les sources ne répondent pas à cette question. Aucun fichier indexé ne mentionne `--n-gpu-layers`.");
  // Written anywhere, in any case, as the field an option sets, or as the flag a --no- option
  // negates, they are the corpus's own.
  for (const char* question : {"How do I set VLLM_KEEP_ALIVE to keep the server alive?",
                               "How do I set vllm_keep_alive to keep the server alive?", "What does --max-model-len cap?",
                               "How much does --cpu-offload-gb offload to the CPU?", "What does --no-enable-offload do?"})
    EXPECT_EQ(ask(question)["answered"], true) << question;
  // A capitalised name reported rather than set is a message; a question that compares another
  // program's option with one the corpus writes, or asks for its equivalent, is the corpus's too.
  for (const char* question : {"I get CUDA_ERROR_OUT_OF_MEMORY when I offload model layers to the GPU. What now?",
                               "Does --cpu-offload-gb offload layers like --n-gpu-layers does?",
                               "What is the equivalent of --n-gpu-layers for offloading model layers to the GPU?"})
    EXPECT_THAT(ask(question)["answer"].get<std::string>(), Not(HasSubstr("No indexed file mentions"))) << question;
}

TEST_F(AnswerCliTest, EvaluateAnswersAgainstFacts) {
  dir_.write("facts.json", R"({"rag_questions": [
    {"question_id": "awq", "question": "Which flag loads AWQ quantized checkpoints?", "kind": "options", "language": "en",
     "facts": [["--quantization awq"]]},
    {"question_id": "port", "question": "How is the TCP port number parsed?", "kind": "how-to", "language": "en",
     "facts": [["no such phrase in any answer"]]},
    {"question_id": "art", "question": "Who painted the Sistine Chapel ceiling?", "kind": "out-of-scope", "language": "en",
     "answerable": false}]})");
  ASSERT_EQ(rag("answer_dataset --dataset_path facts.json --save_directory answers --pipeline pipeline.yaml").status, 0);
  const Outcome r = rag("evaluate_answers answers/facts.json --facts facts.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("accepted: 2 of 3 (66.7%); questions the sources cannot answer that were cited: 0"));
  EXPECT_THAT(r.out, HasSubstr("miss port: How is the TCP port number parsed?\n  lacks: \"no such phrase in any answer\""));
  // From a pipe (read once: it cannot be read again).
  const Outcome piped = rag("evaluate_answers /dev/stdin --facts facts.json", "cat answers/facts.json |");
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_THAT(piped.out, HasSubstr("accepted: 2 of 3 (66.7%)"));
  const Outcome piped_facts = rag("evaluate_answers answers/facts.json --facts /dev/stdin", "cat facts.json |");
  ASSERT_EQ(piped_facts.status, 0) << piped_facts.err;
  EXPECT_THAT(piped_facts.out, HasSubstr("accepted: 2 of 3 (66.7%)"));
  const json figures = json::parse(rag("evaluate_answers answers/facts.json --facts facts.json --json").out);
  EXPECT_EQ(figures["accepted"], 2);
  EXPECT_EQ(figures["by_kind"]["out-of-scope"]["accepted"], 1);
  EXPECT_EQ(figures["misses"].size(), 1u);
  expect_error("evaluate_answers answers/facts.json --facts nowhere.json", "nowhere.json: facts file not found");
  dir_.write("broken.json", "{\"rag_questions\": [");
  expect_error("evaluate_answers answers/facts.json --facts broken.json", "broken.json: not valid JSON");
  expect_error("evaluate_answers answers/facts.json answered.json --facts facts.json", "with --facts, give the answers file alone");
  dir_.write("other.json", R"({"rag_questions": [{"question_id": "zz", "question": "q", "kind": "k", "language": "en", "facts": [["x"]]}]})");
  expect_error("evaluate_answers answers/facts.json --facts other.json", "which the facts file does not have");
}

// "Where is X defined?", "the default of X", "what does x_y mean": the definition is looked up
// and comes first among the sources, while the places that use the name rank first in search.
TEST_F(AnswerCliTest, DefinitionsAskedForComeFirstAmongTheSources) {
  dir_.write("repo/pkg/cache.py", R"(from dataclasses import dataclass


@dataclass
class CacheConfig:
    """Configuration of the KV cache blocks."""

    block_size: int = 16
    """Size of a cache block, in tokens."""
    swap_space: float = 4
    """Size of the CPU swap space per GPU, in GiB."""
)");
  dir_.write("repo/pkg/planner.py", R"(def plan_swap(swap_space, cache_config):
    """Plans the swap space: swap_space from the cache config, swap_space doubled."""
    swap_space = cache_config.swap_space * 2  # the swap_space of the CacheConfig, doubled
    return swap_space


def describe_cache(CacheConfig):
    """Describes a CacheConfig: CacheConfig block size and CacheConfig swap space."""
    return str(CacheConfig)
)");
  dir_.write("repo/tests/test_cache.py", "def test_swap():\n    swap_space: float = 8\n    assert swap_space\n");
  // A documented field with no static default, and a method whose parameter has one.
  dir_.write("repo/pkg/runner.py", R"(class Runner:
    def _dummy_run(self,
                   max_num_seqs: int = 1) -> None:
        """A dummy run of max_num_seqs sequences: max_num_seqs requests of max_num_seqs tokens."""
        return max_num_seqs
)");
  dir_.write("repo/pkg/scheduler.py", R"(@dataclass
class SchedulerConfig:
    max_num_seqs: int = None
    """Maximum number of sequences per step; no static default: set from the usage context
    (the engine's arguments choose it for a server, another for offline inference, and the
    number of blocks of the cache bounds it in either case; see the engine's documentation)."""
)");
  dir_.write("repo/pkg/block_allocator.py", "def take(free):\n    \"\"\"Takes a free block.\"\"\"\n    return free.pop()\n");
  dir_.write("repo/pkg/engine.py", "def step(blocks):\n    \"\"\"The block allocator gives blocks; the allocator of "
                                   "blocks is asked for a block.\"\"\"\n    return blocks\n");
  index();
  const auto first_source = [&](const std::string& question) {
    // Support is another matter (rag/support.hpp): a corpus of a few chunks supports little.
    const Outcome r = rag("answer '" + question + "' --pipeline pipeline.yaml --k 3 --set context.min_support=0");
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  };
  const json where = first_source("Where is CacheConfig defined?");
  ASSERT_FALSE(where["sources"].empty());
  EXPECT_EQ(where["sources"][0]["file_path"], "repo/pkg/cache.py");
  // The answer names the file below the corpus folder (repo/), as the repository does.
  EXPECT_THAT(where["answer"].get<std::string>(), ::testing::StartsWith("`pkg.cache` is in `pkg/cache.py`, lines "));
  const json fallback = first_source("What is the default swap_space?");
  EXPECT_EQ(fallback["sources"][0]["file_path"], "repo/pkg/cache.py");
  EXPECT_THAT(fallback["answer"].get<std::string>(), HasSubstr("swap_space: float = 4"));
  const json documented = first_source("What is the default value of max_num_seqs?");
  EXPECT_EQ(documented["sources"][0]["file_path"], "repo/pkg/scheduler.py");
  EXPECT_THAT(documented["answer"].get<std::string>(), HasSubstr("no static default"));
  const json meaning = first_source("What does swap_space mean?");
  EXPECT_THAT(meaning["answer"].get<std::string>(), HasSubstr("CPU swap space per GPU"));
  // Search itself is not changed: the uses rank first there.
  const json search = json::parse(rag("search 'Where is CacheConfig defined?' --pipeline pipeline.yaml --k 1").out);
  EXPECT_EQ(search["retrieved_chunks"][0]["file_path"], "repo/pkg/planner.py");
  // The definition found by name answers the question, however little support its other words give.
  const json plain = json::parse(rag("answer 'Where is CacheConfig defined?' --pipeline pipeline.yaml --k 3").out);
  EXPECT_EQ(plain["answered"], true);
  EXPECT_LT(plain["support"].get<double>(), 0.36);
  // No name written as code: the file named by the question's words.
  const json named = first_source("Where is the block allocator implemented?");
  ASSERT_FALSE(named["sources"].empty());
  EXPECT_EQ(named["sources"][0]["file_path"], "repo/pkg/block_allocator.py");
  EXPECT_EQ(json::parse(rag("search 'Where is the block allocator implemented?' --pipeline pipeline.yaml --k 1").out)
                ["retrieved_chunks"][0]["file_path"],
            "repo/pkg/engine.py");
  // Asked for a class, the one of that file named by a word of the question its path lacks.
  dir_.write("repo/pkg/request_queue.py",
             "\"\"\"Queues of waiting requests.\"\"\"\nimport heapq\n\n\nclass FcfsRequestQueue:\n    \"\"\"Requests in order of "
             "arrival: the first come is the first served, whatever else the request says about itself, its size, "
             "its deadline or its client.\"\"\"\n\n    def pop(self):\n        return self.items.pop(0)\n\n\n"
             "class PriorityRequestQueue:\n    \"\"\"Requests by their priority: a lower value is served earlier, and "
             "the time of arrival decides between requests of the same value.\"\"\"\n\n    def pop(self):\n"
             "        return heapq.heappop(self.heap)\n");
  index();
  const json named_class = first_source("Where is the request queue class that orders by priority?");
  EXPECT_THAT(named_class["answer"].get<std::string>(),
              ::testing::StartsWith("`pkg.request_queue.PriorityRequestQueue` is in `pkg/request_queue.py`, lines "));
  // A class whose chunks are its methods' is found through them: its first member.
  std::string methods;
  for (const std::string name : {"push", "pop"})
    methods += "\n    def " + name + "(self, request):\n        \"\"\"" + std::string(300, 'x') + "\"\"\"\n        return request\n";
  dir_.write("repo/pkg/request_queue.py", "\"\"\"Queues of waiting requests.\"\"\"\nimport heapq\n\n\nclass DeadlineRequestQueue:" + methods);
  index();
  EXPECT_THAT(first_source("Where is the request queue class ordered by deadline?")["answer"].get<std::string>(),
              ::testing::StartsWith("`pkg.request_queue.DeadlineRequestQueue.push` is in `pkg/request_queue.py`, lines "));
  // Which values a setting takes: the type that lists them, whose name's words the question holds.
  dir_.write("repo/pkg/eviction.py", "from typing import Literal\n\nEvictionMode = Literal[\"lru\", \"fifo\", \"random\"]\n\n\n"
                                     "def evict(blocks, mode):\n    \"\"\"Evicts blocks by the eviction mode of the cache: the "
                                     "mode decides, the eviction mode names it.\"\"\"\n    return blocks[:1]\n");
  dir_.write("repo/docs/eviction.md", "# Eviction modes\n\nEviction modes are there to free blocks. Which eviction "
                                      "modes suit a cache depends on its eviction modes' cost.\n");
  index();
  const json listed = first_source("Which eviction modes are there?");
  ASSERT_FALSE(listed["sources"].empty());
  EXPECT_EQ(listed["sources"][0]["file_path"], "repo/pkg/eviction.py");
  EXPECT_THAT(listed["answer"].get<std::string>(), HasSubstr("EvictionMode = Literal[\"lru\", \"fifo\", \"random\"]"));
  // Not a type whose name has a word the question lacks or a one-letter word ("model types" is
  // not ModelDType), one declared in a test, or one whose values go on over several lines.
  dir_.write("repo/pkg/dtypes.py", "from typing import Literal\n\nModelDType = Literal[\"auto\", \"half\"]\n\n\n"
                                   "def pick(model):\n    \"\"\"Picks the model types: model types are read from the model.\"\"\"\n"
                                   "    return model\n");
  dir_.write("repo/tests/test_kinds.py", "from typing import Literal\n\nQueueKind = Literal[\"a\", \"b\"]\n");
  dir_.write("repo/pkg/formats.py", "from typing import Literal\n\nSaveFormat = Literal[\n    \"json\",\n    \"yaml\",\n]\n");
  // Pages that retrieval ranks first for each question, which no such type should displace.
  for (const std::string words : {"model types", "queue kinds", "save formats"})
    dir_.write("repo/docs/" + words.substr(0, words.find(' ')) + ".md",
               "# Which " + words + " there are\n\nThe " + words + " there are: " + words + " of every sort, " + words +
                   " are many, and " + words + " are listed here.\n");
  index();
  for (const std::string words : {"model types", "queue kinds", "save formats"})
    EXPECT_EQ(first_source("Which " + words + " are there?")["sources"][0]["file_path"],
              "repo/docs/" + words.substr(0, words.find(' ')) + ".md")
        << words;
  // Not asked for a class: the file.
  EXPECT_THAT(first_source("Where is the request queue by priority implemented?")["answer"].get<std::string>(),
              ::testing::StartsWith("`pkg.request_queue` is in `pkg/request_queue.py`, lines 1-"));
  // A field described in words, its abbreviations spelt out, is the field, while the words rank
  // a function that only says them first.
  dir_.write("repo/pkg/limits.py", "def clamp(n, limit):\n    \"\"\"Sets the maximum number of sequences: the number of sequences, "
                                   "at most the maximum number.\"\"\"\n    return min(n, limit)\n");
  index();
  EXPECT_EQ(json::parse(rag("search 'How do I set the maximum number of sequences?' --pipeline pipeline.yaml --k 1").out)
                ["retrieved_chunks"][0]["file_path"],
            "repo/pkg/limits.py");
  const json described = first_source("How do I set the maximum number of sequences?");
  EXPECT_EQ(described["sources"][0]["file_path"], "repo/pkg/scheduler.py");
  EXPECT_THAT(described["answer"].get<std::string>(), HasSubstr("max_num_seqs"));
  // A constant no class or function declares: where it is given a value.
  dir_.write("repo/pkg/settings.py", "CACHE_ROOT: str = \"~/.cache/pkg\"\n\n\ndef other():\n    return 1\n");
  dir_.write("repo/pkg/uses.py", "def clean(root):\n    \"\"\"Cleans CACHE_ROOT: CACHE_ROOT and what is below CACHE_ROOT.\"\"\"\n"
                                 "    return [root, CACHE_ROOT]\n");
  index();
  const json constant = first_source("Where is CACHE_ROOT defined?");
  ASSERT_FALSE(constant["sources"].empty());
  EXPECT_EQ(constant["sources"][0]["file_path"], "repo/pkg/settings.py");
  EXPECT_EQ(json::parse(rag("search 'Where is CACHE_ROOT defined?' --pipeline pipeline.yaml --k 1").out)
                ["retrieved_chunks"][0]["file_path"],
            "repo/pkg/uses.py");
  // A default question naming an environment variable by its words after VLLM_ (two words are
  // enough; a unit at the end aside) is answered by its declaration, stated first.
  dir_.write("repo/pkg/envs.py", "VLLM_RPC_TIMEOUT: int = 10000  # ms\nVLLM_API_KEY: str = \"\"\n");
  dir_.write("repo/pkg/client.py", "def call(socket):\n    \"\"\"Waits for the RPC server's reply: the RPC timeout, then fails.\"\"\"\n"
                                   "    return socket.poll(timeout=envs.VLLM_RPC_TIMEOUT)\n");
  index();
  const json variable = first_source("What is the default RPC timeout?");
  ASSERT_FALSE(variable["sources"].empty());
  EXPECT_EQ(variable["sources"][0]["file_path"], "repo/pkg/envs.py");
  EXPECT_THAT(variable["answer"].get<std::string>(), HasSubstr("The default of `VLLM_RPC_TIMEOUT` is `10000`"));
  // A dotted name says in which module or class: json.dumps is not plist's dumps, though plist's
  // ranks first for the bare name; Codec.dumps is the class's method.
  dir_.write("repo/plist/__init__.py", "def dumps(value):\n    \"\"\"Dumps a value: dumps dumps dumps.\"\"\"\n    return value\n");
  dir_.write("repo/json/__init__.py", "import codecs\n\n\ndef dumps(obj):\n    \"\"\"Serializes obj.\"\"\"\n    return str(obj)\n");
  dir_.write("repo/pkg/codec.py", "class Codec:\n    def dumps(self, obj):\n        \"\"\"Encodes obj.\"\"\"\n        return obj\n");
  index();
  EXPECT_EQ(first_source("Where is json.dumps implemented?")["sources"][0]["file_path"], "repo/json/__init__.py");
  EXPECT_EQ(first_source("Where is Codec.dumps implemented?")["sources"][0]["file_path"], "repo/pkg/codec.py");
  EXPECT_EQ(first_source("Where is plist.dumps implemented?")["sources"][0]["file_path"], "repo/plist/__init__.py");
  // A name nothing defines adds no source.
  const json none = first_source("Where is NoSuchThing defined?");
  for (const json& source : none["sources"]) EXPECT_NE(source["file_path"], "repo/pkg/cache.py");
}

// "What is X?" about an idea: the page or section titled with it comes first, its introduction
// with it when the title's own chunk is short, while pages that only use the words rank first in
// search.
TEST_F(AnswerCliTest, AnIdeaAskedAboutIsReadWhereAPageIsTitledWithIt) {
  dir_.write("repo/docs/features/prefix_caching.md",
             "# Automatic Prefix Caching\n\nThis page introduces the feature.\n\n## Introduction\n\n"
             "Automatic prefix caching reuses the KV blocks of a shared prompt prefix, so that a new request skips "
             "the prefill of the part it shares.\n");
  dir_.write("repo/docs/tuning.md",
             "# Tuning\n\n## Memory\n\nPrefix caching, prefix caching again: turn prefix caching off when prefix "
             "caching costs memory.\n");
  index();
  const auto answer = [&](const std::string& question) {
    const Outcome r = rag("answer '" + question + "' --pipeline pipeline.yaml --k 3 --set context.min_support=0");
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  };
  EXPECT_EQ(json::parse(rag("search 'What is prefix caching?' --pipeline pipeline.yaml --k 1").out)
                ["retrieved_chunks"][0]["file_path"],
            "repo/docs/tuning.md");
  const json idea = answer("What is prefix caching?");
  ASSERT_GE(idea["sources"].size(), 2u);
  EXPECT_EQ(idea["sources"][0]["file_path"], "repo/docs/features/prefix_caching.md");
  EXPECT_EQ(idea["sources"][0]["first_character_index"], 0);
  EXPECT_THAT(idea["answer"].get<std::string>(), HasSubstr("reuses the KV blocks"));
  // No page is titled with speculative decoding.
  const json none = answer("What is speculative decoding?");
  for (const json& source : none["sources"]) EXPECT_NE(source["file_path"], "repo/docs/features/prefix_caching.md");
}

TEST_F(AnswerCliTest, AnswerDatasetThenEvaluateAnswers) {
  ASSERT_EQ(rag("search_dataset --dataset_path answered.json --save_directory results --k 5 "
                             "--pipeline pipeline.yaml").status, 0);
  const Outcome answered = rag("answer_dataset --student_search_results_path results/answered.json "
                                            "--save_directory answers --pipeline pipeline.yaml");
  ASSERT_EQ(answered.status, 0) << answered.err;
  EXPECT_THAT(answered.err, HasSubstr("wrote answers/answered.json (2 answers by extractive"));
  const json results = json::parse(testing::read_all(dir_ / "results/answered.json"));
  const json answers = json::parse(testing::read_all(dir_ / "answers/answered.json"));
  EXPECT_EQ(answers["k"], 5);
  ASSERT_EQ(answers["search_results"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& a = answers["search_results"][i];
    EXPECT_EQ(a["retrieved_sources"], results["search_results"][i]["retrieved_sources"]);  // untouched
    EXPECT_FALSE(a["answer"].get<std::string>().empty());
    EXPECT_FALSE(a["cited_sources"].empty());
    for (const auto& cited : a["cited_sources"]) EXPECT_GE(cited["first_line"].get<int>(), 1);
    EXPECT_TRUE(a.contains("generation_ms"));
  }

  const Outcome scored = rag("evaluate_answers answers/answered.json answered.json --json --per_question per.json");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const json figures = json::parse(scored.out);
  EXPECT_EQ(figures["questions"], 2);
  EXPECT_EQ(figures["answered"], 2);
  EXPECT_GT(figures["rouge_l"]["mean"].get<double>(), 0.2);
  EXPECT_GT(figures["token_f1"]["mean"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(figures["cites_truth"].get<double>(), 1.0);
  EXPECT_EQ(json::parse(testing::read_all(dir_ / "per.json")).size(), 2u);
  const Outcome table = rag("evaluate_answers answers/answered.json answered.json");
  EXPECT_THAT(table.out, HasSubstr("ROUGE-L F1"));
  EXPECT_THAT(table.out, HasSubstr("cited sources include the ground truth: 1.0000"));

  // Straight from the questions, searching on the way.
  const Outcome direct = rag("answer_dataset --dataset_path answered.json --save_directory direct --k 3 "
                                          "--pipeline pipeline.yaml");
  ASSERT_EQ(direct.status, 0) << direct.err;
  const json from_questions = json::parse(testing::read_all(dir_ / "direct/answered.json"));
  EXPECT_EQ(from_questions["k"], 3);
  EXPECT_EQ(from_questions["search_results"][1]["question_str"], "How is the TCP port number parsed?");
  EXPECT_LE(from_questions["search_results"][1]["retrieved_sources"].size(), 3u);
  EXPECT_EQ(rag("evaluate direct/answered.json answered.json").status, 0);  // still a results file
}

TEST_F(AnswerCliTest, OllamaAnswersThroughThePipeline) {
  testing::ChatServer server("/api/chat", [](const httplib::Request& request, httplib::Response& response) {
    const json body = json::parse(request.body);
    const std::string user = body["messages"][1]["content"];
    const bool grounded = user.find("[1] repo/docs/guide.md") != std::string::npos &&
                          user.find("Question: Welche Option lädt AWQ-Checkpoints?") != std::string::npos &&
                          body["messages"][0]["content"].get<std::string>().find("German") != std::string::npos;
    response.set_content(json({{"message", {{"role", "assistant"}, {"content", grounded ? "Mit --quantization awq [1]." : "?"}}},
                               {"done", true}}).dump(),
                         "application/json");
  });
  dir_.write("ollama.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: ollama, options: {base_url: '" + server.url() +
                                "', timeout: 10}}\ncontext: {budget: 2000, parents: {sources: 1}}\n");
  const Outcome r = rag("answer 'Welche Option lädt AWQ-Checkpoints?' --pipeline ollama.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["answer"], "Mit --quantization awq [1].");
  EXPECT_EQ(out["language"], "de");
  EXPECT_EQ(out["generator"]["description"], "ollama qwen3:0.6b at " + server.url());
  EXPECT_EQ(server.bodies().size(), 1u);
}

// The openai generator's errors are thrown inside its library, which is unloaded before the
// program ends: they used to end in SIGSEGV after the error was printed.
TEST_F(AnswerCliTest, OpenAiServerErrorsEndCleanly) {
  testing::ChatServer server("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
    response.status = 404;
    response.set_content(R"({"error": {"message": "The model `x` does not exist."}})", "application/json");
  });
  const std::string closed = "http://127.0.0.1:" + std::to_string(testing::closed_port()) + "/v1";
  for (const std::string stream : {"false", "true"}) {
    dir_.write("offline.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: openai, options: {model: x, base_url: '" +
                                   closed + "', stream: " + stream + "}}\n");
    dir_.write("missing.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: openai, options: {model: x, base_url: '" +
                                   server.url() + "/v1', stream: " + stream + "}}\n");
    EXPECT_EQ(expect_error("answer 'How is the TCP port number parsed?' --pipeline offline.yaml", "cannot reach the OpenAI-compatible server").status, 1);
    EXPECT_EQ(expect_error("answer 'How is the TCP port number parsed?' --pipeline missing.yaml", "does not serve the model 'x'").status, 1);
    EXPECT_EQ(expect_error("answer_dataset --dataset_path answered.json --save_directory out --pipeline offline.yaml",
                           "cannot reach the OpenAI-compatible server").status, 1);
  }
}

// A question the model server fails on costs that question, not the run: the others' answers
// are written, the failed one with its error, and the exit status says so.
TEST_F(AnswerCliTest, AFailedQuestionDoesNotLoseTheOthers) {
  std::atomic<int> requests = 0;
  testing::ChatServer server("/v1/chat/completions", [&requests](const httplib::Request&, httplib::Response& response) {
    if (requests++ % 2 == 1) {
      response.status = 500;
      response.set_content(R"({"error": {"message": "flaky failure"}})", "application/json");
      return;
    }
    response.set_content(R"({"choices": [{"message": {"role": "assistant", "content": "Use parse_port [1]."}}]})",
                         "application/json");
  });
  dir_.write("four.json", R"({"rag_questions": [
    {"question_id": "q1", "question": "How is the TCP port number parsed?"},
    {"question_id": "q2", "question": "How is the TCP port number checked?"},
    {"question_id": "q3", "question": "Which port range is accepted for the TCP port?"},
    {"question_id": "q4", "question": "What does parse_port raise for a bad TCP port?"}]})");
  dir_.write("flaky.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: openai, options: {model: m, base_url: '" +
                               server.url() + "/v1'}}\ncontext: {min_support: 0}\n");
  const Outcome r = rag("answer_dataset --dataset_path four.json --save_directory out --pipeline flaky.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, HasSubstr("error: 2 of 4 questions got no answer; each is recorded with its \"error\" in out/four.json "
                               "(the first: q2: "));
  EXPECT_THAT(r.err, HasSubstr("flaky failure"));
  const json out = json::parse(testing::read_all(dir_ / "out/four.json"));
  const json& answers = out["search_results"];
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0]["answer"], "Use parse_port [1].");
  EXPECT_FALSE(answers[0].contains("error"));
  EXPECT_EQ(answers[1]["answered"], false);
  EXPECT_THAT(answers[1]["error"].get<std::string>(), HasSubstr("flaky failure"));
  EXPECT_EQ(answers[2]["answer"], "Use parse_port [1].");
}

TEST_F(AnswerCliTest, BadInputGetsOneClearLine) {
  expect_error("answer --pipeline pipeline.yaml", "no question given");
  expect_error("answer '  ' --pipeline pipeline.yaml", "the question is empty");
  expect_error("answer \"$(printf 'caf\\351')\" --pipeline pipeline.yaml", "the question is not valid UTF-8");
  expect_error("answer port --k 0 --pipeline pipeline.yaml", "--k must be between 1 and 100");
  dir_.write("context.yaml", std::string(testing::kFixturePipeline) + "context: {budget: 3000, bogus: 1}\n");
  expect_error("answer port --pipeline context.yaml", "context.yaml: context: unknown option 'bogus'");
  dir_.write("prompt.yaml", std::string(testing::kFixturePipeline) + "context: {prompt: {user: 'Q: {query}'}}\n");
  expect_error("answer port --pipeline prompt.yaml", "context.prompt.user: unknown placeholder {query}");
  dir_.write("generator.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: nope}\n");
  expect_error("answer port --pipeline generator.yaml", "unknown generator plugin 'nope'");
  dir_.write("offline.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: ollama, options: {base_url: 'http://127.0.0.1:" +
                                 std::to_string(testing::closed_port()) + "'}}\n");
  expect_error("answer port --pipeline offline.yaml", "start it with `ollama serve`");
  dir_.write("keyless.yaml", std::string(testing::kFixturePipeline) + "generator: {plugin: openai, options: {model: m, api_key: sk-1}}\n");
  expect_error("answer port --pipeline keyless.yaml", "keys do not belong in pipeline files");
  dir_.write("nodict.yaml", std::string(testing::kFixturePipeline) + "translation: {dictionaries: no/such/folder}\n");
  expect_error("answer port --pipeline nodict.yaml", "translation.dictionaries: ");
  expect_error("answer port --pipeline nodict.yaml", "no/such/folder is not a folder");
  dir_.write("support.yaml", std::string(testing::kFixturePipeline) + "context: {min_support: 2}\n");
  expect_error("answer port --pipeline support.yaml", "context.min_support");
  dir_.write("cap.yaml", std::string(testing::kFixturePipeline) + "context: {support_weight_cap: -1}\n");
  expect_error("answer port --pipeline cap.yaml", "context.support_weight_cap");

  expect_error("answer_dataset --save_directory out --pipeline pipeline.yaml", "give either --student_search_results_path or --dataset_path");
  expect_error("answer_dataset --dataset_path answered.json --student_search_results_path answered.json --save_directory out",
               "give either");
  ASSERT_EQ(rag("search_dataset --dataset_path answered.json --save_directory results --pipeline pipeline.yaml").status, 0);
  expect_error("answer_dataset --student_search_results_path results/answered.json --k 3 --save_directory out",
               "--k applies to --dataset_path");
  expect_error("answer_dataset --student_search_results_path answered.json --save_directory out --pipeline pipeline.yaml",
               "answered.json: a dataset of questions (rag_questions), not a results file");
  dir_.write("foreign.json", R"({"search_results": [{"question_id": "q1", "question_str": "port?", "retrieved_sources":
      [{"file_path": "nowhere.md", "first_character_index": 0, "last_character_index": 5}]}], "k": 1})");
  expect_error("answer_dataset --student_search_results_path foreign.json --save_directory out --pipeline pipeline.yaml",
               "foreign.json: search result 1 (q1): nowhere.md: cannot read this source");
  expect_error("answer_dataset --student_search_results_path results/answered.json --pipeline pipeline.yaml",
               "the option '--save_directory' is required");
  expect_error("evaluate_answers results/answered.json answered.json", "has no 'answer' string; make answers with `rag answer_dataset`");
  expect_error("evaluate_answers results/answered.json", "give the answers file and the answered dataset");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out"));
}

}  // namespace
}  // namespace rag
