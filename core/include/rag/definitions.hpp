#pragma once
// The definitions a question asks about. "Where is SamplingParams defined?", "What is the default
// of max_logprobs?" or "What does swap_space control?" are answered by the class, function or
// field that defines the name, "What is prefix caching?" by the page titled with it, while
// retrieval ranks first the many places that use it. Answering
// looks the definitions up and puts them first among the sources (`rag answer`, `rag serve`,
// `answer_dataset --dataset_path`); search results are not changed.
#include <string>
#include <string_view>
#include <vector>

#include "rag/generator.hpp"
#include "rag/index.hpp"

namespace rag {

/// `hits` (the question's retrieval results, best first) with the chunks that define what the
/// question asks about moved or added first, as many hits as before (the definitions alone when
/// retrieval found nothing), when its kind asks for a definition: a "where" question, the class
/// or function whose qualified name ends with a name it writes as code (for a name none declares,
/// not a class's, the code that gives it a value: a constant, a variable), or, when it writes
/// none, the code file named by its words (and when it asks for a class or a function, that
/// file's one named by a word of the question the path lacks); a "default" question, or a
/// "what does x_y mean" one (or "what does the seed parameter do": a word it calls a parameter,
/// option, argument, field, attribute, setting or flag), the code that gives a value to one of its
/// words at the start of a line (`name: T = v`, `name = v`, not a keyword
/// argument `name=v`), in the class it names when it names one (a plain word, neither written as
/// code nor called a field, only there or in a settings class); a "what is" question about an
/// idea (no field), the documentation page or section titled with its words, from its start; an
/// "options" question, the type that lists a setting's values (`Name = Literal[...]`) whose
/// name's words it holds ("Which tokenizer modes are there?": TokenizerMode); a
/// question that names no code but describes a field in words, in order ("the maximum number of
/// sequences": the parts of max_num_seqs, abbreviations read as the words they shorten), that
/// field's definition.
/// Candidates are the index's best chunks for the name (and that class), or for the question. A
/// definition added takes the best score of `hits`.
struct WithDefinitions {
  std::vector<Hit> hits;
  std::size_t definitions = 0;  ///< how many of the first hits are definitions looked up
  /// The question as answering reads it: with the field it describes in words, when it names one
  /// so ("the maximum number of batched tokens": max_num_batched_tokens), after it.
  std::string query;
};
WithDefinitions with_definitions(const Index& index, std::string_view question, std::vector<Hit> hits);

/// Whether one of `evidence` (code) defines what `question` asks about, as with_definitions looks
/// for it: declares a name a "where" question writes as code, or gives one of the fields a
/// "default" question (or a "what does x_y mean") names a typed value (`name: T = v`). Such
/// sources answer the question whatever the support of its other words.
bool sources_define(std::string_view question, const std::vector<Evidence>& evidence);

}  // namespace rag
