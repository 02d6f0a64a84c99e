#include "cpp_chunker.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "rag/utf8.hpp"
#include "scope_chunks.hpp"
#include "tree_sitter_support.hpp"

extern "C" const TSLanguage* tree_sitter_cpp(void);

namespace rag {
namespace {

using tree_sitter::begin_of;
using tree_sitter::Cursor;
using tree_sitter::end_of;
using tree_sitter::field;
using tree_sitter::for_each_named_child;
using tree_sitter::text_of;
using tree_sitter::type_of;

// The whitespace of a line in C and C++ (the standard's, but for the line breaks): indentation
// is made of these.
constexpr std::string_view kBlanks = " \t\f\v";
bool is_blank(char c) { return kBlanks.find(c) != std::string_view::npos; }
bool is_space(char c) { return is_blank(c) || c == '\n' || c == '\r'; }

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// How deep definitions and preprocessor blocks are looked into. Real code nests a few levels;
// a file of thousands of nested namespaces or #if blocks would otherwise exhaust the stack
// (tree-sitter parses it all right). Past this depth a definition is cut at its statements and
// lines only, and a preprocessor block is an item like any other.
constexpr std::size_t kMaxNesting = 64;

// Names longer than this, in code points, are cut there and end in "...": sections are stored
// with every chunk of their scope.
constexpr std::size_t kLongName = 200;

// Preprocessor conditionals and the nodes the parser gave up on: their children are items of
// the scope around them, so that definitions inside are found like any other.
bool is_transparent(std::string_view type) {
  return type == "preproc_if" || type == "preproc_ifdef" || type == "preproc_else" || type == "preproc_elif" ||
         type == "preproc_elifdef" || type == "ERROR";
}

// Nodes whose children are declarations, members, statements or enumerators.
bool holds_items(std::string_view type) {
  return type == "translation_unit" || type == "declaration_list" || type == "field_declaration_list" ||
         type == "compound_statement" || type == "enumerator_list" || type == "case_statement";
}

// The parts of compound statements that read like statements of their own.
bool is_clause(std::string_view type) { return type == "else_clause" || type == "catch_clause"; }

bool is_class_like(std::string_view type) {
  return type == "class_specifier" || type == "struct_specifier" || type == "union_specifier" ||
         type == "enum_specifier";
}

// What a function definition's declarator chain ends in: the name it defines.
bool is_function_name(std::string_view type) {
  return type == "identifier" || type == "field_identifier" || type == "qualified_identifier" ||
         type == "destructor_name" || type == "operator_name" || type == "operator_cast" ||
         type == "template_function";
}

// An item of a scope: a declaration, member or statement; `begin` takes in what introduces it
// (see is_head) and the opening line of a preprocessor block it starts.
struct Item {
  TSNode node;
  std::size_t begin;
};

// A function, class or namespace among a scope's items. `name` is what it adds to the scope's
// qualified name: empty for an anonymous namespace or an `extern "C"` block.
struct Definition {
  bool found = false;
  bool is_function = false;
  TSNode body{};  // its members or statements; may be a null node (nothing to split at)
  std::string name;
};

// Chunks one parsed file. Scopes (the file, namespaces, classes, functions) are cut into
// consecutive segments, one per item, that together cover the scope's whole byte range, so
// nothing in the file can be lost whatever tree the parser returned; pieces are trimmed of
// whitespace.
class FileChunker {
 public:
  FileChunker(const SourceFile& file, TSNode root, tree_sitter::ChunkSizes sizes)
      : text_(file.text()), root_(root), chunks_(file, sizes, kBlanks, "::") {
    chunks_.set_nested_starts(index_tree());
  }

  std::vector<ChunkSpan> run() && {
    chunk_scope(root_, {0, text_.size()}, "", false, 0);
    return std::move(chunks_).take();
  }

 private:
  // Cuts `range`, the extent of a scope whose items are the children of `body`, into chunks.
  // In a file, namespace or class every definition is a unit of its own; in a function only a
  // nested definition too large to travel with the surrounding statements is. `depth` counts
  // the definitions around the scope.
  void chunk_scope(TSNode body, ByteRange range, const std::string& scope, bool in_function, std::size_t depth) {
    const std::vector<Item> items = items_of(body);
    tree_sitter::ScopeChunks pieces(chunks_, scope);
    std::size_t run_begin = range.begin;
    std::vector<std::size_t> run_cuts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      ByteRange segment{items[i].begin, i + 1 < items.size() ? items[i + 1].begin : range.end};
      const Definition definition = definition_of(items[i].node);
      bool fits = chunks_.fits(segment);
      if (!definition.found || (in_function && fits)) {
        run_cuts.push_back(segment.begin);
        continue;
      }
      // The scope's opening ("namespace vllm {") is too little to be a chunk of its own: it
      // goes with a first member that fits with it, or that must be split anyway.
      if (run_begin == range.begin && run_cuts.empty() && (!fits || chunks_.fits({run_begin, segment.end}))) {
        segment.begin = run_begin;
        fits = chunks_.fits(segment);
      }
      pieces.add_run({run_begin, segment.begin}, run_cuts);
      run_cuts.clear();
      const std::string name = qualified(scope, definition.name);
      if (fits) {
        pieces.add(trim(text_, segment), name);
      } else {
        pieces.flush();
        chunk_scope(depth < kMaxNesting ? definition.body : TSNode{}, segment, name, definition.is_function,
                    depth + 1);
      }
      run_begin = segment.end;
    }
    pieces.add_run({run_begin, range.end}, run_cuts);
    pieces.flush();
  }

  static std::string qualified(const std::string& scope, const std::string& name) {
    if (name.empty()) return scope;
    return scope.empty() ? name : scope + "::" + name;
  }

  // The items of `container` (a null node has none), in file order with increasing begins.
  std::vector<Item> items_of(TSNode container) const {
    std::vector<Item> items;
    if (ts_node_is_null(container)) return items;
    std::size_t opener = kNone;
    collect_items(container, items, opener, 0);
    return items;
  }

  // Appends the items among the children of `container`, looking inside preprocessor blocks
  // and error nodes (`depth` of them around `container`). `opener` is where the innermost such
  // block still waiting for its first item begins: its opening line (#if, #ifdef, #else)
  // belongs to that item.
  void collect_items(TSNode container, std::vector<Item>& items, std::size_t& opener, std::size_t depth) const {
    // A child in a field is part of the container's own syntax (an #if condition, a case
    // value), except the #else branch of a preprocessor block; the fields inside an error node
    // belong to the constructs the parser could not finish.
    const bool fields_are_syntax = type_of(container) != "ERROR";
    for_each_named_child(container, [&](TSNode child, std::string_view field_name) {
      if (fields_are_syntax && !field_name.empty() && field_name != "alternative") return;
      const std::string_view type = type_of(child);
      if (is_transparent(type) && depth < kMaxNesting) {
        const bool opens = opener == kNone;
        if (opens) opener = begin_of(child);
        collect_items(child, items, opener, depth + 1);
        // A block without items leaves its lines to the item before it.
        if (opens) opener = kNone;
      } else if (type == "comment") {
        // Trailing comments are left to the segment of what precedes them.
        if (chunks_.starts_line(begin_of(child))) {
          drop_from(items, begin_of(child));
          items.push_back({child, begin_of(child)});
        }
      } else if (const std::string_view stray = stray_directive(child); stray.starts_with("#el")) {
        // An #else or #elif the parser did not pair with an #if opens what follows.
        opener = std::min(opener, begin_of(child));
      } else if (stray != "#endif" && !is_empty_statement(child)) {
        // (An unpaired #endif and a stray ";", as after a namespace's "}", are no items: they
        // trail the item before, as closing braces do.)
        std::size_t begin = std::min(opener, begin_of(child));
        opener = kNone;
        drop_from(items, begin);
        begin = with_heads_above(items, begin);
        items.push_back({child, begin});
      }
    });
  }

  // Items from `begin` on were taken in by the item starting there (comments inside the
  // preprocessor block it opens, a zero-width node the parser inserted): begins keep increasing.
  static void drop_from(std::vector<Item>& items, std::size_t begin) {
    while (!items.empty() && items.back().begin >= begin) items.pop_back();
  }

  // The directive of a preprocessor line outside any block ("#pragma", or "#else" when the
  // parser did not pair it with an #if); empty for any other node.
  std::string_view stray_directive(TSNode node) const {
    const TSNode directive = type_of(node) == "preproc_call" ? field(node, "directive") : TSNode{};
    if (ts_node_is_null(directive)) return {};
    return text_of(directive, text_);
  }
  static bool is_empty_statement(TSNode node) {
    return type_of(node) == "expression_statement" && ts_node_named_child_count(node) == 0;
  }

  // `begin` moved up over the items above that belong to the item starting there, and stop
  // being items of their own (see is_head).
  std::size_t with_heads_above(std::vector<Item>& items, std::size_t begin) const {
    while (!items.empty() && is_head(items.back().node, begin)) {
      begin = items.back().begin;
      items.pop_back();
    }
    return begin;
  }

  // Whether `above` introduces the item that starts at `begin`: an own-line comment right above
  // it (no blank line between); the access label "public:" before it; a declaration the parser
  // could only end by inventing a ";", right above it: in practice a macro it does not know,
  // as in `__device__ __forceinline__` or `CUTLASS_DEVICE` on the line above a function.
  bool is_head(TSNode above, std::size_t begin) const {
    const std::string_view type = type_of(above);
    std::size_t end = end_of(above);
    if (type == "access_specifier") {
      while (end < begin && is_blank(text_[end])) ++end;
      if (end < begin && text_[end] == ':') ++end;
      return line_breaks(end, begin) != kNone;
    }
    const std::uint32_t children = ts_node_child_count(above);
    const bool invented_end = children > 0 && ts_node_is_missing(ts_node_child(above, children - 1));
    return (type == "comment" || invented_end) && line_breaks(end, begin) <= 1;
  }

  // The line breaks between `end` and `begin`, or kNone when anything but whitespace lies there.
  std::size_t line_breaks(std::size_t end, std::size_t begin) const {
    if (end > begin) return kNone;
    std::size_t breaks = 0;
    for (std::size_t i = end; i < begin; ++i) {
      const char c = text_[i];
      if (!is_space(c)) return kNone;
      // "\r\n" is one line break, counted at its "\n".
      if (c == '\n' || (c == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n'))) ++breaks;
    }
    return breaks;
  }

  Definition definition_of(TSNode node) const {
    while (!ts_node_is_null(node) && type_of(node) == "template_declaration") node = templated(node);
    if (ts_node_is_null(node)) return {};
    const std::string_view type = type_of(node);
    if (type == "function_definition") {
      const TSNode name = function_name(field(node, "declarator"));
      if (ts_node_is_null(name)) return {};
      return {true, true, field(node, "body"), name_of(name)};
    }
    if (type == "namespace_definition") {
      const TSNode name = field(node, "name");
      return {true, false, field(node, "body"), ts_node_is_null(name) ? std::string() : name_of(name)};
    }
    if (type == "linkage_specification") {
      const TSNode body = field(node, "body");
      if (!ts_node_is_null(body) && type_of(body) == "declaration_list") return {true, false, body, ""};
      return ts_node_is_null(body) ? Definition{} : definition_of(body);
    }
    if (is_class_like(type)) return class_definition(node, TSNode{});
    // `class Foo {...} foo;`, `typedef struct {...} Foo;`, a nested class among members.
    if (type == "declaration" || type == "field_declaration" || type == "type_definition") {
      const TSNode specifier = field(node, "type");
      if (!ts_node_is_null(specifier) && is_class_like(type_of(specifier)))
        return class_definition(specifier, type == "type_definition" ? field(node, "declarator") : TSNode{});
    }
    return {};
  }

  // A class, struct, union or enum with a body, named by its own name or else by `alias` (the
  // name a typedef gives it); an anonymous one is not a unit.
  Definition class_definition(TSNode specifier, TSNode alias) const {
    const TSNode body = field(specifier, "body");
    TSNode name = field(specifier, "name");
    if (ts_node_is_null(name)) name = alias;
    if (ts_node_is_null(body) || ts_node_is_null(name)) return {};
    return {true, false, body, name_of(name)};
  }

  // What a template declaration declares: its last child but the parameters and comments.
  static TSNode templated(TSNode node) {
    TSNode last{};
    for_each_named_child(node, [&](TSNode child, std::string_view field_name) {
      if (field_name.empty() && type_of(child) != "comment") last = child;
    });
    return last;
  }

  // The name a function definition's declarator defines, through pointer, reference and
  // parenthesised declarators ("int* (f)()"); a null node when there is none.
  static TSNode function_name(TSNode declarator) {
    while (!ts_node_is_null(declarator) && !is_function_name(type_of(declarator))) {
      TSNode inner = field(declarator, "declarator");
      if (ts_node_is_null(inner) && type_of(declarator) == "parenthesized_declarator")
        inner = ts_node_named_child(declarator, 0);
      declarator = inner;
    }
    return declarator;
  }

  // What a name node spells: the whole of it ("Foo::bar"), or only its last component when the
  // parser had to invent a token inside it: `FORCE_INLINE vec_op::FP32Vec8 silu_act(...)`, with
  // an unknown macro in front, reads as a function "vec_op::FP32Vec8 silu_act" with a missing
  // "::" before "silu_act".
  std::string name_of(TSNode name) const {
    if (ts_node_has_error(name))
      for (TSNode last = field(name, "name"); !ts_node_is_null(last); last = field(name, "name")) name = last;
    // A conversion operator's node holds its parameters and qualifiers too: "Foo::operator
    // bool() const" is named "Foo::operator bool".
    std::size_t end = end_of(name);
    TSNode last = name;
    while (!ts_node_is_null(last) && type_of(last) == "qualified_identifier") last = field(last, "name");
    if (!ts_node_is_null(last) && type_of(last) == "operator_cast") {
      const TSNode parameters = field(last, "declarator");
      if (!ts_node_is_null(parameters)) end = begin_of(parameters);
    }
    std::string out = with_long_arguments_elided(name, end);
    if (utf8::count_code_points(out) > kLongName) out = out.substr(0, utf8::prefix_bytes(out, kLongName)) + "...";
    return out;
  }

  // The source of `node` up to `end`, spelled(), with each template argument list longer than
  // kLongArguments bytes written "<...>". Class template specializations in CUTLASS have
  // argument lists of hundreds of characters, which would make every name in the class as long.
  std::string with_long_arguments_elided(TSNode node, std::size_t end) const {
    constexpr std::size_t kLongArguments = 40;
    std::string out;
    std::size_t done = begin_of(node);
    // A walk through the subtree in file order, without recursion: names nest without limit.
    Cursor cursor(node);
    for (bool descend = true;;) {
      if (!descend || !ts_tree_cursor_goto_first_child(cursor.get())) {
        while (!ts_tree_cursor_goto_next_sibling(cursor.get()))
          if (!ts_tree_cursor_goto_parent(cursor.get()) || ts_node_eq(ts_tree_cursor_current_node(cursor.get()), node))
            return out + spelled(done, end);
      }
      const TSNode current = ts_tree_cursor_current_node(cursor.get());
      if (begin_of(current) >= end) return out + spelled(done, end);
      descend = !(type_of(current) == "template_argument_list" && end_of(current) <= end &&
                  end_of(current) - begin_of(current) > kLongArguments);
      if (!descend) {
        out += spelled(done, begin_of(current)) + "<...>";
        done = end_of(current);
      }
    }
  }

  // The source between `begin` and `end` with each run of whitespace made one space
  // ("Foo<int,\n  2>" spans lines at times) and none at either end.
  std::string spelled(std::size_t begin, std::size_t end) const {
    std::string out;
    for (std::size_t i = begin; i < end; ++i) {
      if (!is_space(text_[i])) {
        out += text_[i];
      } else if (!out.empty() && out.back() != ' ') {
        out += ' ';
      }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

  // One walk over the whole tree: where every item and clause starting a line begins, for
  // cutting a run too long to be kept whole inside its items.
  std::vector<std::size_t> index_tree() const {
    std::vector<std::size_t> nested_starts;
    Cursor cursor(root_);
    for (bool done = false, at_root = true; !done; at_root = false) {
      const TSNode node = ts_tree_cursor_current_node(cursor.get());
      const std::string_view type = type_of(node);
      // The root holds items whatever its type (an ERROR, for some files).
      if (at_root || holds_items(type)) {
        for (const Item& item : items_of(node))
          if (chunks_.starts_line(item.begin)) nested_starts.push_back(item.begin);
      } else if (is_clause(type) && chunks_.starts_line(begin_of(node))) {
        nested_starts.push_back(begin_of(node));
      }
      if (ts_tree_cursor_goto_first_child(cursor.get())) continue;
      while (!done && !ts_tree_cursor_goto_next_sibling(cursor.get())) done = !ts_tree_cursor_goto_parent(cursor.get());
    }
    return nested_starts;
  }

  std::string_view text_;
  TSNode root_;
  tree_sitter::FileChunks chunks_;
};

}  // namespace

CppChunker::CppChunker(Options& options) : sizes_(tree_sitter::ChunkSizes::read(options)) { options.finish(); }

std::vector<ChunkSpan> CppChunker::chunk(const SourceFile& file) const {
  const tree_sitter::TreePtr tree = tree_sitter::parse(file, tree_sitter_cpp(), "cpp");
  return FileChunker(file, ts_tree_root_node(tree.get()), sizes_).run();
}

}  // namespace rag
