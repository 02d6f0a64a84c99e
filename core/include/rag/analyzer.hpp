#pragma once
// Text analysis: from text to the terms an inverted index stores and a query looks up.
// One Analyzer per configuration; retrievers pick one per file kind.
#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "rag/options.hpp"

struct sb_stemmer;  // libstemmer's

namespace rag {

struct AnalyzerConfig {
  bool lowercase = true;
  /// Split identifiers into their words: snake_case, camelCase, HTTPServer, dotted.paths and
  /// dashed-words all yield their parts.
  bool split_identifiers = true;
  /// With split_identifiers, also split where letters meet digits ("Qwen2" -> qwen, 2).
  bool split_digits = true;
  /// With split_identifiers, also keep the whole identifier as one term ("max_model_len").
  bool keep_compound = true;
  /// A Snowball algorithm ("english", "porter", "french", ...) or "none".
  std::string stemmer = "english";
  /// A stopword list ("english") or "none". Compound identifiers are never dropped.
  std::string stopwords = "english";
  /// Terms shorter than this many bytes are dropped (compounds excepted).
  std::size_t min_length = 1;

  /// Reads the keys above from `options` (lowercase, split_identifiers, split_digits,
  /// keep_compound, stemmer, stopwords, min_length), starting from `defaults`, and checks
  /// no other key is present.
  static AnalyzerConfig from_options(Options& options, const AnalyzerConfig& defaults);
  friend bool operator==(const AnalyzerConfig&, const AnalyzerConfig&) = default;
};

/// One Snowball algorithm ("english", "russian", ...) over UTF-8 words. Not thread-safe: one per
/// thread.
class SnowballStemmer {
 public:
  /// Throws rag::Error for an algorithm Snowball does not have (snowball_algorithms() lists them).
  explicit SnowballStemmer(const std::string& algorithm);
  ~SnowballStemmer();
  SnowballStemmer(const SnowballStemmer&) = delete;
  SnowballStemmer& operator=(const SnowballStemmer&) = delete;

  /// The stem of `word` (lower case); the word itself when Snowball fails on it (out of memory).
  std::string stem(std::string_view word) const;

 private:
  ::sb_stemmer* stemmer_;
};

/// The Snowball algorithms this build has.
std::vector<std::string> snowball_algorithms();

class Analyzer {
 public:
  /// Throws rag::Error for an unknown stemmer or stopword list.
  explicit Analyzer(AnalyzerConfig config);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// Appends the terms of `text` to `terms`, in text order. Thread-safe.
  void analyze(std::string_view text, std::vector<std::string>& terms) const;
  std::vector<std::string> analyze(std::string_view text) const;

  const AnalyzerConfig& config() const { return config_; }

 private:
  struct Stemming;  // the calling thread's stemmer and what it has stemmed; null without a stemmer
  void add_word(std::string_view word, Stemming* stemming, std::vector<std::string>& terms) const;
  /// An identifier's whole form, or a dotted segment's (keep_compound).
  void add_compound(std::string_view compound, Stemming* stemming, std::vector<std::string>& terms) const;
  /// Lowercases, drops stopwords and short terms, stems.
  void add_term(std::string_view part, Stemming* stemming, std::vector<std::string>& terms) const;
  /// `s` lowercased when the configuration says so.
  std::string normalise(std::string_view s) const;

  AnalyzerConfig config_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Distinct terms with how often each occurs, sorted by term.
std::vector<std::pair<std::string, std::uint32_t>> count_terms(std::vector<std::string> terms);

/// The analyzers of a retriever, one per file kind: the `analysis:` option maps a chunk kind
/// ("python", "markdown", ...) or "default" to analyzer options; kinds not named use "default".
/// Kinds with equal configurations share one analyzer.
class AnalyzerSet {
 public:
  /// Reads `analysis` (may be empty) over `defaults` and checks its keys.
  AnalyzerSet(Options& analysis, const AnalyzerConfig& defaults = {});

  /// Index in analyzers() of the analyzer for chunks of `kind`.
  std::uint32_t id_for_kind(std::string_view kind) const;
  const std::vector<std::unique_ptr<Analyzer>>& analyzers() const { return analyzers_; }

 private:
  std::uint32_t add(const AnalyzerConfig& config);

  std::vector<std::unique_ptr<Analyzer>> analyzers_;
  std::vector<std::pair<std::string, std::uint32_t>> by_kind_;
  std::uint32_t default_id_ = 0;
};

/// True when `word` (lower case) is in the named stopword list ("english"). "none" is empty.
bool is_stopword(std::string_view list, std::string_view word);
/// The stopword lists this build knows.
std::vector<std::string> stopword_lists();

}  // namespace rag
