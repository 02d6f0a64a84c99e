#include "restatement.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace rag::extractive {
namespace {

// A question longer than this is a message, not one sentence to turn around.
constexpr std::size_t kMaxWords = 30;
// At most this many words name what a "what N ..." question asks for ("what HTTP endpoint").
constexpr std::size_t kMaxNounWords = 4;
// At most this many words stand between "does" and its verb ("does vLLM's LLM class provide").
constexpr std::size_t kMaxSubjectWords = 4;

std::string lower(std::string_view word) {
  std::string s(word);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_person(const std::string& w) {
  static const std::set<std::string> people = {"i", "you", "we", "one", "they", "users", "developers", "people"};
  return people.count(w) > 0;
}

bool is_modal(const std::string& w) {
  static const std::set<std::string> modals = {"can", "could", "should", "would", "must", "will", "may", "might"};
  return modals.count(w) > 0;
}

// A word that, after "is" or "are", says what is done to the thing asked for ("used",
// "required", "written"), so that the thing is the sentence's subject.
bool is_done(const std::string& w) {
  static const std::set<std::string> words = {
      "mandatory", "necessary", "available", "responsible", "possible", "optional", "compatible", "important",
      "suitable",  "best",      "default",   "preferred",   "needed",   "built",    "run",        "made",
      "done",      "given",     "written",   "shown",       "set",      "put",      "kept",       "sent",
      "found",     "held",      "known",     "seen",        "taken",    "chosen",   "hidden",     "split",
      "read",      "bound",     "thrown",    "drawn",       "spent",    "left",     "meant",      "led"};
  return (w.size() > 3 && w.ends_with("ed")) || words.count(w) > 0;
}

// Verbs a "what N does S do" question is asked with, read so that the answer can say "S does".
bool is_verb(const std::string& w) {
  static const std::set<std::string> verbs = {
      "use",     "support",  "provide", "return",  "require", "need",     "set",     "expose",   "accept",
      "take",    "recommend", "have",   "implement", "handle", "offer",   "create",  "include",  "contain",
      "define",  "specify",  "raise",   "call",    "store",   "apply",    "add",     "check",    "expect",
      "produce", "generate", "load",    "skip",    "show",    "enable",   "inherit", "pass",     "run",
      "compute", "calculate", "give",   "output",  "send",    "read",     "perform", "track",    "allow",
      "register", "list",    "assign",  "compile", "build",   "install",  "serve",   "follow",   "measure",
      "emit",    "log",      "print",   "report",  "choose",  "select",   "pick",    "prefer",   "mean",
      "control", "override", "replace", "wrap",    "extend",  "initialize", "validate", "convert", "map",
      "start",   "stop",     "launch",  "cause",   "determine", "decide", "trigger", "affect",   "achieve",
      "meet",    "reduce",   "improve", "increase", "limit",  "exist",    "happen",  "occur",    "work"};
  return verbs.count(w) > 0;
}

// A verb read here as written in a question: "support" or "supports", "applies", "pushes".
bool is_verb_form(const std::string& w) {
  if (is_verb(w)) return true;
  if (w.size() < 4 || !w.ends_with('s')) return false;
  return is_verb(w.substr(0, w.size() - 1)) || (w.ends_with("es") && is_verb(w.substr(0, w.size() - 2))) ||
         (w.ends_with("ies") && is_verb(w.substr(0, w.size() - 3) + "y"));
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

std::string joined(const std::vector<std::string_view>& words, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t i = from; i < to && i < words.size(); ++i) {
    if (!s.empty()) s += ' ';
    s += words[i];
  }
  return s;
}

// "when" as "When"; a name stays as written ("vLLM", "tensor_parallel_size").
std::string capitalised(std::string s) {
  const std::size_t word_end = std::min(s.find(' '), s.size());
  const bool plain = std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(word_end),
                                 [](char c) { return c >= 'a' && c <= 'z'; });
  if (plain && word_end > 0) s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// The rest of a "what N AUX ..." question, from the auxiliary at `aux`, with `head` naming the
// thing asked for ("The HTTP endpoint", "The number of bytes"); empty when the thing is not the
// subject ("What port is vLLM served on?") or the verb is not one read here.
std::string subject_lead(const std::string& head, const std::vector<std::string_view>& w,
                         const std::vector<std::string>& lw, std::size_t aux) {
  const std::size_t n = w.size();
  if (aux + 1 >= n) return {};
  const std::string& a = lw[aux];
  if (a == "is" || a == "are") {
    std::size_t next = aux + 1;
    if (lw[next].ends_with("ly") && next + 1 < n) ++next;  // "is typically used"
    if (!is_done(lw[next])) return {};
    return head + " that " + joined(w, aux, n) + ":";
  }
  if (is_modal(a)) {
    if (lw[aux + 1] == "be") return head + " that " + joined(w, aux, n) + ":";
    // "What memory reduction can FP8 quantization achieve": "... FP8 quantization can achieve".
    if (is_person(lw[aux + 1])) return {};
    for (std::size_t v = aux + 2; v < n && v <= aux + kMaxSubjectWords; ++v)
      if (is_verb(lw[v])) return head + " " + joined(w, aux + 1, v) + " " + lw[aux] + " " + joined(w, v, n) + ":";
    return {};
  }
  if (a == "does" || a == "do") {
    for (std::size_t v = aux + 2; v < n && v <= aux + 1 + kMaxSubjectWords; ++v)
      if (is_verb(lw[v])) {
        const std::string verb = a == "does" ? third_person(lw[v]) : lw[v];
        std::string rest = joined(w, v + 1, n);
        return head + " " + joined(w, aux + 1, v) + " " + verb + (rest.empty() ? "" : " " + rest) + ":";
      }
  }
  return {};
}

// "does S V rest" from the auxiliary at `aux`, as "S Vs rest:"; empty when no verb read here
// follows within a few words, or S is the person asking.
std::string verb_lead(const std::vector<std::string_view>& w, const std::vector<std::string>& lw, std::size_t aux) {
  const std::size_t n = w.size();
  if (aux + 1 >= n || is_person(lw[aux + 1])) return {};
  for (std::size_t v = aux + 2; v < n && v <= aux + kMaxSubjectWords; ++v)
    if (is_verb(lw[v])) {
      std::string rest = joined(w, v + 1, n);
      return capitalised(joined(w, aux + 1, v)) + " " + (lw[aux] == "does" ? third_person(lw[v]) : lw[v]) +
             (rest.empty() ? "" : " " + rest) + ":";
    }
  return {};
}

}  // namespace

std::string restatement(std::string_view question) {
  if (question.find('\n') != std::string_view::npos) return {};
  while (!question.empty() && std::string_view("?.! \t\r").find(question.back()) != std::string_view::npos)
    question.remove_suffix(1);
  if (question.find('?') != std::string_view::npos) return {};  // several questions
  for (const std::string_view second : {" and what ", " and how ", " and why ", " and when ", " and where ", " and which "})
    if (question.find(second) != std::string_view::npos) return {};  // two questions in one
  std::vector<std::string_view> w;
  for (std::size_t at = 0; at < question.size();) {
    const std::size_t begin = question.find_first_not_of(" \t", at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(question.find_first_of(" \t", begin), question.size());
    w.push_back(question.substr(begin, end - begin));
    at = end;
  }
  if (w.size() < 3 || w.size() > kMaxWords) return {};
  std::vector<std::string> lw;
  for (const std::string_view word : w) lw.push_back(lower(word));
  const std::size_t n = w.size();

  if (lw[0] == "how") {
    // "How do I enable X" / "How to enable X": "To enable X:".
    if (lw[1] == "to") return "To " + joined(w, 2, n) + ":";
    if ((lw[1] == "do" || lw[1] == "does" || is_modal(lw[1])) && is_person(lw[2]) && n > 3)
      return "To " + joined(w, 3, n) + ":";
    // "How does vLLM handle X": "vLLM handles X:"; "How is X computed in Y": "X is computed in Y:".
    if (lw[1] == "does" || lw[1] == "do") return verb_lead(w, lw, 1);
    if (lw[1] == "is" || lw[1] == "are")
      for (std::size_t done = 3; done < n && done <= 2 + kMaxSubjectWords * 2; ++done)
        if (lw[done].size() > 3 && lw[done].ends_with("ed"))
          return capitalised(joined(w, 2, done)) + " " + std::string(w[1]) + " " + joined(w, done, n) + ":";
    // "How many bytes are allocated for X": "The number of bytes that are allocated for X:".
    if (lw[1] == "many")
      for (std::size_t aux = 3; aux < n && aux <= 2 + kMaxNounWords; ++aux)
        if (lw[aux] == "is" || lw[aux] == "are" || lw[aux] == "does" || lw[aux] == "do" || is_modal(lw[aux]))
          return subject_lead("The number of " + joined(w, 2, aux), w, lw, aux);
    return {};
  }
  // "Where can I find X": "X:".
  if (lw[0] == "where" && (lw[1] == "can" || lw[1] == "do") && is_person(lw[2]) && n > 4 &&
      (lw[3] == "find" || lw[3] == "get" || lw[3] == "see"))
    return capitalised(joined(w, 4, n)) + ":";
  if (lw[0] != "what" && lw[0] != "which" && lw[0] != "what's") return {};
  // "What happens when X": "When X:".
  if (lw[1] == "happens" && (lw[2] == "when" || lw[2] == "if" || lw[2] == "after" || lw[2] == "before" ||
                             lw[2] == "during" || lw[2] == "while"))
    return capitalised(joined(w, 2, n)) + ":";
  // "What should I do when X": "When X:".
  if (lw[1] == "should" && is_person(lw[2]) && n > 5 && lw[3] == "do" &&
      (lw[4] == "when" || lw[4] == "if" || lw[4] == "after" || lw[4] == "before"))
    return capitalised(joined(w, 4, n)) + ":";
  // "What is the X" / "What's the X": "The X:". ("What is a X" asks what a thing is: no lead.)
  // ("What is the X used for" asks what X is for: no lead either.)
  const bool used_for = question.find(" used for") != std::string_view::npos;
  if ((lw[1] == "is" || lw[1] == "are") && lw[2] == "the" && n > 3 && !used_for) return "The " + joined(w, 3, n) + ":";
  if (lw[0] == "what's" && lw[1] == "the" && !used_for) return "The " + joined(w, 2, n) + ":";
  if (lw[0] == "what's" || lw[1] == "happens" || lw[1] == "is" || lw[1] == "are" || lw[1] == "of" || lw[1] == "the" ||
      lw[1] == "does" || lw[1] == "do" || lw[1] == "did" || lw[1] == "was" || lw[1] == "were" || is_modal(lw[1]))
    return {};
  // "What determines X" asks for the subject itself: no lead.
  if (is_verb_form(lw[1])) return {};
  // "What HTTP endpoint is used to X": "The HTTP endpoint that is used to X:".
  for (std::size_t aux = 2; aux < n && aux <= 1 + kMaxNounWords; ++aux)
    if (lw[aux] == "is" || lw[aux] == "are" || lw[aux] == "does" || lw[aux] == "do" || is_modal(lw[aux]))
      return subject_lead("The " + joined(w, 1, aux), w, lw, aux);
  // "Which models support X" / "What command starts X": "The models that support X:".
  for (std::size_t v = 2; v + 1 < n && v <= 1 + kMaxNounWords; ++v)
    if (is_verb_form(lw[v])) return "The " + joined(w, 1, v) + " that " + joined(w, v, n) + ":";
  return {};
}

}  // namespace rag::extractive
