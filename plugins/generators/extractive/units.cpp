#include "units.hpp"

#include "extractive_generator.hpp"
#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace extractive {

std::string_view trim(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t\r\f\v");
  if (begin == std::string_view::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\f\v");
  return s.substr(begin, end - begin + 1);
}

std::string_view trim_right(std::string_view s) {
  const auto end = s.find_last_not_of(" \t\r\f\v");
  return end == std::string_view::npos ? std::string_view{} : s.substr(0, end + 1);
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const auto end = text.find('\n', begin);
    lines.push_back(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return lines;
}

std::string shorten(const std::string& text, std::size_t max_chars, bool code) {
  const std::size_t bytes = utf8::prefix_bytes(text, max_chars);
  if (bytes >= text.size()) return text;
  if (code) {
    const std::size_t line_end = text.rfind('\n', bytes);
    std::string kept = text.substr(0, line_end == std::string::npos || line_end == 0 ? text.find('\n') : line_end);
    if (!kept.empty() && kept.back() == '\\') {  // a line continued by a backslash now continues to nothing
      kept.pop_back();
      kept.resize(trim_right(kept).size());
    }
    return kept;
  }
  std::size_t cut = text.rfind(' ', bytes);
  if (cut == std::string::npos || cut == 0) cut = bytes;
  // Not inside inline code: a backtick left open would run on into the rest of the answer.
  if (std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cut), '`') % 2 == 1) {
    const std::size_t opened = text.rfind('`', cut - 1);
    const std::size_t space = opened == 0 ? std::string::npos : text.rfind(' ', opened - 1);
    cut = space == std::string::npos || space == 0 ? opened : space;
  }
  return text.substr(0, cut) + " …";
}

std::size_t indentation(std::string_view line) {
  const auto n = line.find_first_not_of(" \t");
  return n == std::string_view::npos ? line.size() : n;
}

std::string lowered(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (text.substr(i, 2) == "\xC2\xA0") {  // U+00A0, as Markdown pages have between words
      out += ' ';
      ++i;
    } else if (text.substr(i, 3) == "\xE2\x80\xAF") {  // U+202F, the narrow one
      out += ' ';
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace extractive

namespace {

using namespace extractive;

// A line that is markup for the site, not text: an autorefs anchor ("[](){ #legend }"), an
// attribute list ("{ #legend }", "{: .class }"), a snippet include (--8<-- "file.md:part").
bool is_markup(std::string_view t) {
  if (t.starts_with("--8<--")) return true;
  if (t.starts_with("[]()")) t.remove_prefix(4);
  if (t.size() < 3 || t.front() != '{' || t.back() != '}') return false;
  const std::size_t first = t.find_first_not_of(' ', 1);
  return first != std::string_view::npos && (t[first] == '#' || t[first] == ':' || t[first] == '.');
}

bool is_table_rule(std::string_view t) { return t.find_first_not_of("|-: ") == std::string_view::npos; }

// True when the sentence break at `start` is none: it follows an abbreviation ("e.g. the model")
// or the number that opens an ordered list item ("1. Install Docker.").
bool ends_no_sentence(std::string_view text, std::size_t start) {
  std::size_t dot = start;
  while (dot > 0 && text[dot - 1] == ' ') --dot;
  if (dot == 0 || text[dot - 1] != '.') return false;
  const std::size_t word_end = dot - 1;
  const std::size_t space = text.rfind(' ', word_end);
  const std::size_t word_begin = space == std::string_view::npos ? 0 : space + 1;
  const std::string word = lowered(text.substr(word_begin, word_end - word_begin));
  if (word_begin == 0 && !word.empty() && word.find_first_not_of("0123456789") == std::string::npos) return true;
  for (const std::string_view a : {"e.g", "i.e", "etc", "vs", "cf", "approx", "(e.g", "(i.e"})
    if (word == a) return true;
  return false;
}

// How much a code line opens brackets ("foo(a," is +1), strings and comments left out.
int bracket_balance(std::string_view line) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      break;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return depth;
}

// Markdown links keep their words only: "[the guide](url)" and "[LLM][vllm.LLM]" read as "the
// guide" and "LLM"; a MyST role before code ("{class}`x`") is dropped, but not braces that close
// a code span ("`--lora-modules {name}={path}`"); the docs' links to the repository read as what
// they name ("<gh-file:vllm/envs.py>" as `vllm/envs.py`, "<gh-pr:1234>" as "PR #1234").
std::string plain_links(std::string_view text) {
  std::string out;
  bool in_code = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') {
      in_code = !in_code;
    } else if (!in_code && text.substr(i, 4) == "<gh-") {
      const std::size_t colon = text.find(':', i);
      const std::size_t close = text.find('>', i);
      if (colon < close && close != std::string_view::npos && text.substr(i, close - i).find(' ') == std::string_view::npos) {
        const std::string_view kind = text.substr(i + 4, colon - i - 4);
        const std::string_view target = text.substr(colon + 1, close - colon - 1);
        if (kind == "issue") out.append("issue #").append(target);
        else if (kind == "pr") out.append("PR #").append(target);
        else out.append("`").append(target).append("`");
        i = close;
        continue;
      }
    } else if (!in_code && text[i] == '[') {
      const std::size_t close = text.find(']', i);
      if (close != std::string_view::npos && close + 1 < text.size() &&
          (text[close + 1] == '(' || text[close + 1] == '[')) {
        const std::size_t end = text.find(text[close + 1] == '(' ? ')' : ']', close + 1);
        if (end != std::string_view::npos && text.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
          out += text.substr(i + 1, close - i - 1);
          i = end;
          continue;
        }
      }
    } else if (!in_code && text[i] == '{') {
      const std::size_t close = text.find('}', i);
      if (close != std::string_view::npos && close + 1 < text.size() && text[close + 1] == '`' &&
          text.substr(i + 1, close - i - 1).find_first_not_of("abcdefghijklmnopqrstuvwxyz:-") ==
              std::string_view::npos) {
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// Collects the units of one source: sentences of prose, and code statements, each a whole
// logical line (brackets closed, no trailing backslash) of at most kMaxStatementLines lines.
class UnitWriter {
 public:
  /// `links`: prose may hold Markdown links, to be reduced to their words.
  UnitWriter(std::vector<ExtractiveGenerator::Unit>& out, std::size_t evidence, bool links)
      : out_(out), evidence_(evidence), links_(links) {}

  void code(std::string_view line) {
    flush_prose();
    const std::string_view t = trim_right(line);
    if (!statement_.empty()) statement_ += '\n';
    statement_ += t;
    ++statement_lines_;
    depth_ += bracket_balance(t);
    const bool continued = depth_ > 0 || (!t.empty() && t.back() == '\\');
    if (!continued || statement_lines_ >= kMaxStatementLines) end_statement();
  }
  bool in_statement() const { return !statement_.empty(); }
  // The table row just added is its table's header (a rule line follows it).
  void header() {
    if (!out_.empty() && out_.back().row()) out_.back().header = true;
  }
  // A unit on its own: a list item (with the lines that continue it), a table row, a comment.
  void prose_line(std::string_view text) {
    flush();
    paragraph_ = std::string(trim(text));
    item_ = true;
  }
  // A line of a comment: the lines of one comment are read together, as the sentences they
  // write across lines.
  void comment_line(std::string_view text) {
    if (!in_comment_) prose_line(text);
    else paragraph_.append(" ").append(trim(text));
    in_comment_ = true;
  }
  void prose(std::string_view text) {
    end_statement();
    const std::string_view t = trim(text);
    if (t.empty()) return flush_prose();
    if (!paragraph_.empty()) paragraph_ += ' ';
    paragraph_ += t;
  }
  void flush() {
    end_statement();
    flush_prose();
  }
  // Whether the sentences flushed from now on are a lede (see Unit::lede).
  void lede(bool on) { lede_ = on; }
  // A fenced code block opens: its first statement starts it (see Unit::block_start).
  // `announced`: the prose right before it ends without a stop ("To install it, run"), and so
  // announces it as a ':' would.
  void open_block(bool announced) {
    flush();
    if (announced && !out_.empty() && !out_.back().code && !out_.back().item)
      out_.back().announces = true;
    block_start_ = true;
  }
  // A fenced block ends: the next statement, whatever comes between, starts another.
  void end_block() { block_start_ = true; }

 private:
  static constexpr std::size_t kMaxStatementLines = 12;

  void end_statement() {
    // Brackets left open or a line continued: the statement goes on past what is kept of it (the
    // passage ends, or it is longer than kMaxStatementLines).
    const bool cut = depth_ > 0 || trim_right(statement_).ends_with('\\');
    add(std::move(statement_), true, cut);
    statement_.clear();
    statement_lines_ = 0;
    depth_ = 0;
  }
  // Ends the paragraph being gathered, cutting it into sentences.
  void flush_prose() {
    const std::string p = links_ ? plain_links(paragraph_) : paragraph_;
    std::size_t begin = 0;
    const std::size_t before = out_.size();
    for (const std::size_t start : sentence_starts(p, {0, p.size()})) {
      if (ends_no_sentence(p, start)) continue;
      add(std::string(trim(std::string_view(p).substr(begin, start - begin))), false);
      begin = start;
      continues_ = out_.size() > before;
    }
    add(std::string(trim(std::string_view(p).substr(begin))), false);
    continues_ = false;
    paragraph_.clear();
    item_ = false;
    in_comment_ = false;
  }
  void add(std::string text, bool is_code, bool cut = false) {
    if (trim(text).empty()) return;
    ExtractiveGenerator::Unit u;
    u.evidence = evidence_;
    u.code = is_code;
    u.cut = cut;
    u.chars = utf8::count_code_points(trim(text));
    u.item = item_;
    u.announces = !is_code && text.back() == ':';
    u.lede = lede_ && !is_code && !item_;
    u.block_start = is_code && block_start_;
    u.continues = !is_code && continues_;
    if (is_code) block_start_ = false;
    // Prose that starts like a code fence (a docstring's ```) would open one where it is quoted.
    if (!is_code && is_fence_line(text)) {
      std::string escaped(1, '\\');
      text = std::move(escaped.append(text));
    }
    u.text = std::move(text);
    out_.push_back(std::move(u));
  }

  std::vector<ExtractiveGenerator::Unit>& out_;
  std::size_t evidence_;
  bool links_;
  std::string paragraph_;
  bool item_ = false;  // the paragraph is a list item, a table row or a comment
  bool in_comment_ = false;  // the paragraph is a comment, which its next line continues
  bool lede_ = false;
  bool block_start_ = false;  // the next statement opens a fenced block
  bool continues_ = false;    // the next sentence goes on from another of its paragraph
  std::string statement_;
  std::size_t statement_lines_ = 0;
  int depth_ = 0;
};

// Whether a line of prose ends without a stop ("To install it, run", "... with [pip](url)",
// "**run**"), so that what follows goes on from it: its last character, closing brackets, quotes
// and emphasis aside, is no '.', '!', '?', ';', ':', ',' or ellipsis, nor a CJK full stop.
bool ends_without_stop(std::string_view line) {
  line = line.substr(0, line.find_last_not_of(" \t)]*_\"'") + 1);
  if (line.empty()) return false;
  for (const std::string_view stop : {"\u2026", "\u3002", "\uff01", "\uff1f", "\uff1a"})
    if (line.ends_with(stop)) return false;
  return std::string_view(".!?;:,").find(line.back()) == std::string_view::npos;
}

// Markdown, and any other text: its rules (fences, headings, lists, tables) cost plain text
// nothing, and Markdown files chunked as plain text keep their code whole.
void split_markdown(std::string_view text, UnitWriter& w, bool starts_in_code) {
  std::string_view fence = starts_in_code ? "```" : "";  // the open fence's marker, empty outside code
  // The lede (Unit::lede): awaited once a heading opens the text (site markup aside), begun by
  // the first prose other than an admonition's body, ended by a blank line or anything else; code,
  // a list or a table before any prose leaves the text without one.
  enum class Lede { unknown, awaited, open, done } lede = starts_in_code ? Lede::done : Lede::unknown;
  bool in_admonition = false;  // reading the indented body of a "!!!" note
  bool unstopped = false;  // the last line read (blank lines aside) is prose that ends without a stop
  for (const std::string_view line : lines_of(text)) {
    const std::string_view t = trim(line);
    if (!t.empty() && in_admonition && indentation(line) < 4 && !line.starts_with('\t')) in_admonition = false;
    const bool note = t.starts_with("!!!") || t.starts_with("???");  // an admonition's title
    const bool label = !t.empty() && (t[0] == '#' || note || t.starts_with("<!--") || is_markup(t));
    const bool prose = !t.empty() && !label && t[0] != '|' && !is_list_item(t) && !is_fence_line(t) &&
                       !t.ends_with(" \\") && fence.empty() && !w.in_statement();
    if (lede == Lede::unknown && !t.empty()) {
      lede = t[0] == '#' ? Lede::awaited : is_markup(t) ? Lede::unknown : Lede::done;
    } else if (lede == Lede::awaited && !t.empty() && !label && !in_admonition) {
      lede = prose ? Lede::open : Lede::done;
      if (prose) {
        w.flush();
        w.lede(true);
      }
    } else if (lede == Lede::open && !prose) {
      w.flush();
      w.lede(false);
      lede = Lede::done;
    }
    if (note) in_admonition = true;
    if (is_fence_line(t)) {
      w.flush();
      if (fence.empty() && !starts_in_code) w.open_block(unstopped);
      if (fence.empty()) fence = t.substr(0, 3);
      else if (t.substr(0, 3) == fence || starts_in_code) fence = {};
      starts_in_code = false;  // a passage that starts in code closes it with whatever fence comes
      continue;
    }
    if (!t.empty()) unstopped = prose && ends_without_stop(t);
    if (!fence.empty()) {
      if (!t.empty()) w.code(line);
    } else if (w.in_statement() || t.ends_with(" \\")) {
      // A command continued by backslashes (a shell script's) is code: its lines stay lines.
      if (t.empty()) w.flush();
      else w.code(line);
    } else if (t.empty() || label) {
      w.flush();  // headings, admonition titles, comments and markup are labels, not answers
    } else if (t[0] == '|') {
      if (is_table_rule(t)) w.header();
      else w.prose_line(t);
      w.flush();
    } else if (is_list_item(t)) {
      w.prose_line(t);
    } else {
      w.prose(t);
    }
  }
  w.flush();
}

void split_python(std::string_view text, UnitWriter& w) {
  std::string_view quote;  // the open docstring's quotes, empty outside one
  std::string_view fence;  // the open fence's marker in a docstring (an example's command), or empty
  bool unstopped = false;  // the docstring's last prose line ends without a stop ("To run it, run")
  // Prose of a docstring: a sentence, or the start or end of one.
  const auto docstring_prose = [&](std::string_view prose) {
    w.prose(prose);
    if (!trim(prose).empty()) unstopped = ends_without_stop(trim(prose));
  };
  // A docstring's fenced block ends: what follows, prose or the code after the docstring, is
  // not its code.
  const auto close_fence = [&] {
    w.flush();
    w.end_block();
    fence = {};
  };
  for (const std::string_view line : lines_of(text)) {
    const std::string_view t = trim(line);
    if (!quote.empty()) {
      const auto close = t.find(quote);
      const std::string_view before = trim(t.substr(0, close));
      // A docstring's fenced block is code, its lines kept as lines, as in a page; a fence
      // closes with its own marker, or with the docstring.
      if (is_fence_line(before) && (fence.empty() || before.substr(0, 3) == fence)) {
        if (fence.empty() && close == std::string_view::npos) {
          w.open_block(unstopped);
          fence = before.substr(0, 3);
        } else if (!fence.empty()) {
          close_fence();
        }
      } else if (!fence.empty() && close == std::string_view::npos) {
        if (!t.empty()) w.code(line);
      } else {
        if (!fence.empty()) close_fence();
        docstring_prose(before);
      }
      if (close != std::string_view::npos) {
        if (!fence.empty()) close_fence();
        w.flush();
        quote = {};
      }
      continue;
    }
    if (w.in_statement()) {
      w.code(line);
      continue;
    }
    std::size_t prefix = 0;  // string prefixes: r"""...""", b'''...'''
    while (prefix < t.size() && prefix < 2 && std::string_view("rRbBuUfF").find(t[prefix]) != std::string_view::npos)
      ++prefix;
    const std::string_view opening = t.substr(prefix, 3);
    if (opening == "\"\"\"" || opening == "'''") {
      const std::string_view rest = t.substr(prefix + 3);
      const auto close = rest.find(opening);
      unstopped = false;
      docstring_prose(rest.substr(0, close));
      if (close == std::string_view::npos) quote = opening;
      else w.flush();
    } else if (!t.empty() && t[0] == '#') {
      // Licence headers ("# SPDX-License-Identifier: ...") say nothing about the code.
      const auto words = t.find_first_not_of("# ");
      if (words != std::string_view::npos && t.substr(words, 5) != "SPDX-") w.comment_line(t.substr(words));
      else w.flush();
    } else if (!t.empty()) {
      w.code(line);
    } else {
      w.flush();  // a blank line ends a comment
    }
  }
  w.flush();
}

}  // namespace

std::vector<ExtractiveGenerator::Unit> ExtractiveGenerator::split_units(const Evidence& evidence,
                                                                       std::size_t evidence_index) {
  std::vector<Unit> units;
  UnitWriter writer(units, evidence_index, evidence.kind != "python");
  if (evidence.kind == "python") split_python(evidence.text, writer);
  else split_markdown(evidence.text, writer, evidence.starts_in_code);
  return units;
}

}  // namespace rag
