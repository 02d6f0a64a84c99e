#pragma once
// The shapes of evidence: what a unit of a source looks like (a command, a sentence about its
// page, a defining sentence, a thing of the type asked for), and what each kind of question
// weighs a unit of a shape by.
#include <string>
#include <string_view>
#include <vector>

#include "extractive_generator.hpp"
#include "rag/question_kind.hpp"

namespace rag::extractive {

/// A sentence that names the command, flag or option to use ("Set `enable_prefix_caching=True`").
bool names_command(std::string_view prose);
/// Python of a test module: its qualified name runs through a `tests` or `test` package or a
/// `test_` module (tests.v1.test_outputs.test_stop_reason).
bool is_test_code(const Evidence& evidence);
/// A sentence that says what its page is about ("This page provides instructions on ...", "This
/// guide walks you through ..."): it shares the words of the page's subject and states nothing.
bool describes_the_page(std::string_view text);
/// A sentence that sends the reader to another page ("See ...", "Please refer to ...", "More
/// information can be found here.", "Check out the guide for details."), naming no command or
/// flag: it states nothing itself.
bool points_elsewhere(std::string_view text);
/// A sentence about the page or pointing elsewhere ("This page shows", "See ... for more"), or one
/// that announces what follows: it says nothing of the subject itself.
bool speaks_of_the_page(std::string_view text);
/// A sentence that announces code in words rather than with a ':' ("The following command
/// serves ...", "... as follows.", "the example below").
bool announces_code(std::string_view sentence);
/// Whether `u` holds a thing of a type `types` asks for: a number, an UPPER_CASE variable, a
/// --flag or keyword argument, a CamelCase class written as code, a path, a command.
bool holds_answer_type(const AnswerTypes& types, const ExtractiveGenerator::Unit& u);
/// A unit's weight for the kind of question asked: the shape of evidence that answers it (a
/// defining sentence for "what is", a command for "how do I", a field with its value for a
/// default, list items for "which options", a reason for "why"). `in_docs`: the unit is of
/// documentation (Markdown, text), where code is what users run. `defined`: the question's words
/// that a defining sentence starts with; `subject`: the rarest's.
double shape_weight(QuestionKind kind, const ExtractiveGenerator::Unit& u, bool in_docs,
                    const std::vector<std::string>& defined, const std::vector<std::string>& subject);

}  // namespace rag::extractive
