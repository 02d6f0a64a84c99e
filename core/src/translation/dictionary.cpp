#include "dictionary.hpp"

#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <zlib.h>

#include <algorithm>
#include <bitset>
#include <functional>
#include <optional>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// Translations a dictionary offers per word, in its order (first senses first).
constexpr std::size_t kCandidatesPerWord = 8;
// Stems shorter than this match too many words of a reverse dictionary to mean anything.
constexpr std::size_t kMinStemBytes = 3;

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
// lines after its headword line, without notes, examples, cross-references, the grammar in <>,
// [] and (), and the placeholders of an object ("slash sth.", "tell sb. sth.": slash, tell).
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
      for (const std::string_view placeholder : {" sth", " sb"})
        for (std::size_t at; (at = (item + ' ').find(std::string(placeholder) + ' ')) != std::string::npos;)
          item.erase(at, placeholder.size());
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

}  // namespace

std::string_view stemmer_name(std::string_view code) {
  if (code == "fr") return "french";
  if (code == "de") return "german";
  if (code == "es") return "spanish";
  if (code == "ru") return "russian";
  return "";
}

Stemmer::Stemmer(std::string_view code) : german_(code == "de"), russian_(code == "ru") {
  if (const std::string name(stemmer_name(code)); !name.empty()) snowball_ = std::make_unique<SnowballStemmer>(name);
}

std::string Stemmer::uninflected(std::string_view stem) const {
  if (!german_ || stem.size() < 4 || (stem.back() != 'l' && stem.back() != 'r') || stem[stem.size() - 2] == 'e') return {};
  std::string out(stem.substr(0, stem.size() - 1));
  return out.append("e").append(1, stem.back());
}

std::string Stemmer::other_stem(std::string_view stem) const {
  // Snowball takes -ть for an infinitive's ending only after а or я; four letters at least are
  // left ("порт" is no form of "пора").
  static constexpr std::string_view te = "т";
  if (!russian_ || stem.size() < 5 * te.size() || !(stem.ends_with("ят") || stem.ends_with("ат"))) return {};
  return std::string(stem.substr(0, stem.size() - te.size()));
}

class Dictionary::Impl {
 public:
  Impl(std::filesystem::path index, std::filesystem::path text) : index_path_(std::move(index)), text_path_(std::move(text)) {}

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
      for (std::size_t i = 0; i < entries.size() && out[w].size() < kCandidatesPerWord; ++i)
        for (auto& t : translations_of(text_->read(entries[i].offset, entries[i].length)))
          if (out[w].size() < kCandidatesPerWord && std::find(out[w].begin(), out[w].end(), t) == out[w].end())
            out[w].push_back(std::move(t));
      if (out[w].empty()) out.erase(w);
    }
    return out;
  }

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
      // A form of the other stem only as the noun in -ть it stands for ("память", not "памятник").
      if (const std::string s = stemmer.stem(form);
          form != word && s != stem && (other.empty() || s != other || !form.ends_with("ть")))
        continue;
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

Dictionary::Dictionary(std::filesystem::path index, std::filesystem::path text)
    : impl_(std::make_unique<Impl>(std::move(index), std::move(text))) {}
Dictionary::~Dictionary() = default;

std::map<std::string, std::vector<std::string>> Dictionary::translate(const std::vector<std::string>& words,
                                                                      const Stemmer& stemmer) {
  return impl_->translate(words, stemmer);
}

std::vector<std::string> Dictionary::headwords_for(const std::string& word, const std::string& stem,
                                                   const Stemmer& stemmer) {
  return impl_->headwords_for(word, stem, stemmer);
}

}  // namespace rag
