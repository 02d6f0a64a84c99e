#pragma once
// The names of code a question writes and what it calls them: "Where is vllm.LLM.generate?",
// "the --max-model-len flag", "the default of the seed parameter of SamplingParams". Answering
// reads them to look definitions up (rag/definitions.hpp) and to tell what a question asks.
#include <string>
#include <string_view>
#include <vector>

namespace rag {

/// The runs of letters, digits and '_' of `text`, in order: its words, a name whole
/// (use_aiter_and_is_supported is one); with `dots`, runs joined by '.' between them too
/// ("vllm.LLM" is one run).
std::vector<std::string_view> name_runs(std::string_view text, bool dots);

/// Whether `c` is a character of a name: an ASCII letter or digit, or '_'.
bool is_name_char(char c);

/// The command-line options of several words `question` writes, as written ("--max-model-len"),
/// in order, each once; a bare word after "--" ("--seed") is left to the question's plain words.
std::vector<std::string> command_line_options(std::string_view question);

/// The names `question` writes as code, in order, each once: words with an underscore
/// (gpu_memory_utilization), with a capital after a lower-case letter (SamplingParams), or of
/// two capitals or more and no lower-case letter (LLM), and dotted names, which give their last
/// part (vllm.LLM: LLM; vllm.entrypoints.llm.LLM.generate: generate); a command-line option of
/// several words gives the field it sets, first (--max-model-len: max_model_len).
std::vector<std::string> code_names(std::string_view question);

/// Whether a name is written as a class's is: a capital letter and no '_' (SamplingParams, LLM).
bool is_class_like(std::string_view name);

/// The last level of a qualified name or header path: "vllm.config.ModelConfig" gives
/// "ModelConfig", "ns::f" gives "f", "Usage > Offline" gives "Offline".
std::string_view last_part(std::string_view section);

/// Whether a question calls a name a field with `word` (lower case): "the seed parameter", "the
/// dtype option". Such a word says what is asked, not what it is about.
bool is_field_noun(std::string_view word);

/// Whether `word` of `question` says what kind of code something is rather than name a field: a
/// method, function, class, module, constructor, call, variable, constant or field noun (singular
/// or plural) after a name written as code ("the validate_language method"), or in a question
/// that names no class a field could be of ("the resampling method"). "The default method of
/// SpeculativeConfig" asks about a field `method`.
bool names_kind_of_code(std::string_view question, std::string_view word);

/// The words `question` calls a parameter, option, argument, field, attribute, setting or flag,
/// in order, each once: the word before the noun ("the seed parameter") and the one "and" or "or"
/// joins to it ("the alpha and limit parameters"); not longer lists ("a, b and c parameters": b, c).
std::vector<std::string> called_fields(std::string_view question);

/// The words of a question written in lower case (a word with a capital is none) that are not
/// stopwords nor say that a default is asked ("the default temperature": temperature), which a
/// "default" question may name a field by; not the parts of a hyphenated name, nor a word that
/// says what kind of code something is.
std::vector<std::string> plain_words(std::string_view question);

/// The dotted module name Python gives a file below the corpus root, as the python chunker names
/// its chunks' sections: "vllm/engine/llm_engine.py" -> "vllm.engine.llm_engine", "pkg/__init__.py"
/// -> "pkg".
std::string python_module_name(std::string_view relative_path);

/// Whether the class `name` holds settings: a configuration's, the engine's or a request's
/// arguments (ModelConfig, EngineArgs, SamplingParams), the fields users ask the defaults of.
bool is_settings_class(std::string_view name);

}  // namespace rag
