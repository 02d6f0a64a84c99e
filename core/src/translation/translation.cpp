#include "rag/translation.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>

#include "rag/error.hpp"
#include "rag/language.hpp"
#include "rag/utf8.hpp"
#include "cognates.hpp"
#include "dictionary.hpp"
#include "glossary.hpp"

namespace rag {
namespace {

// The words of one question looked up, at most: more is a pasted text, not a question, and
// looking each up (a reverse dictionary is searched whole, its spellings guessed) would hold the
// dictionaries for seconds; the rest are kept as written.
constexpr std::size_t kMaxLookedUp = 64;
// Of a word's translations, those kept: the ones the corpus uses most ("install" over
// "establish"), else the dictionary's first.
constexpr std::size_t kTranslationsPerWord = 2;
// A reading the corpus uses this many times less than the word's most used one is another sense
// it hardly has ("serveur": server, thousands of times, not waiter, once).
constexpr std::size_t kRareSense = 100;
// The shortest part, in letters, a German compound is cut into ("Modell|gewichte"); the longest
// word cut, and how many words of a question are, so that a long question of long unknown words
// costs milliseconds, not seconds, of dictionary lookups.
constexpr std::size_t kMinCompoundPart = 4;
constexpr std::size_t kMaxCompoundLetters = 30;
constexpr std::size_t kMaxCompounds = 8;

// What Debian calls the packages of the default dictionaries, for the message when one is missing.
std::string package_of(const std::string& name) {
  return name.starts_with("freedict-") ? "dict-" + name : name == "mueller7" ? "mueller7-dict" : name;
}

// The languages questions are translated from and their dictionaries when a pipeline names none,
// as a pipeline would write them (README, "Questions in other languages").
const YAML::Node& default_languages() {
  static const YAML::Node languages = YAML::Load(
      "{fr: [freedict-fra-eng, {reverse: freedict-eng-fra}], de: [freedict-deu-eng],"
      " es: [freedict-spa-eng, {reverse: freedict-eng-spa}], ru: [{reverse: freedict-eng-rus}, {reverse: mueller7}]}");
  return languages;
}

// Words that say what is asked, which dictionaries translate poorly or not at all ("wo" is
// "when" first, "par défaut" is "by damage"): the question's kind must survive translation. With
// them, the verbs of how-to questions about software, in the forms questions use: general
// dictionaries give their everyday senses first ("использовать" is "utilize, squeeze",
// "activo" "active, assets", "включить" "include"), and the Russian perfective ("установить")
// is missing from dictionaries that list the imperfective only.
const std::map<std::string, std::string, std::less<>>& question_vocabulary(std::string_view code) {
  static const std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> words = {
      {"fr",
       {{"comment", "how"}, {"pourquoi", "why"}, {"où", "where"}, {"quel", "which"}, {"quelle", "which"},
        {"quels", "which"}, {"quelles", "which"}, {"quoi", "what"}, {"qui", "who"}, {"qu", "what"}, {"est-ce", ""}, {"défaut", "default"},
        {"lancer", "start run"}, {"démarrer", "start"}, {"démarre", "start"}, {"lance", "start run"},
        {"installer", "install"}, {"installe", "install"}, {"utiliser", "use"}, {"utilise", "use"},
        {"activer", "enable"}, {"active", "enable"}, {"désactiver", "disable"}, {"désactive", "disable"},
        {"configurer", "configure"}, {"configure", "configure"}, {"charger", "load"}, {"charge", "load"},
        {"définir", "set"}, {"définit", "set"}, {"compiler", "build compile"}, {"servir", "serve"},
        {"combien", "how many"}, {"lequel", "which"}, {"laquelle", "which"}, {"lesquels", "which"},
        {"sert", "used for"}, {"servent", "used for"}, {"fait", "does"}, {"font", "do"},
        // "puis-je", "peut-on", "dites-moi": the modal or the request, once its pronoun is off.
        {"puis", ""}, {"peux", ""}, {"peut", ""}, {"pouvez", ""}, {"dois", ""}, {"doit", ""}, {"devez", ""}, {"dites", ""}}},
      {"de",
       {{"wie", "how"}, {"warum", "why"}, {"wieso", "why"}, {"wo", "where"}, {"was", "what"}, {"wer", "who"}, {"welche", "which"},
        {"welcher", "which"}, {"welches", "which"}, {"welchem", "which"}, {"welchen", "which"},
        {"macht", "does"}, {"machen", "do"}, {"andere", "other"}, {"anderen", "other"}, {"anderer", "other"},
        {"anderes", "other"}, {"anderem", "other"}, {"anders", "otherwise"}, {"lang", "long"}, {"lange", "long"},
        {"länger", "longer"}, {"speichern", "save"}, {"speichere", "save"}, {"speichert", "saves"},
        {"ausführlich", "detailed"}, {"ausführliche", "detailed"}, {"ausführlichen", "detailed"}, {"brauche", "need"},
        {"braucht", "needs"}, {"brauchen", "need"}, {"funktioniert", "works"}, {"verwendet", "uses"}, {"benutzt", "uses"},
        {"nutzt", "uses"}, {"startet", "starts"}, {"lädt", "loads"}, {"aktiviert", "enables"}, {"setzt", "sets"},
        {"standardwert", "default value"}, {"standardmäßig", "default"},
        {"voreinstellung", "default"}, {"starte", "start"}, {"starten", "start"}, {"installiere", "install"},
        {"installieren", "install"}, {"verwende", "use"}, {"verwenden", "use"}, {"benutze", "use"}, {"benutzen", "use"},
        {"nutze", "use"}, {"nutzen", "use"}, {"aktiviere", "enable"}, {"aktivieren", "enable"},
        {"deaktiviere", "disable"}, {"deaktivieren", "disable"}, {"konfiguriere", "configure"},
        {"konfigurieren", "configure"}, {"lade", "load"}, {"laden", "load"}, {"setze", "set"}, {"setzen", "set"},
        {"baue", "build"}, {"bauen", "build"}, {"kompiliere", "compile build"}, {"kompilieren", "compile build"},
        // Verbs with a separable prefix, joined again (join_separable_verb): "Wie führe ich ... aus?",
        // "Was legt ... fest?"; and "in", which the dictionary reads as India.
        {"ausführe", "run"}, {"ausführt", "runs"}, {"ausführen", "run"}, {"einschalte", "enable"},
        {"einschaltet", "enables"}, {"einschalten", "enable"}, {"ausschalte", "disable"}, {"ausschaltet", "disables"},
        {"ausschalten", "disable"}, {"abschalte", "disable"}, {"abschaltet", "disables"}, {"abschalten", "disable"},
        {"herunterlade", "download"}, {"herunterlädt", "downloads"}, {"herunterladen", "download"},
        {"angebe", "specify set"}, {"angibt", "specifies sets"}, {"angeben", "specify set"}, {"einstelle", "set configure"},
        {"einstellt", "sets configures"}, {"einstellen", "set configure"}, {"festlege", "set specify"},
        {"festlegt", "sets specifies"}, {"festlegen", "set specify"}, {"in", ""}}},
      {"es",
       {{"cómo", "how"}, {"como", "how"}, {"qué", "what"}, {"quién", "who"}, {"quiénes", "who"}, {"dónde", "where"}, {"donde", "where"},
        {"cuál", "which"}, {"cuáles", "which"}, {"cuánto", "how many"}, {"cuántos", "how many"},
        {"cuánta", "how much"}, {"cuántas", "how many"}, {"hace", "does"}, {"hacen", "do"}, {"hago", ""},
        {"funciona", "works"}, {"funcionan", "work"}, {"funcionar", "work"}, {"sale", "appears"},
        {"cuanto", "how much"}, {"cuantos", "how many"}, {"cuanta", "how much"}, {"cuantas", "how many"},
        {"sirve", "used for"}, {"sirven", "used for"}, {"devuelve", "returns"}, {"devuelva", "return"},
        {"devolver", "return"}, {"consigo", "get"}, {"conseguir", "get"}, {"usa", "uses"}, {"usan", "use"},
        {"usando", "using"}, {"defecto", "default"}, {"predeterminado", "default"},
        {"iniciar", "start"}, {"inicio", "start"}, {"arrancar", "start"}, {"arranco", "start"},
        {"instalar", "install"}, {"instalo", "install"}, {"usar", "use"}, {"uso", "use"}, {"utilizar", "use"},
        {"utilizo", "use"}, {"activar", "enable"}, {"activo", "enable"}, {"habilitar", "enable"},
        {"habilito", "enable"}, {"desactivar", "disable"}, {"desactivo", "disable"}, {"deshabilitar", "disable"},
        {"configurar", "configure"}, {"configuro", "configure"}, {"cargar", "load"}, {"cargo", "load"},
        {"establecer", "set"}, {"establezco", "set"}, {"definir", "set"}, {"defino", "set"},
        {"compilar", "build compile"}, {"compilo", "build compile"}, {"servir", "serve"}, {"sirvo", "serve"}}},
      {"ru",
       {{"как", "how"}, {"почему", "why"}, {"зачем", "why"}, {"где", "where"}, {"что", "what"}, {"кто", "who"}, {"какой", "which"},
        {"какая", "which"}, {"какое", "which"}, {"какие", "which"},
        {"каком", "which"}, {"какую", "which"}, {"каких", "which"}, {"каким", "which"}, {"какого", "which"},
        {"сколько", "how many"}, {"работает", "works"}, {"умолчанию", "default"},
        {"запустить", "start run"}, {"запуска", "start run"}, {"запускать", "start run"}, {"запуск", "start run"},
        {"установить", "install"}, {"устанавливать", "install"}, {"установка", "install"}, {"установки", "install"},
        {"использовать", "use"}, {"использую", "use"}, {"использования", "use"}, {"включить", "enable"},
        {"включать", "enable"}, {"включения", "enable"}, {"отключить", "disable"}, {"выключить", "disable"},
        {"отключения", "disable"}, {"настроить", "configure"}, {"настраивать", "configure"},
        {"настройка", "configure"}, {"настройки", "configure"}, {"загрузить", "load"}, {"загрузки", "load"},
        {"задать", "set"}, {"указать", "set specify"}, {"собрать", "build"}, {"сборка", "build"},
        {"обновить", "update upgrade"}, {"несколько", "multiple"}}}};
  static const std::map<std::string, std::string, std::less<>> none;
  const auto it = words.find(code);
  return it == words.end() ? none : it->second;
}

// A token of a question: a word to translate, or text to keep as written.
struct Token {
  std::string text;
  bool keep = false;  // an identifier, a command, a name: not translated
};

bool is_cyrillic_text(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) == 0xD0 || static_cast<unsigned char>(c) == 0xD1; });
}

// French puts a subject or object pronoun after its verb, joined by a hyphen ("est-il",
// "puis-je", "dites-moi", "a-t-il"): the verb is the word to read, the pronoun a function word.
// Without this, such a pair reads as a flag ("enable-lora") and stays untranslated.
std::string without_french_pronoun(std::string word) {
  static const std::set<std::string_view> pronouns = {"je", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles",
                                                      "moi", "toi", "le", "la", "les", "lui", "leur", "y", "en"};
  const std::size_t dash = word.rfind('-');
  if (dash == std::string::npos || dash == 0 || !pronouns.count(std::string_view(word).substr(dash + 1))) return word;
  word.resize(dash);
  if (word.ends_with("-t")) word.resize(word.size() - 2);  // the euphonic t of "a-t-il"
  return word;
}

// A German question's verb with a separable prefix is cut in two, the prefix last: "Wie führe ich
// vLLM in Docker aus?" asks how to "ausführen" (run), which no dictionary reads from "führe" and
// "aus" apart. The prefix goes back before the first word that makes with it a verb the question
// vocabulary reads ("Welcher Parameter legt ... fest?" joins "legt", not the noun before it).
void join_separable_verb(std::vector<Token>& tokens) {
  if (tokens.size() < 3 || tokens.back().keep) return;
  const auto& vocabulary = question_vocabulary("de");
  const std::string prefix = utf8::lower(tokens.back().text);
  for (std::size_t i = 1; i + 1 < tokens.size(); ++i) {
    const std::string joined = prefix + utf8::lower(tokens[i].text);
    if (tokens[i].keep || !vocabulary.count(joined)) continue;
    tokens[i].text = joined;
    tokens.pop_back();
    return;
  }
}

// The question cut into words and kept spans: `quoted` or "quoted" text, and words that are
// identifiers (digits, '_', '.', '/', inner capitals: tensor_parallel_size, vLLM, GPU), or, in a
// question written in Cyrillic, anything in Latin letters. `code` is the question's language.
std::vector<Token> tokens_of(std::string_view question, std::string_view code) {
  const bool cyrillic = code == "ru";
  std::vector<Token> out;
  for (std::size_t i = 0; i < question.size();) {
    const char c = question[i];
    if (c == '`') {
      const std::size_t close = question.find('`', i + 1);
      if (close != std::string_view::npos) {
        out.push_back({std::string(question.substr(i + 1, close - i - 1)), true});
        i = close + 1;
        continue;
      }
    }
    const auto is_word = [&](std::size_t k) {
      const auto b = static_cast<unsigned char>(question[k]);
      return std::isalnum(b) != 0 || b == '_' || b >= 0x80;
    };
    // A typographic apostrophe ends a word as ' does: "l’ordonnanceur" is l and ordonnanceur.
    const auto apostrophe = [&](std::size_t k) { return question.compare(k, 3, "’") == 0; };
    if (apostrophe(i)) {
      i += 3;
      continue;
    }
    if (!is_word(i)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < question.size() && !apostrophe(end) &&
           (is_word(end) || (std::string_view("._-/").find(question[end]) != std::string_view::npos && end + 1 < question.size() &&
                             is_word(end + 1))))
      ++end;
    std::string word(question.substr(i, end - i));
    i = end;
    // Guillemets, typographic quotes and Spanish marks are word bytes above; they are not part of words.
    for (const std::string_view mark : {"«", "»", "“", "”", "„", "¿", "¡"})
      for (std::size_t at; (at = word.find(mark)) != std::string::npos;) word.erase(at, mark.size());
    if (code == "fr") word = without_french_pronoun(std::move(word));
    if (word.empty()) continue;
    const bool ascii = std::all_of(word.begin(), word.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
    const bool marked = std::any_of(word.begin(), word.end(), [](char ch) {
      return (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '/';
    });
    // "OpenAI-совместимый", "OpenAI-kompatiblen": a name and a word, each part on its own; an ASCII
    // compound in lower case ("enable-lora") is read whole, as a flag, and so is an identifier
    // ("Qwen2.5-7B-Instruct").
    const bool lower_ascii = std::all_of(word.begin(), word.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '-'; });
    if (word.find('-') != std::string::npos && (!ascii || (!marked && !lower_ascii))) {
      for (std::size_t begin = 0; begin <= word.size();) {
        const std::size_t dash = std::min(word.find('-', begin), word.size());
        if (dash > begin) {
          const std::string part = word.substr(begin, dash - begin);
          const bool latin = std::all_of(part.begin(), part.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
          out.push_back({part, latin && (cyrillic || std::any_of(part.begin() + 1, part.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; }))});
        }
        begin = dash + 1;
      }
      continue;
    }
    const bool inner_capital = std::any_of(word.begin() + 1, word.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
    out.push_back({word, ascii && (marked || inner_capital || (cyrillic && !is_cyrillic_text(word)))});
  }
  if (code == "de") join_separable_verb(out);
  return out;
}

// The stems of `tokens`, lowered: what the glossary's terms are matched by, in a question and in
// the glossary alike.
std::vector<std::string> stems_of(const std::vector<Token>& tokens, const Stemmer& stemmer) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(stemmer.stem(utf8::lower(t.text)));
  return out;
}

}  // namespace

TranslationConfig TranslationConfig::from_options(Options& options, const std::filesystem::path& base) {
  TranslationConfig config;
  config.enabled = true;
  config.dictionaries = base / options.get<std::string>("dictionaries", config.dictionaries.string());
  std::error_code ec;
  if (!std::filesystem::is_directory(config.dictionaries, ec))
    options.fail("dictionaries", config.dictionaries.string() +
                                     " is not a folder; install the dictionaries (scripts/setup.sh) or name the folder "
                                     "of their .index and .dict.dz files");
  if (options.has("glossary")) {
    config.glossary = base / options.get<std::string>("glossary", "");
    if (!std::filesystem::is_regular_file(config.glossary, ec))
      options.fail("glossary", config.glossary.string() + " is not a file (a glossary is a file of 'language TAB words TAB English' lines)");
  }
  // The languages a pipeline names, or the defaults, read alike (so that rag check shows them).
  Options languages = options.child("languages");
  std::vector<std::string> codes = languages.keys();
  if (codes.empty())
    for (const auto& entry : default_languages()) codes.push_back(entry.first.Scalar());
  for (const std::string& code : codes) {
    if (stemmer_name(code).empty()) languages.fail(code, "is not a language questions are translated from (fr, de, es, ru)");
    const YAML::Node fallback = default_languages()[code];  // undefined for a language it lacks
    const YAML::Node list = languages.get<YAML::Node>(code, fallback.IsDefined() ? YAML::Clone(fallback) : YAML::Node());
    if (!list.IsSequence()) languages.fail(code, "must be a list of dictionaries (a name, or {reverse: name})");
    for (const YAML::Node& item : list) {
      DictionaryChoice choice;
      if (item.IsScalar()) {
        choice.name = item.Scalar();
      } else if (item.IsMap() && item.size() == 1 && item["reverse"] && item["reverse"].IsScalar()) {
        choice.name = item["reverse"].Scalar();
        choice.reverse = true;
      } else {
        languages.fail(code, "lists a dictionary that is neither a name nor {reverse: name}");
      }
      config.languages[code].push_back(std::move(choice));
    }
  }
  languages.finish();
  options.finish();
  for (const auto& [code, choices] : config.languages)
    for (const auto& choice : choices) {
      const std::filesystem::path index = config.dictionaries / (choice.name + ".index");
      const bool text = std::filesystem::is_regular_file(config.dictionaries / (choice.name + ".dict.dz"), ec) ||
                        std::filesystem::is_regular_file(config.dictionaries / (choice.name + ".dict"), ec);
      if (!std::filesystem::is_regular_file(index, ec) || !text)
        throw Error(options.where() + ".languages." + code + ": dictionary '" + choice.name + "' is not in " +
                    config.dictionaries.string() + " (install the Debian package " + package_of(choice.name) +
                    ", as scripts/setup.sh does)");
    }
  return config;
}

// A German compound's two parts, lowered.
struct Compound {
  std::string first, second;
};

struct QueryTranslator::State {
  TranslationConfig config;
  Glossary glossary;
  std::mutex mutex;  // dictionaries open on first use, from any thread
  std::map<std::string, std::unique_ptr<Dictionary>> open;

  Dictionary& dictionary(const std::string& name) {
    auto& d = open[name];
    if (!d) {
      const std::filesystem::path dz = config.dictionaries / (name + ".dict.dz");
      std::error_code ec;
      d = std::make_unique<Dictionary>(config.dictionaries / (name + ".index"),
                                       std::filesystem::exists(dz, ec) ? dz : config.dictionaries / (name + ".dict"));
    }
    return *d;
  }

  // The English of each of `words` (lowered), from the first of `choices` that knows it.
  std::map<std::string, std::vector<std::string>> look_up(const std::vector<DictionaryChoice>& choices,
                                                          const std::vector<std::string>& words, const Stemmer& stemmer);
  // German compounds among `words` that no dictionary lists and the corpus does not use
  // ("Modellgewichte", "Kalibrierungsdaten"), each as its two parts that `choices`, the glossary
  // or the corpus know (their English added to `english`): the cut with the longest first part,
  // each part of kMinCompoundPart letters at least, a linking s, es, n or en dropped
  // ("Kalibrierungs|daten").
  std::map<std::string, Compound> split_compounds(const std::vector<DictionaryChoice>& choices, const std::vector<std::string>& words,
                                                  std::map<std::string, std::vector<std::string>>& english,
                                                  const QueryTranslator::WordCount& corpus_count, const Stemmer& stemmer);
};

QueryTranslator::QueryTranslator() : state_(std::make_unique<State>()) {}
QueryTranslator::QueryTranslator(TranslationConfig config) : state_(std::make_unique<State>()) {
  state_->config = std::move(config);
  if (!state_->config.glossary.empty()) {
    std::vector<std::string> languages;
    for (const auto& entry : default_languages()) languages.push_back(entry.first.Scalar());
    std::map<std::string, std::unique_ptr<Stemmer>, std::less<>> stemmers;  // one per language
    state_->glossary = Glossary::read(state_->config.glossary, languages, [&](std::string_view code, std::string_view text) {
      auto& stemmer = stemmers[std::string(code)];
      if (!stemmer) stemmer = std::make_unique<Stemmer>(code);
      return stems_of(tokens_of(text, code), *stemmer);
    });
  }
}
QueryTranslator::~QueryTranslator() = default;

namespace {

// The glossary's terms in a question's tokens, longest first at each place: `term[i]` is the
// term token i starts, `inside[i]` whether token i is part of one. A one-word term never takes a
// question or function word (`closed`): its stem may be theirs ("comando" and "cómo" are both
// "com" to Snowball's Spanish stemmer), and "how" must stay "how".
struct Glossed {
  std::vector<const Glossary::Term*> term;
  std::vector<bool> inside;
};

Glossed glossed(const Glossary& glossary, std::string_view code, const std::vector<std::string>& stems, const std::vector<bool>& closed) {
  Glossed out{std::vector<const Glossary::Term*>(stems.size(), nullptr), std::vector<bool>(stems.size(), false)};
  for (std::size_t i = 0; i < stems.size();) {
    std::size_t length = 0;
    out.term[i] = glossary.match(code, stems, i, length);
    if (out.term[i] != nullptr && length == 1 && closed[i]) out.term[i] = nullptr;
    if (out.term[i] == nullptr) length = 1;
    else std::fill(out.inside.begin() + static_cast<std::ptrdiff_t>(i), out.inside.begin() + static_cast<std::ptrdiff_t>(i + length), true);
    i += length;
  }
  return out;
}

// The English query being written: each word once (a word given twice would weigh twice).
class QueryWriter {
 public:
  // The words of `text`, those not written yet.
  void add(std::string_view text) {
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = std::min(text.find(' ', begin), text.size());
      const std::string_view word = text.substr(begin, end - begin);
      begin = end + 1;
      if (word.empty() || !added_.insert(utf8::lower(word)).second) continue;
      if (!query_.empty()) query_ += ' ';
      query_ += word;
    }
  }

  // The readings of one word of the question, joined by '|' ("change|alter"): answering counts
  // the word found when any of them is, retrieval reads them as one term (question_words.hpp). A
  // phrase among them ("rate of flow") is written as words.
  void add_readings(const std::vector<std::string>& readings) {
    if (std::any_of(readings.begin(), readings.end(), [](const std::string& r) { return r.find(' ') != std::string::npos; })) {
      for (const std::string& r : readings) add(r);
      return;
    }
    std::string group;
    for (const std::string& r : readings)
      if (added_.insert(utf8::lower(r)).second) group.append(group.empty() ? "" : "|").append(r);
    if (group.empty()) return;
    if (!query_.empty()) query_ += ' ';
    query_ += group;
  }

  const std::string& query() const { return query_; }

 private:
  std::string query_;
  std::set<std::string> added_;
};

// Of the English candidates for `own`, a word as written, those the corpus uses, most used
// first (dictionary order breaks ties); without counts, the dictionary's first. A candidate the
// corpus never uses can match nothing: "waiter" for "serveur", a transliteration no loanword
// matches. None when the corpus uses `own` itself at least as much as any of them: it is a term
// of the field written alike in English ("cache", "Server", "compatible"), and its everyday
// senses ("hide", "computer") would only blur the query. A phrase or compound ("by heart",
// "water-front") counts by any of its words, so it is kept only when no single word the corpus
// uses is offered: dictionaries give idioms and explanations besides the words.
std::vector<std::string> most_used(std::string_view own, std::vector<std::string> candidates,
                                   const QueryTranslator::WordCount& corpus_count) {
  if (corpus_count) {
    const auto phrase = [](const std::string& c) { return c.find_first_of(" -") != std::string::npos; };
    std::vector<std::pair<std::size_t, std::string>> counted;
    for (auto& c : candidates)
      if (const std::size_t n = corpus_count(c); n > 0) counted.emplace_back(n, std::move(c));
    if (std::any_of(counted.begin(), counted.end(), [&](const auto& c) { return !phrase(c.second); }))
      std::erase_if(counted, [&](const auto& c) { return phrase(c.second); });
    std::stable_sort(counted.begin(), counted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (!counted.empty() && corpus_count(own) >= counted.front().first) counted.clear();
    const std::size_t most = counted.empty() ? 0 : counted.front().first;
    std::erase_if(counted, [&](const auto& c) { return c.first * kRareSense < most; });
    candidates.clear();
    for (auto& [n, c] : counted) candidates.push_back(std::move(c));
  }
  if (candidates.size() > kTranslationsPerWord) candidates.resize(kTranslationsPerWord);
  return candidates;
}

// How a word looked up reads in English, `translations` being what the dictionaries gave for
// its lowered form `w`: its translations and, when the corpus can tell, the English word it may
// be the cognate of; the word itself, which may be written the same in English
// ("configuration") or be a name; in Latin letters when it is Cyrillic (loanwords).
std::vector<std::string> readings_of(std::string_view code, const Token& t, const std::string& w,
                                     std::vector<std::string> translations, const QueryTranslator::WordCount& corpus_count) {
  std::vector<std::string> candidates = std::move(translations);
  const bool known = !candidates.empty();
  if (corpus_count) {
    // One cognate: guesses that differ only in an ending the corpus's stemming drops
    // ("latency", "latence") are one word to it.
    std::string cognate;
    std::size_t most = 0;
    for (const std::string& c : cognates(code, w))
      if (const std::size_t n = corpus_count(c); n > most) cognate = c, most = n;
    // A loanword's spellings compete with the regular guesses ("блока": block over bloc)
    // unless the dictionaries gave a word the corpus uses.
    const bool dictionary_used = std::any_of(candidates.begin(), candidates.end(), [&](const std::string& c) { return corpus_count(c) > 0; });
    if (!dictionary_used && code == "ru")
      for (const std::string& c : loanword_cognates(w))
        if (const std::size_t n = corpus_count(c); n > most) cognate = c, most = n;
    if (most > 0 && std::find(candidates.begin(), candidates.end(), cognate) == candidates.end())
      candidates.push_back(std::move(cognate));
  }
  std::vector<std::string> readings = most_used(t.text, candidates, corpus_count);
  const std::string latin = code == "ru" ? transliterated(w) : "";
  const bool translated = !readings.empty();
  for (const std::string& own : {t.text, latin})
    if (!own.empty() && (!corpus_count ? !translated : corpus_count(own) > 0)) readings.push_back(own);
  // A word the corpus never uses in any of its senses still belongs to the question: it
  // matches nothing, but answering must know that no source speaks of it ("gâteau": cake,
  // in the dictionary's first sense; "paella", "Quijote", which no dictionary knows, as written).
  if (readings.empty()) readings.push_back(known ? candidates.front() : t.text);
  return readings;
}

}  // namespace

std::map<std::string, std::vector<std::string>> QueryTranslator::State::look_up(const std::vector<DictionaryChoice>& choices,
                                                                                const std::vector<std::string>& words,
                                                                                const Stemmer& stemmer) {
  std::map<std::string, std::vector<std::string>> english;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const DictionaryChoice& choice : choices) {
    std::vector<std::string> missing;
    for (const auto& w : words)
      if (!english.count(w)) missing.push_back(w);
    if (missing.empty()) break;
    Dictionary& d = dictionary(choice.name);
    if (choice.reverse) {
      for (const auto& w : missing)
        if (auto found = d.headwords_for(w, stemmer.stem(w), stemmer); !found.empty()) english[w] = std::move(found);
    } else {
      for (auto& [w, found] : d.translate(missing, stemmer)) english[w] = std::move(found);
    }
  }
  return english;
}

std::map<std::string, Compound> QueryTranslator::State::split_compounds(const std::vector<DictionaryChoice>& choices,
                                                                       const std::vector<std::string>& words,
                                                                       std::map<std::string, std::vector<std::string>>& english,
                                                                       const QueryTranslator::WordCount& corpus_count,
                                                                       const Stemmer& stemmer) {
  std::map<std::string, std::vector<Compound>> cuts;  // each word's, shortest first part first
  std::vector<std::string> parts;
  for (const std::string& w : words) {
    if (cuts.size() == kMaxCompounds) break;
    if (english.count(w) || (corpus_count && corpus_count(w) > 0)) continue;
    std::vector<std::size_t> starts;  // of its code points
    for (std::size_t at = 0; at < w.size(); ++at)
      if (utf8::is_lead_byte(static_cast<unsigned char>(w[at]))) starts.push_back(at);
    if (starts.size() > kMaxCompoundLetters) continue;
    for (std::size_t k = kMinCompoundPart; k + kMinCompoundPart <= starts.size(); ++k) {
      const std::string first = w.substr(0, starts[k]), second = w.substr(starts[k]);
      for (const std::string_view link : {"", "s", "es", "n", "en"})  // ASCII: as many letters as bytes
        if (first.ends_with(link) && k - link.size() >= kMinCompoundPart) {
          cuts[w].push_back({first.substr(0, first.size() - link.size()), second});
          parts.push_back(cuts[w].back().first);
          parts.push_back(second);
        }
    }
  }
  if (cuts.empty()) return {};
  for (auto& [part, found] : look_up(choices, parts, stemmer)) english.emplace(part, std::move(found));
  // A part is known to a dictionary, to the glossary or to the corpus ("Batch" in "Batchgröße").
  const auto known = [&](const std::string& part) {
    std::size_t length = 0;
    return english.count(part) > 0 || glossary.match("de", {stemmer.stem(part)}, 0, length) != nullptr ||
           (corpus_count && corpus_count(part) > 0);
  };
  std::map<std::string, Compound> compounds;
  for (const auto& [w, list] : cuts)
    // The longest first part: the last part of a German compound is its head, and a short first
    // part leaves a long second one that a loose match by stem may read ("Speich|erlänge").
    for (auto c = list.rbegin(); c != list.rend(); ++c)
      if (known(c->first) && known(c->second)) {
        compounds.emplace(w, *c);
        break;
      }
  return compounds;
}

std::string QueryTranslator::translate(std::string_view question, const WordCount& count_in_corpus) const {
  if (!state_->config.enabled) return std::string(question);
  const std::string code(detect_language(question));
  const auto choices = state_->config.languages.find(code);
  if (choices == state_->config.languages.end()) return std::string(question);

  // Each English word counted once in the corpus, however many readings offer it.
  std::map<std::string, std::size_t, std::less<>> counts;
  const WordCount corpus_count = !count_in_corpus ? WordCount() : WordCount([&](std::string_view w) {
    auto it = counts.find(w);
    if (it == counts.end()) it = counts.emplace(std::string(w), count_in_corpus(w)).first;
    return it->second;
  });
  const std::vector<Token> tokens = tokens_of(question, code);
  const auto& vocabulary = question_vocabulary(code);
  const Stemmer stemmer(code);
  std::vector<bool> closed;  // question and function words
  for (const Token& t : tokens) {
    const std::string w = utf8::lower(t.text);
    closed.push_back(vocabulary.count(w) > 0 || is_function_word(code, w));
  }
  const Glossed terms = glossed(state_->glossary, code, stems_of(tokens, stemmer), closed);
  // The words to look up: not kept, not in the glossary, not function words, not what is asked.
  std::vector<std::string> words;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const std::string w = utf8::lower(t.text);
    if (!t.keep && !terms.inside[i] && !closed[i] &&
        std::find(words.begin(), words.end(), w) == words.end() && words.size() < kMaxLookedUp)
      words.push_back(w);
  }
  std::map<std::string, std::vector<std::string>> english = state_->look_up(choices->second, words, stemmer);
  const std::map<std::string, Compound> compounds =
      code == "de" ? state_->split_compounds(choices->second, words, english, corpus_count, stemmer) : std::map<std::string, Compound>();
  QueryWriter query;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const std::string w = utf8::lower(t.text);
    if (terms.inside[i]) {
      if (terms.term[i] != nullptr) query.add(terms.term[i]->english);
    } else if (t.keep) {
      query.add(t.text);
    } else if (const auto v = vocabulary.find(w); v != vocabulary.end()) {
      query.add(v->second);
    } else if (is_function_word(code, w)) {
      continue;
    } else if (std::find(words.begin(), words.end(), w) == words.end()) {
      query.add(t.text);  // past kMaxLookedUp words
    } else if (const auto c = compounds.find(w); c != compounds.end()) {
      for (const std::string& part : {c->second.first, c->second.second}) {
        std::size_t length = 0;  // a part the glossary holds reads as it says ("Modell": model)
        const auto e = english.find(part);
        if (const Glossary::Term* term = state_->glossary.match(code, {stemmer.stem(part)}, 0, length)) query.add(term->english);
        else
          query.add_readings(
              readings_of(code, Token{part, false}, part, e == english.end() ? std::vector<std::string>() : e->second, corpus_count));
      }
    } else {
      const auto e = english.find(w);
      query.add_readings(readings_of(code, t, w, e == english.end() ? std::vector<std::string>() : e->second, corpus_count));
    }
  }
  return query.query().empty() ? std::string(question) : query.query();
}

}  // namespace rag
