#pragma once
// The line an extractive answer opens with: the question turned into the subject the quotes
// answer for, as a person writing the answer would start ("How do I enable prefix caching?" ->
// "To enable prefix caching:"; "What flag is required to enable tool calling?" -> "The flag that
// is required to enable tool calling:"). It states nothing the question does not: the facts are
// in the cited quotes that follow.
#include <string>
#include <string_view>

namespace rag::extractive {

/// The opening line for an English question, ending in ':'; empty when the question has none of
/// the shapes read here (how do I / how to, how does S do, how is X done, how many N are done,
/// what happens when, what should I do if, what is the X, what are all the X, what/which N is
/// done / can be done / does S do / do X, what does S do, how should S be done, why does S do,
/// where can I find X), or turns in a way they do not read (a
/// negation, two questions in one).
std::string restatement(std::string_view question);

/// Whether `word` (lower case) reads as a verb of the kind questions and answers about software
/// use ("supports", "put", "is", "can"): the short list the restatement reads questions with.
bool reads_as_verb(const std::string& word);

}  // namespace rag::extractive
