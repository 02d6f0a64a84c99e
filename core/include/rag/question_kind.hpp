#pragma once
// What a question asks, its kind and the type of thing its answer is, which decide the shape of
// evidence that answers it: the extractive generator prefers units of that shape, and answering
// looks up the definition a "where is X" or "the default of X" question names (rag/definitions.hpp).
#include <string_view>
#include <vector>

namespace rag {

enum class QuestionKind {
  what_is,        ///< "What is X?", "What does X mean?": a sentence that defines X
  how_to,         ///< "How do I ...?": the command or code, and the sentence that announces it
  options,        ///< "Which options ...?": list items and table rows
  default_value,  ///< "What is the default of X?": the field or assignment giving X a value, and its docstring
  where,          ///< "Where is X implemented?": the qualified name and the file
  why,            ///< "Why ...?": a sentence that gives a reason
  other
};

/// The kind of `question`, an English question (a translated one starts with its question word).
QuestionKind question_kind(std::string_view question);

/// The questions `question` asks, in order, as views into it: when asks_several_things() says it
/// asks several, its sentences that end in '?' when there are two or more ("What does model_impl
/// do? Can I force the Hugging Face one?"), or the parts of the one that asks (or, without a '?',
/// of the first sentence that has parts), cut before each "and" or "or" that opens another
/// question ("What is EPLB, and how do I turn it on?" -> "What is EPLB", "how do I turn it on?").
/// Else one part: the sentence, or the clause, question_kind() reads the kind from (a compound
/// question's kind is its first part's).
std::vector<std::string_view> asked_parts(std::string_view question);

/// Whether `question` asks two things or more: two sentences end with a question mark ("What does
/// model_impl do? Can I force the Hugging Face one?"; '?' in code or a URL ends none), or, in
/// English, "and" or "or" comes before a question word ("What is EPLB, and how do I turn it on?")
/// or "and" before an auxiliary and its subject ("..., and can I change it?"). `translated`, the
/// English reading of a question in another language, keeps its question words but not its
/// "and": there, two different question words ("what EPLB how enable") ask two things.
bool asks_several_things(std::string_view question, std::string_view translated = {});

/// What a question's answer is, as its question word names it: the last noun of a type in the
/// phrase a "which" or "what" heads ("which environment variable", "what command line argument",
/// "what is the maximum audio file size"), up to its verb, or "how" with a measure ("how many").
/// A question word counts when it opens a sentence or follows a preposition. Text
/// that holds a thing of that type is likelier to answer it than text that only shares its words
/// ("HPU Graphs are the most performant ..." against "`VLLM_GRAPH_RESERVED_MEM`: ..., `0.1` by
/// default" for "What share of memory is reserved for HPU Graphs?").
struct AnswerTypes {
  bool environment_variable = false;  ///< "which environment variable": an UPPER_CASE_NAME
  bool option = false;                ///< "which flag / argument / parameter / setting": a --flag, a keyword argument
  bool quantity = false;              ///< "how many / much / long / often", "what share / size / port": a number
  bool class_name = false;            ///< "which class": a CamelCase name written as code
  bool path = false;                  ///< "which file / directory / script / module": a path
  bool command = false;               ///< "which command": a command, or code
  bool money = false;                 ///< "what is the price", "how much does it cost": an amount of money

  bool any() const { return environment_variable || option || quantity || class_name || path || command || money; }
};

/// Whether `text` states an amount of money: a currency sign before a number ("$2.50", "€ 3"), or
/// a number before a currency's name ("3 USD", "12 dollars").
bool states_money(std::string_view text);

/// The answer types `question` (English) asks for; none for most questions ("How do I ...?").
AnswerTypes answer_types(std::string_view question);

}  // namespace rag
