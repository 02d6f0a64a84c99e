#include "extractive_generator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "code_reading.hpp"
#include "rag/context.hpp"
#include "rag/definitions.hpp"
#include "rag/language.hpp"
#include "rag/question_kind.hpp"
#include "rag/question_words.hpp"
#include "rag/utf8.hpp"
#include "restatement.hpp"
#include "shapes.hpp"
#include "units.hpp"

namespace rag {
namespace {

using namespace extractive;

// A source's rank counts, but a good sentence of the third source beats a poor one of the first.
constexpr double kRankDecay = 0.3;
// Further units must score at least this share of the best one.
constexpr double kFollowShare = 0.5;
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
// The list items or table rows a sentence announces may take this many code points past max_chars.
constexpr std::size_t kAnnouncedItemsExtra = 400;
// How many sentences of the best one's paragraph come after it, and how many code points past
// max_chars they may take.
constexpr std::size_t kParagraphSentences = 2;
constexpr std::size_t kParagraphExtra = 400;
// Code up to this many code points reads inline, in backticks, after some prose.
constexpr std::size_t kMaxInlineCode = 100;
// A sentence longer than max_chars is quoted cut only when max_chars leaves this many code
// points, and the cut keeps this share of what the sentence says of the question.
constexpr std::size_t kMinCutSentence = 150;
constexpr double kKeptByCut = 0.8;
// The defaults one answer states: as many as a question usually asks ("the alpha and limit
// parameters").
constexpr std::size_t kMaxDefaultsSaid = 2;
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


// Whether `paragraph` holds every word of `line`, as `analyzer` reads them (stopwords, which only
// join words, left out).
bool says_all_of(const Analyzer& analyzer, std::string_view paragraph, std::string_view line) {
  std::vector<std::string> said = analyzer.analyze(paragraph);
  std::sort(said.begin(), said.end());
  for (const std::string& w : analyzer.analyze(line))
    if (!std::binary_search(said.begin(), said.end(), w)) return false;
  return true;
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

// How an answer names a source in a line of its own: the last level of its section ("LLM.generate"
// gives "generate"), or its file's name.
std::string short_name(const Evidence& e) {
  if (e.section.empty()) return e.file_path.substr(e.file_path.rfind('/') + 1);
  std::string_view name = e.section;
  for (const std::string_view separator : {" > ", "::", "."}) {
    const std::size_t cut = name.rfind(separator);
    if (cut != std::string_view::npos && cut + separator.size() < name.size()) {
      name.remove_prefix(cut + separator.size());
      break;
    }
  }
  return std::string(name);
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
  std::optional<Reading> reading = read(request);
  if (!reading) return {};
  const std::vector<std::size_t> chosen = choose(request, *reading);
  if (chosen.empty()) return {};
  return write(request, *reading, chosen);
}

std::optional<ExtractiveGenerator::Reading> ExtractiveGenerator::read(const GenerationRequest& request) const {
  Reading r;
  r.query = request.query.empty() ? request.question : request.query;
  r.kind = question_kind(r.query);
  const AnswerTypes asked_types = answer_types(r.query);
  const std::string& query = r.query;
  const QuestionKind kind = r.kind;
  // The sources' units, then those of the sections and definitions around the best sources (the
  // parents), counted as their source's: a definition's docstring or a section's first sentence
  // may lie outside the chunk that matched.
  std::vector<Unit>& units = r.units;
  std::set<std::string> seen;
  std::vector<std::string_view> title;  // each unit's source's title when the unit is its lede
  const auto add_units = [&](const Evidence& e, std::size_t index) {
    bool dropped = false;  // the unit before, said by another source already
    for (Unit& u : split_units(e, index)) {
      if (!seen.insert(u.text).second) {
        dropped = true;
        continue;
      }
      u.continues = u.continues && !dropped;  // it goes on from a sentence left out
      dropped = false;
      title.push_back(u.lede && e.kind == "markdown" ? page_title(e.section) : "");
      units.push_back(std::move(u));
    }
  };
  for (std::size_t i = 0; i < request.evidence.size(); ++i) add_units(request.evidence[i], i);
  r.first_parent_unit = units.size();
  for (const Evidence& parent : request.parents)
    for (std::size_t i = 0; i < request.evidence.size(); ++i)
      if (request.evidence[i].number == parent.number) add_units(parent, i);

  std::vector<std::vector<std::string>>& terms = r.terms;
  terms.resize(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) terms[u] = sorted_terms(units[u].text, analyzer_);
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
  if (total == 0) return std::nullopt;
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
  // is) rather than saying what it is or does: its units weigh less, unless tests are asked about.
  const bool asks_tests = lowered(query).find("test") != std::string::npos;
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
  return r;
}

std::vector<std::size_t> ExtractiveGenerator::choose(const GenerationRequest& request, Reading& reading) const {
  std::vector<Unit>& units = reading.units;
  const std::vector<std::vector<std::string>>& terms = reading.terms;
  const std::vector<double>& score = reading.score;
  const QuestionKind kind = reading.kind;
  // Greedy choice: the best unit, then others that score well and do not repeat it.
  std::vector<std::size_t> chosen;
  std::size_t used = 0;
  const auto is_chosen = [&](std::size_t u) { return std::find(chosen.begin(), chosen.end(), u) != chosen.end(); };
  // Takes a unit, and what it announces: a unit that announces (Unit::announces: "Start the
  // server with:", "Key capabilities:", "To install it, run") the code or list items after it, a
  // field that gives a value the docstring sentence after it. The code right after comes even
  // past max_chars, cut to whole lines: the sentence says nothing without it.
  const auto also_choose = [&](std::size_t unit) {  // a unit that comes with another
    if (is_chosen(unit)) return;
    chosen.push_back(unit);
    used += units[unit].chars;
  };
  const auto take = [&](std::size_t unit) {
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
        const std::string label = "`" + std::string(name) + "`: ";
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
    // max_chars by kAnnouncedItemsExtra).
    const auto bring_code_after = [&](std::size_t from, const auto& belongs) {
      for (std::size_t next = from; next < units.size() && next < from + kMaxFollowUnits; ++next) {
        const Unit& after = units[next];
        if (after.evidence != units[unit].evidence || !after.code || !belongs(after) ||
            used + after.chars > max_chars_ + kAnnouncedItemsExtra)
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
      // max_chars: a field alone says nothing of what it is, "Then ... run vLLM:" nothing without
      // each line it announces. Unless the question asks its default (the value answers it), a
      // Python field's next docstring sentences come while they fit: the first often only says
      // what it is, the next what it does.
      if (code && next > unit + 1) {
        // A comment line (an item) after the docstring is the next field's, not this one's.
        if (kind == QuestionKind::default_value || request.evidence[follower.evidence].kind != "python" ||
            follower.item || used + follower.chars > max_chars_)
          break;
      } else if (code || follower.item || next > unit + 1) {
        if (used + follower.chars > max_chars_ + kAnnouncedItemsExtra) break;
      } else if (used + follower.chars > max_chars_) {
        // The first statement of the code announced comes cut to whole lines when it is too long.
        if (!follower.code || is_chosen(next)) break;
        follower.text = shorten(follower.text, std::max(max_chars_ - std::min(used, max_chars_), kMinAnnouncedCode), true);
        follower.chars = utf8::count_code_points(follower.text);
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
  for (std::size_t picks = 0; picks < max_units_; ++picks) {
    std::size_t best = units.size();
    double best_value = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (score[u] == 0 || is_chosen(u) || (used + units[u].chars > max_chars_ && !cut_first(u))) continue;
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
  // sentences come, past max_chars by kParagraphExtra, up to one that speaks of the page or points
  // elsewhere, or one that announces what follows (it would come without what it announces); not
  // after a best sentence quoted cut, nor from a parent's units after a source's.
  if (best_unit < units.size() && !units[best_unit].code && !best_cut) {
    const std::size_t own_end = best_unit < reading.first_parent_unit ? reading.first_parent_unit : units.size();
    for (std::size_t next = best_unit + 1; next <= best_unit + kParagraphSentences && next < own_end; ++next) {
      const Unit& sentence = units[next];
      if (!sentence.continues || sentence.evidence != units[best_unit].evidence || sentence.announces ||
          speaks_of_the_page(sentence.text) || points_elsewhere(sentence.text) || announces_code(sentence.text) ||
          used + sentence.chars > max_chars_ + kParagraphExtra)
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
      if (names_code(units[u]) && score[u] >= kCommandShare * first && units[chosen.front()].chars + units[u].chars <= max_chars_ &&
          (command == units.size() || score[u] > score[command]))
        command = u;
    if (command < units.size()) {
      while (chosen.size() > 1 && used + units[command].chars > max_chars_) {
        used -= units[chosen.back()].chars;
        chosen.pop_back();
      }
      take(command);
    }
  }
  if (chosen.empty()) {
    // Every unit that covers the question is longer than max_chars: quote the best one, cut.
    const auto best = std::max_element(score.begin(), score.end()) - score.begin();
    if (score[static_cast<std::size_t>(best)] == 0) return {};
    chosen.push_back(static_cast<std::size_t>(best));
    Unit& u = units[chosen.back()];
    u.text = shorten(u.text, max_chars_, u.code);
  }
  return chosen;
}

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
    answer += (e.section.empty() ? "In `" : "`" + e.section + "` is in `") + e.file_path + "`, lines " +
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
    append_source(answer, request.evidence[s], units, list);
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
                                         const std::vector<std::size_t>& list) const {
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
  auto start_block = [&](bool cited_before, std::string_view gap) {
    if (!answer.empty()) answer += "\n\n";
    if (cited_before) return;
    answer.append("In `").append(short_name(source)).append("`").append(citation).append(":").append(gap);
  };
  for (std::size_t i = 0; i < list.size();) {
    const Unit& u = units[list[i]];
    std::size_t run = i + 1;  // code statements that follow each other in the source
    while (u.code && run < list.size() && units[list[run]].code && !units[list[run]].block_start && list[run] == list[run - 1] + 1)
      ++run;
    // Short code reads inline after some prose; longer code, code with backticks (they would end
    // the inline span), or code with nothing before it, as a block.
    const bool inline_code = u.code && run == i + 1 && u.text.find_first_of("\n`") == std::string::npos &&
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
        start_block(cited_before, "\n\n");
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
      const bool next_to = list[i] == list[i - 1] + 1;
      if (!paragraph.empty())
        paragraph += next_to && u.continues ? " " : u.item || units[list[i - 1]].item ? "\n" : next_to ? " " : " … ";
      if (u.code) paragraph.append("`").append(trim(u.text)).append("`");
      else paragraph += u.text;
      i = run;
      continue;
    }
    const bool cited_before = !paragraph.empty();
    end_text();

    std::vector<std::string_view> code;
    for (std::size_t k = i; k < run; ++k)
      for (const std::string_view line : lines_of(units[list[k]].text)) code.push_back(line);
    std::size_t indent = std::string::npos;
    std::size_t backticks = 2;  // the fence is longer than any run of them that starts a line
    for (const std::string_view line : code) {
      indent = std::min(indent, indentation(line));
      const std::string_view t = trim(line);
      backticks = std::max(backticks, std::min(t.find_first_not_of('`'), t.size()));
    }
    const std::string fence(backticks + 1, '`');
    start_block(cited_before, "\n");
    answer.append(fence).append("\n");
    for (const std::string_view line : code) answer.append(line.substr(std::min(indent, line.size()))).append("\n");
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
  for (const QuestionWord& w : words)
    if (std::find(names.begin(), names.end(), w.text) == names.end() && !names_kind_of_code(query, w.text) &&
        std::find(code.begin(), code.end(), w.text) == code.end())
      names.push_back(w.text);
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
  const std::string asked = lowered(query);
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
