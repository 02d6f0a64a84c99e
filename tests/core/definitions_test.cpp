// The names a question writes as code (rag/code_names.hpp) and the kind of a question
// (rag/question_kind.hpp), which decide whether answering looks a definition up.
#include "rag/code_names.hpp"
#include "rag/definitions.hpp"
#include "rag/question_kind.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rag {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CodeNames, IdentifiersClassesAndAcronymsOnce) {
  EXPECT_THAT(code_names("What is the default gpu_memory_utilization of SamplingParams?"),
              ElementsAre("gpu_memory_utilization", "SamplingParams"));
  EXPECT_THAT(code_names("Where is the LLM class defined? Is vllm.LLM the LLM?"), ElementsAre("LLM"));
  EXPECT_THAT(code_names("Where is `vllm.entrypoints.llm.LLM.generate`?"), ElementsAre("generate"));
  EXPECT_THAT(code_names("How do I start the server? What is PagedAttention, or V1?"), ElementsAre("PagedAttention"));
  EXPECT_THAT(code_names("what is __init__ for"), ElementsAre("__init__"));
  EXPECT_THAT(code_names("Why is it slow? 1_000 ___"), IsEmpty());
}

TEST(CodeNames, ACommandLineOptionNamesTheFieldItSets) {
  EXPECT_THAT(code_names("What does the --max-model-len option set?"), ElementsAre("max_model_len"));
  EXPECT_THAT(code_names("vllm serve --tensor-parallel-size 2 --max-model-len=4096, and gpu_memory_utilization?"),
              ElementsAre("tensor_parallel_size", "max_model_len", "gpu_memory_utilization"));
  // One word is a plain word (--seed), and a dash inside a word or a bare "--" names nothing.
  EXPECT_THAT(code_names("What does --seed do? Is x--y-z or -- a-b one?"), IsEmpty());
}

Evidence code(const std::string& text, const std::string& kind = "python") {
  Evidence e;
  e.kind = kind;
  e.text = text;
  return e;
}

TEST(SourcesDefine, TheDeclarationOrTheTypedFieldAskedAbout) {
  const std::vector<Evidence> field = {code("class CacheConfig:\n    swap_space: float = 4\n    \"\"\"CPU swap space.\"\"\"\n")};
  EXPECT_TRUE(sources_define("What is the default swap_space?", field));
  EXPECT_TRUE(sources_define("What does swap_space mean?", field));
  EXPECT_TRUE(sources_define("Where is CacheConfig defined?", field));
  // A plain word the question calls a parameter, an option, a field... is a field's name.
  const std::vector<Evidence> seed = {code("class SamplingParams:\n    seed: Optional[int] = None\n")};
  EXPECT_TRUE(sources_define("What does the seed parameter of SamplingParams do?", seed));
  EXPECT_TRUE(sources_define("What does the seed option control?", seed));
  EXPECT_FALSE(sources_define("What does the seed do?", seed));
  // The last part of a hyphenated name is not the word called an option: the name is.
  const std::vector<Evidence> part = {code("class Cfg:\n    static: bool = True\n")};
  EXPECT_FALSE(sources_define("What does SGLang's --mem-fraction-static option control?", part));
  EXPECT_TRUE(sources_define("What does the --mem-fraction-static option control?",
                             {code("class Cfg:\n    mem_fraction_static: float = 0.9\n")}));
  // A default question's plain word names a field of a settings class alone, or of a class the
  // question names, as the lookup finds it.
  const auto field_of = [](const std::string& qualified_class, const std::string& field_line) {
    Evidence e = code("class " + std::string(last_part(qualified_class)) + ":\n    " + field_line + "\n");
    e.section = qualified_class;
    return std::vector<Evidence>{e};
  };
  EXPECT_TRUE(sources_define("What is the default port?", field_of("vllm.entrypoints.openai.cli_args.FrontendArgs", "port: int = 8000")));
  EXPECT_FALSE(sources_define("What timestamp format do log lines use by default?",
                              field_of("vllm.v1.engine.EngineCoreOutputs", "timestamp: float = 0.0")));
  EXPECT_TRUE(sources_define("What is the default timeout of the AsyncScheduler?",
                             field_of("vllm.core.scheduler.AsyncScheduler", "timeout: float = 5.0")));
  EXPECT_TRUE(sources_define("What is the default method of SpeculativeConfig?",
                             field_of("vllm.config.SpeculativeConfig", "method: Optional[str] = None")));
  // Uses are not definitions: a keyword argument, an assignment without a type, another name.
  EXPECT_FALSE(sources_define("What is the default swap_space?", {code("make(swap_space=4)\nswap_space = 8\n")}));
  EXPECT_FALSE(sources_define("Where is CacheConfig defined?", {code("config = CacheConfig()\n")}));
  EXPECT_FALSE(sources_define("What is the default block_size?", field));
  // Prose is not a definition, nor is a question that asks for none.
  EXPECT_FALSE(sources_define("What is the default swap_space?", {code("swap_space: float = 4", "markdown")}));
  EXPECT_FALSE(sources_define("How do I set swap_space?", field));
}

TEST(CalledFields, TheWordsAQuestionCallsParametersOptionsOrFields) {
  EXPECT_THAT(called_fields("What does the seed parameter of SamplingParams do?"), ElementsAre("seed"));
  EXPECT_THAT(called_fields("What are the default alpha and limit parameters?"), ElementsAre("alpha", "limit"));
  EXPECT_THAT(called_fields("Which flags and options exist? What does --max-model-len do?"), IsEmpty());
  EXPECT_THAT(called_fields("the top_p parameter"), IsEmpty());  // a name written as code is code_names'
}

TEST(SettingsClasses, ConfigurationsArgumentsAndParameters) {
  for (const std::string_view name : {"ModelConfig", "EngineArgs", "SamplingParams", "CUDAGraphOptions"})
    EXPECT_TRUE(is_settings_class(name)) << name;
  for (const std::string_view name : {"Config", "EngineCoreOutputs", "Scheduler", "encode_image_base64"})
    EXPECT_FALSE(is_settings_class(name)) << name;
  // A noun after a name written as code says what kind of code it is; elsewhere it may be a field.
  EXPECT_TRUE(names_kind_of_code("What is the default language of the validate_language method?", "method"));
  EXPECT_TRUE(names_kind_of_code("Which AsyncLLMEngine classes exist?", "classes"));
  EXPECT_FALSE(names_kind_of_code("What is the default method of SpeculativeConfig?", "method"));
  EXPECT_FALSE(names_kind_of_code("What is the default timeout of the validate_language method?", "timeout"));
  EXPECT_TRUE(names_kind_of_code("Which resampling method does vLLM use by default?", "method"));
  EXPECT_EQ(last_part("vllm.config.ModelConfig"), "ModelConfig");
  EXPECT_EQ(last_part("ns::f"), "f");
  EXPECT_EQ(last_part("Usage > Offline"), "Offline");
}

TEST(QuestionKinds, DefinitionsAreAskedByWhereDefaultAndMeaning) {
  EXPECT_EQ(question_kind("Where is SamplingParams defined?"), QuestionKind::where);
  EXPECT_EQ(question_kind("What is the default swap_space?"), QuestionKind::default_value);
  EXPECT_EQ(question_kind("What does swap_space mean?"), QuestionKind::what_is);
  EXPECT_EQ(question_kind("How do I set swap_space?"), QuestionKind::how_to);
}

TEST(QuestionKinds, TheSentenceThatAsksSaysTheKindNotItsContext) {
  // Users often say where they stand first; dots inside names do not end a sentence.
  EXPECT_EQ(question_kind("I have a BF16 model and no calibration data. How can I have it quantized to FP8?"),
            QuestionKind::how_to);
  EXPECT_EQ(question_kind("I don't want the default torch.compile cache. How do I move it?"), QuestionKind::how_to);
  EXPECT_EQ(question_kind("My server has two NICs! Where is the IP address defined?"), QuestionKind::where);
  EXPECT_EQ(question_kind("I pass http://host/v1?model=x to it. How do I change it?"), QuestionKind::how_to);
  // A sentence that asks nothing of a kind leaves it to the next: the question marks first, then
  // the others, in order; the whole text last.
  EXPECT_EQ(question_kind("Is it possible? How do I set it?"), QuestionKind::how_to);
  EXPECT_EQ(question_kind("How do I set e.g. the port?"), QuestionKind::how_to);
  EXPECT_EQ(question_kind("What is the default value of max_model_len, i.e. the limit?"), QuestionKind::default_value);
  EXPECT_EQ(question_kind("How do I set swap_space. Thanks!"), QuestionKind::how_to);
  EXPECT_EQ(question_kind("Context first. how do I set swap_space"), QuestionKind::how_to);
  EXPECT_EQ(question_kind("Thanks. Everything else works."), QuestionKind::other);
}

TEST(QuestionKinds, AQuestionMayAskSeveralThings) {
  EXPECT_TRUE(asks_several_things("What is EPLB, and how do I turn it on?"));
  EXPECT_TRUE(asks_several_things("Which package do I need and where does the config go?"));
  EXPECT_TRUE(asks_several_things("What does model_impl do? Can I force the Hugging Face one?"));
  EXPECT_FALSE(asks_several_things("How do I enable prefix caching and chunked prefill?"));
  EXPECT_FALSE(asks_several_things("When is use_aiter_and_is_supported true?"));
  EXPECT_FALSE(asks_several_things("What does --max-model-len do?"));
  EXPECT_TRUE(asks_several_things("What does VLLM_PORT do, and can I change it?"));
  EXPECT_TRUE(asks_several_things("EPLB \u662f\u4ec0\u4e48\uff1f\u600e\u4e48\u5f00\u542f\uff1f"));  // full-width marks
  // One question: emphasis, code or a URL, a choice, a difference, a sentence's second verb.
  EXPECT_FALSE(asks_several_things("What does --max-model-len do??"));
  EXPECT_FALSE(asks_several_things("Why does `x ? y : z` fail? It is valid C."));
  EXPECT_FALSE(asks_several_things("Why does GET /v1/models?limit=1 fail?"));
  EXPECT_FALSE(asks_several_things("Should I use AWQ or does GPTQ work better?"));
  EXPECT_FALSE(asks_several_things("What is the difference between X and what Y does?"));
  EXPECT_FALSE(asks_several_things("My server starts and is then killed. Why?"));
  // A translated question's English reading has dropped its "and"; its question words remain.
  EXPECT_TRUE(asks_several_things("Was ist EPLB und wie schalte ich es ein?", "what EPLB how enable"));
  EXPECT_FALSE(asks_several_things("Was ist EPLB?", "what EPLB"));
  EXPECT_FALSE(asks_several_things("Wie schalte ich EPLB ein?", "how enable EPLB how"));
  EXPECT_FALSE(asks_several_things("Quel backend ?", "which|what backend"));
}

// The kind of a question that asks several things is its first part's, which alone is short
// enough to read ("What is Anyscale" is a definition; the whole sentence is too long to be one).
TEST(QuestionKinds, AQuestionThatAsksSeveralThingsIsReadPartByPart) {
  EXPECT_EQ(question_kind("What is Anyscale, and what does it give you for running vLLM?"), QuestionKind::what_is);
  EXPECT_EQ(question_kind("What is KubeAI and what does it add on top of vLLM on Kubernetes?"), QuestionKind::what_is);
  EXPECT_THAT(asked_parts("I run vLLM on TPUs. What is EPLB, and how do I turn it on?"),
              ElementsAre("What is EPLB", "how do I turn it on?"));
  EXPECT_THAT(asked_parts("Which package do I need and where does the config go; or why is it missing?"),
              ElementsAre("Which package do I need", "where does the config go", "why is it missing?"));
  EXPECT_THAT(asked_parts("What does VLLM_PORT do, and can I change it?"), ElementsAre("What does VLLM_PORT do", "can I change it?"));
  EXPECT_THAT(asked_parts("What does model_impl do? Can I force the Hugging Face one?"),
              ElementsAre("What does model_impl do?", "Can I force the Hugging Face one?"));
  // The next part starts at the question word whatever separates it from "and"; a question
  // written without its '?' has parts too.
  EXPECT_THAT(asked_parts("What is EPLB and\thow do I turn it on?"), ElementsAre("What is EPLB", "how do I turn it on?"));
  EXPECT_THAT(asked_parts("What is EPLB and/or how do I turn it on"), ElementsAre("What is EPLB", "how do I turn it on"));
  // One question: one part, the one its kind is read from. A '?' in code ends no question, a
  // part of one word is none, nor is a follow-up's leading "And".
  EXPECT_THAT(asked_parts("In the Helm values file, what is pvcStorage for?"), ElementsAre("what is pvcStorage for?"));
  EXPECT_THAT(asked_parts("What is the difference between X and what Y does?"),
              ElementsAre("What is the difference between X and what Y does?"));
  EXPECT_THAT(asked_parts("Why does `x ? y : z` fail? It is valid C."), ElementsAre("Why does `x ? y : z` fail?"));
  EXPECT_THAT(asked_parts("How and why does vLLM preempt requests?"), ElementsAre("How and why does vLLM preempt requests?"));
  EXPECT_THAT(asked_parts("And how do I enable it?"), ElementsAre("And how do I enable it?"));
  // A backtick typed for an apostrophe ("can`t") opens no code: the sentences stay apart.
  EXPECT_EQ(question_kind("I can`t start the server. How do I fix it?"), QuestionKind::how_to);
  EXPECT_THAT(asked_parts("I don`t have a GPU. What is EPLB, and how do I turn it on?"),
              ElementsAre("What is EPLB", "how do I turn it on?"));
  // A question that asks once in parts of one word asks one thing, for its room too.
  EXPECT_FALSE(asks_several_things("How and why does vLLM preempt requests?"));
  EXPECT_FALSE(asks_several_things("I use vLLM. And what about TPUs?"));
  // The sentence the kind is read from is the one cut, not a sentence before it.
  EXPECT_THAT(asked_parts("My server crashes and what I see is an OOM. How do I fix it"), ElementsAre("How do I fix it"));
  EXPECT_THAT(asked_parts("What is EPLB and / or how do I turn it on"), ElementsAre("What is EPLB", "how do I turn it on"));
  // "between X and Y" is one thing; an "and how" after it asks another.
  EXPECT_THAT(asked_parts("What is the difference between chunked prefill and prefix caching, and how do I enable both?"),
              ElementsAre("What is the difference between chunked prefill and prefix caching", "how do I enable both?"));
  // "between" keeps "and what" in one question, not "and can I" after it.
  EXPECT_TRUE(asks_several_things("What is the difference between X and Y, and can I use both?"));
  EXPECT_THAT(asked_parts("What is the difference between X and Y, and can I use both?"),
              ElementsAre("What is the difference between X and Y", "can I use both?"));
}

TEST(AnswerTypes, APriceAsksForMoney) {
  EXPECT_TRUE(answer_types("What is the price per million tokens?").money);
  EXPECT_TRUE(answer_types("How much does an instance cost per hour?").money);
  EXPECT_FALSE(answer_types("What is the memory cost of prefix caching?").money);
  EXPECT_TRUE(states_money("The instance is $0.22 per hour."));
  EXPECT_TRUE(states_money("It costs \u20ac 3 a day, or 12 USD a week."));
  EXPECT_TRUE(states_money("about 40 dollars"));
  EXPECT_FALSE(states_money("Run `echo $HOME` and $ pip install vllm; 8 GPUs, 80GB"));
  EXPECT_FALSE(states_money("3 USDC is not a currency name here"));
}

TEST(AnswerTypes, TheNounAQuestionWordHeadsSaysWhatTheAnswerIs) {
  EXPECT_TRUE(answer_types("Which environment variable sets the host IP?").environment_variable);
  EXPECT_TRUE(answer_types("What env var do I set?").environment_variable);
  EXPECT_TRUE(answer_types("What flag is mandatory to enable tool calling?").option);
  EXPECT_TRUE(answer_types("How many sequences run at most?").quantity);
  EXPECT_TRUE(answer_types("I use Gaudi. What share of memory is reserved for graphs?").quantity);
  EXPECT_TRUE(answer_types("On Intel Gaudi, what share of memory is reserved for graphs?").quantity);
  EXPECT_TRUE(answer_types("Which class parses the reasoning?").class_name);
  EXPECT_TRUE(answer_types("Which script finds the best settings?").path);
  EXPECT_TRUE(answer_types("What command starts the server?").command);
  // "What is the ..." names it after the article; of a compound, the last noun is the head.
  EXPECT_TRUE(answer_types("What is the maximum audio file size accepted?").quantity);
  EXPECT_FALSE(answer_types("What is the maximum audio file size accepted?").path);
  // The phrase ends at its verb or preposition: what follows is not what is asked.
  EXPECT_FALSE(answer_types("What does the port flag control?").any());
  EXPECT_FALSE(answer_types("Which models work with the file loader?").any());
  EXPECT_FALSE(answer_types("How do I start the server?").any());
  EXPECT_FALSE(answer_types("Where is the environment variable read?").any());
  // A verb ends the phrase; a relative "which" asks nothing; plurals name their type.
  EXPECT_FALSE(answer_types("What controls the batch size?").any());
  EXPECT_FALSE(answer_types("Is there a setting which limits the number of sequences?").quantity);
  EXPECT_TRUE(answer_types("Which command line argument sets the port?").option);
  EXPECT_FALSE(answer_types("Which command line argument sets the port?").command);
  EXPECT_TRUE(answer_types("Which ports does the server open?").quantity);
  EXPECT_TRUE(answer_types("In which directories are the kernels?").path);
  EXPECT_TRUE(answer_types("What's the maximum context length?").quantity);
}

}  // namespace
}  // namespace rag
