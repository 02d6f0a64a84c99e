#include "rag/definitions.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <tuple>

#include "rag/analyzer.hpp"
#include "rag/code_names.hpp"
#include "rag/question_words.hpp"
#include "rag/question_kind.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// The index's best chunks for a name that are looked at: a definition of a common name ranks
// below the places that use it, rarely below this.
constexpr std::size_t kCandidates = 1000;
// Definitions put first: one per name asked about, two at most, so that retrieval's own best
// sources still come next.
constexpr std::size_t kMaxDefinitions = 2;

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Whether `text` declares `name` as a class, a function or a struct; with `top`, only after a
// line break (not a method or a nested class, which are indented).
bool declares(std::string_view text, std::string_view name, bool top = false) {
  for (const std::string_view keyword : {"class ", "def ", "struct "}) {
    const std::string declaration = std::string(keyword) + std::string(name);
    for (std::size_t at = text.find(declaration); at != std::string_view::npos; at = text.find(declaration, at + 1)) {
      const std::size_t end = at + declaration.size();
      const bool starts = top ? at > 0 && text[at - 1] == '\n' : at == 0 || !is_name_char(text[at - 1]);
      if (starts && (end == text.size() || !is_name_char(text[end]))) return true;
    }
  }
  return false;
}

// How a line of `code` gives `name` a value at its start: 3 for a field with a type and a literal
// value (`name: int = 4`, a dataclass field or a parameter), 2 with another value, 1 for an
// assignment (`name = 4`), two more with a docstring under it (a documented field with no static
// default, `= None`, says more than a parameter's `= 1`), 0 for none. A keyword argument (`name=4`, no space before '=') passes a value, it does not define one.
int gives_value(std::string_view code, std::string_view name) {
  int best = 0;
  for (std::size_t begin = 0; begin < code.size();) {
    std::size_t end = code.find('\n', begin);
    if (end == std::string_view::npos) end = code.size();
    std::string_view line = code.substr(begin, end - begin);
    begin = end + 1;
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (line.substr(0, name.size()) != name || (line.size() > name.size() && is_name_char(line[name.size()]))) continue;
    std::string_view rest = line.substr(name.size());
    const std::size_t spaces = std::min(rest.find_first_not_of(" \t"), rest.size());
    rest.remove_prefix(spaces);
    const std::size_t equals = rest.find('=');
    const bool assigns = equals != std::string_view::npos && rest.substr(equals, 2) != "==";
    if (!assigns) continue;
    // A literal value (a number, a string, True, a list, ...) is the default itself; another name
    // (`= ModelConfig.max_logprobs`) points to it.
    std::string_view value = rest.substr(equals + 1);
    value.remove_prefix(std::min(value.find_first_not_of(" \t"), value.size()));
    // None says that the value is decided elsewhere.
    const bool literal = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) != 0 ||
                                            std::string_view("\"'-[({").find(value[0]) != std::string_view::npos ||
                                            value.starts_with("True") || value.starts_with("False"));
    // A field documented by the string under it (a dataclass's attribute docstring) is the
    // definition users read. A parameter's line (ending with ',' or closing the signature) is
    // not a field: the string under a signature documents the function.
    std::string_view statement = value.substr(0, value.find(" #"));
    statement.remove_suffix(statement.size() - std::min(statement.find_last_not_of(" \t\r") + 1, statement.size()));
    const bool parameter = statement.ends_with(',') || (statement.ends_with(':') && statement.find(')') != std::string_view::npos);
    std::string_view next = code.substr(std::min(begin, code.size()));
    next.remove_prefix(std::min(next.find_first_not_of(" \t"), next.size()));
    const int documented = !parameter && (next.starts_with("\"\"\"") || next.starts_with("'''")) ? 2 : 0;
    if (rest.substr(0, 1) == ":" && rest.substr(0, 2) != "::") best = std::max(best, (literal ? 3 : 2) + documented);
    else if (rest.substr(0, 1) == "=" && spaces > 0) best = std::max(best, 1 + documented);
  }
  return best;
}

bool is_code(std::string_view kind) { return kind != "markdown" && kind != "text"; }

// The words of a question in lower case, in order, without stopwords (repeats kept: a field's
// name may repeat one).
std::vector<std::string> lowered_words(std::string_view question) {
  std::vector<std::string> out;
  for (const std::string_view run : name_runs(question, false)) {
    std::string w(run);
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!is_stopword("english", w)) out.push_back(std::move(w));
  }
  return out;
}

// The analyzer questions and titles are read with here: the default one (English stems,
// identifiers split), as the generator reads them.
const Analyzer& english() {
  static const Analyzer analyzer{AnalyzerConfig{}};
  return analyzer;
}

struct Found {
  Hit hit;
  int strength = 0;
  bool test = false;
  bool qualified = false;  // in the module or class the question's dotted name puts it in
};

// Whether `path` is a test's: code there uses names (fixtures) rather than defines them.
bool is_test_path(std::string_view path) {
  const std::string_view file = path.substr(path.rfind('/') + 1);
  return path.find("/tests/") != std::string_view::npos || path.find("/test/") != std::string_view::npos ||
         file.starts_with("test_") || path.starts_with("tests/");
}

// The best definition among the index's best chunks for `query`: by `strength_of` (0: not one),
// outside tests, then by retrieval order.
template <typename Strength>
std::optional<Hit> best_definition(const Index& index, const std::string& query, Strength strength_of) {
  std::optional<Found> best;
  for (const Hit& hit : index.search(query, kCandidates)) {
    const ChunkView chunk = index.chunk(hit.chunk);
    if (!is_code(chunk.kind)) continue;
    const Found found{hit, strength_of(chunk), is_test_path(chunk.file_path)};
    if (found.strength > 0 && (!best || std::tie(found.strength, best->test) > std::tie(best->strength, found.test)))
      best = found;
  }
  if (!best) return std::nullopt;
  return best->hit;
}

// Whether the qualified name `section` has `name` as one of its levels.
bool has_level(std::string_view section, std::string_view name) {
  for (std::size_t at = section.find(name); at != std::string_view::npos; at = section.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !is_name_char(section[at - 1])) && (end == section.size() || !is_name_char(section[end]))) return true;
  }
  return false;
}

// The words of a path: its folders' and file's names cut at '/', '_', '-' and '.'.
std::vector<std::string> path_words(std::string_view path) {
  std::vector<std::string> out;
  std::string word;
  for (const char c : path) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      out.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// The module or class a dotted name of `question` puts `name` in: "json" for json.dumps, "LLM"
// for vllm.LLM.generate; empty when the question writes it alone.
std::string owner_in(std::string_view question, std::string_view name) {
  for (const std::string_view run : name_runs(question, true))
    if (run.size() > name.size() + 1 && run.ends_with(name) && run[run.size() - name.size() - 1] == '.')
      return std::string(last_part(run.substr(0, run.size() - name.size() - 1)));
  return {};
}

// The class or function `name`, in the files of the index's best chunks for the name that have
// it as a level of their qualified name or declare it (the class's own methods rank well; its
// declaration, with a long docstring, may not). Outside tests first, then in `owner` (the module
// or class a dotted name puts it in: "json" of json.dumps, whose file or qualified name says
// so), then declared at the top of its file (not a method of that name), then by retrieval order.
std::optional<Hit> declaration(const Index& index, const std::string& name, const std::string& owner = {}) {
  std::vector<std::string> files;
  std::optional<Found> best;
  // A class is a level of the qualified name; a module may also be a folder or file of the path
  // (whose words are in lower case).
  const std::string module = owner.empty() || is_class_like(owner) ? std::string() : utf8::lower(owner);
  const auto in_owner = [&](const ChunkView& c) {
    if (owner.empty()) return false;
    if (has_level(c.section, owner)) return true;
    const std::vector<std::string> path = path_words(c.file_path);
    return !module.empty() && std::find(path.begin(), path.end(), module) != path.end();
  };
  for (const Hit& hit : index.search(owner.empty() ? name : owner + " " + name, kCandidates)) {
    const ChunkView chunk = index.chunk(hit.chunk);
    if (!is_code(chunk.kind) || (!has_level(chunk.section, name) && !declares(chunk.text, name))) continue;
    const std::string file(chunk.file_path);
    if (std::find(files.begin(), files.end(), file) != files.end()) continue;
    files.push_back(file);
    // The first chunk named after it, in a file that declares it (a short declaration line may
    // have been merged into the chunk before, which is named otherwise); else the chunk that
    // declares it (a small class may be part of its module's chunk).
    std::optional<Hit> named, declaring;
    bool top = false;  // not a method: named in a module, or declared at the start of a line
    for (const std::uint32_t id : index.chunks_of(file)) {
      const ChunkView c = index.chunk(id);
      if (!declaring && declares(c.text, name)) {
        declaring = Hit{id, hit.score};
        top = top || declares(c.text, name, true);
      }
      if (!named && last_part(c.section) == name) {
        named = Hit{id, hit.score};
        const std::string_view parent = c.section.substr(0, c.section.size() - std::min(c.section.size(), name.size() + 1));
        top = !is_class_like(last_part(parent));
      }
    }
    if (!declaring) continue;
    const Hit at = named ? *named : *declaring;
    const Found found{at, top ? 1 : 0, is_test_path(file), in_owner(index.chunk(at.chunk))};
    if (!best || std::tie(found.test, best->qualified, best->strength) < std::tie(best->test, found.qualified, found.strength))
      best = found;
  }
  if (!best) return std::nullopt;
  return best->hit;
}

// Of a file's chunks, the class or function named by a word of the question that the file's path
// (below the corpus root) does not hold ("Where in the V1 code is it decided, with priority
// scheduling, which request goes next? Which class is it?": PriorityRequestQueue of
// request_queue.py, not the module the path names already). Every level of a chunk's qualified
// name below the module is a candidate, so that a long class whose chunks are its methods' is one
// too. The most such words first, then a class when `a_class` (else a function), then the most
// words of the question in the name, then in the name with its class's ("pops by priority":
// PriorityRequestQueue.pop), the largest share of the name, the shallowest, the first;
// its first chunk: its own, or its first member's. None when no name holds such a word.
std::optional<std::uint32_t> named_definition(const Index& index, const std::vector<std::uint32_t>& chunks,
                                              const std::vector<std::string>& words, bool a_class) {
  std::string joined;
  for (const std::string& w : words) joined.append(w).append(" ");
  const std::vector<std::string> asked = sorted_terms(joined, english());
  using Rank = std::tuple<std::size_t, bool, std::size_t, std::size_t, double, std::ptrdiff_t>;
  std::optional<std::string_view> best;
  Rank best_rank{};
  std::string module;  // the file's, which its chunks' sections start with
  std::vector<std::string> path;
  for (const std::uint32_t id : chunks) {
    const ChunkView c = index.chunk(id);
    if (path.empty()) {
      path = sorted_terms(c.relative_path, english());
      module = python_module_name(c.relative_path);
    }
    if (!is_code(c.kind) || !c.section.starts_with(module) || c.section.size() <= module.size()) continue;
    // Each level below the module: "EngineCoreProc" and "EngineCoreProc.run_engine_core".
    for (std::size_t end = c.section.find('.', module.size() + 1);; end = c.section.find('.', end + 1)) {
      const std::string_view level = c.section.substr(0, std::min(end, c.section.size()));
      const std::string_view name = last_part(level);
      const std::vector<std::string> named = sorted_terms(name, english());
      std::size_t held = 0, beyond_path = 0;
      for (const std::string& t : named)
        if (std::binary_search(asked.begin(), asked.end(), t)) {
          ++held;
          beyond_path += !std::binary_search(path.begin(), path.end(), t);
        }
      std::size_t held_with_owners = 0;  // of the words of the whole name below the module
      for (const std::string& t : sorted_terms(level.substr(module.size() + 1), english()))
        held_with_owners += std::binary_search(asked.begin(), asked.end(), t);
      const Rank rank{beyond_path, is_class_like(name) == a_class, held, held_with_owners,
                      static_cast<double>(held) / static_cast<double>(std::max<std::size_t>(named.size(), 1)),
                      -std::count(level.begin(), level.end(), '.')};
      if (beyond_path > 0 && (!best || rank > best_rank)) best = level, best_rank = rank;
      if (end == std::string_view::npos) break;
    }
  }
  if (!best) return std::nullopt;
  for (const std::uint32_t id : chunks)
    if (const std::string_view section = index.chunk(id).section;
        section == *best || (section.starts_with(*best) && section.size() > best->size() && section[best->size()] == '.'))
      return id;
  return std::nullopt;
}

// "What tokenizer modes are there?", "Which scheduling policies can the scheduler use?": the
// values a setting takes are often a type that lists them (`TokenizerMode = Literal["auto",
// "slow", ...]`). Among the Python chunks of the index's best for the question and the word that
// declares such a type, outside tests and examples, the one that declares one on a line of its own
// (`Name = Literal[...]` or `Name: TypeAlias = Literal[...]`, its values on that line: a list over
// several lines is quoted cut) whose name is two words or more, each of two letters or more and
// held by the question (stemmed: SchedulerPolicy for "scheduling policies"; not ModelDType for
// "model types"); the most words, then the best ranked.
std::optional<Hit> listed_values(const Index& index, std::string_view question) {
  static const Analyzer words_only = [] {  // every word of a name, stemmed; not the name whole
    AnalyzerConfig config;
    config.keep_compound = false;
    config.stopwords = "none";
    return Analyzer(config);
  }();
  const std::vector<std::string> asked = sorted_terms(question, english());
  std::optional<Hit> best;
  std::size_t best_words = 1;
  for (const Hit& hit : index.search(std::string(question) + " Literal", kCandidates / 5)) {
    const ChunkView c = index.chunk(hit.chunk);
    if (c.kind != "python" || is_test_path(c.relative_path) || c.relative_path.starts_with("examples/")) continue;
    for (std::size_t begin = 0; begin < c.text.size();) {
      std::size_t end = c.text.find('\n', begin);
      if (end == std::string_view::npos) end = c.text.size();
      const std::string_view line = c.text.substr(begin, end - begin);
      begin = end + 1;
      std::size_t name_end = line.find(" = Literal[");
      if (name_end == std::string_view::npos) name_end = line.find(": TypeAlias = Literal[");
      if (name_end == std::string_view::npos || name_end == 0 || !line.ends_with("]")) continue;
      const std::string_view name = line.substr(0, name_end);
      if (!is_class_like(name) || !std::all_of(name.begin(), name.end(), is_name_char)) continue;
      const std::vector<std::string> words = words_only.analyze(name);
      if (words.size() > best_words &&
          std::all_of(words.begin(), words.end(), [&](const std::string& t) {
            return t.size() >= 2 && std::binary_search(asked.begin(), asked.end(), t);
          }))
        best = hit, best_words = words.size();
    }
  }
  return best;
}

// "Where is the V1 scheduler implemented?" names no code, but the file that implements it is
// named by its words (vllm/v1/core/sched/scheduler.py). Among the code files of the index's best
// chunks for the question, the one whose path holds every word of the question that most of
// those paths do not (a package's own name is in all of them), best ranked first: its first chunk.
std::optional<Hit> named_file(const Index& index, std::string_view question) {
  static const std::set<std::string, std::less<>> asking = {"where", "implemented", "defined", "define", "located",
                                                            "declared", "implementation", "definition", "class",
                                                            "function", "file", "module", "code", "source"};
  const std::vector<std::string> all = lowered_words(question);
  std::vector<std::string> words;
  for (const std::string& w : all)
    if (w.size() >= 2 && !asking.count(w) && std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  if (words.empty()) return std::nullopt;
  // A question that asks for a class or a function ("Which class is it?", "In which function
  // ...") is answered by one, when one is named by its words.
  const auto asks = [&](std::initializer_list<std::string_view> nouns) {
    return std::any_of(all.begin(), all.end(),
                       [&](const std::string& w) { return std::find(nouns.begin(), nouns.end(), w) != nouns.end(); });
  };
  const bool a_class = asks({"class", "classes"});
  const bool a_definition = a_class || asks({"function", "functions", "method", "methods"});
  std::vector<std::pair<std::string, Hit>> files;  // in retrieval order
  for (const Hit& hit : index.search(question, kCandidates / 5)) {
    const ChunkView chunk = index.chunk(hit.chunk);
    const std::string file(chunk.file_path);
    if (is_code(chunk.kind) && !is_test_path(file) &&
        std::none_of(files.begin(), files.end(), [&](const auto& f) { return f.first == file; }))
      files.emplace_back(file, hit);
  }
  std::vector<std::vector<std::string>> paths;
  for (const auto& [file, hit] : files) paths.push_back(path_words(file));
  const auto holds = [](const std::vector<std::string>& path, const std::string& w) {
    return std::find(path.begin(), path.end(), w) != path.end();
  };
  std::vector<std::string> telling;
  for (const std::string& w : words) {
    const auto n = std::count_if(paths.begin(), paths.end(), [&](const auto& p) { return holds(p, w); });
    if (n > 0 && static_cast<std::size_t>(n) * 2 < paths.size()) telling.push_back(w);
  }
  if (telling.empty()) return std::nullopt;
  for (std::size_t f = 0; f < files.size(); ++f)
    if (std::all_of(telling.begin(), telling.end(), [&](const std::string& w) { return holds(paths[f], w); })) {
      const std::vector<std::uint32_t> chunks = index.chunks_of(files[f].first);
      if (chunks.empty()) continue;
      const std::optional<std::uint32_t> named = a_definition ? named_definition(index, chunks, words, a_class) : std::nullopt;
      return Hit{named.value_or(chunks.front()), files[f].second.score};
    }
  return std::nullopt;
}

// A header that names a subject says a little more at most ("Automatic Prefix Caching" for
// prefix caching, "LoRA Adapters", "Welcome to vLLM"): more words, and it is about something else.
constexpr std::size_t kMaxExtraTitleTerms = 2;
// A titled section's first chunk shorter than this (code points) comes with the next one.
constexpr std::size_t kShortIntroduction = 400;

// "What is automatic prefix caching?" names no code, but the documentation has a page or section
// titled with it, whose first paragraphs explain it while the pages that use the term rank
// first. Among the Markdown sections of the files of the index's best chunks for the question,
// those whose own header holds the question's words (each in the header or in its file's path, one
// at least in the header), the shallowest, then with the fewest other words in the header, then
// in a file named after the most of them (docs/features/structured_outputs.md before
// examples/.../structured_outputs/README.md), then in the best ranked file: its first chunk, and
// the next when that one is short. The path is the whole one, with the corpus's own folder: every
// file of data/raw/vllm-0.10.1 is about vLLM ("What is LoRA in vLLM?").
std::vector<Hit> titled_section(const Index& index, std::string_view question) {
  const Analyzer& analyzer = english();
  std::vector<QuestionWord> words = question_words(question, analyzer);
  std::erase_if(words, [](const QuestionWord& w) {
    const std::string& t = w.text;
    return t == "mean" || t == "means" || t == "do" || t == "does" || is_field_noun(t);
  });
  if (words.empty()) return {};
  // How well a section is titled with the question's words, smaller is better; none when not.
  // `path` and `name`: the terms of its file's path and of the file's name without extension.
  using Rank = std::tuple<std::size_t, std::size_t, std::size_t>;  // depth, other header terms, words not in the file's name
  const auto title_rank = [&](const ChunkView& c, const std::vector<std::string>& path,
                              const std::vector<std::string>& name) -> std::optional<Rank> {
    const std::vector<std::string> header = sorted_terms(last_part(c.section), analyzer);
    bool in_header = false;
    std::size_t unnamed = 0;
    for (const QuestionWord& w : words) {
      const bool titled = w.coverage(header) == 1.0;
      if (!titled && w.coverage(path) < 1.0) return std::nullopt;
      in_header = in_header || titled;
      unnamed += w.coverage(name) < 1.0;
    }
    if (!in_header) return std::nullopt;
    std::size_t extra = 0;
    for (const std::string& term : header)
      extra += std::none_of(words.begin(), words.end(), [&](const QuestionWord& w) {
        return w.whole == term || std::find(w.parts.begin(), w.parts.end(), term) != w.parts.end();
      });
    if (extra > kMaxExtraTitleTerms) return std::nullopt;
    return Rank{static_cast<std::size_t>(std::count(c.section.begin(), c.section.end(), '>')), extra, unnamed};
  };
  std::optional<std::pair<Rank, Hit>> best;  // the best titled section's first chunk
  std::vector<std::string_view> files;
  for (const Hit& hit : index.search(question, kCandidates / 5)) {
    const ChunkView chunk = index.chunk(hit.chunk);
    if (std::find(files.begin(), files.end(), chunk.file_path) != files.end()) continue;
    files.push_back(chunk.file_path);
    const std::vector<std::string> path = sorted_terms(chunk.file_path, analyzer);
    const std::string_view file = chunk.file_path.substr(chunk.file_path.rfind('/') + 1);
    const std::vector<std::string> name = sorted_terms(file.substr(0, file.rfind('.')), analyzer);
    // A file's chunks come in text order: a section's first is where it starts.
    std::vector<std::string_view> sections;
    for (const std::uint32_t id : index.chunks_of(chunk.file_path)) {
      const ChunkView c = index.chunk(id);
      if (c.kind != "markdown" || c.section.empty() ||
          std::find(sections.begin(), sections.end(), c.section) != sections.end())
        continue;
      sections.push_back(c.section);
      if (const std::optional<Rank> rank = title_rank(c, path, name); rank && (!best || *rank < best->first))
        best.emplace(*rank, Hit{id, hit.score});
    }
  }
  if (!best) return {};
  // A page's title and one line about it leave the explaining to the next section.
  const Hit first = best->second;
  const ChunkView chunk = index.chunk(first.chunk);
  if (chunk.last_char - chunk.first_char >= kShortIntroduction) return {first};
  const std::vector<std::uint32_t> chunks = index.chunks_of(chunk.file_path);
  const auto at = std::find(chunks.begin(), chunks.end(), first.chunk);
  for (auto next = at; next != chunks.end(); ++next)
    if (const ChunkView c = index.chunk(*next); c.kind == "markdown" && c.first_char >= chunk.last_char)
      return {first, Hit{*next, first.score}};
  return {first};
}

// A word and its terms (english()): one for most words, none for a stopword.
struct Spelt {
  std::string text;
  std::vector<std::string> terms;
};

// How the identifier part `part` spells the question word `word`: not (0), as the same word or
// stem (1), or as a programmer's abbreviation of it (2; max: maximum, num: number, len: length,
// seqs: sequences).
int spelling(const Spelt& part, const Spelt& word) {
  const std::string_view p = part.text, w = word.text;
  if (p == w) return 1;
  if (part.terms.size() == 1 && part.terms == word.terms) return 1;  // input: inputs
  if (p.size() >= 3 && w.starts_with(p)) return 2;
  if (p.size() >= 4 && p.back() == 's' && w.back() == 's' && w.starts_with(p.substr(0, p.size() - 1))) return 2;
  return 0;
}

// The parts of an identifier between its '_' ("max_num_seqs": max, num, seqs).
std::vector<std::string> underscore_parts(std::string_view name) {
  std::vector<std::string> parts;
  for (std::size_t begin = 0; begin < name.size();) {
    const std::size_t end = std::min(name.find('_', begin), name.size());
    if (end > begin) parts.emplace_back(name.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// The words of an environment variable's name after its VLLM_ prefix, lowered, without a unit
// at the end ("VLLM_ENGINE_ITERATION_TIMEOUT_S": engine, iteration, timeout); none for another name.
std::vector<std::string> variable_words(std::string_view name) {
  if (!name.starts_with("VLLM_") ||
      !std::all_of(name.begin(), name.end(), [](char c) { return is_upper(c) || is_digit(c) || c == '_'; }))
    return {};
  std::vector<std::string> words = underscore_parts(utf8::lower(name.substr(5)));
  static const std::set<std::string, std::less<>> kUnits = {"s", "ms", "sec", "secs", "seconds", "kb", "mb", "gb", "gib"};
  if (words.size() > 2 && kUnits.contains(words.back())) words.pop_back();
  return words;
}

// "How do I set the maximum number of batched tokens?" describes max_num_batched_tokens in words.
// Among the identifiers with '_' in the code of the index's best chunks for the question, the one
// whose parts spell, in order, consecutive words of the question, one of them at least
// abbreviated (three parts at least; the most parts, then the first found). A question that writes
// a field's words as they are (enable prefix caching) finds the prose that uses them; one that
// spells out an abbreviated name does not meet the name. With `variables`, an environment
// variable's words need no abbreviation, two being enough ("the default RPC timeout":
// VLLM_RPC_TIMEOUT; its prefix says it is a setting): a default question asks its value, while
// "the API key" of a how-to question is not asking for VLLM_API_KEY's declaration.
std::optional<std::string> field_named_by_words(const Index& index, std::string_view question, bool variables) {
  const auto spelt = [](std::string text) {
    std::vector<std::string> terms = english().analyze(text);
    return Spelt{std::move(text), std::move(terms)};
  };
  std::vector<Spelt> words;
  for (std::string& w : lowered_words(question)) words.push_back(spelt(std::move(w)));
  std::optional<std::string> best;
  std::size_t best_parts = 2;  // two words join by chance ("audio inputs", "quantization methods")
  std::set<std::string_view> seen;
  for (const Hit& hit : index.search(question, kCandidates / 20)) {
    const ChunkView chunk = index.chunk(hit.chunk);
    if (!is_code(chunk.kind)) continue;
    for (const std::string_view name : name_runs(chunk.text, false)) {
      if (name.find('_') == std::string_view::npos || !seen.insert(name).second) continue;
      std::vector<std::string> pieces = variables ? variable_words(name) : std::vector<std::string>{};
      const bool variable = pieces.size() >= 2;
      if (!variable) pieces = underscore_parts(name);
      const bool lower_case = std::all_of(pieces.begin(), pieces.end(), [](const std::string& p) {
        return std::all_of(p.begin(), p.end(), [](char c) { return is_lower(c) || is_digit(c); });
      });
      // A variable needs two words, a field three (best_parts starts at 2); either, more than the best found.
      if (variable ? best && pieces.size() <= best_parts : pieces.size() <= best_parts || !lower_case) continue;
      if (pieces.size() > words.size()) continue;
      std::vector<Spelt> parts;
      for (std::string& p : pieces) parts.push_back(spelt(std::move(p)));
      for (std::size_t first = 0; first + parts.size() <= words.size(); ++first) {
        std::size_t i = 0;
        bool abbreviated = false;
        for (; i < parts.size(); ++i) {
          const int how = spelling(parts[i], words[first + i]);
          if (how == 0) break;
          abbreviated = abbreviated || how == 2;
        }
        if (i == parts.size() && (abbreviated || variable)) {
          best = std::string(name);
          best_parts = parts.size();
          break;
        }
      }
    }
  }
  return best;
}

// What a question asks the definition of: the names of classes or functions ("where"), or the
// fields to find a value of ("default", "what does x_y mean"), in the classes it names.
struct Asked {
  QuestionKind kind = QuestionKind::other;
  std::vector<std::string> names;  ///< code_names of the question
  std::vector<std::string> declared;
  std::vector<std::string> fields, owners;
  /// From this index on, `fields` are only the plain words of a "default" question ("the default
  /// port"), read as fields of settings classes alone: any declaration of `port` matches too loosely.
  std::size_t plain_from = 0;
  bool plain(const std::string& field) const {
    const auto at = std::find(fields.begin(), fields.end(), field);
    return at != fields.end() && static_cast<std::size_t>(at - fields.begin()) >= plain_from;
  }
  /// Whether a declaration of `field` in code of qualified name `section` may be what is asked:
  /// in a class the question names; a plain word's, in a settings class too; any other field's,
  /// anywhere.
  bool may_define(const std::string& field, std::string_view section) const {
    const bool in_owner = std::any_of(owners.begin(), owners.end(), [&](const std::string& owner) {
      return section.find(owner) != std::string_view::npos;
    });
    return in_owner || !plain(field) || is_settings_class(last_part(section));
  }
};

Asked asked_about(std::string_view question) {
  Asked asked;
  asked.kind = question_kind(question);
  asked.names = code_names(question);
  const QuestionKind kind = asked.kind;
  const std::vector<std::string>& names = asked.names;
  if (kind == QuestionKind::where) {
    asked.declared = names;
  } else if (kind == QuestionKind::default_value || kind == QuestionKind::what_is) {
    // Names with an underscore, and for a "default" question its plain words too ("the default
    // temperature"); a class it names is where they should be.
    for (const std::string& name : names) (is_class_like(name) ? asked.owners : asked.fields).push_back(name);
    // "the seed parameter of SamplingParams": a word that a question calls a parameter is one.
    for (std::string& word : called_fields(question))
      if (std::find(asked.fields.begin(), asked.fields.end(), word) == asked.fields.end()) asked.fields.push_back(std::move(word));
    const std::vector<std::string> words = plain_words(question);
    asked.plain_from = asked.fields.size();
    if (kind == QuestionKind::default_value)
      for (const std::string& word : words)
        if (std::find(asked.fields.begin(), asked.fields.end(), word) == asked.fields.end()) asked.fields.push_back(word);
  }
  return asked;
}

}  // namespace

bool sources_define(std::string_view question, const std::vector<Evidence>& evidence) {
  const Asked asked = asked_about(question);
  return std::any_of(evidence.begin(), evidence.end(), [&](const Evidence& e) {
    if (!is_code(e.kind)) return false;
    return std::any_of(asked.declared.begin(), asked.declared.end(), [&](const std::string& n) { return declares(e.text, n); }) ||
           std::any_of(asked.fields.begin(), asked.fields.end(), [&](const std::string& f) {
             return gives_value(e.text, f) >= 2 && asked.may_define(f, e.section);
           });
  });
}

WithDefinitions with_definitions(const Index& index, std::string_view question, std::vector<Hit> hits) {
  const Asked asked = asked_about(question);
  std::vector<Hit> found;
  const auto add = [&](std::optional<Hit> hit) {
    if (hit && found.size() < kMaxDefinitions &&
        std::none_of(found.begin(), found.end(), [&](const Hit& h) { return h.chunk == hit->chunk; }))
      found.push_back(*hit);
  };
  // A name no class or function declares may be a variable or a constant ("Where is VLLM_USE_V1
  // defined?"): the code that gives it a value at the start of a line.
  for (const std::string& name : asked.declared)
    if (std::optional<Hit> declared = declaration(index, name, owner_in(question, name)); declared || is_class_like(name))
      add(declared);
    else
      add(best_definition(index, name, [&](const ChunkView& c) { return gives_value(c.text, name); }));
  const QuestionKind kind = asked.kind;
  if (kind == QuestionKind::where && found.empty()) add(named_file(index, question));
  if (kind == QuestionKind::what_is && asked.fields.empty())
    for (const Hit& hit : titled_section(index, question)) add(hit);
  if (kind == QuestionKind::options) add(listed_values(index, question));
  std::string in_owners;
  for (const std::string& owner : asked.owners) in_owners += " " + owner;
  std::vector<std::string> fields = asked.fields;
  std::string query(question);
  const bool writes_field =
      std::any_of(asked.names.begin(), asked.names.end(), [](const std::string& n) { return !is_class_like(n); });
  if (kind != QuestionKind::where && !writes_field)
    if (std::optional<std::string> named = field_named_by_words(index, question, kind == QuestionKind::default_value)) {
      query += " " + *named;
      fields.insert(fields.begin(), std::move(*named));
    }
  for (const std::string& field : fields)
    add(best_definition(index, field + in_owners, [&](const ChunkView& c) {
      const int value = gives_value(c.text, field);
      if (value == 0) return 0;
      if (!asked.may_define(field, c.section)) return 0;
      const bool in_owner = std::any_of(asked.owners.begin(), asked.owners.end(), [&](const std::string& owner) {
        return c.section.find(owner) != std::string_view::npos;
      });
      return value + (in_owner ? 3 : 0);
    }));
  if (found.empty()) return {std::move(hits), 0, std::move(query)};
  const std::size_t size = hits.size();
  const double best_score = hits.empty() ? 0.0 : hits.front().score;
  std::erase_if(hits, [&](const Hit& h) {
    return std::any_of(found.begin(), found.end(), [&](const Hit& f) { return f.chunk == h.chunk; });
  });
  for (Hit& f : found) f.score = best_score;
  hits.insert(hits.begin(), found.begin(), found.end());
  hits.resize(size == 0 ? found.size() : size);  // as many sources as asked for
  const std::size_t definitions = std::min(found.size(), hits.size());
  return {std::move(hits), definitions, std::move(query)};
}

}  // namespace rag
