#include "rag/support.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "rag/code_names.hpp"
#include "rag/glob.hpp"
#include "rag/question_kind.hpp"
#include "rag/question_words.hpp"
#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// A word in more chunks than this counts as common: the rarity of commoner words is not told
// apart (counting their chunks would cost a search through all of them).
constexpr std::size_t kCommonChunks = 200;
// Sources whose coverage counts: the best single one of these answers or none does.
constexpr std::size_t kBestSources = 3;
// BM25 gives a matching word at most (k1 + 1) times its idf; scores are read against that.
constexpr double kMaxTermScore = 2.2;

// `code` without the contents of its string literals ('...', "...", and Python's triple-quoted
// ones, escapes skipped); comments after `comment` ("#", "//") and /* */ are kept, and so are
// strings that start a statement when `docstrings` (Python's docstrings). Quotes span lines only
// when `multiline` (shell) or tripled.
std::string without_literals(std::string_view code, bool docstrings, std::string_view comment, bool multiline) {
  std::string out;
  int depth = 0;  // brackets open before this point (comments and strings left out)
  const auto copy_until = [&](std::size_t& i, std::string_view end) {
    const std::size_t stop = std::min(code.find(end, i), code.size());
    out.append(code.substr(i, stop - i));
    i = stop;
  };
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (code.compare(i, comment.size(), comment) == 0) {
      copy_until(i, "\n");
    } else if (comment == "//" && code.compare(i, 2, "/*") == 0) {
      copy_until(i, "*/");
    } else if (c == '"' || c == '\'') {
      const std::string delimiter(code.compare(i, 3, std::string(3, c)) == 0 ? 3 : 1, c);
      std::size_t end = i + delimiter.size();
      while (end < code.size() && code.compare(end, delimiter.size(), delimiter) != 0 &&
             (delimiter.size() == 3 || multiline || code[end] != '\n'))
        end += code[end] == '\\' ? 2 : 1;
      end = std::min(end + (end < code.size() && code[end] != '\n' ? delimiter.size() : 0), code.size());
      // A statement's first string (after at most a prefix such as r or b) is a docstring; a
      // string inside brackets (a list of prompts, a string written across lines in parentheses)
      // or after an operator is data.
      const std::size_t line = code.rfind('\n', i == 0 ? 0 : i - 1);
      const std::string_view before = code.substr(line == std::string_view::npos || i == 0 ? 0 : line + 1,
                                                  i - (line == std::string_view::npos || i == 0 ? 0 : line + 1));
      const std::string_view lead = before.substr(std::min(before.find_first_not_of(" \t"), before.size()));
      // `out` ends with this line's text before the string; what precedes that is above it.
      const std::size_t above = out.size() - std::min(out.size(), before.size());
      const std::size_t last = above == 0 ? std::string::npos : out.find_last_not_of(" \t\r\n", above - 1);
      const bool continues = last != std::string::npos && std::string_view(",([{=+\\").find(out[last]) != std::string_view::npos;
      const bool docstring = docstrings && depth <= 0 && !continues && lead.size() <= 2 &&
                             lead.find_first_not_of("rRbBuUfF") == std::string_view::npos;
      out.append(docstring ? code.substr(i, end - i) : std::string_view(delimiter + delimiter));
      i = end;
    } else {
      depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
      out += c;
      ++i;
    }
  }
  return out;
}

// Whether `text` (lower case) holds `name` (lower case) as a whole identifier, not inside a longer
// one (n-gpu in tune_on_gpu, context-length in neuron_context_length_buckets). A '-' joins two
// identifiers' characters only, so "--n-gpu-layers" holds n-gpu-layers.
bool holds_identifier(std::string_view text, std::string_view name) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const bool joined_before = at > 0 && (part(text[at - 1]) || (text[at - 1] == '-' && at > 1 && part(text[at - 2])));
    const bool joined_after =
        end < text.size() && (part(text[end]) || (text[end] == '-' && end + 1 < text.size() && part(text[end + 1])));
    if (!joined_before && !joined_after) return true;
  }
  return false;
}

// The command-line options of several words and the environment variables `question` names, as
// it writes them ("--n-gpu-layers", "OLLAMA_KEEP_ALIVE"), in order, four at most. A name in
// capitals with '_' is a variable in a question about setting something ("how do I change that
// with OLLAMA_KEEP_ALIVE"); in "I get CUDA_ERROR_OUT_OF_MEMORY" it is a message. A question that
// asks for vLLM's equivalent of another program's option names it to compare, and gets none. Those
// words are read in `question` and in `english`, its English reading.
std::vector<std::string> copied_names(std::string_view question, std::string_view english) {
  constexpr std::size_t kMostNames = 4;
  static const std::set<std::string, std::less<>> kSetting = {
      "set", "sets", "setting", "unset", "change", "changing", "adjust", "configure", "export",
      "env", "environment", "variable", "variables", "var", "vars", "value"};
  static const std::set<std::string, std::less<>> kComparing = {
      "equivalent", "equivalents", "counterpart", "instead", "analogue", "analog", "alternative", "replacement"};
  bool setting = false;
  const std::string words = utf8::lower(question) + " " + utf8::lower(english);
  for (const std::string_view word : name_runs(words, false)) {
    if (kComparing.contains(word)) return {};
    setting = setting || kSetting.contains(word);
  }
  std::vector<std::string> out = command_line_options(question);
  if (setting)
    for (const std::string& name : code_names(question))
      if (name.find('_') != std::string::npos && std::none_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
        out.push_back(name);
  out.resize(std::min(out.size(), kMostNames));
  return out;
}

// Whether `name` (as copied_names gives it) is written, in any case, in one of `evidence` or in a
// chunk of `index` among those that rank best for it; an option also as the field it sets
// (--max-model-len, max_model_len) and, for a --no-x option, as x (argparse adds the --no- form of a
// boolean flag itself).
bool written_in(const Index& index, const std::vector<Evidence>& evidence, std::string_view name) {
  constexpr std::size_t kLooked = 50;
  const bool option = name.starts_with("--");
  std::vector<std::string> spellings = {utf8::lower(name.substr(option ? 2 : 0))};
  if (option && spellings.front().starts_with("no-")) spellings.push_back(spellings.front().substr(3));
  if (option)
    for (std::size_t i = 0, n = spellings.size(); i < n; ++i) {
      spellings.push_back(spellings[i]);
      std::replace(spellings.back().begin(), spellings.back().end(), '-', '_');
    }
  const auto holds = [&](std::string_view text) {
    const std::string lower = utf8::lower(text);
    return std::any_of(spellings.begin(), spellings.end(), [&](const std::string& s) { return holds_identifier(lower, s); });
  };
  if (std::any_of(evidence.begin(), evidence.end(), [&](const Evidence& e) { return holds(e.text); })) return true;
  std::string query;
  for (const std::string& s : spellings) query.append(s).append(" ");
  // The retriever's warnings (a shard left out) are the question's search's to give.
  std::vector<std::string> unsaid;
  const std::vector<Hit> hits = index.search(query, kLooked, &unsaid);
  return std::any_of(hits.begin(), hits.end(), [&](const Hit& hit) { return holds(index.chunk(hit.chunk).text); });
}

}  // namespace

std::string stated_text(const Evidence& evidence) {
  if (evidence.kind == "python") return without_literals(evidence.text, true, "#", false);
  if (evidence.kind != "markdown" && evidence.kind != "text") return without_literals(evidence.text, false, "//", false);
  // Prose as it is; fenced code (shell, JSON, Python examples) without its literals.
  std::string out;
  std::string block;
  bool code = evidence.starts_in_code;
  const std::string_view text = evidence.text;
  // A passage cut inside a block may begin inside a string, and its first line would read the
  // quotes the wrong way round (the data outside them): that line states nothing.
  for (std::size_t begin = code ? std::min(text.find('\n'), text.size()) + 1 : 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    if (is_fence_line(line)) {
      if (code) out += without_literals(block, false, "#", true);
      block.clear();
      code = !code;
    } else {
      (code ? block : out).append(line).append("\n");
    }
  }
  if (code) out += without_literals(block, false, "#", true);
  return out;
}

bool is_test_input(std::string_view kind, std::string_view relative_path) {
  static const std::string kData[] = {"*.txt", "*.json", "*.jsonl", "*.csv", "*.tsv"};
  static const std::string kFolders[] = {"**/tests/**", "**/test/**",       "**/testdata/**",
                                         "**/fixtures/**", "**/benchmarks/**", "**/benchmark/**"};
  const auto matches = [&](const auto& patterns) {
    return std::any_of(std::begin(patterns), std::end(patterns), [&](const std::string& p) { return glob_match(p, relative_path); });
  };
  return kind == "text" && matches(kData) && matches(kFolders);
}

std::size_t chunks_holding(const Index& index, std::string_view word) {
  if (word.find_first_not_of(" \t\r\n") == std::string_view::npos) return 0;
  return index.count_found(word, kCommonChunks);
}

SupportMeter::SupportMeter(const Index& index) : index_(index), analyzer_(AnalyzerConfig{}) {}

Support SupportMeter::measure(const GenerationRequest& request, double score_knee, double weight_cap) const {
  Support support;
  const std::string& question = request.query.empty() ? request.question : request.query;
  const std::vector<QuestionWord> words = question_words(question, analyzer_);
  if (words.empty() || request.evidence.empty()) return support;
  // Words of one character alone ("x", "a b") name nothing that a source could be about.
  if (std::all_of(words.begin(), words.end(), [](const QuestionWord& w) { return utf8::count_code_points(w.text) < 2; }))
    return support;
  const double chunks = static_cast<double>(std::max<std::size_t>(index_.chunk_count(), 1));
  std::vector<double> rarity;
  double total = 0;
  for (const QuestionWord& w : words) {
    // A word read in several ways is as rare as its most common reading.
    std::size_t holding = 0;
    for (const QuestionWord* reading : w.readings()) holding = std::max(holding, chunks_holding(index_, reading->text));
    rarity.push_back(std::log((chunks + 1) / (static_cast<double>(holding) + 0.5)));
    total += rarity.back();
  }
  support.weight = total;
  const double counted = weight_cap > 0 ? std::min(total, weight_cap) : total;
  for (std::size_t e = 0; e < request.evidence.size() && e < kBestSources; ++e) {
    // The path below the corpus root, as the index holds the file (whole, for a file it lacks).
    const auto file = index_.file(request.evidence[e].file_path);
    if (is_test_input(request.evidence[e].kind, file ? file->relative_path : request.evidence[e].file_path)) continue;
    const std::vector<std::string> terms = sorted_terms(stated_text(request.evidence[e]), analyzer_);
    double covered = 0;
    for (std::size_t i = 0; i < words.size(); ++i) covered += rarity[i] * words[i].coverage(terms);
    support.covered = std::max(support.covered, covered);
  }
  support.coverage = std::min(1.0, support.covered / counted);
  // Names are read as the user wrote them: a translation keeps their words but not their "--".
  const std::vector<std::string> names = copied_names(request.question, question);
  if (!names.empty() && std::none_of(names.begin(), names.end(), [&](const std::string& name) {
        return written_in(index_, request.evidence, name);
      })) {
    support.unwritten = names;
    return support;
  }
  // A question that asks a price is answered by an amount of money, which no source states: the
  // words it shares with them (the product, the hardware) are about something else.
  if (answer_types(question).money &&
      std::none_of(request.evidence.begin(), request.evidence.end(), [](const Evidence& e) { return states_money(e.text); })) {
    support.value = 0;
    return support;
  }
  double best_score = 0;
  for (const Evidence& e : request.evidence) best_score = std::max(best_score, e.score);
  support.scored = best_score / kMaxTermScore;
  if (best_score == 0 || score_knee == 0) {  // no scores to read, or none to trust: coverage alone
    support.value = support.coverage;
    return support;
  }
  support.score = std::min(1.0, support.scored / counted);
  support.value = support.coverage * std::min(1.0, support.score / score_knee);
  return support;
}

}  // namespace rag
