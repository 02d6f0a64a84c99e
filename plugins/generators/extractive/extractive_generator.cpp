#include "extractive_generator.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

constexpr const char* kNoAnswer = "The retrieved sources do not answer this question.";
// A source's rank counts, but a good sentence of the third source beats a poor one of the first.
constexpr double kRankDecay = 0.15;
// Code lines are the evidence for code questions, yet a sentence says the same more readably.
constexpr double kCodeFactor = 0.85;
// Units with fewer terms than this are labels ("Example:", "return x") more than answers.
constexpr std::size_t kShortUnitTerms = 3;
// Further units must score at least this share of the best one.
constexpr double kFollowShare = 0.6;
// Code lines that follow a unit ending in ':' ("Run the server:"), added with it.
constexpr std::size_t kMaxFollowLines = 4;

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

bool is_list_item(std::string_view t) {
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') return true;
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  return digits > 0 && digits + 1 < t.size() && (t[digits] == '.' || t[digits] == ')') && t[digits + 1] == ' ';
}

bool is_table_rule(std::string_view t) { return t.find_first_not_of("|-: ") == std::string_view::npos; }

// True when the sentence break at `start` follows an abbreviation ("e.g. the model").
bool after_abbreviation(std::string_view text, std::size_t start) {
  std::size_t dot = start;
  while (dot > 0 && text[dot - 1] == ' ') --dot;
  if (dot == 0 || text[dot - 1] != '.') return false;
  const std::size_t word_end = dot - 1;
  const std::size_t space = text.rfind(' ', word_end);
  std::string word(text.substr(space == std::string_view::npos ? 0 : space + 1, word_end - (space == std::string_view::npos ? 0 : space + 1)));
  std::transform(word.begin(), word.end(), word.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  for (const std::string_view a : {"e.g", "i.e", "etc", "vs", "cf", "approx", "(e.g", "(i.e"})
    if (word == a) return true;
  return false;
}

// Collects the units of one source.
class UnitWriter {
 public:
  UnitWriter(std::vector<ExtractiveGenerator::Unit>& out, std::size_t evidence) : out_(out), evidence_(evidence) {}

  void code(std::string_view line) {
    flush();
    add(std::string(trim_right(line)), true);
  }
  // A unit on its own: a list item's first line, a table row.
  void prose_line(std::string_view text) {
    flush();
    paragraph_ = std::string(trim(text));
  }
  void prose(std::string_view text) {
    const std::string_view t = trim(text);
    if (t.empty()) return flush();
    if (!paragraph_.empty()) paragraph_ += ' ';
    paragraph_ += t;
  }
  // Ends the paragraph being gathered, cutting it into sentences.
  void flush() {
    const std::string_view p = paragraph_;
    std::size_t begin = 0;
    for (const std::size_t start : sentence_starts(p, {0, p.size()})) {
      if (after_abbreviation(p, start)) continue;
      add(std::string(trim(p.substr(begin, start - begin))), false);
      begin = start;
    }
    add(std::string(trim(p.substr(begin))), false);
    paragraph_.clear();
  }

 private:
  void add(std::string text, bool is_code) {
    if (trim(text).empty()) return;
    ExtractiveGenerator::Unit u;
    u.evidence = evidence_;
    u.position = out_.size();
    u.code = is_code;
    u.chars = utf8::count_code_points(trim(text));
    u.ends_with_colon = !is_code && text.back() == ':';
    u.text = std::move(text);
    out_.push_back(std::move(u));
  }

  std::vector<ExtractiveGenerator::Unit>& out_;
  std::size_t evidence_;
  std::string paragraph_;
};

void split_markdown(std::string_view text, UnitWriter& w, bool fences) {
  std::string_view fence;  // the open fence's marker, empty outside code
  for (const std::string_view line : lines_of(text)) {
    const std::string_view t = trim(line);
    if (fences && (t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~")) {
      w.flush();
      if (fence.empty()) fence = t.substr(0, 3);
      else if (t.substr(0, 3) == fence) fence = {};
      continue;
    }
    if (!fence.empty()) {
      if (!t.empty()) w.code(line);
    } else if (t.empty() || (fences && (t[0] == '#' || t.substr(0, 3) == "!!!" || t.substr(0, 3) == "???" ||
                                         t.substr(0, 4) == "<!--"))) {
      w.flush();  // headings, admonition titles and comments are labels, not answers
    } else if (t[0] == '|') {
      if (!is_table_rule(t)) w.prose_line(t);
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
  for (const std::string_view line : lines_of(text)) {
    std::string_view t = trim(line);
    if (!quote.empty()) {
      const auto close = t.find(quote);
      w.prose(t.substr(0, close));
      if (close != std::string_view::npos) {
        w.flush();
        quote = {};
      }
      continue;
    }
    std::size_t prefix = 0;  // string prefixes: r"""...""", b'''...'''
    while (prefix < t.size() && prefix < 2 && std::string_view("rRbBuUfF").find(t[prefix]) != std::string_view::npos)
      ++prefix;
    const std::string_view opening = t.substr(prefix, 3);
    if (opening == "\"\"\"" || opening == "'''") {
      const std::string_view rest = t.substr(prefix + 3);
      const auto close = rest.find(opening);
      w.prose(rest.substr(0, close));
      if (close == std::string_view::npos) quote = opening;
      else w.flush();
    } else if (!t.empty() && t[0] == '#') {
      w.flush();
      if (const auto words = t.find_first_not_of('#'); words != std::string_view::npos) w.prose_line(t.substr(words));
      w.flush();
    } else if (!t.empty()) {
      w.code(line);
    }
  }
  w.flush();
}

std::size_t indentation(std::string_view line) {
  const auto n = line.find_first_not_of(" \t");
  return n == std::string_view::npos ? line.size() : n;
}

double jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t shared = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) ++shared, ++i, ++j;
    else if (a[i] < b[j]) ++i;
    else ++j;
  }
  const std::size_t all = a.size() + b.size() - shared;
  return all ? static_cast<double>(shared) / static_cast<double>(all) : 0.0;
}

}  // namespace

ExtractiveGenerator::ExtractiveGenerator(Options& options) : analyzer_(AnalyzerConfig{}) {
  max_chars_ = static_cast<std::size_t>(options.get_integer("max_chars", static_cast<long long>(max_chars_), 20, 100'000));
  max_units_ = static_cast<std::size_t>(options.get_integer("max_units", static_cast<long long>(max_units_), 1, 100));
  citations_ = options.get<bool>("citations", citations_);
  options.finish();
}

std::string ExtractiveGenerator::describe() const {
  return "extractive (at most " + std::to_string(max_units_) + " sentences or lines, " + std::to_string(max_chars_) +
         " characters)";
}

std::vector<ExtractiveGenerator::Unit> ExtractiveGenerator::split_units(const Evidence& evidence,
                                                                       std::size_t evidence_index) {
  std::vector<Unit> units;
  UnitWriter writer(units, evidence_index);
  if (evidence.kind == "python") split_python(evidence.text, writer);
  else split_markdown(evidence.text, writer, evidence.kind == "markdown");
  return units;
}

std::string ExtractiveGenerator::generate(const GenerationRequest& request) {
  std::vector<Unit> units;
  for (std::size_t i = 0; i < request.evidence.size(); ++i) {
    std::vector<Unit> more = split_units(request.evidence[i], i);
    units.insert(units.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  std::vector<std::vector<std::string>> terms(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    terms[u] = analyzer_.analyze(units[u].text);
    std::sort(terms[u].begin(), terms[u].end());
    terms[u].erase(std::unique(terms[u].begin(), terms[u].end()), terms[u].end());
  }
  const auto has = [&](std::size_t u, const std::string& term) {
    return std::binary_search(terms[u].begin(), terms[u].end(), term);
  };

  // Query terms weigh by how rare they are among the units, so that a term every source shares
  // ("vllm") counts less than the one that singles out the answer.
  std::map<std::string, double> weight;
  double total = 0;
  for (const auto& q : analyzer_.analyze(request.question)) {
    if (weight.count(q)) continue;
    std::size_t df = 0;
    for (std::size_t u = 0; u < units.size(); ++u) df += has(u, q);
    if (df == 0) continue;
    weight[q] = std::log(1.0 + static_cast<double>(units.size()) / static_cast<double>(df));
    total += weight[q];
  }
  if (total == 0) return kNoAnswer;

  const auto rank_factor = [&](const Unit& u) {
    const std::size_t rank = std::max<std::size_t>(request.evidence[u.evidence].rank, u.evidence + 1);
    return 1.0 / (1.0 + kRankDecay * static_cast<double>(rank - 1));
  };
  std::vector<double> score(units.size(), 0.0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    double covered = 0;
    for (const auto& [q, w] : weight) covered += has(u, q) ? w : 0.0;
    if (covered == 0) continue;
    double s = covered / total * rank_factor(units[u]);
    if (units[u].code) s *= kCodeFactor;
    if (terms[u].size() < kShortUnitTerms) s *= 0.5;
    score[u] = s + 0.02 / (1.0 + static_cast<double>(units[u].position));
  }

  // Greedy choice: the best unit, then others that score well and do not repeat it.
  std::vector<std::size_t> chosen;
  std::size_t used = 0;
  double first = 0;
  while (chosen.size() < max_units_) {
    std::size_t best = units.size();
    double best_value = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (score[u] == 0 || used + units[u].chars > max_chars_ ||
          std::find(chosen.begin(), chosen.end(), u) != chosen.end())
        continue;
      double redundancy = 0;
      for (const std::size_t c : chosen) redundancy = std::max(redundancy, jaccard(terms[u], terms[c]));
      const double value = score[u] * (1.0 - redundancy);
      if (value > best_value) best = u, best_value = value;
    }
    if (best == units.size() || (!chosen.empty() && best_value < kFollowShare * first)) break;
    if (chosen.empty()) first = best_value;
    chosen.push_back(best);
    used += units[best].chars;
    // A unit that announces code ("Start the server with:") brings the code with it.
    if (units[best].ends_with_colon)
      for (std::size_t next = best + 1, lines = 0; next < units.size() && lines < kMaxFollowLines; ++next, ++lines) {
        if (!units[next].code || units[next].evidence != units[best].evidence ||
            used + units[next].chars > max_chars_)
          break;
        if (std::find(chosen.begin(), chosen.end(), next) == chosen.end()) {
          chosen.push_back(next);
          used += units[next].chars;
        }
      }
  }
  if (chosen.empty()) return kNoAnswer;

  // One paragraph per source, the best source first; its units in text order.
  std::map<std::size_t, std::vector<std::size_t>> by_source;
  std::map<std::size_t, double> source_best;
  for (const std::size_t c : chosen) {
    by_source[units[c].evidence].push_back(c);
    source_best[units[c].evidence] = std::max(source_best[units[c].evidence], score[c]);
  }
  std::vector<std::size_t> sources;
  for (const auto& [s, list] : by_source) sources.push_back(s);
  std::stable_sort(sources.begin(), sources.end(),
                   [&](std::size_t a, std::size_t b) { return source_best[a] > source_best[b]; });

  std::string answer;
  for (const std::size_t s : sources) {
    std::vector<std::size_t>& list = by_source[s];
    std::sort(list.begin(), list.end());
    const std::string citation = citations_ ? "[" + std::to_string(request.evidence[s].number) + "]" : "";
    std::string paragraph;  // the sentences and one-line code of the current block
    auto end_text = [&] {
      if (paragraph.empty()) return;
      if (!answer.empty()) answer += "\n\n";
      answer += paragraph + (citation.empty() ? "" : " " + citation);
      paragraph.clear();
    };
    for (std::size_t i = 0; i < list.size();) {
      const Unit& u = units[list[i]];
      std::size_t run = i + 1;  // code lines that follow each other in the source
      while (u.code && run < list.size() && units[list[run]].code && list[run] == list[run - 1] + 1) ++run;
      if (!u.code || run == i + 1) {
        if (!paragraph.empty()) paragraph += ' ';
        if (u.code) paragraph.append("`").append(trim(u.text)).append("`");
        else paragraph += u.text;
      } else {
        const bool cited_before = !paragraph.empty();
        end_text();
        std::size_t indent = std::string::npos;
        for (std::size_t k = i; k < run; ++k) indent = std::min(indent, indentation(units[list[k]].text));
        if (!answer.empty()) answer += "\n\n";
        if (!cited_before && !citation.empty()) answer += citation + ":\n";
        answer += "```\n";
        for (std::size_t k = i; k < run; ++k) answer += units[list[k]].text.substr(indent) + "\n";
        answer += "```";
      }
      i = run;
    }
    end_text();
  }
  return answer;
}

}  // namespace rag
