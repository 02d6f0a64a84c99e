#include "rag/translation.hpp"

#include <libstemmer.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <zlib.h>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/language.hpp"
#include "rag/utf8.hpp"
#include "cognates.hpp"
#include "glossary.hpp"

namespace rag {
namespace {

// Translations a dictionary offers per word, in its order (first senses first)...
constexpr std::size_t kCandidatesPerWord = 8;
// ...and those kept: the ones the corpus uses most ("install" over "establish"), else the first.
constexpr std::size_t kTranslationsPerWord = 2;
// Stems shorter than this match too many words of a reverse dictionary to mean anything.
constexpr std::size_t kMinStemBytes = 3;

// What Debian calls the packages of the default dictionaries, for the message when one is missing.
std::string package_of(const std::string& name) {
  return name.starts_with("freedict-") ? "dict-" + name : name == "mueller7" ? "mueller7-dict" : name;
}

std::map<std::string, std::vector<DictionaryChoice>> default_languages() {
  return {{"fr", {{"freedict-fra-eng", false}, {"freedict-eng-fra", true}}},
          {"de", {{"freedict-deu-eng", false}}},
          {"es", {{"freedict-spa-eng", false}, {"freedict-eng-spa", true}}},
          {"ru", {{"freedict-eng-rus", true}, {"mueller7", true}}}};
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
        {"définir", "set"}, {"définit", "set"}, {"compiler", "build compile"}, {"servir", "serve"}}},
      {"de",
       {{"wie", "how"}, {"warum", "why"}, {"wieso", "why"}, {"wo", "where"}, {"was", "what"}, {"wer", "who"}, {"welche", "which"},
        {"welcher", "which"}, {"welches", "which"}, {"standardwert", "default value"}, {"standardmäßig", "default"},
        {"voreinstellung", "default"}, {"starte", "start"}, {"starten", "start"}, {"installiere", "install"},
        {"installieren", "install"}, {"verwende", "use"}, {"verwenden", "use"}, {"benutze", "use"}, {"benutzen", "use"},
        {"nutze", "use"}, {"nutzen", "use"}, {"aktiviere", "enable"}, {"aktivieren", "enable"},
        {"deaktiviere", "disable"}, {"deaktivieren", "disable"}, {"konfiguriere", "configure"},
        {"konfigurieren", "configure"}, {"lade", "load"}, {"laden", "load"}, {"setze", "set"}, {"setzen", "set"},
        {"baue", "build"}, {"bauen", "build"}, {"kompiliere", "compile build"}, {"kompilieren", "compile build"}}},
      {"es",
       {{"cómo", "how"}, {"como", "how"}, {"qué", "what"}, {"quién", "who"}, {"quiénes", "who"}, {"dónde", "where"}, {"donde", "where"},
        {"cuál", "which"}, {"cuáles", "which"}, {"defecto", "default"}, {"predeterminado", "default"},
        {"iniciar", "start"}, {"inicio", "start"}, {"arrancar", "start"}, {"arranco", "start"},
        {"instalar", "install"}, {"instalo", "install"}, {"usar", "use"}, {"uso", "use"}, {"utilizar", "use"},
        {"utilizo", "use"}, {"activar", "enable"}, {"activo", "enable"}, {"habilitar", "enable"},
        {"habilito", "enable"}, {"desactivar", "disable"}, {"desactivo", "disable"}, {"deshabilitar", "disable"},
        {"configurar", "configure"}, {"configuro", "configure"}, {"cargar", "load"}, {"cargo", "load"},
        {"establecer", "set"}, {"establezco", "set"}, {"definir", "set"}, {"defino", "set"},
        {"compilar", "build compile"}, {"compilo", "build compile"}, {"servir", "serve"}, {"sirvo", "serve"}}},
      {"ru",
       {{"как", "how"}, {"почему", "why"}, {"зачем", "why"}, {"где", "where"}, {"что", "what"}, {"кто", "who"}, {"какой", "which"},
        {"какая", "which"}, {"какое", "which"}, {"какие", "which"}, {"умолчанию", "default"},
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

// The Snowball stemmer of a language, for matching a word to a dictionary's other forms of it.
std::string_view stemmer_name(std::string_view code) {
  if (code == "fr") return "french";
  if (code == "de") return "german";
  if (code == "es") return "spanish";
  if (code == "ru") return "russian";
  return "";
}

class Stemmer {
 public:
  explicit Stemmer(std::string_view code) : german_(code == "de"), russian_(code == "ru") {
    const std::string name(stemmer_name(code));
    if (!name.empty()) stemmer_ = sb_stemmer_new(name.c_str(), "UTF_8");
  }
  ~Stemmer() {
    if (stemmer_ != nullptr) sb_stemmer_delete(stemmer_);
  }
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;
  std::string stem(std::string_view word) const {
    if (stemmer_ == nullptr) return std::string(word);
    const sb_symbol* out =
        sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (out == nullptr) return std::string(word);
    return {reinterpret_cast<const char*>(out), static_cast<std::size_t>(sb_stemmer_length(stemmer_))};
  }
  /// The form a word of stem `stem` was inflected from, when it is not a form of that stem: German
  /// adjectives in -el and -er drop that e when inflected ("kompatiblen" is "kompatibel",
  /// "teuren" "teuer"). Empty when there is none.
  std::string uninflected(std::string_view stem) const {
    if (!german_ || stem.size() < 4 || (stem.back() != 'l' && stem.back() != 'r') || stem[stem.size() - 2] == 'e') return {};
    std::string out(stem.substr(0, stem.size() - 1));
    return out.append("e").append(1, stem.back());
  }
  /// The stem the other forms of a word of stem `stem` may have: Snowball reads the -ть of a
  /// Russian noun as a verb's infinitive ending, so "память" stems to "памя" and "памяти" to
  /// "памят". Empty when there is none.
  std::string other_stem(std::string_view stem) const {
    static constexpr std::string_view te = "т";
    // Four letters at least are left: "порт" (port) is not "пора" (time).
    if (!russian_ || stem.size() < 5 * te.size() || !stem.ends_with(te)) return {};
    return std::string(stem.substr(0, stem.size() - te.size()));
  }

 private:
  sb_stemmer* stemmer_ = nullptr;
  bool german_ = false;
  bool russian_ = false;
};

// The decoder of dictd's index numbers: base 64 with its own alphabet, most significant first.
std::optional<std::size_t> dictd_number(std::string_view digits) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (digits.empty() || digits.size() > 8) return std::nullopt;
  std::size_t n = 0;
  for (const char c : digits) {
    const std::size_t v = kAlphabet.find(c);
    if (v == std::string_view::npos) return std::nullopt;
    n = n * 64 + v;
  }
  return n;
}

// Inflates `in` (gzip when `gzip`, else raw deflate) whole, onto the end of `out`: a dictionary's
// chunks go one after another into one string, with no copy of each.
void inflate_onto(std::string& out, std::string_view in, bool gzip, const std::string& file) {
  z_stream z{};
  if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : -MAX_WBITS) != Z_OK) throw Error(file + ": cannot start zlib");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int status = Z_OK;
  while (status == Z_OK) {
    const std::size_t done = out.size();
    out.resize(done + std::max<std::size_t>(65536, in.size()));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + done);
    z.avail_out = static_cast<uInt>(out.size() - done);
    status = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (status == Z_BUF_ERROR && z.avail_in == 0) break;  // a chunk of a dictzip file ends without a stream end
  }
  inflateEnd(&z);
  if (status != Z_STREAM_END && status != Z_BUF_ERROR && status != Z_OK)
    throw Error(file + ": damaged compressed data (reinstall the dictionary)");
}

std::string inflate_all(std::string_view in, bool gzip, const std::string& file) {
  std::string out;
  inflate_onto(out, in, gzip, file);
  return out;
}

// A dictionary's text (.dict.dz, or .dict): a dictzip file is read by its chunks, any other gzip
// file and a plain one whole.
class DictText {
 public:
  explicit DictText(const std::filesystem::path& path) : name_(path.string()), file_(path), raw_(file_.bytes()) {
    if (path.extension() != ".dz") return;
    const auto byte = [&](std::size_t i) -> std::size_t {
      if (i >= raw_.size()) throw Error(name_ + ": not a gzip file (reinstall the dictionary)");
      return static_cast<unsigned char>(raw_[i]);
    };
    if (byte(0) != 0x1f || byte(1) != 0x8b || byte(2) != 8) throw Error(name_ + ": not a gzip file (reinstall the dictionary)");
    const std::size_t flags = byte(3);
    std::size_t pos = 10;
    if ((flags & 4) != 0) {
      const std::size_t extra_length = byte(pos) | byte(pos + 1) << 8;
      const std::size_t extra_end = pos + 2 + extra_length;
      for (std::size_t field = pos + 2; field + 4 <= extra_end;) {
        const std::size_t length = byte(field + 2) | byte(field + 3) << 8;
        if (raw_[field] == 'R' && raw_[field + 1] == 'A' && length >= 6) {
          chunk_length_ = byte(field + 6) | byte(field + 7) << 8;
          const std::size_t count = byte(field + 8) | byte(field + 9) << 8;
          if (10 + 2 * count > length + 4) throw Error(name_ + ": a damaged dictzip header (reinstall the dictionary)");
          for (std::size_t i = 0; i < count; ++i) chunk_sizes_.push_back(byte(field + 10 + 2 * i) | byte(field + 11 + 2 * i) << 8);
        }
        field += 4 + length;
      }
      pos = extra_end;
    }
    for (const std::size_t flag : {std::size_t{8}, std::size_t{16}})  // a file name, a comment
      if ((flags & flag) != 0) {
        while (byte(pos) != 0) ++pos;
        ++pos;
      }
    if ((flags & 2) != 0) pos += 2;
    if (chunk_sizes_.empty() || chunk_length_ == 0) {  // plain gzip
      text_ = inflate_all(raw_, true, name_);
      whole_ = true;
      return;
    }
    chunk_starts_.push_back(pos);
    for (const std::size_t size : chunk_sizes_) chunk_starts_.push_back(chunk_starts_.back() + size);
    if (chunk_starts_.back() > raw_.size()) throw Error(name_ + ": shorter than its dictzip header says (reinstall it)");
  }

  /// `length` bytes from `offset` of the uncompressed text.
  std::string read(std::size_t offset, std::size_t length) const {
    if (chunk_starts_.empty()) return whole().substr(std::min(offset, whole().size()), length);
    std::string out;
    for (std::size_t chunk = offset / chunk_length_; out.size() < length && chunk < chunk_sizes_.size(); ++chunk) {
      const std::string piece = inflate_all(
          std::string_view(raw_).substr(chunk_starts_[chunk], chunk_sizes_[chunk]), false, name_);
      const std::size_t from = out.empty() ? offset - chunk * chunk_length_ : 0;
      if (from < piece.size()) out += piece.substr(from, length - out.size());
    }
    return out;
  }
  /// The whole uncompressed text.
  const std::string& whole() const {
    if (!whole_) {
      if (chunk_starts_.empty()) {
        text_ = raw_;
      } else {
        // Room for every chunk at once (and the last one's spare), so that the text never moves.
        text_.reserve(chunk_length_ * chunk_sizes_.size() + 65536);
        for (std::size_t chunk = 0; chunk < chunk_sizes_.size(); ++chunk)
          inflate_onto(text_, std::string_view(raw_).substr(chunk_starts_[chunk], chunk_sizes_[chunk]), false, name_);
      }
      whole_ = true;
    }
    return text_;
  }

 private:
  std::string name_;
  MappedFile file_;
  std::string_view raw_;  // the file's bytes, read in place
  std::size_t chunk_length_ = 0;
  std::vector<std::size_t> chunk_sizes_;
  std::vector<std::size_t> chunk_starts_;
  mutable std::string text_;
  mutable bool whole_ = false;
};

struct IndexEntry {
  std::string_view headword;
  std::size_t offset = 0;
  std::size_t length = 0;
};

// Calls `visit` for each well-formed line of a dictd index ("headword TAB offset TAB length").
// With `first_bytes`, only for the lines whose headword starts with one of them: the others (most
// of a 500,000-line index) are passed over without being parsed.
void for_each_entry(std::string_view index, const std::function<void(const IndexEntry&)>& visit,
                    const std::bitset<256>* first_bytes = nullptr) {
  for (std::size_t begin = 0; begin < index.size();) {
    std::size_t end = index.find('\n', begin);
    if (end == std::string_view::npos) end = index.size();
    const std::string_view line = index.substr(begin, end - begin);
    begin = end + 1;
    if (first_bytes && (line.empty() || !(*first_bytes)[static_cast<unsigned char>(line[0])])) continue;
    const std::size_t tab1 = line.find('\t');
    const std::size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) continue;
    const auto offset = dictd_number(line.substr(tab1 + 1, tab2 - tab1 - 1));
    const auto length = dictd_number(line.substr(tab2 + 1));
    if (offset && length) visit({line.substr(0, tab1), *offset, *length});
  }
}

// The English translations of a forward (X-to-English) entry, in the order it gives them: the
// lines after its headword line, without notes, examples, cross-references and the grammar in
// <>, [] and ().
std::vector<std::string> translations_of(std::string_view entry) {
  std::vector<std::string> out;
  std::size_t begin = entry.find('\n');
  while (begin != std::string_view::npos && begin < entry.size()) {
    ++begin;
    std::size_t end = entry.find('\n', begin);
    if (end == std::string_view::npos) end = entry.size();
    std::string_view line = entry.substr(begin, end - begin);
    begin = end;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.starts_with("Note") || line.starts_with("Synonym") || line.starts_with("see") || line.starts_with("\"") ||
        line.starts_with("{") || line.starts_with("Example"))
      continue;
    std::size_t digits = 0;  // "1. damage"
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0 && digits < line.size() && (line[digits] == '.' || line[digits] == ')')) line.remove_prefix(digits + 1);
    std::string item;
    int depth = 0;
    const auto end_item = [&] {
      const auto a = item.find_first_not_of(' ');
      if (a != std::string::npos) out.push_back(item.substr(a, item.find_last_not_of(' ') - a + 1));
      item.clear();
    };
    for (const char c : line) {
      if (c == '<' || c == '[' || c == '(' || c == '{') ++depth;
      else if (c == '>' || c == ']' || c == ')' || c == '}') depth = std::max(0, depth - 1);
      else if (depth > 0) continue;
      else if (c == ',' || c == ';') end_item();
      else if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == ' ' || c == '-' || c == '\'' ||
               static_cast<unsigned char>(c) >= 0x80)
        item += c;
    }
    end_item();
  }
  std::vector<std::string> english;
  for (auto& t : out)  // a translation with letters beyond ASCII is not English
    if (!t.empty() && t.size() < 40 && std::all_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
      english.push_back(utf8::lower(t));
  return english;
}

// A dictionary on disk, opened on first use.
class Dictionary {
 public:
  Dictionary(std::filesystem::path index, std::filesystem::path text) : index_path_(std::move(index)), text_path_(std::move(text)) {}

  // Forward: the translations of each of `words` (lower case), or, when the word itself is not a
  // headword, of one of the same stem, or of the form it was inflected from.
  std::map<std::string, std::vector<std::string>> translate(const std::vector<std::string>& words,
                                                             const Stemmer& stemmer) {
    open();
    std::map<std::string, std::vector<IndexEntry>> exact, stemmed, uninflected;
    std::vector<std::string> stems, uninflected_forms;  // of each of `words`
    std::bitset<256> firsts;  // the bytes headwords of `words` start with, in either case
    for (const auto& w : words) {
      stems.push_back(stemmer.stem(w));
      uninflected_forms.push_back(stemmer.uninflected(stems.back()));
      firsts.set(static_cast<unsigned char>(w[0]));
      if (w[0] >= 'a' && w[0] <= 'z') firsts.set(static_cast<unsigned char>(w[0] - 'a' + 'A'));
    }
    for_each_entry(
        index_,
        [&](const IndexEntry& e) {
          const std::string lowered = utf8::lower(e.headword);
          for (std::size_t i = 0; i < words.size(); ++i) {
            const std::string& w = words[i];
            const std::string& stem = stems[i];
            if (lowered == w) exact[w].push_back(e);
            else if (lowered.size() >= stem.size() && lowered.compare(0, stem.size(), stem) == 0 &&
                     lowered.size() <= w.size() + 4 && stemmer.stem(lowered) == stem)
              stemmed[w].push_back(e);
            else if (!uninflected_forms[i].empty() && lowered == uninflected_forms[i]) uninflected[w].push_back(e);
          }
        },
        &firsts);
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& w : words) {
      const std::vector<IndexEntry>& entries = exact.count(w) ? exact[w] : stemmed.count(w) ? stemmed[w] : uninflected[w];
      for (std::size_t i = 0; i < entries.size() && i < 2 && out[w].size() < kCandidatesPerWord; ++i)
        for (auto& t : translations_of(text_->read(entries[i].offset, entries[i].length)))
          if (out[w].size() < kCandidatesPerWord && std::find(out[w].begin(), out[w].end(), t) == out[w].end())
            out[w].push_back(std::move(t));
      if (out[w].empty()) out.erase(w);
    }
    return out;
  }

  // Reverse: the English headwords whose entries translate to a word of stem `stem` (or `word`
  // itself), those that give it first before the others.
  std::vector<std::string> headwords_for(const std::string& word, const std::string& stem, const Stemmer& stemmer) {
    open_whole();
    const std::string& text = text_->whole();
    const std::string other = stemmer.other_stem(stem);  // a prefix of `stem`
    const std::string needle = !other.empty() ? other : stem.size() >= kMinStemBytes ? stem : word;
    if (needle.size() < kMinStemBytes) return {};
    struct Candidate {
      std::string_view headword;
      std::size_t position;  // where the word is among the entry's translations
      std::size_t length;
    };
    std::vector<Candidate> found;
    const std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
    for (auto it = std::search(text.begin(), text.end(), searcher); it != text.end();
         it = std::search(it + 1, text.end(), searcher)) {
      const std::size_t at = static_cast<std::size_t>(it - text.begin());
      if (at > 0 && is_letter_before(text, at)) continue;
      std::size_t end = at;
      while (end < text.size()) {
        auto i = static_cast<int32_t>(end);
        UChar32 c = 0;
        U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), i, static_cast<int32_t>(text.size()), c);
        if (c < 0 || !u_isalpha(c)) break;
        end = static_cast<std::size_t>(i);
      }
      const std::string form = utf8::lower(std::string_view(text).substr(at, end - at));
      if (const std::string s = stemmer.stem(form); form != word && s != stem && (other.empty() || s != other)) continue;
      const auto entry = std::upper_bound(entries_.begin(), entries_.end(), at,
                                          [](std::size_t p, const IndexEntry& e) { return p < e.offset; });
      if (entry == entries_.begin()) continue;
      const IndexEntry& e = *std::prev(entry);
      if (at >= e.offset + e.length) continue;
      // Translations start with the entry's first non-ASCII letter (after the headword, its
      // pronunciation and grammar): the word given first there is the headword's main sense.
      std::size_t translations = e.offset;
      while (translations < at && static_cast<unsigned char>(text[translations]) < 0x80) ++translations;
      found.push_back({e.headword, at - translations, e.length});
    }
    std::stable_sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
      return a.position != b.position ? a.position < b.position : a.length < b.length;
    });
    std::vector<std::string> out;
    for (const Candidate& c : found) {
      const std::string h = utf8::lower(c.headword);
      // Words, not prefixes ("pro-") or letters.
      const bool english = h.size() > 2 && h.back() != '-' && h.front() != '-' &&
                           std::all_of(h.begin(), h.end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == ' ' || ch == '-'; });
      if (english && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
      if (out.size() == kCandidatesPerWord) break;
    }
    return out;
  }

 private:
  static bool is_letter_before(const std::string& text, std::size_t at) {
    auto i = static_cast<int32_t>(at);
    UChar32 c = 0;
    U8_PREV(reinterpret_cast<const uint8_t*>(text.data()), 0, i, c);
    return c >= 0 && u_isalpha(c);
  }
  void open() {
    if (text_) return;
    index_file_.emplace(index_path_);
    index_file_->read_through();
    index_ = index_file_->bytes();
    text_ = std::make_unique<DictText>(text_path_);
  }
  void open_whole() {
    if (!entries_.empty()) return;
    open();
    for_each_entry(index_, [&](const IndexEntry& e) {
      if (!e.headword.starts_with("00database")) entries_.push_back(e);
    });
    std::sort(entries_.begin(), entries_.end(), [](const IndexEntry& a, const IndexEntry& b) { return a.offset < b.offset; });
  }

  std::filesystem::path index_path_;
  std::filesystem::path text_path_;
  std::optional<MappedFile> index_file_;
  std::string_view index_;  // the index file's bytes, read in place
  std::unique_ptr<DictText> text_;
  std::vector<IndexEntry> entries_;  // a reverse dictionary's, by offset
};

// A token of a question: a word to translate, or text to keep as written.
struct Token {
  std::string text;
  bool keep = false;  // an identifier, a command, a name: not translated
};

bool is_cyrillic_text(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) == 0xD0 || static_cast<unsigned char>(c) == 0xD1; });
}

// The question cut into words and kept spans: `quoted` or "quoted" text, and words that are
// identifiers (digits, '_', '.', '/', inner capitals: tensor_parallel_size, vLLM, GPU), or, in a
// question written in Cyrillic, anything in Latin letters.
std::vector<Token> tokens_of(std::string_view question, bool cyrillic) {
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
    if (!is_word(i)) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < question.size() &&
           (is_word(end) || (std::string_view("._-/").find(question[end]) != std::string_view::npos && end + 1 < question.size() &&
                             is_word(end + 1))))
      ++end;
    std::string word(question.substr(i, end - i));
    i = end;
    // Guillemets, typographic quotes and Spanish marks are word bytes above; they are not part of words.
    for (const std::string_view mark : {"«", "»", "“", "”", "’", "„", "¿", "¡"})
      for (std::size_t at; (at = word.find(mark)) != std::string::npos;) word.erase(at, mark.size());
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
  Options languages = options.child("languages");
  if (languages.keys().empty()) {
    config.languages = default_languages();
  } else {
    for (const std::string& code : languages.keys()) {
      if (stemmer_name(code).empty()) languages.fail(code, "is not a language questions are translated from (fr, de, es, ru)");
      const YAML::Node list = languages.get<YAML::Node>(code, YAML::Node());
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
};

QueryTranslator::QueryTranslator() : state_(std::make_unique<State>()) {}
QueryTranslator::QueryTranslator(TranslationConfig config) : state_(std::make_unique<State>()) {
  state_->config = std::move(config);
  if (!state_->config.glossary.empty()) {
    std::vector<std::string> languages;
    for (const auto& [code, choices] : state_->config.languages) languages.push_back(code);
    state_->glossary = Glossary::read(state_->config.glossary, languages,
                                      [](std::string_view code, std::string_view word) { return Stemmer(code).stem(word); });
  }
}
QueryTranslator::~QueryTranslator() = default;

std::string QueryTranslator::translate(std::string_view question, const WordCount& corpus_count) const {
  if (!state_->config.enabled) return std::string(question);
  const std::string code(detect_language(question));
  const auto choices = state_->config.languages.find(code);
  if (choices == state_->config.languages.end()) return std::string(question);

  const std::vector<Token> tokens = tokens_of(question, code == "ru");
  const auto& vocabulary = question_vocabulary(code);
  const Stemmer stemmer(code);
  // The glossary's terms, longest first at each place: `glossed` holds the term a token starts,
  // `in_term` every token of one.
  std::vector<std::string> stems;
  for (const Token& t : tokens) stems.push_back(t.keep ? std::string() : stemmer.stem(utf8::lower(t.text)));
  std::vector<const Glossary::Term*> glossed(tokens.size(), nullptr);
  std::vector<bool> in_term(tokens.size(), false);
  for (std::size_t i = 0; i < tokens.size();) {
    std::size_t length = 0;
    glossed[i] = tokens[i].keep ? nullptr : state_->glossary.match(code, stems, i, length);
    if (glossed[i] == nullptr) length = 1;
    else std::fill(in_term.begin() + static_cast<std::ptrdiff_t>(i), in_term.begin() + static_cast<std::ptrdiff_t>(i + length), true);
    i += length;
  }
  // The words to look up: not kept, not in the glossary, not function words, not what is asked.
  std::vector<std::string> words;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const std::string w = utf8::lower(t.text);
    if (!t.keep && !in_term[i] && !vocabulary.count(w) && !is_function_word(code, w) &&
        std::find(words.begin(), words.end(), w) == words.end())
      words.push_back(w);
  }
  std::map<std::string, std::vector<std::string>> english;
  {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    for (const DictionaryChoice& choice : choices->second) {
      std::vector<std::string> missing;
      for (const auto& w : words)
        if (!english.count(w)) missing.push_back(w);
      if (missing.empty()) break;
      Dictionary& d = state_->dictionary(choice.name);
      if (choice.reverse) {
        for (const auto& w : missing)
          if (auto found = d.headwords_for(w, stemmer.stem(w), stemmer); !found.empty()) english[w] = std::move(found);
      } else {
        for (auto& [w, found] : d.translate(missing, stemmer)) english[w] = std::move(found);
      }
    }
  }
  std::string query;
  std::set<std::string> added;  // a word given twice would weigh twice
  const auto add = [&](std::string_view text) {
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = std::min(text.find(' ', begin), text.size());
      const std::string_view word = text.substr(begin, end - begin);
      begin = end + 1;
      if (word.empty() || !added.insert(utf8::lower(word)).second) continue;
      if (!query.empty()) query += ' ';
      query += word;
    }
  };
  // The readings of one word of the question, joined by '|' ("change|alter"): answering counts
  // the word found when any of them is (question_words.hpp), retrieval reads each as a term. A
  // phrase among them ("rate of flow") is written as words.
  const auto add_readings = [&](const std::vector<std::string>& readings) {
    if (std::any_of(readings.begin(), readings.end(), [](const std::string& r) { return r.find(' ') != std::string::npos; })) {
      for (const std::string& r : readings) add(r);
      return;
    }
    std::string group;
    for (const std::string& r : readings)
      if (added.insert(utf8::lower(r)).second) group.append(group.empty() ? "" : "|").append(r);
    if (group.empty()) return;
    if (!query.empty()) query += ' ';
    query += group;
  };
  // Of the English candidates for `own`, a word as written, those the corpus uses, most used
  // first (dictionary order breaks ties); without counts, the dictionary's first. A candidate the
  // corpus never uses can match nothing: "waiter" for "serveur", a transliteration no loanword
  // matches. None when the corpus uses `own` itself at least as much as any of them: it is a term
  // of the field written alike in English ("cache", "Server", "compatible"), and its everyday
  // senses ("hide", "computer") would only blur the query. A phrase or compound ("by heart",
  // "water-front") counts by any of its words, so it is kept only when no single word the corpus
  // uses is offered: dictionaries give idioms and explanations besides the words.
  const auto best = [&](std::string_view own, std::vector<std::string> candidates) {
    if (corpus_count) {
      const auto phrase = [](const std::string& c) { return c.find_first_of(" -") != std::string::npos; };
      std::vector<std::pair<std::size_t, std::string>> counted;
      for (auto& c : candidates)
        if (const std::size_t n = corpus_count(c); n > 0) counted.emplace_back(n, std::move(c));
      if (std::any_of(counted.begin(), counted.end(), [&](const auto& c) { return !phrase(c.second); }))
        std::erase_if(counted, [&](const auto& c) { return phrase(c.second); });
      std::stable_sort(counted.begin(), counted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      if (!counted.empty() && corpus_count(own) >= counted.front().first) counted.clear();
      candidates.clear();
      for (auto& [n, c] : counted) candidates.push_back(std::move(c));
    }
    if (candidates.size() > kTranslationsPerWord) candidates.resize(kTranslationsPerWord);
    return candidates;
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const std::string w = utf8::lower(t.text);
    if (in_term[i]) {
      if (glossed[i] != nullptr) add(glossed[i]->english);
    } else if (t.keep) {
      add(t.text);
    } else if (const auto v = vocabulary.find(w); v != vocabulary.end()) {
      add(v->second);
    } else if (is_function_word(code, w)) {
      continue;
    } else {
      // Its translations, and, when the corpus can tell, the English words it may be the cognate
      // of; the word itself, which may be written the same in English ("configuration") or be a
      // name; in Latin letters when it is Cyrillic (loanwords).
      std::vector<std::string> candidates;
      if (const auto e = english.find(w); e != english.end()) candidates = e->second;
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
        const bool translated = std::any_of(candidates.begin(), candidates.end(), [&](const std::string& c) { return corpus_count(c) > 0; });
        if (!translated && code == "ru")
          for (const std::string& c : loanword_cognates(w))
            if (const std::size_t n = corpus_count(c); n > most) cognate = c, most = n;
        if (most > 0 && std::find(candidates.begin(), candidates.end(), cognate) == candidates.end())
          candidates.push_back(std::move(cognate));
      }
      std::vector<std::string> readings = best(t.text, candidates);
      const std::string latin = code == "ru" ? transliterated(w) : "";
      const bool translated = !readings.empty();
      for (const std::string& own : {t.text, latin})
        if (!own.empty() && (!corpus_count ? !translated : corpus_count(own) > 0)) readings.push_back(own);
      // A word the corpus never uses in any of its senses still belongs to the question: it
      // matches nothing, but answering must know that no source speaks of it ("gâteau": cake,
      // in the dictionary's first sense; "paella", "Quijote", which no dictionary knows, as written).
      if (readings.empty()) readings.push_back(known ? candidates.front() : t.text);
      add_readings(readings);
    }
  }
  return query.empty() ? std::string(question) : query;
}

}  // namespace rag
