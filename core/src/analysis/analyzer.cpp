#include "rag/analyzer.hpp"

#include <libstemmer.h>
#include <tbb/enumerable_thread_specific.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "rag/utf8.hpp"

namespace rag {
namespace {

bool is_joiner(char c) { return c == '.' || c == '-'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// What a code point is to the tokenizer. Letters and digits of every script make words;
// combining marks continue them; Chinese, Japanese and Korean characters, written without
// spaces, make runs that are indexed as overlapping pairs; pictographs and other symbols
// ("✅", "⚠") are terms of their own, as docs use them for meanings; everything else separates.
enum class Kind { separator, word, mark, cjk, symbol };

constexpr auto kAsciiWord = [] {
  std::array<bool, 128> word{};
  for (int c = 0; c < 128; ++c)
    word[static_cast<std::size_t>(c)] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return word;
}();

Kind kind_of(UChar32 c) {
  if (c < 0) return Kind::separator;  // a malformed sequence
  if (c < 0x80) return kAsciiWord[static_cast<std::size_t>(c)] ? Kind::word : Kind::separator;
  const auto category = U_GET_GC_MASK(c);
  if ((category & U_GC_M_MASK) != 0) return Kind::mark;
  if ((category & U_GC_SO_MASK) != 0) return Kind::symbol;
  if (!u_isalnum(c)) return Kind::separator;
  UErrorCode error = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(c, &error);
  const bool cjk = script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ||
                   script == USCRIPT_HANGUL;
  return cjk ? Kind::cjk : Kind::word;
}

// The code point at byte `i` of `text`, and the byte after it.
UChar32 next_code_point(std::string_view text, std::size_t& i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  auto at = static_cast<int32_t>(i);
  UChar32 code = 0;
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), at, static_cast<int32_t>(text.size()), code);
  i = static_cast<std::size_t>(at);
  return code;
}


// Calls `emit` with each part of an identifier: split at '_', '.', '-', at lower->Upper
// ("camelCase"), before the last capital of a run followed by lower case ("HTTPServer"), and
// with `split_digits` where ASCII letters meet digits ("Qwen2" -> Qwen, 2).
template <class Emit>
void for_each_part(std::string_view word, bool split_digits, Emit emit) {
  std::size_t begin = 0;
  auto flush = [&](std::size_t end) {
    if (end > begin) emit(word.substr(begin, end - begin));
    begin = end;
  };
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if (c == '_' || is_joiner(c)) {
      flush(i);
      begin = i + 1;
      continue;
    }
    if (i > begin && is_upper(c)) {
      const char prev = word[i - 1];
      const bool next_lower = i + 1 < word.size() && is_lower(word[i + 1]);
      if (is_lower(prev) || is_digit(prev) || (is_upper(prev) && next_lower)) flush(i);
    } else if (split_digits && i > begin && is_digit(c) != is_digit(word[i - 1]) &&
               static_cast<unsigned char>(c) < 0x80 && static_cast<unsigned char>(word[i - 1]) < 0x80) {
      flush(i);
    }
  }
  flush(word.size());
}

}  // namespace

// Words seen by a thread with their stems, at most this many: a corpus repeats its words, and a
// Snowball stem costs more than a lookup.
constexpr std::size_t kStemCache = 1 << 16;

// Snowball stemmers are not thread-safe: one per thread, made on first use, with its cache (no
// stem for a stopword: a word seen again is not looked up in the list either).
struct Analyzer::Stemming {
  std::unique_ptr<SnowballStemmer> stemmer;  // made when the thread first stems
  std::unordered_map<std::string, std::optional<std::string>> stems;
};

struct Analyzer::Impl {
  tbb::enumerable_thread_specific<Stemming> stemming;
};

AnalyzerConfig AnalyzerConfig::from_options(Options& options, const AnalyzerConfig& defaults) {
  AnalyzerConfig c = defaults;
  c.lowercase = options.get<bool>("lowercase", c.lowercase);
  c.split_identifiers = options.get<bool>("split_identifiers", c.split_identifiers);
  c.split_digits = options.get<bool>("split_digits", c.split_digits);
  c.keep_compound = options.get<bool>("keep_compound", c.keep_compound);
  c.stemmer = options.get<std::string>("stemmer", c.stemmer);
  c.stopwords = options.get_choice("stopwords", c.stopwords, stopword_lists());
  c.min_length = static_cast<std::size_t>(options.get_integer("min_length", static_cast<long long>(c.min_length), 1, 64));
  const std::vector<std::string> algorithms = snowball_algorithms();
  if (c.stemmer != "none" && std::find(algorithms.begin(), algorithms.end(), c.stemmer) == algorithms.end()) {
    std::string known;
    for (const std::string& name : algorithms) known += ", " + name;
    options.fail("stemmer", "'" + c.stemmer + "' is not a Snowball algorithm (known: none" + known + ")");
  }
  options.finish();
  return c;
}

SnowballStemmer::SnowballStemmer(const std::string& algorithm) : stemmer_(sb_stemmer_new(algorithm.c_str(), "UTF_8")) {
  if (stemmer_ == nullptr) throw Error("unknown Snowball stemmer '" + algorithm + "'");
}

SnowballStemmer::~SnowballStemmer() { sb_stemmer_delete(stemmer_); }

std::string SnowballStemmer::stem(std::string_view word) const {
  const sb_symbol* out =
      sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
  if (out == nullptr) return std::string(word);
  return {reinterpret_cast<const char*>(out), static_cast<std::size_t>(sb_stemmer_length(stemmer_))};
}

std::vector<std::string> snowball_algorithms() {
  std::vector<std::string> out;
  for (const char** name = sb_stemmer_list(); *name != nullptr; ++name) out.emplace_back(*name);
  return out;
}

Analyzer::Analyzer(AnalyzerConfig config) : config_(std::move(config)), impl_(std::make_unique<Impl>()) {
  if (config_.stemmer != "none") SnowballStemmer check(config_.stemmer);  // throws for an unknown one
}

Analyzer::~Analyzer() = default;

std::vector<std::string> Analyzer::analyze(std::string_view text) const {
  std::vector<std::string> terms;
  analyze(text, terms);
  return terms;
}

void Analyzer::analyze(std::string_view text, std::vector<std::string>& terms) const {
  Stemming* const stemming = config_.stemmer != "none" ? &impl_->stemming.local() : nullptr;
  const std::size_t n = text.size();
  // The kind of the code point at `at`, moving `at` past it.
  const auto take = [&](std::size_t& at) { return kind_of(next_code_point(text, at)); };
  const auto word_at = [&](std::size_t at) { return at < n && take(at) == Kind::word; };
  std::size_t i = 0;
  while (i < n) {
    const std::size_t begin = i;
    const Kind kind = take(i);
    if (kind == Kind::separator || kind == Kind::mark) continue;
    if (kind == Kind::symbol) {
      add_term(text.substr(begin, i - begin), stemming, terms);
      continue;
    }
    if (kind == Kind::cjk) {
      // A run of CJK characters: each pair of neighbours is a term (a lone one, itself).
      std::vector<std::size_t> starts{begin, i};
      for (std::size_t at = i; at < n && take(at) == Kind::cjk; i = at) starts.push_back(at);
      if (starts.size() == 2) add_term(text.substr(begin, i - begin), stemming, terms);
      for (std::size_t c = 0; c + 2 < starts.size(); ++c)
        add_term(text.substr(starts[c], starts[c + 2] - starts[c]), stemming, terms);
      continue;
    }
    // A word runs over letters, digits and marks, and over '.' or '-' between two of them.
    while (i < n) {
      std::size_t after = i;
      const Kind k = take(after);
      if (k == Kind::word || k == Kind::mark) {
        i = after;
      } else if (is_joiner(text[i]) && word_at(i + 1)) {
        ++i;
      } else {
        break;
      }
    }
    add_word(text.substr(begin, i - begin), stemming, terms);
  }
}

std::string Analyzer::normalise(std::string_view s) const { return config_.lowercase ? utf8::lower(s) : std::string(s); }

void Analyzer::add_term(std::string_view part, Stemming* stemming, std::vector<std::string>& terms) const {
  std::string term = normalise(part);
  if (term.size() < config_.min_length) return;
  if (!stemming) {
    if (!is_stopword(config_.stopwords, term)) terms.push_back(std::move(term));
    return;
  }
  if (const auto known = stemming->stems.find(term); known != stemming->stems.end()) {
    if (known->second) terms.push_back(*known->second);
    return;
  }
  std::optional<std::string> stemmed;
  if (!is_stopword(config_.stopwords, term)) {
    if (!stemming->stemmer) stemming->stemmer = std::make_unique<SnowballStemmer>(config_.stemmer);
    stemmed = stemming->stemmer->stem(term);
    terms.push_back(*stemmed);
  }
  if (stemming->stems.size() >= kStemCache) stemming->stems.clear();
  stemming->stems.emplace(std::move(term), std::move(stemmed));
}

void Analyzer::add_word(std::string_view word, Stemming* stemming, std::vector<std::string>& terms) const {
  if (!config_.split_identifiers) {
    add_term(word, stemming, terms);
    return;
  }
  // Compounds at two levels: each dotted or dashed segment that has parts of its own
  // ("llm_engine" in "vllm.engine.llm_engine", "step3_text" in "step3_text.py"), and the whole.
  std::size_t parts = 0;
  std::size_t segment_begin = 0;
  for (std::size_t i = 0; i <= word.size(); ++i) {
    if (i < word.size() && !is_joiner(word[i])) continue;
    const std::string_view segment = word.substr(segment_begin, i - segment_begin);
    std::size_t segment_parts = 0;
    for_each_part(segment, config_.split_digits, [&](std::string_view part) {
      ++segment_parts;
      add_term(part, stemming, terms);
    });
    if (config_.keep_compound && segment_parts > 1 && segment.size() < word.size()) add_compound(segment, stemming, terms);
    parts += segment_parts;
    segment_begin = i + 1;
  }
  if (config_.keep_compound && parts > 1) add_compound(word, stemming, terms);
}

void Analyzer::add_compound(std::string_view compound, Stemming* stemming, std::vector<std::string>& terms) const {
  // One written without '_', '.' or '-' ("PagedAttention") may be typed as one word
  // ("pagedattention"), which is stemmed: so is it. One with them is typed with them, and met
  // as it is (stemming it too would cost a Snowball call for each of the corpus's many).
  if (compound.find_first_of("_.-") == std::string_view::npos) add_term(compound, stemming, terms);
  else terms.push_back(normalise(compound));
}

std::vector<std::pair<std::string, std::uint32_t>> count_terms(std::vector<std::string> terms) {
  std::sort(terms.begin(), terms.end());
  std::vector<std::pair<std::string, std::uint32_t>> counted;
  for (std::size_t t = 0; t < terms.size();) {
    std::size_t u = t;
    while (u < terms.size() && terms[u] == terms[t]) ++u;
    counted.emplace_back(std::move(terms[t]), static_cast<std::uint32_t>(u - t));
    t = u;
  }
  return counted;
}

AnalyzerSet::AnalyzerSet(Options& analysis, const AnalyzerConfig& defaults) {
  AnalyzerConfig base = defaults;
  if (analysis.has("default")) {
    Options o = analysis.child("default");
    base = AnalyzerConfig::from_options(o, defaults);
  }
  default_id_ = add(base);
  for (const auto& kind : analysis.keys()) {
    if (kind == "default") continue;
    Options o = analysis.child(kind);
    by_kind_.emplace_back(kind, add(AnalyzerConfig::from_options(o, base)));
  }
  analysis.finish();
}

std::uint32_t AnalyzerSet::add(const AnalyzerConfig& config) {
  for (std::size_t i = 0; i < analyzers_.size(); ++i)
    if (analyzers_[i]->config() == config) return static_cast<std::uint32_t>(i);
  analyzers_.push_back(std::make_unique<Analyzer>(config));
  return static_cast<std::uint32_t>(analyzers_.size() - 1);
}

std::uint32_t AnalyzerSet::id_for_kind(std::string_view kind) const {
  for (const auto& [k, id] : by_kind_)
    if (k == kind) return id;
  return default_id_;
}

}  // namespace rag
