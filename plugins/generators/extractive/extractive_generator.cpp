#include "extractive_generator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "code_reading.hpp"
#include "rag/code_names.hpp"
#include "rag/question_kind.hpp"
#include "rag/question_words.hpp"
#include "rag/utf8.hpp"
#include "shapes.hpp"
#include "units.hpp"

namespace rag {
namespace {

using namespace extractive;

// Further units must score at least this share of the best one.
constexpr double kFollowShare = 0.5;
// A part of a question that asks several things is answered by a unit chosen that scores, for
// that part, at least this share of its best unit.
constexpr double kPartShare = 0.5;
// A how-to answer without a command takes the best unit that names one scoring at least this
// share of the best unit.
constexpr double kCommandShare = 0.3;
// What a unit of the documentation weighs against one of code, for a question that names no code.
constexpr double kDocsWeight = 1.25;
// A page's lede, which speaks of its title without naming it, weighs a little less than a sentence
// that defines what a what-is question asks about (shapes.hpp).
constexpr double kLedeWeight = 1.4;
// At most this many units come with one that announces them: after a ':' ("Run the server:") or
// a sentence without a stop right before code ("To install it, run"), a block's body, the
// statements of a block a sentence announces in words.
constexpr std::size_t kMaxFollowUnits = 4;
// The code a sentence announces is cut to no less than this many code points.
constexpr std::size_t kMinAnnouncedCode = 150;
// The list items or table rows a sentence announces may take this many code points past the
// answer's room.
constexpr std::size_t kAnnouncedItemsExtra = 400;
// How many sentences of the best one's paragraph come after it, and how many code points past
// the answer's room they may take (the room: max_chars, more for a question that asks two things).
constexpr std::size_t kParagraphSentences = 2;
constexpr std::size_t kParagraphExtra = 400;
// A sentence longer than max_chars is quoted cut only when max_chars leaves this many code
// points, and the cut keeps this share of what the sentence says of the question.
constexpr std::size_t kMinCutSentence = 150;
constexpr double kKeptByCut = 0.8;
// What a sentence that says what its page is about weighs: it shares the words of the page's
// subject and states nothing of it.
constexpr double kAboutThePageWeight = 0.5;
// What a unit of a test module weighs (a question that says "test" aside).
constexpr double kTestCodeWeight = 0.7;
// What a unit holding a thing of the type the question asks for weighs (a number for "how many",
// an UPPER_CASE name for "which environment variable").
constexpr double kAnswerTypeWeight = 1.4;

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


// The verb of a question that asks what something does to what it acts on ("What does X
// control?", "What does X set?", "What determines X?"), which says what is asked rather than what
// about; empty for another question ("What is flow control?").
std::string effect_verb(std::string_view question) {
  static constexpr std::string_view kVerbs[] = {"control", "set", "determine", "configure", "specify", "govern", "affect"};
  std::string q = lowered(question);
  while (!q.empty() && (q.back() == '?' || q.back() == ' ')) q.pop_back();
  for (const std::string_view verb : kVerbs) {
    std::string last(" "), opening("what ");
    last += verb;
    opening.append(verb).append("s ");
    if ((q.starts_with("what does ") && q.ends_with(last)) || q.starts_with(opening)) return std::string(verb);
  }
  return {};
}

// Words of a question that say what kind of answer it wants rather than what it is about.
// `verb`: the question's effect_verb.
bool is_marker(QuestionKind kind, const std::string& word, const std::string& verb) {
  using Kind = QuestionKind;
  static const std::set<std::string> defaults = {"default", "defaults", "value", "values"};
  static const std::set<std::string> places = {"implemented", "defined", "located", "declared", "implementation",
                                               "definition", "file", "module", "class", "function"};
  if (kind == Kind::default_value) return defaults.count(word) > 0;
  if (kind == Kind::where) return places.count(word) > 0;
  // "What does the seed parameter do?" asks about the seed, "What does X control?" about X.
  if (kind == Kind::what_is)
    return word == "mean" || word == "means" || (!verb.empty() && (word == verb || word == verb + "s")) || is_field_noun(word);
  return false;
}

// The title a lede speaks of: the last level of a page's header path, or of a first-level
// section's ("Features > Prefix Caching" gives "Prefix Caching"); empty for a deeper section, which
// is about a detail.
std::string_view page_title(std::string_view section) {
  const std::size_t cut = section.rfind(" > ");
  if (cut == std::string_view::npos) return section;
  return section.substr(0, cut).find(" > ") == std::string_view::npos ? section.substr(cut + 3) : std::string_view();
}

}  // namespace

ExtractiveGenerator::ExtractiveGenerator(Options& options) : analyzer_(AnalyzerConfig{}) {
  max_chars_ = static_cast<std::size_t>(options.get_integer("max_chars", static_cast<long long>(max_chars_), 20, 100'000));
  max_units_ = static_cast<std::size_t>(options.get_integer("max_units", static_cast<long long>(max_units_), 1, 100));
  citations_ = options.get<bool>("citations", citations_);
  restate_ = options.get<bool>("restate", restate_);
  options.finish();
}

std::string ExtractiveGenerator::describe() const {
  return "extractive (" + std::to_string(max_units_) + " sentences or statements chosen, " + std::to_string(max_chars_) +
         " characters)";
}


std::string ExtractiveGenerator::generate(const GenerationRequest& request) {
  const std::string answer = compose(request);
  // Handed out paragraph by paragraph, as a streaming model would, for whoever shows it live.
  if (request.on_text)
    for (std::size_t begin = 0; begin < answer.size();) {
      std::size_t end = answer.find("\n\n", begin);
      end = end == std::string::npos ? answer.size() : end + 2;
      request.on_text(std::string_view(answer).substr(begin, end - begin));
      begin = end;
    }
  return answer;
}


std::string ExtractiveGenerator::compose(const GenerationRequest& request) const {
  const std::string& query = request.query.empty() ? request.question : request.query;
  Reading reading = units_of(request);
  // A question that asks several things: each part read alone over the same units, for the unit
  // that answers it.
  std::vector<Reading> parts;
  if (const std::vector<std::string_view> asked = asked_parts(query); asked.size() >= 2)
    for (const std::string_view part : asked)
      if (Reading alone = reading; score(request, alone, part)) parts.push_back(std::move(alone));
  if (!score(request, reading, query)) return {};
  const std::vector<std::size_t> chosen = choose(request, reading, parts);
  if (chosen.empty()) return {};
  return write(request, reading, chosen);
}

ExtractiveGenerator::Reading ExtractiveGenerator::units_of(const GenerationRequest& request) const {
  Reading r;
  // The sources' units, then those of the sections and definitions around the best sources (the
  // parents), counted as their source's: a definition's docstring or a section's first sentence
  // may lie outside the chunk that matched.
  std::vector<Unit>& units = r.units;
  std::set<std::string> seen;
  const auto add_units = [&](const Evidence& e, std::size_t index) {
    bool dropped = false;  // the unit before, said by another source already
    for (Unit& u : split_units(e, index)) {
      if (!seen.insert(u.text).second) {
        dropped = true;
        continue;
      }
      u.continues = u.continues && !dropped;  // it goes on from a sentence left out
      dropped = false;
      r.titles.push_back(u.lede && e.kind == "markdown" ? page_title(e.section) : "");
      units.push_back(std::move(u));
    }
  };
  for (std::size_t i = 0; i < request.evidence.size(); ++i) add_units(request.evidence[i], i);
  r.first_parent_unit = units.size();
  for (const Evidence& parent : request.parents)
    for (std::size_t i = 0; i < request.evidence.size(); ++i)
      if (request.evidence[i].number == parent.number) add_units(parent, i);
  r.terms.resize(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) r.terms[u] = sorted_terms(units[u].text, analyzer_);
  return r;
}

bool ExtractiveGenerator::score(const GenerationRequest& request, Reading& r, std::string_view question) const {
  r.query = question;
  r.kind = question_kind(r.query);
  const AnswerTypes asked_types = answer_types(r.query);
  const std::string& query = r.query;
  const QuestionKind kind = r.kind;
  const std::vector<Unit>& units = r.units;
  const std::vector<std::string_view>& title = r.titles;
  std::vector<std::vector<std::string>>& terms = r.terms;
  const auto has = [&](std::size_t u, const std::string& term) {
    return std::binary_search(terms[u].begin(), terms[u].end(), term);
  };

  // The question's words, each weighted by its rarest term among the units, so that a word every
  // source shares ("vllm") counts less than one that singles out the answer.
  // The words that say what is asked ("default", "implemented") are not what is asked about.
  std::vector<QuestionWord>& words = r.words;
  words = question_words(query, analyzer_);
  const std::string verb = effect_verb(query);
  std::erase_if(words, [&](const QuestionWord& w) { return is_marker(kind, lowered(w.text), verb); });
  std::vector<double>& weight = r.weight;
  weight.assign(words.size(), 0.0);
  double total = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (const QuestionWord* reading : words[w].readings())
      for (const auto& term : reading->parts) {
        std::size_t df = 0;
        for (std::size_t u = 0; u < units.size(); ++u) df += has(u, term);
        if (df > 0) weight[w] = std::max(weight[w], std::log(1.0 + static_cast<double>(units.size()) / static_cast<double>(df)));
      }
    total += weight[w];
  }
  if (total == 0) return false;
  // The words a defining sentence starts with: the question's rarest.
  std::vector<std::string> defined, subject;
  const std::size_t rarest = static_cast<std::size_t>(std::max_element(weight.begin(), weight.end()) - weight.begin());
  for (std::size_t w = 0; w < words.size(); ++w)
    if (weight[w] > 0)
      for (const QuestionWord* reading : words[w].readings()) {
        defined.push_back(lowered(reading->text));
        if (w == rarest) subject.push_back(defined.back());
      }

  // A question that names no code asks about an idea ("What is tensor parallelism?"), which the
  // documentation explains and docstrings only use.
  const bool about_ideas = code_names(query).empty() && kind != QuestionKind::where && kind != QuestionKind::default_value;
  // A test calls what it tests ("llm.generate(..., SamplingParams(stop='.'))" for what stop_reason
  // is) rather than saying what it is or does: its units weigh less, unless tests are asked about
  // (a word, in any of its readings, whose term is "test": test, tests, testing, test_x; or
  // pytest, unittest, conftest), not "latest".
  bool asks_tests = false;
  for (const QuestionWord& w : words)
    for (const QuestionWord* reading : w.readings())
      for (const std::string& part : reading->parts)
        asks_tests = asks_tests || part == "test" || part == "pytest" || part == "unittest" || part == "conftest";
  const auto rank_factor = [&](const Unit& u) {
    const Evidence& e = request.evidence[u.evidence];
    const std::size_t rank = std::max<std::size_t>(e.rank, u.evidence + 1);
    const double test = !asks_tests && is_test_code(e) ? kTestCodeWeight : 1.0;
    return test / (1.0 + kRankDecay * static_cast<double>(rank - 1));
  };
  // Commands are read in any text that is not code (a page, a README, a script); ideas are
  // explained by the documentation's pages alone (kDocsWeight below).
  const auto in_docs = [&](const Unit& u) {
    const std::string& source_kind = request.evidence[u.evidence].kind;
    return source_kind == "markdown" || source_kind == "text";
  };
  // A page or section titled with what a what-is question asks about (the title's words are the
  // question's, and say all it asks about) opens by saying what it is, the title its subject
  // ("# Paged Attention" then "vLLM uses its own attention kernel ..."): the sentences of its
  // lede define it, and hold the title's words; not those about the page ("This page shows").
  std::map<std::string_view, std::vector<std::string>> title_terms;  // of the titles that name the subject
  if (kind == QuestionKind::what_is) {
    const std::vector<std::string> asked = sorted_terms(query, analyzer_);
    for (const std::string_view t : title) {
      if (t.empty() || title_terms.contains(t)) continue;
      std::vector<std::string> named = sorted_terms(t, analyzer_);
      bool names = std::includes(asked.begin(), asked.end(), named.begin(), named.end());
      for (std::size_t w = 0; w < words.size(); ++w) names = names && (weight[w] == 0 || words[w].coverage(named) == 1.0);
      if (names) title_terms.emplace(t, std::move(named));
    }
  }
  std::vector<double>& score = r.score;
  score.assign(units.size(), 0.0);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const auto titled = title_terms.find(title[u]);
    const bool defines = titled != title_terms.end() && !speaks_of_the_page(units[u].text);
    if (defines) {  // the title's words, as the lede's implicit subject
      std::vector<std::string> both;
      std::set_union(terms[u].begin(), terms[u].end(), titled->second.begin(), titled->second.end(), std::back_inserter(both));
      terms[u] = std::move(both);
    }
    double covered = 0;
    for (std::size_t w = 0; w < words.size(); ++w) covered += weight[w] * words[w].coverage(terms[u]);
    // A header row says nothing without its rows, nor a placeholder ("raise NotImplementedError"
    // matches "implemented") of anything, nor an import but how to do something ("from vllm
    // import LLM").
    if (covered == 0 || units[u].header ||
        (units[u].code && (is_placeholder(units[u].text) || (kind != QuestionKind::how_to && is_import(units[u].text)))))
      continue;
    const double typed = asked_types.any() && holds_answer_type(asked_types, units[u]) ? kAnswerTypeWeight : 1.0;
    // "This page provides instructions on running vLLM with Intel Gaudi devices" shares the
    // question's words and states nothing.
    const double about_page = !units[u].code && describes_the_page(units[u].text) ? kAboutThePageWeight : 1.0;
    score[u] = covered / total * rank_factor(units[u]) * typed * about_page *
               std::max(defines ? kLedeWeight : 0.0, shape_weight(kind, units[u], in_docs(units[u]), defined, subject)) *
               (about_ideas && request.evidence[units[u].evidence].kind == "markdown" ? kDocsWeight : 1.0);
  }
  return true;
}

std::vector<std::size_t> ExtractiveGenerator::choose(const GenerationRequest& request, Reading& reading,
                                                     const std::vector<Reading>& parts) const {
  std::vector<Unit>& units = reading.units;
  const std::vector<std::vector<std::string>>& terms = reading.terms;
  const std::vector<double>& score = reading.score;
  const QuestionKind kind = reading.kind;
  // The answer's room: max_units units of max_chars code points. A question that asks two things
  // ("What is EPLB, and how do I turn it on?") gets one unit more and half as many code points
  // again; its best unit is still one that fits max_chars, as any question's (what comes with it,
  // and the units after it, have the larger room).
  const bool several = asks_several_things(request.question,
                                           reading.query != request.question ? reading.query : std::string_view());
  const std::size_t units_allowed = max_units_ + (several ? 1 : 0);
  const std::size_t chars_allowed = several ? max_chars_ * 3 / 2 : max_chars_;
  // Greedy choice: the best unit, then others that score well and do not repeat it.
  std::vector<std::size_t> chosen;
  std::size_t used = 0;
  const auto is_chosen = [&](std::size_t u) { return std::find(chosen.begin(), chosen.end(), u) != chosen.end(); };
  // Takes a unit, and what it announces: a unit that announces (Unit::announces: "Start the
  // server with:", "Key capabilities:", "To install it, run") the code or list items after it, a
  // field that gives a value the docstring sentence after it. The code right after comes even
  // past the answer's room, cut to whole lines: the sentence says nothing without it.
  const auto also_choose = [&](std::size_t unit) {  // a unit that comes with another
    if (is_chosen(unit)) return;
    chosen.push_back(unit);
    used += units[unit].chars;
  };
  std::size_t picks = 0;  // units taken, not those that came with them
  const auto take = [&](std::size_t unit) {
    ++picks;
    // A field's docstring says what it is but not its name, its later sentences not even what
    // ("When a sequence is longer than this, ..."): the field comes with it. A class's or
    // function's docstring ("A class that monitors SSL certificate files ...") is led by the
    // name it documents, once, unless the question writes it.
    if (!units[unit].code && request.evidence[units[unit].evidence].kind == "python") {
      std::size_t doc = unit;  // the docstring's first sentence
      while (doc > 0 && unit - doc < kMaxFollowUnits && units[doc - 1].evidence == units[unit].evidence &&
             !units[doc - 1].code && !units[doc - 1].item)
        --doc;
      if (doc > 0 && units[doc - 1].code && units[doc - 1].evidence == units[unit].evidence) {
        const std::string_view name = declared_name(units[doc - 1].text);
        const std::string label = std::string("`").append(name).append("`: ");
        const auto labels = [&](std::size_t u) {  // a chosen unit that names the declaration already
          return u + 1 >= doc && u < doc + kMaxFollowUnits && units[u].evidence == units[unit].evidence &&
                 (u + 1 == doc || units[u].text.starts_with(label));
        };
        if (gives_value(units[doc - 1].text)) {
          also_choose(doc - 1);
        } else if (!name.empty() && units[unit].text.find(name) == std::string::npos &&
                   request.question.find(name) == std::string::npos && std::none_of(chosen.begin(), chosen.end(), labels)) {
          units[unit].text = label + units[unit].text;
          units[unit].chars = utf8::count_code_points(units[unit].text);
        }
      }
    }
    // A table row is read under its header.
    if (units[unit].row() && !units[unit].header)
      for (std::size_t row = unit; row-- > 0 && units[row].evidence == units[unit].evidence && units[row].row();)
        if (units[row].header) {
          also_choose(row);
          break;
        }
    also_choose(unit);
    const bool code = units[unit].code;
    // The code statements right after `unit` that `belongs` accepts, while they fit (past
    // the answer's room by kAnnouncedItemsExtra).
    const auto bring_code_after = [&](std::size_t from, const auto& belongs) {
      for (std::size_t next = from; next < units.size() && next < from + kMaxFollowUnits; ++next) {
        const Unit& after = units[next];
        if (after.evidence != units[unit].evidence || !after.code || !belongs(after) ||
            used + after.chars > chars_allowed + kAnnouncedItemsExtra)
          break;
        also_choose(next);
      }
    };
    if (code && opens_block(units[unit].text)) {
      // A condition, loop or handler brings its body: what happens "when residual is None" is
      // what follows `if residual is None:`.
      const std::size_t indent = indentation(units[unit].text);
      bring_code_after(unit + 1, [&](const Unit& body) { return indentation(body.text) > indent; });
      return;
    }
    if (code && is_code_comment(units[unit].text)) {
      // A comment in a code block labels the lines after it ("# Any of these disable usage
      // stats"), up to the next comment or the end of its block: quoted alone it names what to do
      // but not how.
      bring_code_after(unit + 1, [](const Unit& labelled) { return !labelled.block_start && !is_code_comment(labelled.text); });
      return;
    }
    if (kind == QuestionKind::how_to && !code && !units[unit].announces && announces_code(units[unit].text)) {
      // "The following command serves a DeepSeek-V3 model with ... . It will work on ...": the
      // block right after its paragraph is what to run (not one of the parents' units, which
      // come after the sources' own).
      const std::size_t own_end = unit < reading.first_parent_unit ? reading.first_parent_unit : units.size();
      std::size_t block = unit + 1;
      while (block < own_end && units[block].continues) ++block;
      if (block < own_end && units[block].evidence == units[unit].evidence && units[block].code && units[block].block_start)
        bring_code_after(block, [&](const Unit& statement) { return &statement == &units[block] || !statement.block_start; });
      return;
    }
    if (!units[unit].announces && !(code && gives_value(units[unit].text))) return;
    for (std::size_t next = unit + 1; next < units.size() && next <= unit + kMaxFollowUnits; ++next) {
      Unit& follower = units[next];
      const bool follows = code ? !follower.code : (follower.code || follower.item);
      // One block: the code a sentence announces, not the next block's after it.
      if (follower.evidence != units[unit].evidence || !follows || (next > unit + 1 && follower.block_start)) break;
      // List items and code announced and a field's first docstring sentence may go past
      // the answer's room: a field alone says nothing of what it is, "Then ... run vLLM:" nothing without
      // each line it announces. Unless the question asks its default (the value answers it), a
      // Python field's next docstring sentences come while they fit: the first often only says
      // what it is, the next what it does.
      if (code && next > unit + 1) {
        // A comment line (an item) after the docstring is the next field's, not this one's.
        if (kind == QuestionKind::default_value || request.evidence[follower.evidence].kind != "python" ||
            follower.item || used + follower.chars > chars_allowed)
          break;
      } else if (code || follower.item || next > unit + 1) {
        if (used + follower.chars > chars_allowed + kAnnouncedItemsExtra) break;
      } else if (used + follower.chars > chars_allowed) {
        // The first statement of the code announced comes cut to whole lines when it is too long.
        if (!follower.code || is_chosen(next)) break;
        const std::size_t whole = follower.text.size();
        follower.text = shorten(follower.text, std::max(chars_allowed - std::min(used, chars_allowed), kMinAnnouncedCode), true);
        follower.chars = utf8::count_code_points(follower.text);
        follower.cut = follower.cut || follower.text.size() < whole;
      }
      also_choose(next);
    }
  };
  // The best sentence of a page may be longer than max_chars: quoted cut, it says more than a
  // shorter one that says less, when the cut keeps what it says of the question. Not code, a list
  // item or a script's line, which read wrong cut; for a how-to question, only a sentence that
  // names what to run or set, as the cut leaves no room for a command found elsewhere.
  const auto cut_first = [&](std::size_t u) {
    if (!chosen.empty() || units[u].code || units[u].item || max_chars_ < kMinCutSentence ||
        request.evidence[units[u].evidence].kind != "markdown" ||
        (kind == QuestionKind::how_to && !names_command(units[u].text)))
      return false;
    const std::vector<std::string> kept = sorted_terms(shorten(units[u].text, max_chars_, false), analyzer_);
    double whole = 0, cut = 0;
    for (std::size_t w = 0; w < reading.words.size(); ++w) {
      whole += reading.weight[w] * reading.words[w].coverage(terms[u]);
      cut += reading.weight[w] * reading.words[w].coverage(kept);
    }
    return cut >= kKeptByCut * whole;
  };
  double first = 0;
  std::size_t best_unit = units.size();  // the first taken, not what came with it (a field, a header)
  bool best_cut = false;                  // quoted cut to max_chars: the rest of it says more than what follows
  while (picks < units_allowed) {
    std::size_t best = units.size();
    double best_value = 0;
    const std::size_t room = chosen.empty() ? max_chars_ : chars_allowed;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (score[u] == 0 || is_chosen(u) || (used + units[u].chars > room && !cut_first(u))) continue;
      double redundancy = 0;
      for (const std::size_t c : chosen) redundancy = std::max(redundancy, jaccard(terms[u], terms[c]));
      const double value = score[u] * (1.0 - redundancy);
      if (value > best_value) best = u, best_value = value;
    }
    if (best == units.size() || (!chosen.empty() && best_value < kFollowShare * first)) break;
    if (chosen.empty()) {
      first = best_value, best_unit = best;
      if (units[best].chars > max_chars_) {
        best_cut = true;
        units[best].text = shorten(units[best].text, max_chars_, false);
        units[best].chars = utf8::count_code_points(units[best].text);
      }
    }
    take(best);
  }
  // The best sentence's paragraph goes on from it, and often says what the question asks next:
  // "It uses vLLM as the default model serving backend." after what llmaz is, "Instead, if no bias
  // is passed, the epilogue will use 0 as the bias." after why there is no such epilogue, "You can
  // enable the feature by specifying `--quantization="fp8"`" after what FP8 achieves. Its next
  // sentences come, past the answer's room by kParagraphExtra, up to one that speaks of the page or points
  // elsewhere, or one that announces what follows (it would come without what it announces); not
  // after a best sentence quoted cut, nor from a parent's units after a source's.
  if (best_unit < units.size() && !units[best_unit].code && !best_cut) {
    const std::size_t own_end = best_unit < reading.first_parent_unit ? reading.first_parent_unit : units.size();
    for (std::size_t next = best_unit + 1; next <= best_unit + kParagraphSentences && next < own_end; ++next) {
      const Unit& sentence = units[next];
      if (!sentence.continues || sentence.evidence != units[best_unit].evidence || sentence.announces ||
          speaks_of_the_page(sentence.text) || points_elsewhere(sentence.text) || announces_code(sentence.text) ||
          used + sentence.chars > chars_allowed + kParagraphExtra)
        break;
      also_choose(next);
    }
  }
  // A how-to answer names what to run or set: when the units chosen name no command, flag or code,
  // the best unit that does, if it covers enough of the question, takes the place of the weakest
  // of them that it needs.
  const auto names_code = [](const Unit& u) { return u.code || names_command(u.text); };
  if (kind == QuestionKind::how_to && !chosen.empty() &&
      std::none_of(chosen.begin(), chosen.end(), [&](std::size_t c) { return names_code(units[c]); })) {
    std::size_t command = units.size();
    for (std::size_t u = 0; u < units.size(); ++u)
      if (names_code(units[u]) && score[u] >= kCommandShare * first && units[chosen.front()].chars + units[u].chars <= chars_allowed &&
          (command == units.size() || score[u] > score[command]))
        command = u;
    if (command < units.size()) {
      while (chosen.size() > 1 && used + units[command].chars > chars_allowed) {
        used -= units[chosen.back()].chars;
        chosen.pop_back();
      }
      take(command);
    }
  }
  // A part of a question that asks several things that no unit chosen answers as well as
  // kPartShare of that part's best unit: its best unit comes too, while the room and the units
  // allowed take it.
  for (const Reading& part : parts) {
    if (chosen.empty() || picks >= units_allowed) break;
    const auto best = static_cast<std::size_t>(std::max_element(part.score.begin(), part.score.end()) - part.score.begin());
    if (part.score[best] == 0 || is_chosen(best) || used + units[best].chars > chars_allowed) continue;
    const double enough = kPartShare * part.score[best];
    if (std::none_of(chosen.begin(), chosen.end(), [&](std::size_t c) { return part.score[c] >= enough; })) {
      take(best);
    }
  }
  if (chosen.empty()) {
    // Every unit that covers the question is longer than max_chars: quote the best one, cut.
    const auto best = std::max_element(score.begin(), score.end()) - score.begin();
    if (score[static_cast<std::size_t>(best)] == 0) return {};
    chosen.push_back(static_cast<std::size_t>(best));
    Unit& u = units[chosen.back()];
    const std::size_t whole = u.text.size();
    u.text = shorten(u.text, max_chars_, u.code);
    u.cut = u.cut || (u.code && u.text.size() < whole);
  }
  return chosen;
}

}  // namespace rag
