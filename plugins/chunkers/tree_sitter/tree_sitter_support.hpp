#pragma once
// What the tree-sitter chunkers (python, cpp) share of tree-sitter itself: owning handles for the
// C API's parser, tree and cursor, the node accessors they use everywhere, and parsing a file.
#include <tree_sitter/api.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "rag/error.hpp"
#include "rag/source_file.hpp"

namespace rag::tree_sitter {

struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};
struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

/// A TSTreeCursor is a value that still owns heap memory: this one frees it.
class Cursor {
 public:
  explicit Cursor(TSNode node) : cursor_(ts_tree_cursor_new(node)) {}
  ~Cursor() { ts_tree_cursor_delete(&cursor_); }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  TSTreeCursor* get() { return &cursor_; }

 private:
  TSTreeCursor cursor_;
};

inline std::string_view type_of(TSNode node) { return ts_node_type(node); }
inline std::size_t begin_of(TSNode node) { return ts_node_start_byte(node); }
inline std::size_t end_of(TSNode node) { return ts_node_end_byte(node); }

/// The child of `node` in the field `name`; a null node when there is none.
inline TSNode field(TSNode node, std::string_view name) {
  return ts_node_child_by_field_name(node, name.data(), static_cast<std::uint32_t>(name.size()));
}

/// What `node` spans of `text`, the text its tree was parsed from.
inline std::string_view text_of(TSNode node, std::string_view text) {
  return text.substr(begin_of(node), end_of(node) - begin_of(node));
}

/// Calls visit(child, field_name) for each named child of `node` in order, `field_name` being the
/// field that holds the child or empty; a null node has no children. Through a cursor, as
/// ts_node_named_child(i) rescans from the first child.
template <class Visit>
void for_each_named_child(TSNode node, Visit&& visit) {
  if (ts_node_is_null(node)) return;
  Cursor cursor(node);
  if (!ts_tree_cursor_goto_first_child(cursor.get())) return;
  do {
    const TSNode child = ts_tree_cursor_current_node(cursor.get());
    if (!ts_node_is_named(child)) continue;
    const char* field_name = ts_tree_cursor_current_field_name(cursor.get());
    visit(child, field_name == nullptr ? std::string_view() : std::string_view(field_name));
  } while (ts_tree_cursor_goto_next_sibling(cursor.get()));
}

/// The syntax tree of `file` in `language`, the grammar of the npm package tree-sitter-<chunker>.
/// A parser per call: cheap, and chunk() runs on several threads at once. Throws rag::Error when
/// the file is over the 4 GiB tree-sitter reads or the grammar does not match the runtime.
inline TreePtr parse(const SourceFile& file, const TSLanguage* language, std::string_view chunker) {
  const std::string_view text = file.text();
  if (text.size() > std::numeric_limits<std::uint32_t>::max())
    throw Error(file.name() + ": too large for the " + std::string(chunker) +
                " chunker (tree-sitter reads at most 4 GiB)");
  const ParserPtr parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), language))
    throw Error(std::string(chunker) + " chunker: the tree-sitter-" + std::string(chunker) +
                " grammar does not match the tree-sitter runtime");
  TreePtr tree(ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<std::uint32_t>(text.size())));
  if (!tree) throw Error(file.name() + ": tree-sitter returned no tree");
  return tree;
}

}  // namespace rag::tree_sitter
