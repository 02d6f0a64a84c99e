#pragma once
// Path patterns for include/exclude rules, matched against paths relative to the corpus root
// with forward slashes: `*` any run of characters but '/', `?` one such character, `**` any
// number of whole folders (also none). A pattern without '/' matches the file name anywhere.
#include <string>
#include <string_view>
#include <vector>

namespace rag {

bool glob_match(std::string_view pattern, std::string_view path);

/// Whether one of `patterns` matches every path below `folder` (relative, without a trailing '/'):
/// `**`, or a pattern ending in `/**` whose head matches the folder or one above it. Such a folder
/// (`**/.git/**`) need not be read or watched at all.
bool excludes_folder(const std::vector<std::string>& patterns, std::string_view folder);

}  // namespace rag
