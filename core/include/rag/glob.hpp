#pragma once
// Path patterns for include/exclude rules, matched against paths relative to the corpus root
// with forward slashes: `*` any run of characters but '/', `?` one such character, `**` any
// number of whole folders (also none). A pattern without '/' matches the file name anywhere.
#include <string_view>

namespace rag {

bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace rag
