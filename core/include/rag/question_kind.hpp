#pragma once
// What a question asks, which decides the shape of evidence that answers it: the extractive
// generator prefers units of that shape, and answering looks up the definition a "where is X" or
// "the default of X" question names (rag/definitions.hpp).
#include <string_view>

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

}  // namespace rag
