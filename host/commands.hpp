#pragma once
// The commands of `rag`. Each returns the process exit code and throws rag::Error for
// anything the user must fix.
#include "cli.hpp"

namespace rag::commands {

int index(const cli::Invocation& inv);
int chunks(const cli::Invocation& inv);
int plugins(const cli::Invocation& inv);
int check(const cli::Invocation& inv);
int search(const cli::Invocation& inv);
int search_dataset(const cli::Invocation& inv);
int evaluate(const cli::Invocation& inv);
int answer(const cli::Invocation& inv);
int answer_dataset(const cli::Invocation& inv);
int evaluate_answers(const cli::Invocation& inv);
int compare(const cli::Invocation& inv);
int tune(const cli::Invocation& inv);
int serve(const cli::Invocation& inv);  // in the module librag_serve.so, which main.cpp loads

}  // namespace rag::commands
