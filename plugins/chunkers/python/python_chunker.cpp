#include "python_chunker.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "tree_sitter_support.hpp"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace rag {
namespace {

using tree_sitter::begin_of;
using tree_sitter::Cursor;
using tree_sitter::end_of;
using tree_sitter::type_of;

// Named children through a cursor: ts_node_named_child(i) rescans from the first child.
template <class F>
void for_each_named_child(TSNode node, F&& visit) {
  if (ts_node_is_null(node)) return;
  Cursor cursor(node);
  if (!ts_tree_cursor_goto_first_child(cursor.get())) return;
  do {
    const TSNode child = ts_tree_cursor_current_node(cursor.get());
    if (ts_node_is_named(child)) visit(child);
  } while (ts_tree_cursor_goto_next_sibling(cursor.get()));
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Nodes whose children are statements; ERROR nodes hold whatever the parser gave up on.
bool holds_statements(std::string_view type) { return type == "module" || type == "block" || type == "ERROR"; }

// The parts of compound statements that read like statements of their own.
bool is_clause(std::string_view type) {
  return type == "elif_clause" || type == "else_clause" || type == "except_clause" ||
         type == "except_group_clause" || type == "finally_clause" || type == "case_clause";
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
  FileChunker(const SourceFile& file, TSNode root, SplitLimits limits, std::size_t min_chars)
      : file_(file), text_(file.text()), root_(root), limits_(limits), min_chars_(min_chars) {
    const ByteRange all{0, text_.size()};
    lines_ = line_starts(text_, all);
    index_tree();
  }

  std::vector<ChunkSpan> run(const std::string& module) && {
    chunk_scope(root_, {0, text_.size()}, module, false);
    return std::move(out_);
  }

 private:
  // Pieces of one scope waiting for a neighbour to merge with (min_chunk_size).
  struct Group {
    ByteRange bytes;
    std::string section;
    std::size_t count = 0;
  };

  // Cuts `range`, the extent of a scope whose statements are the children of `body`, into
  // chunks. In a module or class every definition is a unit of its own; in a function only a
  // nested definition too large to travel with the surrounding statements is.
  void chunk_scope(TSNode body, ByteRange range, const std::string& scope, bool in_function) {
    const std::vector<Item> items = body_items(body, range.begin);
    Group group;
    std::size_t run_begin = range.begin;
    std::vector<std::size_t> run_cuts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const ByteRange segment{items[i].begin, i + 1 < items.size() ? items[i + 1].begin : range.end};
      const Definition definition = definition_of(items[i].node);
      const bool fits = file_.char_count(trim(text_, segment)) <= limits_.max_chars;
      if (definition.name.empty() || (in_function && fits)) {
        run_cuts.push_back(segment.begin);
        continue;
      }
      add_run({run_begin, segment.begin}, run_cuts, scope, group);
      run_cuts.clear();
      const std::string name = scope + "." + definition.name;
      if (fits) {
        add_piece(group, scope, trim(text_, segment), name);
      } else {
        flush(group, scope);
        const TSNode definition_body = ts_node_child_by_field_name(definition.node, "body", 4);
        chunk_scope(definition_body, segment, name, type_of(definition.node) == "function_definition");
      }
      run_begin = segment.end;
    }
    add_run({run_begin, range.end}, run_cuts, scope, group);
    flush(group, scope);
  }

  // Consecutive statements, cut at their own starts first, then at nested statements, then
  // at lines. A run that opens a scope carries the scope's header with it.
  void add_run(ByteRange range, const std::vector<std::size_t>& cuts, const std::string& scope, Group& group) {
    std::vector<std::size_t> statement_cuts;
    for (const std::size_t cut : cuts)
      if (starts_line(cut)) statement_cuts.push_back(cut);
    const std::vector<std::vector<std::size_t>> levels = {statement_cuts, inside(nested_starts_, range),
                                                          inside(lines_, range)};
    for (const ByteRange piece : split_range(file_, range, levels, limits_))
      add_piece(group, scope, piece, scope);
  }

  void add_piece(Group& group, const std::string& scope, ByteRange piece, const std::string& section) {
    const bool small = file_.char_count(piece) < min_chars_;
    if (small && group.count > 0 && file_.char_count({group.bytes.begin, piece.end}) <= limits_.max_chars) {
      group.bytes.end = piece.end;
      ++group.count;
      return;
    }
    flush(group, scope);
    if (small) {
      group = {piece, section, 1};
    } else {
      out_.push_back({piece, section});
    }
  }

  void flush(Group& group, const std::string& scope) {
    if (group.count == 0) return;
    out_.push_back({group.bytes, group.count == 1 ? group.section : scope});
    group.count = 0;
  }

  // The statements of `body` (a null node has none). Comments directly above a statement are
  // folded into it; `lower` is where the first statement's comments may begin at the earliest.
  std::vector<Item> body_items(TSNode body, std::size_t lower) const {
    std::vector<Item> items;
    for_each_named_child(body, [&](TSNode child) {
      // Trailing comments and stray backslashes are left to the segment of what precedes them.
      const std::string_view type = type_of(child);
      if (type == "line_continuation" || (type == "comment" && !starts_line(begin_of(child)))) return;
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
    if (!starts_line(pos)) return pos;
    std::size_t begin = pos;
    for (;;) {
      const std::size_t line = line_begin(begin);
      if (line == 0) break;
      std::size_t previous_end = line - 1;  // the line break that ends the line above
      if (text_[previous_end] == '\n' && previous_end > 0 && text_[previous_end - 1] == '\r') --previous_end;
      const std::size_t previous = line_begin(previous_end);
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
    if (type_of(node) == "decorated_definition") node = ts_node_child_by_field_name(node, "definition", 10);
    if (ts_node_is_null(node)) return {node, ""};
    const std::string_view type = type_of(node);
    if (type != "function_definition" && type != "class_definition") return {node, ""};
    const TSNode name = ts_node_child_by_field_name(node, "name", 4);
    if (ts_node_is_null(name)) return {node, ""};
    return {node, std::string(text_.substr(begin_of(name), end_of(name) - begin_of(name)))};
  }

  std::size_t line_begin(std::size_t pos) const {
    const auto next_line = std::upper_bound(lines_.begin(), lines_.end(), pos);
    return next_line == lines_.begin() ? 0 : *std::prev(next_line);
  }

  // Only indentation precedes `pos` on its line.
  bool starts_line(std::size_t pos) const {
    while (pos > 0 && is_blank(text_[pos - 1])) --pos;
    return pos == 0 || text_[pos - 1] == '\n' || text_[pos - 1] == '\r';
  }

  // One walk over the whole tree: where the comments start, and where every statement and
  // clause starts (with its comments), for cutting a statement too long to be kept whole.
  void index_tree() {
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
      } else if (is_clause(type) && starts_line(begin_of(node))) {
        nested_starts_.push_back(begin_of(node));
      }
      if (ts_tree_cursor_goto_first_child(cursor.get())) {
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
        if (starts_line(item.begin)) nested_starts_.push_back(item.begin);
    std::sort(nested_starts_.begin(), nested_starts_.end());
    nested_starts_.erase(std::unique(nested_starts_.begin(), nested_starts_.end()), nested_starts_.end());
  }

  // The positions of sorted `all` strictly inside `range`.
  static std::vector<std::size_t> inside(const std::vector<std::size_t>& all, ByteRange range) {
    const auto first = std::upper_bound(all.begin(), all.end(), range.begin);
    return {first, std::max(first, std::lower_bound(all.begin(), all.end(), range.end))};
  }

  const SourceFile& file_;
  std::string_view text_;
  TSNode root_;
  SplitLimits limits_;
  std::size_t min_chars_;
  std::vector<std::size_t> lines_;
  std::vector<std::size_t> comment_starts_;
  std::vector<std::size_t> nested_starts_;
  std::vector<ChunkSpan> out_;
};

}  // namespace

PythonChunker::PythonChunker(Options& options) {
  limits_.max_chars = static_cast<std::size_t>(options.get_integer("max_chunk_size", 2000, 1, 1'000'000));
  min_chars_ = static_cast<std::size_t>(
      options.get_integer("min_chunk_size", 0, 0, static_cast<long long>(limits_.max_chars)));
  options.finish();
}

std::vector<ChunkSpan> PythonChunker::chunk(const SourceFile& file) const {
  const tree_sitter::TreePtr tree = tree_sitter::parse(file, tree_sitter_python(), "python");
  return FileChunker(file, ts_tree_root_node(tree.get()), limits_, min_chars_).run(module_name(file.relative_path()));
}

std::string PythonChunker::module_name(std::string_view relative_path) {
  std::string name(relative_path);
  for (const std::string_view extension : {std::string_view(".py"), std::string_view(".pyi")}) {
    if (name.ends_with(extension)) {
      name.resize(name.size() - extension.size());
      break;
    }
  }
  std::replace(name.begin(), name.end(), '/', '.');
  constexpr std::string_view kPackage = ".__init__";
  if (name.ends_with(kPackage)) name.resize(name.size() - kPackage.size());
  return name;
}

}  // namespace rag
