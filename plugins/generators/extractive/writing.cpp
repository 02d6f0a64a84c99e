// The extractive generator's writing: the chosen units as an answer (ExtractiveGenerator::write
// and what it calls), a paragraph per source, code and tables as blocks, the sentence that states
// a default and the place a "where" question asks for.
#include "extractive_generator.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "code_reading.hpp"
#include "rag/code_names.hpp"
#include "rag/context.hpp"
#include "rag/language.hpp"
#include "rag/question_kind.hpp"
#include "rag/utf8.hpp"
#include "restatement.hpp"
#include "units.hpp"

namespace rag {
namespace {

using namespace extractive;

// Code up to this many code points reads inline, in backticks, after some prose.
constexpr std::size_t kMaxInlineCode = 100;
// The defaults one answer states: as many as a question usually asks ("the alpha and limit
// parameters").
constexpr std::size_t kMaxDefaultsSaid = 2;
// Whether `paragraph` holds every word of `line`, as `analyzer` reads them (stopwords, which only
// join words, left out).
bool says_all_of(const Analyzer& analyzer, std::string_view paragraph, std::string_view line) {
  std::vector<std::string> said = analyzer.analyze(paragraph);
  std::sort(said.begin(), said.end());
  for (const std::string& w : analyzer.analyze(line))
    if (!std::binary_search(said.begin(), said.end(), w)) return false;
  return true;
}

// How an answer names a source in a line of its own: the last level of its section ("LLM.generate"
// gives "generate"), or its file's name.
std::string short_name(const Evidence& e) {
  if (e.section.empty()) return e.file_path.substr(e.file_path.rfind('/') + 1);
  const std::string_view name = last_part(e.section);
  return std::string(name.empty() ? std::string_view(e.section) : name);
}

}  // namespace

std::string ExtractiveGenerator::write(const GenerationRequest& request, const Reading& reading,
                                       const std::vector<std::size_t>& chosen) const {
  const std::vector<Unit>& units = reading.units;
  const std::vector<QuestionWord>& words = reading.words;
  const std::vector<double>& weight = reading.weight;
  const std::vector<double>& score = reading.score;
  const QuestionKind kind = reading.kind;
  const auto is_chosen = [&](std::size_t u) { return std::find(chosen.begin(), chosen.end(), u) != chosen.end(); };
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

  std::string answer(english_sources_note(request.language));
  if (kind == QuestionKind::default_value) {
    // The default asked for, said first, from the chosen code, else the best code that gives it.
    std::vector<std::size_t> order = chosen;
    std::vector<std::size_t> rest;
    for (std::size_t u = 0; u < units.size(); ++u)
      if (!is_chosen(u) && score[u] > 0 && units[u].code) rest.push_back(u);
    std::stable_sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
    order.insert(order.end(), rest.begin(), rest.end());
    if (const std::string sentence = default_sentence(request, reading.query, units, order, words); !sentence.empty()) {
      if (!answer.empty()) answer += "\n\n";
      answer += sentence;
    }
  }
  if (kind == QuestionKind::where) {
    // Where something is: the place first, from the source whose name and path match the
    // question best, code before prose (a page that mentions a class is not where it is).
    std::size_t place = sources.front();
    double place_value = 0;
    for (std::size_t i = 0; i < request.evidence.size(); ++i) {
      const Evidence& e = request.evidence[i];
      const std::vector<std::string> named = place_terms(e);
      double covered = 0;
      for (std::size_t w = 0; w < words.size(); ++w) covered += (weight[w] > 0 ? weight[w] : 1.0) * words[w].coverage(named);
      const bool code = e.kind != "markdown" && e.kind != "text";
      const double value = covered * (code ? 1.5 : 1.0) / (1.0 + kRankDecay * static_cast<double>(i));
      if (value > place_value) place = i, place_value = value;
    }
    const Evidence& e = request.evidence[place];
    if (!answer.empty()) answer += "\n\n";
    answer += (e.section.empty() ? "In `" : "`" + e.section + "` is in `") + (e.place.empty() ? e.file_path : e.place) + "`, lines " +
              std::to_string(e.first_line) + "-" + std::to_string(e.last_line) + ".";
    answer += cite(e.number);
  }
  for (const std::size_t s : sources) {
    std::vector<std::size_t>& list = by_source[s];
    std::sort(list.begin(), list.end());
    // What X is: the sentence that defines it first, wherever it stands in the source (but not
    // away from the field it documents, chosen with it).
    const auto best = std::max_element(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
    if (kind == QuestionKind::what_is && best != list.begin() && !units[*best].code && !units[*best].item &&
        !units[*best].announces &&
        !(*best > 0 && units[*best - 1].code && std::find(list.begin(), best, *best - 1) != best)) {
      auto end = best + 1;  // with the sentences that go on from it
      while (end != list.end() && *end == *(end - 1) + 1 && units[*end].continues) ++end;
      std::rotate(list.begin(), best, end);
    }
    append_source(answer, request.evidence[s], units, list, reading.first_parent_unit);
  }
  // An English question turned into what the quotes answer for ("To enable X:"), unless the
  // first paragraph already says every word of it. Translated questions are not: their English
  // reading is a word list, and the note on English sources opens their answers.
  if (restate_ && request.language == "en")
    if (const std::string lead = restatement(request.question);
        !lead.empty() && !says_all_of(analyzer_, answer.substr(0, answer.find("\n\n")), lead))
      answer = lead + "\n\n" + answer;
  return answer;
}

void ExtractiveGenerator::append_source(std::string& answer, const Evidence& source, const std::vector<Unit>& units,
                                         const std::vector<std::size_t>& list, std::size_t first_parent_unit) const {
  const std::string citation = cite(source.number);
  std::string paragraph;  // the sentences and short code of the current block
  auto end_text = [&] {
    if (paragraph.empty()) return;
    if (!answer.empty()) answer += "\n\n";
    answer.append(paragraph).append(citation);
    paragraph.clear();
  };
  // Starts a block (code, a table): code and tables never open an answer, or a source's part,
  // bare: unless the sentence before is cited, a line names where they come from.
  // The definition unit `u` is in: the last declaration at or before it in the same text (the
  // source's own, or the same parent's); else the source's name.
  const auto defining = [&](std::size_t u) {
    if (source.kind == "python")
      for (std::size_t k = u + 1; k-- > 0 && units[k].evidence == units[u].evidence && (k >= first_parent_unit) == (u >= first_parent_unit);)
        if (const std::string_view name = units[k].code ? declared_name(units[k].text) : std::string_view(); !name.empty())
          return std::string(name);
    return short_name(source);
  };
  auto start_block = [&](bool cited_before, std::string_view gap, std::size_t u) {
    if (!answer.empty()) answer += "\n\n";
    if (cited_before) return;
    answer.append("In `").append(defining(u)).append("`").append(citation).append(":").append(gap);
  };
  for (std::size_t i = 0; i < list.size();) {
    const Unit& u = units[list[i]];
    std::size_t run = i + 1;  // code statements that follow each other in the source
    while (u.code && run < list.size() && units[list[run]].code && !units[list[run]].block_start && list[run] == list[run - 1] + 1)
      ++run;
    // Short code reads inline after some prose; longer code, code with backticks (they would end
    // the inline span), a statement cut short, or code with nothing before it, as a block.
    const bool inline_code = u.code && !u.cut && run == i + 1 && u.text.find_first_of("\n`") == std::string::npos &&
                             utf8::count_code_points(trim(u.text)) <= kMaxInlineCode &&
                             (!paragraph.empty() || !answer.empty());
    // A header row and rows of its table read as a table.
    if (u.header) {
      std::size_t end = i + 1;
      const auto same_table = [&](std::size_t k) {  // every unit up to list[k] a row under u
        for (std::size_t between = list[k - 1] + 1; between <= list[k]; ++between)
          if (!units[between].row() || units[between].header) return false;
        return true;
      };
      while (end < list.size() && same_table(end)) ++end;
      if (end - i >= 2) {
        const bool cited_before = !paragraph.empty();
        end_text();
        start_block(cited_before, "\n\n", list[i]);
        answer.append(units[list[i]].text).append("\n|");
        for (std::ptrdiff_t cell = 1; cell < std::count(u.text.begin(), u.text.end(), '|'); ++cell) answer += "---|";
        for (std::size_t k = i + 1; k < end; ++k) answer.append("\n").append(units[list[k]].text);
        i = end;
        continue;
      }
    }
    if (!u.code || inline_code) {
      // Text left out between two quotes of a source shows as an ellipsis: they are not one
      // statement. List items and table rows keep a line each.
      // A sentence that goes on from the one before (of a list item too) stays on its line.
      const bool next_to = i > 0 && list[i] == list[i - 1] + 1;
      if (!paragraph.empty())
        paragraph += next_to && u.continues ? " " : u.item || units[list[i - 1]].item ? "\n" : next_to ? " " : " … ";
      if (u.code) paragraph.append("`").append(trim(u.text)).append("`");
      else paragraph += u.text;
      i = run;
      continue;
    }
    const bool cited_before = !paragraph.empty();
    end_text();

    // A statement that goes on past what is quoted of it (Unit::cut) is followed by a line "...",
    // at the indentation of the lines that continue it (its first line's, indented, when it has
    // no other).
    std::vector<std::string> code;
    for (std::size_t k = i; k < run; ++k) {
      const std::vector<std::string_view> lines = lines_of(units[list[k]].text);
      for (const std::string_view line : lines) code.emplace_back(line);
      if (units[list[k]].cut)
        code.push_back(std::string(indentation(lines.back()) + (lines.size() == 1 ? 4 : 0), ' ') + "...");
    }
    std::size_t indent = std::string::npos;
    std::size_t backticks = 2;  // the fence is longer than any run of them that starts a line
    for (const std::string& line : code) {
      indent = std::min(indent, indentation(line));
      const std::string_view t = trim(line);
      backticks = std::max(backticks, std::min(t.find_first_not_of('`'), t.size()));
    }
    const std::string fence(backticks + 1, '`');
    start_block(cited_before, "\n", list[i]);
    answer.append(fence).append("\n");
    for (const std::string& line : code) answer.append(line.substr(std::min(indent, line.size()))).append("\n");
    answer += fence;
    i = run;
  }
  end_text();
}

std::string ExtractiveGenerator::cite(int number) const {
  std::string citation;
  if (citations_) citation.append(" [").append(std::to_string(number)).append("]");
  return citation;
}

std::vector<std::string> ExtractiveGenerator::place_terms(const Evidence& e) const {
  return sorted_terms(e.section + " " + e.file_path, analyzer_);
}

std::string ExtractiveGenerator::default_sentence(const GenerationRequest& request, const std::string& query,
                                                  const std::vector<Unit>& units, const std::vector<std::size_t>& order,
                                                  const std::vector<QuestionWord>& words) const {
  // The names asked about, each said ("the alpha and limit parameters" asks two), else the
  // question's first other word that a settings class, or one the question names, gives a value
  // ("the default temperature": SamplingParams's); a plain word in any declaration matches too
  // loosely (a `timestamp` field of the engine's outputs for "what timestamp format do log lines
  // use").
  std::vector<std::string> names = asked_names(query);
  const std::size_t named = names.size();
  const std::vector<std::string> code = code_names(query);
  std::vector<std::string> plain;
  for (const QuestionWord& w : words)
    if (std::find(names.begin(), names.end(), w.text) == names.end() && !names_kind_of_code(query, w.text) &&
        std::find(code.begin(), code.end(), w.text) == code.end())
      plain.push_back(w.text);
  // Plain words written side by side name a field first, the longest first ("Which tokenizer
  // mode is used by default?": tokenizer_mode before tokenizer, "the default swap space": swap_space).
  const std::string asked = lowered(query);
  for (std::size_t length = 3; length >= 2; --length)
    for (std::size_t i = 0; i + length <= plain.size(); ++i) {
      std::string spaced = lowered(plain[i]), joined_name = plain[i];
      for (std::size_t j = i + 1; j < i + length; ++j) {
        spaced.append(" ").append(lowered(plain[j]));
        joined_name.append("_").append(plain[j]);
      }
      if (asked.find(spaced) != std::string::npos && std::find(names.begin(), names.end(), joined_name) == names.end())
        names.push_back(joined_name);
    }
  for (std::string& w : plain)
    if (std::find(names.begin(), names.end(), w) == names.end()) names.push_back(std::move(w));
  // Which sources a plain word may be read in: a settings class's, or one the question writes as
  // code ("the default timeout in Scheduler"). Read once per source, and only when a plain word
  // is tried.
  std::vector<bool> in_settings(request.evidence.size(), false);
  if (names.size() > named)
    for (std::size_t e = 0; e < request.evidence.size(); ++e) {
      const std::string& section = request.evidence[e].section;
      const std::vector<std::string> levels = sorted_terms(section, analyzer_);
      in_settings[e] = is_settings_class(last_part(section)) || std::any_of(words.begin(), words.end(), [&](const QuestionWord& w) {
                         return std::find(code.begin(), code.end(), w.text) != code.end() && w.coverage(levels) == 1;
                       });
    }
  // A declaration (`name: T = v`, a parameter) before a lookup's fallback.
  const auto sentence_for = [&](std::size_t n) -> std::string {
    for (const bool lookup : {false, true}) {
      if (lookup && n >= named) break;
      for (const std::size_t u : order) {
        if (!units[u].code || (n >= named && !in_settings[units[u].evidence])) continue;
        const std::string_view value = default_of(units[u].text, names[n], lookup);
        // A value over several lines, or with a backtick, cannot be quoted inline: its code says it.
        if (value.empty() || value.find_first_of("\n`") != std::string_view::npos) continue;
        std::string quoted_name(1, '`'), quoted_value(1, '`');
        quoted_name.append(names[n]).append("`");
        quoted_value.append(value).append("`");
        return render_template(default_is_phrase(request.language), {{"name", quoted_name}, {"value", quoted_value}}) +
               cite(request.evidence[units[u].evidence].number);
      }
    }
    return {};
  };
  // A second name is said when the question joins it to the first ("the alpha and limit
  // parameters"); otherwise it is a condition ("the default dtype when the model option is set").
  const auto joined = [&](const std::string& a, const std::string& b) {
    return asked.find(lowered(a) + " and " + lowered(b)) != std::string::npos ||
           asked.find(lowered(a) + " or " + lowered(b)) != std::string::npos;
  };
  std::string said, first;
  std::size_t count = 0;
  for (std::size_t n = 0; n < names.size() && count < kMaxDefaultsSaid && (n < named || count == 0); ++n) {
    if (count == 1 && !joined(first, names[n])) break;
    if (const std::string sentence = sentence_for(n); !sentence.empty()) {
      said += (said.empty() ? "" : " ") + sentence;
      first = names[n];
      ++count;
    }
  }
  return said;
}

}  // namespace rag
