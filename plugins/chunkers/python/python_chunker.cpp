#include "python_chunker.hpp"

#include <algorithm>
#include <utility>

#include "rag/code_names.hpp"
#include "scope_chunks.hpp"
#include "tree_sitter_support.hpp"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace rag {
namespace {

using tree_sitter::begin_of;
using tree_sitter::Cursor;
using tree_sitter::end_of;
using tree_sitter::field;
using tree_sitter::for_each_named_child;
using tree_sitter::text_of;
using tree_sitter::type_of;

// The whitespace of a line in Python, as its tokenizer reads it: indentation is made of these.
constexpr std::string_view kBlanks = " \t\f";
bool is_blank(char c) { return kBlanks.find(c) != std::string_view::npos; }

// Nodes whose children are statements; ERROR nodes hold whatever the parser gave up on.
bool holds_statements(std::string_view type) { return type == "module" || type == "block" || type == "ERROR"; }

// The parts of compound statements that read like statements of their own.
bool is_clause(std::string_view type) {
  return type == "elif_clause" || type == "else_clause" || type == "except_clause" ||
         type == "except_group_clause" || type == "finally_clause" || type == "case_clause";
}

// Nodes below which statements or clauses may be: the compound statements and what holds them.
bool may_hold_statements(std::string_view type) {
  return holds_statements(type) || is_clause(type) || type == "function_definition" || type == "class_definition" ||
         type == "decorated_definition" || type == "if_statement" || type == "for_statement" ||
         type == "while_statement" || type == "try_statement" || type == "with_statement" ||
         type == "match_statement";
}

// A statement of a scope's body; `begin` takes in the comment lines directly above it.
struct Item {
  TSNode node;
  std::size_t begin;
};

// A function or class among a scope's statements; `name` is empty for any other statement.
struct Definition {
  TSNode node;  // the function_definition or class_definition, inside any decorated_definition
  std::string name;
};

// Chunks one parsed file. Scopes (the module, classes, functions) are cut into consecutive
// segments, one per statement, that together cover the scope's whole byte range, so nothing in
// the file can be lost whatever tree the parser returned; pieces are trimmed of whitespace.
class FileChunker {
 public:
  FileChunker(const SourceFile& file, TSNode root, tree_sitter::ChunkSizes sizes)
      : text_(file.text()), root_(root), chunks_(file, sizes, kBlanks, ".") {
    chunks_.set_nested_starts(index_tree());
  }

  std::vector<ChunkSpan> run(const std::string& module) && {
    chunk_scope(root_, {0, text_.size()}, module, false);
    return std::move(chunks_).take();
  }

 private:
  // Cuts `range`, the extent of a scope whose statements are the children of `body`, into
  // chunks. In a module or class every definition is a unit of its own; in a function only a
  // nested definition too large to travel with the surrounding statements is.
  void chunk_scope(TSNode body, ByteRange range, const std::string& scope, bool in_function) {
    const std::vector<Item> items = body_items(body, range.begin);
    tree_sitter::ScopeChunks pieces(chunks_, scope);
    std::size_t run_begin = range.begin;
    std::vector<std::size_t> run_cuts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const ByteRange segment{items[i].begin, i + 1 < items.size() ? items[i + 1].begin : range.end};
      const Definition definition = definition_of(items[i].node);
      const bool fits = chunks_.fits(segment);
      if (definition.name.empty() || (in_function && fits)) {
        run_cuts.push_back(segment.begin);
        continue;
      }
      pieces.add_run({run_begin, segment.begin}, run_cuts);
      run_cuts.clear();
      const std::string name = scope + "." + definition.name;
      if (fits) {
        pieces.add(trim(text_, segment), name);
      } else {
        pieces.flush();
        chunk_scope(field(definition.node, "body"), segment, name, type_of(definition.node) == "function_definition");
      }
      run_begin = segment.end;
    }
    pieces.add_run({run_begin, range.end}, run_cuts);
    pieces.flush();
  }

  // The statements of `body` (a null node has none). Comments directly above a statement are
  // folded into it; `lower` is where the first statement's comments may begin at the earliest.
  std::vector<Item> body_items(TSNode body, std::size_t lower) const {
    std::vector<Item> items;
    for_each_named_child(body, [&](TSNode child, std::string_view) {
      // Trailing comments and stray backslashes are left to the segment of what precedes them.
      const std::string_view type = type_of(child);
      if (type == "line_continuation" || (type == "comment" && !chunks_.starts_line(begin_of(child)))) return;
      if (type == "comment") {
        items.push_back({child, begin_of(child)});
        return;
      }
      const std::size_t begin = attached_begin(begin_of(child), lower);
      while (!items.empty() && items.back().begin >= begin) items.pop_back();
      items.push_back({child, begin});
      lower = end_of(child);
    });
    return items;
  }

  // `pos` moved up over the own-line comments right above it (no blank line between), none of
  // them starting before `lower`.
  std::size_t attached_begin(std::size_t pos, std::size_t lower) const {
    if (!chunks_.starts_line(pos)) return pos;
    std::size_t begin = pos;
    for (;;) {
      const std::size_t line = chunks_.line_begin(begin);
      if (line == 0) break;
      std::size_t previous_end = line - 1;  // the line break that ends the line above
      if (text_[previous_end] == '\n' && previous_end > 0 && text_[previous_end - 1] == '\r') --previous_end;
      const std::size_t previous = chunks_.line_begin(previous_end);
      if (previous < lower) break;
      std::size_t first = previous;
      while (first < previous_end && is_blank(text_[first])) ++first;
      if (first == previous_end || !is_comment_at(first)) break;
      begin = first;
    }
    return begin;
  }

  // A '#' that the parser read as a comment, not as part of a string.
  bool is_comment_at(std::size_t pos) const {
    return std::binary_search(comment_starts_.begin(), comment_starts_.end(), pos);
  }

  Definition definition_of(TSNode node) const {
    if (type_of(node) == "decorated_definition") node = field(node, "definition");
    if (ts_node_is_null(node)) return {node, ""};
    const std::string_view type = type_of(node);
    if (type != "function_definition" && type != "class_definition") return {node, ""};
    const TSNode name = field(node, "name");
    if (ts_node_is_null(name)) return {node, ""};
    return {node, std::string(text_of(name, text_))};
  }

  // One walk over the tree: where the comments start (into comment_starts_), and where every
  // statement and clause starts (with its comments), for cutting a statement too long to be kept
  // whole. It goes down only into nodes that may hold statements, or comments: a node without a
  // '#' in its text holds none, and most of a file's nodes are expressions without one.
  std::vector<std::size_t> index_tree() {
    std::vector<std::size_t> hashes;  // where the text has a '#'
    for (std::size_t at = text_.find('#'); at != std::string_view::npos; at = text_.find('#', at + 1)) hashes.push_back(at);
    const auto has_hash = [&](TSNode node) {
      const auto it = std::lower_bound(hashes.begin(), hashes.end(), begin_of(node));
      return it != hashes.end() && *it < end_of(node);
    };
    std::vector<std::size_t> nested_starts;
    std::vector<std::pair<TSNode, std::size_t>> containers;  // with where their parent begins
    std::vector<std::size_t> ancestors;                      // where each ancestor of the cursor's node begins
    Cursor cursor(root_);
    for (bool done = false; !done;) {
      const TSNode node = ts_tree_cursor_current_node(cursor.get());
      const std::string_view type = type_of(node);
      if (type == "comment") {
        comment_starts_.push_back(begin_of(node));  // in file order, as the walk visits leaves
      } else if (holds_statements(type)) {
        containers.emplace_back(node, ancestors.empty() ? 0 : ancestors.back());
      } else if (is_clause(type) && chunks_.starts_line(begin_of(node))) {
        nested_starts.push_back(begin_of(node));
      }
      const bool inside = may_hold_statements(type) || ts_node_has_error(node) || has_hash(node);
      if (inside && ts_tree_cursor_goto_first_child(cursor.get())) {
        ancestors.push_back(begin_of(node));
        continue;
      }
      while (!done && !ts_tree_cursor_goto_next_sibling(cursor.get())) {
        done = !ts_tree_cursor_goto_parent(cursor.get());
        if (!done) ancestors.pop_back();
      }
    }
    for (const auto& [container, lower] : containers)
      for (const Item& item : body_items(container, lower))
        if (chunks_.starts_line(item.begin)) nested_starts.push_back(item.begin);
    return nested_starts;
  }

  std::string_view text_;
  TSNode root_;
  tree_sitter::FileChunks chunks_;
  std::vector<std::size_t> comment_starts_;
};

}  // namespace

PythonChunker::PythonChunker(Options& options) : sizes_(tree_sitter::ChunkSizes::read(options)) { options.finish(); }

std::vector<ChunkSpan> PythonChunker::chunk(const SourceFile& file) const {
  const tree_sitter::TreePtr tree = tree_sitter::parse(file, tree_sitter_python(), "python");
  return FileChunker(file, ts_tree_root_node(tree.get()), sizes_).run(python_module_name(file.relative_path()));
}

}  // namespace rag
