#include "rag/glob.hpp"

namespace rag {
namespace {

bool match(std::string_view p, std::string_view s) {
  while (!p.empty()) {
    if (p.substr(0, 3) == "**/") {
      // Zero or more whole folders.
      for (std::size_t i = 0;; ++i) {
        if (match(p.substr(3), s.substr(i))) return true;
        const auto slash = s.find('/', i);
        if (slash == std::string_view::npos) return false;
        i = slash;
      }
    }
    if (p == "**") return true;
    if (p.front() == '*') {
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if (match(p.substr(1), s.substr(i))) return true;
        if (i < s.size() && s[i] == '/') return false;
      }
      return false;
    }
    if (s.empty()) return false;
    if (p.front() == '?' ? s.front() == '/' : p.front() != s.front()) return false;
    p.remove_prefix(1);
    s.remove_prefix(1);
  }
  return s.empty();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  if (pattern.find('/') == std::string_view::npos) {
    const auto slash = path.rfind('/');
    if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  }
  return match(pattern, path);
}

bool excludes_folder(const std::vector<std::string>& patterns, std::string_view folder) {
  // A pattern ending in "/**" matches folder/x only through its head matching the folder or a
  // folder above it, and then it matches every path below.
  const std::string below = std::string(folder) + "/x";
  for (const std::string& p : patterns)
    if ((p == "**" || p.ends_with("/**")) && glob_match(p, below)) return true;
  return false;
}

}  // namespace rag
