#include "restatement.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "units.hpp"

namespace rag::extractive {
namespace {

// A question longer than this is a message, not one sentence to turn around.
constexpr std::size_t kMaxWords = 30;
// At most this many words name what a "what N ..." question asks for ("what HTTP endpoint").
constexpr std::size_t kMaxNounWords = 4;
// At most this many words stand between "does" and its verb ("does vLLM's LLM class provide").
constexpr std::size_t kMaxSubjectWords = 4;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

using Words = std::vector<std::string>;

bool one_of(const std::string& w, const std::set<std::string>& words) { return words.count(w) > 0; }

// The person asking, as a question names them ("how do I", "how can users").
bool is_person(const std::string& w) { return one_of(w, {"i", "you", "we", "one", "users", "developers", "people"}); }

bool is_modal(const std::string& w) { return one_of(w, {"can", "could", "should", "would", "must", "will", "may", "might"}); }

bool is_auxiliary(const std::string& w) { return w == "is" || w == "are" || w == "does" || w == "do" || is_modal(w); }

// Words after which a question's sentence turns in a way read nowhere here ("Which GPUs don't
// support FP8", "Which version did they add it in", "What GPUs have support for").
bool turns(const std::string& w) {
  return w == "not" || w == "never" || w == "cannot" || w.ends_with("n't") ||
         one_of(w, {"did", "was", "were", "had", "has", "have"});
}

bool is_determiner(const std::string& w) {
  return one_of(w, {"the", "a", "an", "this", "that", "these", "those", "its", "their", "my", "your", "our", "each",
                    "every", "any", "some"});
}

bool is_preposition(const std::string& w) {
  return one_of(w, {"for", "like", "with", "to", "on", "from", "of", "about", "in", "at", "by", "into", "onto", "over",
                    "under", "after", "before"});
}

// A word that, after "is" or "are", says what is done to the thing asked for ("used",
// "required", "written"), so that the thing is the sentence's subject; not one right after a
// determiner ("the paged attention kernel").
bool is_done(const Words& lw, std::size_t i) {
  static const std::set<std::string> done = {
      "mandatory", "necessary", "available", "responsible", "possible", "optional", "compatible", "important",
      "suitable",  "best",      "default",   "preferred",   "built",    "run",      "made",       "done",
      "given",     "written",   "shown",     "set",         "put",      "kept",     "sent",       "found",
      "held",      "known",     "seen",      "taken",       "chosen",   "hidden",   "split",      "read",
      "bound",     "thrown",    "drawn",     "spent",       "left",     "meant",    "led"};
  static const std::set<std::string> not_done = {"seed", "speed", "need", "feed", "embed", "bed", "red", "shed"};
  const std::string& w = lw[i];
  if (i > 0 && is_determiner(lw[i - 1])) return false;
  return ((w.size() > 3 && w.ends_with("ed")) || done.count(w) > 0) && !not_done.count(w);
}

// Verbs questions are asked with, read so that the answer can say "S does".
bool is_verb(const std::string& w) {
  static const std::set<std::string> verbs = {
      "use",      "support",   "provide",    "return",   "require",   "need",      "set",     "expose",  "accept",
      "take",     "recommend", "have",       "implement", "handle",   "offer",     "create",  "include", "contain",
      "define",   "specify",   "raise",      "call",     "store",     "apply",     "add",     "check",   "expect",
      "produce",  "generate",  "load",       "skip",     "show",      "enable",    "inherit", "pass",    "run",
      "compute",  "calculate", "give",       "output",   "send",      "read",      "perform", "track",   "allow",
      "register", "list",      "assign",     "compile",  "build",     "install",   "serve",   "follow",  "measure",
      "emit",     "log",       "print",      "report",   "choose",    "select",    "pick",    "prefer",  "mean",
      "control",  "override",  "replace",    "wrap",     "extend",    "initialize", "validate", "convert", "map",
      "start",    "stop",      "launch",     "cause",    "determine", "decide",    "trigger", "affect",  "achieve",
      "meet",     "reduce",    "improve",    "increase", "limit",     "exist",     "happen",  "occur",   "work",
      "prevent",  "ensure",    "indicate",   "represent", "describe", "hold",      "keep",    "assert",
      "allocate", "speculate", "differ",     "solve",    "help",      "save",      "schedule", "manage", "transfer",
      "reuse",    "quantize",  "detect",     "parse",    "tokenize",  "dispatch",  "evict",   "preempt", "reserve",
      "fetch",    "execute",   "invoke",     "distribute", "compare", "communicate", "write", "point", "reference"};
  return verbs.count(w) > 0;
}

// A verb read here as written in a question: "support" or "supports", "applies", "pushes".
bool is_verb_form(const std::string& w) {
  if (is_verb(w)) return true;
  if (w.size() < 4 || !w.ends_with('s')) return false;
  return is_verb(w.substr(0, w.size() - 1)) || (w.ends_with("es") && is_verb(w.substr(0, w.size() - 2))) ||
         (w.ends_with("ies") && is_verb(w.substr(0, w.size() - 3) + "y"));
}

// The verb among lw[from..to] (base form only with `base`): not a word right after a determiner
// ("the run command"), and of two in a row the second ("memory limits apply"), unless the first
// is "have"; kNone when there is none or the sentence turns first, from the word before `from` (a
// negation, "did").
std::size_t find_verb(const Words& lw, std::size_t from, std::size_t to, bool base) {
  if (turns(lw[from - 1]) && lw[from - 1] != "have") return kNone;
  for (std::size_t v = from; v <= to && v < lw.size(); ++v) {
    if (turns(lw[v]) && lw[v] != "have") return kNone;
    if (!(base ? is_verb(lw[v]) : is_verb_form(lw[v])) || is_determiner(lw[v - 1])) continue;
    // "shard and quantize", "allocate and free": two verbs, one read.
    if (lw[v - 1] == "and" || lw[v - 1] == "or" || (v + 1 < lw.size() && (lw[v + 1] == "and" || lw[v + 1] == "or")))
      return kNone;
    if (v + 1 < lw.size() && v < to && lw[v] != "have" && lw[v] != "has" &&
        (base ? is_verb(lw[v + 1]) : is_verb_form(lw[v + 1])))
      continue;
    return v;
  }
  return kNone;
}

// "provide" as "provides": what "does S provide" becomes in "S provides".
std::string third_person(const std::string& verb) {
  if (verb == "have") return "has";
  if (verb.ends_with('s') || verb.ends_with("sh") || verb.ends_with("ch") || verb.ends_with('x') ||
      verb.ends_with('z') || verb.ends_with('o'))
    return verb + "es";
  if (verb.size() > 1 && verb.back() == 'y' && std::string_view("aeiou").find(verb[verb.size() - 2]) == std::string_view::npos)
    return verb.substr(0, verb.size() - 1) + "ies";
  return verb + "s";
}

// A question read for its lead: its words as typed and in lower case.
struct Question {
  std::vector<std::string_view> w;
  Words lw;
  bool typed_in_lower_case = false;  ///< no capital anywhere: the lead keeps the user's case

  std::size_t size() const { return w.size(); }
  /// Words `begin` to `end` (excluded) as typed, one space between.
  std::string from(std::size_t begin, std::size_t end = kNone) const {
    std::string s;
    for (std::size_t i = begin; i < std::min(end, w.size()); ++i) {
      if (!s.empty()) s += ' ';
      s += w[i];
    }
    return s;
  }
  // The question's words from `subject` on as a statement, its verb at `v` in the third person
  // when "does" asked it: "(does) vLLM handle X" -> "vLLM handles X".
  std::string statement(std::size_t subject, std::size_t v, bool does) const {
    std::string s = from(subject, v);
    s += ' ';
    s += does ? third_person(lw[v]) : lw[v];
    if (v + 1 < w.size()) s += ' ', s += from(v + 1);
    return s;
  }
  // "when X" as "When X"; a name stays as written ("vLLM", "tensor_parallel_size").
  std::string capitalised(std::size_t begin) const {
    std::string s = from(begin);
    const std::size_t word_end = std::min(s.find(' '), s.size());
    const bool plain = std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(word_end),
                                   [](char c) { return c >= 'a' && c <= 'z'; });
    if (plain && word_end > 0 && !typed_in_lower_case) s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
  }
  // Whether the question ends with a preposition its lead would leave hanging ("What is the seed
  // parameter for", "What is the timeout set to"); "the port the server listens on" reads well.
  bool ends_hanging() const {
    const std::string& last = lw.back();
    if (last == "for" || last == "like") return true;
    return is_preposition(last) && lw.size() > 1 &&
           (is_done(lw, lw.size() - 2) || lw[lw.size() - 2].ends_with("ing"));
  }
};

// The rest of a "what N AUX ..." question, from the auxiliary at `aux`, with `head` naming the
// thing asked for ("The HTTP endpoint", "The number of bytes"); empty when the thing is not the
// subject ("What port is vLLM served on?") or the verb is not one read here.
std::string subject_lead(const std::string& head, const Question& q, std::size_t aux) {
  const std::size_t n = q.size();
  const Words& lw = q.lw;
  if (aux + 1 >= n) return {};
  const std::string& a = lw[aux];
  if (a == "is" || a == "are") {
    std::size_t next = aux + 1;
    if (lw[next].ends_with("ly") && next + 1 < n) ++next;  // "is typically used"
    if (!is_done(lw, next)) return {};
    return head + " that " + q.from(aux) + ":";
  }
  if (is_modal(a)) {
    if (lw[aux + 1] == "be") return head + " that " + q.from(aux) + ":";
    // "What memory reduction can FP8 quantization achieve": "... FP8 quantization can achieve".
    const std::size_t v = find_verb(lw, aux + 2, aux + 1 + kMaxSubjectWords, true);
    if (v == kNone || std::find(lw.begin() + static_cast<std::ptrdiff_t>(aux), lw.begin() + static_cast<std::ptrdiff_t>(v), "be") !=
                          lw.begin() + static_cast<std::ptrdiff_t>(v))
      return {};
    return head + " " + q.from(aux + 1, v) + " " + a + " " + q.from(v) + ":";
  }
  // "What method does the LLM class provide": "The method the LLM class provides".
  const std::size_t v = find_verb(lw, aux + 2, aux + 1 + kMaxSubjectWords, true);
  if (v == kNone) return {};
  return head + " " + q.statement(aux + 1, v, a == "does") + ":";
}

// Two questions in one ("..., and can I change it", "...; does it work", "..., also is it on").
bool asks_twice(const Question& q, std::string_view text) {
  if (text.find(';') != std::string_view::npos || text.find(", also") != std::string_view::npos) return true;
  for (std::size_t i = 1; i + 1 < q.size(); ++i)
    if ((q.lw[i] == "and" || q.lw[i] == "or") &&
        (is_auxiliary(q.lw[i + 1]) || turns(q.lw[i + 1]) ||
         one_of(q.lw[i + 1], {"what", "how", "why", "when", "where", "which", "who"})))
      return true;
  return false;
}

// "Why does vLLM reserve X": "Why vLLM reserves X:"; "Why do I get X": "Why I get X:".
std::string why_lead(const Question& q) {
  const Words& lw = q.lw;
  std::string lead = "Why ";  // appended piece by piece: "..." + temporary trips GCC 12's -Wrestrict
  if (q.size() < 4) return {};
  if (lw[1] == "do" && std::none_of(lw.begin() + 2, lw.end(), turns)) {
    lead += q.from(2);
  } else if (lw[1] == "does") {
    const std::size_t v = find_verb(lw, 3, 1 + kMaxSubjectWords, true);
    if (v == kNone) return {};
    lead += q.statement(2, v, true);
  } else {
    return {};
  }
  lead += ':';
  return lead;
}

std::string how_lead(const Question& q) {
  const Words& lw = q.lw;
  const std::size_t n = q.size();
  // "How do I enable X" / "How to enable X": "To enable X:".
  if (lw[1] == "to") return "To " + q.from(2) + ":";
  if ((lw[1] == "do" || lw[1] == "does" || is_modal(lw[1])) && is_person(lw[2])) {
    std::size_t start = 3;
    if (lw[2] == "you" && n > 3 && (lw[3] == "guys" || lw[3] == "all")) ++start;
    if (start >= n || lw[start] == "have") return {};
    return "To " + q.from(start) + ":";
  }
  // "How does vLLM handle X": "How vLLM handles X:".
  if (lw[1] == "does" || lw[1] == "do") {
    if (is_person(lw[2]) || lw[2] == "they") return {};
    const std::size_t v = find_verb(lw, 3, 1 + kMaxSubjectWords, true);
    if (v == kNone) return {};
    return "How " + q.statement(2, v, lw[1] == "does") + ":";
  }
  // "How is X computed in Y": "How X is computed in Y:".
  if (lw[1] == "is" || lw[1] == "are") {
    if (is_person(lw[2]) || lw[2] == "they") return {};
    for (std::size_t done = 3; done < n && done <= 2 + kMaxSubjectWords * 2; ++done)
      if (turns(lw[done])) return {};
      else if (lw[done].size() > 3 && lw[done].ends_with("ed") && is_done(lw, done))
        return lw[done] == "compared" ? "" : "How " + q.from(2, done) + " " + std::string(q.w[1]) + " " + q.from(done) + ":";
    return {};
  }
  // "How should issues be reported to X": "How issues should be reported to X:".
  if (is_modal(lw[1]) && !is_person(lw[2]) && lw[2] != "they") {
    for (std::size_t be = 3; be + 1 < n && be <= 2 + kMaxSubjectWords; ++be) {
      if (turns(lw[be])) return {};
      if (lw[be] == "be" && is_done(lw, be + 1))
        return "How " + q.from(2, be) + " " + std::string(q.w[1]) + " " + q.from(be) + ":";
    }
  }
  // "How many bytes are allocated for X": "The number of bytes that are allocated for X:".
  if (lw[1] == "many") {
    const std::size_t noun = lw[2] == "of" ? 3 : 2;
    for (std::size_t aux = noun + 1; aux < n && aux <= noun + kMaxNounWords; ++aux) {
      if (turns(lw[aux])) return {};
      if (is_auxiliary(lw[aux])) return subject_lead("The number of " + q.from(noun, aux), q, aux);
    }
  }
  return {};
}

std::string what_lead(const Question& q) {
  const Words& lw = q.lw;
  const std::size_t n = q.size();
  // "What happens when X": "When X:".
  if (lw[1] == "happens" && n > 3 && one_of(lw[2], {"when", "if", "after", "before", "during", "while"}))
    return q.capitalised(2) + ":";
  // "What should I do when X": "When X:".
  if (lw[1] == "should" && is_person(lw[2]) && n > 5 && lw[3] == "do" && one_of(lw[4], {"when", "if", "after", "before"}))
    return q.capitalised(4) + ":";
  // "What is the X" / "What's the X": "The X:". ("What is a X" asks what a thing is: no lead; nor
  // does "What is the X used for", nor "What is the scheduler doing".)
  // "What are all the X" / "What are some of the X": "All the X:", "Some of the X:".
  const bool is_are = lw[1] == "is" || lw[1] == "are";
  const std::size_t the = is_are && lw[2] == "the" ? 3 : lw[0] == "what's" && lw[1] == "the" ? 2 : 0;
  std::size_t some = lw[1] == "are" && (lw[2] == "all" || (n > 4 && lw[2] == "some" && lw[3] == "of")) ? 2 : 0;
  if (some) {  // a thing must be named after "all (the)" or "some of (the)": not "What are all of them"
    std::size_t named = some + (lw[2] == "all" ? 1 : 2);
    while (named < n && (lw[named] == "of" || is_determiner(lw[named]))) ++named;
    if (named >= n || one_of(lw[named], {"them", "it", "these", "those", "they"})) some = 0;
  }
  if (the || some) {
    const std::size_t begin = the ? the : some;
    // "used for" or "set to" with nothing after it but a preposition: the thing is not named.
    const auto hangs_after = [&](std::size_t i) {
      return i + 2 >= n || is_preposition(lw[i + 2]) || lw[i + 2].ends_with("ly") ||
             one_of(lw[i + 2], {"when", "while", "if", "during"});
    };
    if (begin >= n || q.ends_hanging() ||
        std::any_of(lw.begin() + static_cast<std::ptrdiff_t>(begin), lw.end(),
                    [](const std::string& w) { return one_of(w, {"called", "named", "supposed", "going"}); }))
      return {};
    // "What is the scheduler doing", not "What is the interface for doing X".
    for (std::size_t i = begin; i < n; ++i)
      if (lw[i] == "doing" && !is_preposition(lw[i - 1])) return {};
    for (std::size_t i = begin; i + 1 < n; ++i)
      if (((lw[i] == "used" && lw[i + 1] == "for") || (lw[i] == "set" && lw[i + 1] == "to")) && hangs_after(i)) return {};
    return the ? "The " + q.from(the) + ":" : q.capitalised(some) + ":";
  }
  // "What does the usage property return": "What the usage property returns:".
  if (lw[1] == "does" && !is_person(lw[2]) && lw[2] != "it" && lw[2] != "they" && lw[2] != "this" && lw[2] != "that") {
    if (lw.back() == "do" || (lw.back() == "like" && lw[n - 2] == "look")) return {};  // "What does X do"
    std::size_t v = find_verb(lw, 3, 1 + kMaxSubjectWords, true);
    // A longer subject, its verb last ("What does the usage property of X return"), unless that
    // word is a noun after a determiner or preposition ("for the return").
    if (v == kNone && n > 4 && is_verb(lw.back()) && !is_determiner(lw[n - 2]) && !is_preposition(lw[n - 2]) &&
        !one_of(lw[n - 2], {"is", "are", "and", "or", "to"}))
      v = n - 1;
    if (v == kNone || std::any_of(lw.begin() + 2, lw.begin() + static_cast<std::ptrdiff_t>(v), [](const std::string& w) {
          return turns(w) || w == "do" || w == "and" || w == "or";
        }))
      return {};
    return "What " + q.statement(2, v, true) + ":";
  }
  // What follows "what" must be what is asked for, not a word of another kind ("What else",
  // "What exactly", "What if", "What determines X").
  const std::string& first = lw[1];
  if (lw[0] == "what's" || first.ends_with("ly") || is_auxiliary(first) || turns(first) ||
      (first.ends_with('s') && is_verb_form(first)) || is_determiner(first) || is_person(first) || is_preposition(first) ||
      one_of(first, {"happens", "else", "if", "then", "so", "it", "they", "he", "she"}))
    return {};
  // "What HTTP endpoint is used to X": "The HTTP endpoint that is used to X:".
  for (std::size_t aux = 2; aux < n && aux <= 1 + kMaxNounWords; ++aux) {
    if (aux + 1 < n && (lw[aux] == "have" || lw[aux] == "has"))  // "What GPUs have support for X"
      return "The " + q.from(1, aux) + " that " + q.from(aux) + ":";
    if (turns(lw[aux])) return {};
    if (is_auxiliary(lw[aux])) return subject_lead("The " + q.from(1, aux), q, aux);
  }
  // "Which models support X" / "What command starts X": "The models that support X:".
  const std::size_t v = find_verb(lw, 2, std::min(n - 2, 1 + kMaxNounWords), false);
  if (v == kNone) return {};
  return "The " + q.from(1, v) + " that " + q.from(v) + ":";
}

}  // namespace

bool reads_as_verb(const std::string& word) {
  return is_verb_form(word) || is_auxiliary(word) || one_of(word, {"put", "puts", "has", "was", "were", "lets"});
}

std::string restatement(std::string_view question) {
  if (question.find('\n') != std::string_view::npos) return {};
  while (!question.empty() && std::string_view("?! \t\r").find(question.back()) != std::string_view::npos)
    question.remove_suffix(1);
  if (question.ends_with('.') && !question.ends_with("..") && !question.ends_with("etc.") && !question.ends_with("e.g.")) {
    question.remove_suffix(1);
    while (!question.empty() && (question.back() == ' ' || question.back() == '?')) question.remove_suffix(1);
  }
  if (question.find('?') != std::string_view::npos) return {};  // several questions
  Question q;
  for (std::size_t at = 0; at < question.size();) {
    const std::size_t begin = question.find_first_not_of(" \t", at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(question.find_first_of(" \t", begin), question.size());
    q.w.push_back(question.substr(begin, end - begin));
    at = end;
  }
  if (q.size() < 3 || q.size() > kMaxWords) return {};
  for (const std::string_view word : q.w) {
    std::string low;  // with a typographic apostrophe as the ASCII one ("What’s")
    for (std::size_t at = 0; at < word.size(); ++at)
      if (word.substr(at, 3) == "\xE2\x80\x99") low += '\'', at += 2;
      else low += word[at];
    q.lw.push_back(lowered(low));
  }
  q.typed_in_lower_case = std::none_of(question.begin(), question.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (asks_twice(q, question)) return {};

  const Words& lw = q.lw;
  if (lw[0] == "how") return how_lead(q);
  if (lw[0] == "why") return why_lead(q);
  // "Where can I find X": "Where to find X:".
  if (lw[0] == "where" && (lw[1] == "can" || lw[1] == "do") && is_person(lw[2]) && q.size() > 4 &&
      one_of(lw[3], {"find", "get", "see"}) && !one_of(lw[4], {"out", "up", "started", "it", "them", "this", "that"}) &&
      !is_preposition(lw.back()))
    return "Where to " + q.from(3) + ":";
  if (lw[0] == "what" || lw[0] == "which" || lw[0] == "what's") return what_lead(q);
  return {};
}

}  // namespace rag::extractive
