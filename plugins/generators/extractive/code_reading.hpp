#pragma once
// Code statements read for what they say: a value given, a field declared, a block opened, the
// default a name gets; and the names a question about a default may ask about.
#include <string>
#include <string_view>
#include <vector>

namespace rag::extractive {

/// A field or assignment that gives a value: "gpu_memory_utilization: float = 0.9", "port = 8000".
bool gives_value(std::string_view code);
/// A typed field, as a class declares it: "seed: Optional[int] = None" (not "out = f(seed=42)").
bool is_field(std::string_view code);
/// The name a Python class or function declaration gives ("class SSLCertRefresher:",
/// "async def serve(...)"); empty for any other statement.
std::string_view declared_name(std::string_view statement);
/// A statement that holds a place and says nothing of what the code does: "pass", "...",
/// "raise NotImplementedError" (with or without a message), an abstract method's whole body.
bool is_placeholder(std::string_view statement);
/// Whether a Python statement imports ("import x", "from x import (y, z)").
bool is_import(std::string_view statement);
/// Whether a code statement opens a block of control flow ("if x:", "for a in b:", "except E:"),
/// whose body says what happens then.
bool opens_block(std::string_view statement);
/// A comment line inside a code block ("# Any of these disable usage stats", "// then launch"):
/// a label for the code after it, until the next comment. Not a C preprocessor line ("#include").
bool is_code_comment(std::string_view statement);
/// The default `code` (one statement) gives `name`, empty when none: a parameter's or a typed
/// field's (`name: T = v`, a def's `name=v`, `self.name: T = v`), or the fallback of a lookup by
/// name (`getattr(x, "name", v)`, `config.get("name", v)`, `os.getenv("NAME", v)`). A keyword
/// argument of a call (`f(name=v)`) or a plain assignment is not a default. Only lookups when
/// `lookup`, only declarations when not.
std::string_view default_of(std::string_view code, std::string_view name, bool lookup);
/// A shell command, as documentation shows one: a program and its arguments ("vllm serve m
/// --port 8000", "$ pip install x"), perhaps after VAR=value settings; not Python ("llm =
/// LLM(...)", "from x import y", "print(x)").
bool runs_command(std::string_view code);
/// The names a default question may ask about, the likeliest first, each once: a word it calls a
/// field ("the stream parameter": stream; "the alpha and limit parameters": alpha, limit), then
/// the first name it writes as code. Later names are conditions ("the default lora_int_id when
/// lora_request is None") unless the question joins them to the first (called_fields).
std::vector<std::string> asked_names(std::string_view question);

}  // namespace rag::extractive
