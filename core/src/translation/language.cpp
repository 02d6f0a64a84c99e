#include "rag/language.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rag {
namespace {

struct LatinLanguage {
  std::string_view code;
  // Words that carry no topic, so that a question's subject (often code) cannot sway the vote.
  std::vector<std::string_view> function_words;
  // Letters only this language (of the four) uses; "é" counts for French and Spanish.
  std::u32string_view letters;
};

const std::array<LatinLanguage, 4>& latin_languages() {
  static const std::array<LatinLanguage, 4> languages = {{
      {"en",
       {"the", "is", "are", "was", "were", "what", "which", "how", "why", "when", "where", "who", "does", "do", "did",
        "can", "could", "should", "would", "of", "to", "and", "or", "for", "with", "from", "by", "on", "at", "this",
        "that", "these", "those", "it", "its", "be", "been", "there", "has", "have", "into", "about", "if", "not"},
       U""},
      {"fr",
       {"le", "la", "les", "des", "du", "un", "une", "est", "sont", "quel", "quelle", "quels", "quelles", "comment",
        "pourquoi", "quand", "où", "que", "qui", "quoi", "dans", "pour", "avec", "et", "ou", "sur", "par", "au",
        "aux", "ce", "cette", "ces", "peut", "faut", "sans", "je", "il", "elle", "on", "nous", "vous", "ne", "pas", "se",
        "être", "lorsque", "comme", "en", "entre", "de", "à", "l", "d", "j", "n", "qu"},
       U"çèêàùœâîôûëïé"},
      {"es",
       {"el", "la", "los", "las", "un", "una", "unos", "es", "son", "qué", "que", "cómo", "como", "cuál", "cuáles",
        "cuándo", "dónde", "por", "para", "con", "en", "y", "o", "del", "al", "se", "lo", "puedo", "puede", "está",
        "están", "hay", "su", "sus", "cuando", "donde", "porque", "entre", "usar", "de"},
       U"ñáíóúé¿¡"},
      {"de",
       {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "ist", "sind", "wie", "was",
        "welche", "welcher", "welches", "warum", "wann", "wo", "und", "oder", "mit", "für", "von", "zu", "auf", "im",
        "kann", "können", "muss", "werden", "wird", "ich", "man", "nicht", "bei", "auch", "gibt", "sich", "nach", "dass"},
       U"ßäöü"},
  }};
  return languages;
}

// Decodes one code point at `i` and advances past it; malformed bytes decode as U+FFFD.
char32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) {
    ++i;
    return U'\uFFFD';
  }
  char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return U'\uFFFD';
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += length;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_han(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0xF900 && c <= 0xFAFF);
}
bool is_cyrillic(char32_t c) { return c >= 0x0400 && c <= 0x04FF; }
bool is_latin_letter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
}
// Lower case for ASCII and Latin-1 capitals, enough to match function words.
char32_t to_lower(char32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 0x20;
  return c;
}

}  // namespace

std::string_view detect_language(std::string_view text) {
  std::size_t latin = 0, latin_words = 0, cyrillic = 0, han = 0;
  std::array<double, 4> votes{};
  const auto& languages = latin_languages();
  // Words vote for the languages whose function words they are; identifiers (with digits, '_',
  // or '.' and '-' inside) do not vote.
  std::string word;
  bool identifier = false;
  std::vector<std::string> first_words;  // the first two, identifiers as empty words
  auto end_word = [&] {
    if (!word.empty()) ++latin_words;
    if (!word.empty() && first_words.size() < 2) first_words.push_back(identifier ? std::string() : word);
    if (!identifier)
      for (std::size_t l = 0; l < languages.size(); ++l)
        for (const std::string_view w : languages[l].function_words)
          if (w == word) votes[l] += 1;
    word.clear();
    identifier = false;
  };
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = to_lower(next_code_point(text, i));
    if (is_han(c)) ++han;
    if (is_cyrillic(c)) ++cyrillic;
    for (std::size_t l = 0; l < languages.size(); ++l)
      if (languages[l].letters.find(c) != std::u32string_view::npos) votes[l] += 0.5;
    if (is_latin_letter(c)) {
      ++latin;
      append_utf8(word, c);
    } else if (!word.empty() && ((c >= '0' && c <= '9') || c == '_' ||
                                 ((c == '.' || c == '-') && i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))))) {
      identifier = true;  // "max_model_len", "v1.2", "la.le"
      word += static_cast<char>(c);
    } else {
      end_word();
    }
  }
  end_word();
  // A Han character or a Cyrillic word says more than the Latin identifiers around it; a Han
  // character is about a word ("什么是PagedAttention?": three against one).
  if (han > latin_words) return "zh";
  if (cyrillic * 2 > latin) return "ru";
  // "Was steuert X?", "Was macht X?": German's "was" and a verb, where English's "was" is
  // followed by its subject ("Was it", "Was output truncated?"): the verbs such questions use.
  static const std::set<std::string_view> asking_verbs = {
      "steuert", "macht",  "bewirkt",  "bedeutet", "tut",     "passiert",     "bestimmt", "gibt",   "regelt",
      "beeinflusst", "kontrolliert", "enthält", "beschreibt", "heißt", "unterstützt", "liefert", "zeigt",
      "erzeugt", "speichert", "begrenzt", "ändert", "definiert", "konfiguriert", "braucht", "kostet"};
  if (first_words.size() == 2 && first_words[0] == "was" && asking_verbs.count(first_words[1]))
    for (std::size_t l = 0; l < languages.size(); ++l) votes[l] += languages[l].code == "de";
  std::size_t best = 0;  // English wins ties: it is what the corpus is written in
  for (std::size_t l = 1; l < languages.size(); ++l)
    if (votes[l] > votes[best]) best = l;
  return languages[best].code;
}

namespace {

// Phrases by language, English first: the fallback for a code not listed.
using Phrases = std::array<std::pair<std::string_view, std::string_view>, 6>;

std::string_view phrase(const Phrases& phrases, std::string_view code) {
  for (const auto& [c, text] : phrases)
    if (c == code) return text;
  return phrases[0].second;
}

}  // namespace

std::string_view no_answer_text(std::string_view code) {
  static constexpr Phrases phrases = {{{"en", "The sources do not answer this question."},
                                       {"fr", "Les sources ne répondent pas à cette question."},
                                       {"es", "Las fuentes no responden a esta pregunta."},
                                       {"de", "Die Quellen beantworten diese Frage nicht."},
                                       {"ru", "Источники не отвечают на этот вопрос."},
                                       {"zh", "这些资料没有回答这个问题。"}}};
  return phrase(phrases, code);
}

std::string_view unwritten_name_phrase(std::string_view code) {
  static constexpr Phrases phrases = {{{"en", "No indexed file mentions {name}."},
                                       {"fr", "Aucun fichier indexé ne mentionne {name}."},
                                       {"es", "Ningún archivo indexado menciona {name}."},
                                       {"de", "Keine indizierte Datei erwähnt {name}."},
                                       {"ru", "Ни один проиндексированный файл не упоминает {name}."},
                                       {"zh", "没有任何已索引的文件提到 {name}。"}}};
  return phrase(phrases, code);
}

std::string_view default_is_phrase(std::string_view code) {
  static constexpr Phrases phrases = {{{"en", "The default of {name} is {value}."},
                                       {"fr", "La valeur par défaut de {name} est {value}."},
                                       {"es", "El valor predeterminado de {name} es {value}."},
                                       {"de", "Der Standardwert von {name} ist {value}."},
                                       {"ru", "Значение {name} по умолчанию: {value}."},
                                       {"zh", "{name} 的默认值是 {value}。"}}};
  return phrase(phrases, code);
}

std::string_view english_sources_note(std::string_view code) {
  static constexpr Phrases phrases = {{{"en", ""},
                                       {"fr", "Les sources sont en anglais ; les citations ne sont pas traduites."},
                                       {"es", "Las fuentes están en inglés; las citas no están traducidas."},
                                       {"de", "Die Quellen sind auf Englisch; die Zitate sind nicht übersetzt."},
                                       {"ru", "Источники на английском языке; цитаты приведены без перевода."},
                                       {"zh", "资料为英文，引文未翻译。"}}};
  return phrase(phrases, code);
}

bool is_function_word(std::string_view code, std::string_view word) {
  // Words void of topic, which a translation drops. A Latin language's also include the words that
  // vote for it (latin_languages()); these do not (a possessive or auxiliary says little of which
  // language it is): possessives, personal pronouns in every case, auxiliaries, particles.
  // Russian, told by its script, has all of its own here, ё also written е ("ее", "еще"). (A
  // reversed dictionary reads "меня" as "exchange", "у меня" being "I have".)
  static const std::map<std::string_view, std::vector<std::string_view>> topicless = {
      {"fr", {"mon", "ma", "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "nos", "votre", "vos", "leur", "leurs",
              "ça", "cela", "ceci", "environ", "y", "tout", "tous", "toute", "toutes", "même", "déjà", "très", "aussi", "dont",
              "ai", "as", "a", "avons", "avez", "ont", "suis", "sommes", "êtes", "été", "me", "te", "m", "t", "s", "tu", "ils",
              "elles", "moi", "toi", "lui", "eux"}},
      {"es", {"mi", "mis", "tu", "tus", "nuestro", "nuestra", "nuestros", "este", "esta", "estos", "estas", "esto",
              "eso", "ese", "esa", "todo", "todos", "toda", "todas", "muy", "ya", "también", "tengo", "tiene",
              "tienen", "ha", "he", "han", "me", "te", "nos", "le", "les", "sí", "si", "yo", "tú", "él", "ella", "ellos",
              "ellas", "nosotros", "nosotras", "vosotros", "usted", "ustedes", "mí", "ti", "conmigo", "contigo"}},
      {"de", {"einer", "eines", "es", "um", "mein", "meine", "meinem", "meinen", "meiner", "dein", "deine", "sein",
              "seine", "ihr", "ihre", "ihrem", "ihren", "nur", "schon", "noch", "sehr", "daß", "diese", "dieser",
              "dieses", "diesem", "diesen", "soll", "sollte", "möchte", "will", "darf", "habe", "hat", "haben", "bin",
              "bist", "wurde", "wurden", "mich", "mir", "uns", "dann", "als", "am", "vom", "zum", "zur", "beim", "ins",
              "so", "du", "dich", "dir", "er", "ihn", "ihm", "sie", "ihnen", "wir", "euch"}},
      {"ru", {"и", "в", "во", "на", "с", "со", "по", "к", "ко", "о", "об", "от", "до", "из", "за", "для", "при", "у",
              "не", "ли", "а", "но", "или", "же", "бы", "это", "этот", "эта", "эти", "то", "как", "что", "чем", "мне",
              "я", "мы", "вы", "он", "она", "они", "его", "её", "их", "есть", "быть", "можно", "нужно", "ещё", "уже",
              "так", "такое", "такой", "такая", "такие", "через", "без", "над", "под", "между", "после", "перед",
              "если", "все", "всё", "свой", "свою", "мой", "моей", "ее", "еще", "самого", "самый", "самой", "самом",
              "сам", "сама", "само", "моя", "моё", "мои", "моих", "мою", "наш", "наша", "наши", "ваш", "ваша", "ваши",
              "себя", "себе", "свои", "своих", "своей", "который", "которая", "которое", "которые", "котором",
              "которой", "которых", "данный", "данная", "данное", "данном", "данной", "данного", "данному", "чтобы",
              "только", "также", "тоже", "очень", "мое", "меня", "мной", "ты", "тебя", "тебе", "тобой", "него", "ему",
              "нему", "ним", "нём", "нем", "ей", "ею", "неё", "нее", "ней", "нею", "оно", "нас", "нам", "нами", "вас",
              "вам", "вами", "им", "ими", "них", "ними", "собой", "этого", "этой", "этом", "этим", "этими", "этих",
              "эту"}}};
  if (const auto listed = topicless.find(code);
      listed != topicless.end() && std::find(listed->second.begin(), listed->second.end(), word) != listed->second.end())
    return true;
  for (const auto& language : latin_languages())
    if (language.code == code)
      return std::find(language.function_words.begin(), language.function_words.end(), word) !=
             language.function_words.end();
  return false;
}

std::string_view language_name(std::string_view code) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> names = {{
      {"en", "English"}, {"fr", "French"}, {"es", "Spanish"}, {"de", "German"}, {"ru", "Russian"}, {"zh", "Chinese"}}};
  for (const auto& [c, name] : names)
    if (c == code) return name;
  return code;
}

}  // namespace rag
