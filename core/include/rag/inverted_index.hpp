#pragma once
// An inverted index over chunks: for every term, the chunks that contain it and how often.
// Lexical retrievers (bm25, tfidf, ...) build one and score from it. Terms come from the
// AnalyzerSet: each chunk is analyzed by the analyzer of its kind, and a query must be
// analyzed by each analyzer in turn, scoring only the chunks of that analyzer.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/binary_file.hpp"
#include "rag/chunk.hpp"

namespace rag {

/// What of a chunk is indexed besides its text.
struct IndexedFields {
  bool path = true;     ///< the file path ("vllm/entrypoints/openai/api_server.py")
  bool section = true;  ///< the header path or qualified name

  /// Reads index_path and index_section.
  static IndexedFields from_options(Options& options);
};

class InvertedIndex {
 public:
  struct Postings {
    std::span<const std::uint32_t> chunks;       ///< ascending chunk ids
    std::span<const std::uint32_t> frequencies;  ///< term frequency in each
    std::uint64_t offset = 0;  ///< where these postings start among all postings (see posting_count)
  };

  /// Analyzes every chunk in parallel and builds the postings.
  void build(ChunkList chunks, const AnalyzerSet& analyzers, IndexedFields fields);
  void save(BinaryWriter& out) const;
  /// Throws rag::Error when the data is inconsistent or made for `expected_chunks` other chunks.
  void load(BinaryReader& in, std::size_t expected_chunks);

  std::size_t chunk_count() const { return lengths_.size(); }
  std::size_t term_count() const { return term_offsets_.empty() ? 0 : term_offsets_.size() - 1; }
  /// Postings of all terms together; Postings::offset indexes into that many values.
  std::size_t posting_count() const { return posting_chunks_.size(); }
  /// Number of terms indexed for the chunk.
  std::uint32_t length(std::uint32_t chunk) const { return lengths_[chunk]; }
  double average_length() const { return average_length_; }
  /// The AnalyzerSet id the chunk was analyzed with.
  std::uint32_t analyzer_of(std::uint32_t chunk) const { return analyzer_of_[chunk]; }
  /// Empty postings for a term no chunk contains.
  Postings postings(std::string_view term) const;
  /// Calls `visit(postings)` for every term of the vocabulary.
  template <class Visit>
  void for_each_term(Visit visit) const {
    for (std::size_t t = 0; t < term_count(); ++t) visit(postings_of(t));
  }

 private:
  std::string_view term(std::size_t id) const;
  Postings postings_of(std::size_t id) const;

  // Terms sorted, concatenated; term i is terms_[term_offsets_[i], term_offsets_[i + 1]).
  std::string terms_;
  std::vector<std::uint64_t> term_offsets_;
  // Postings of term i: [posting_offsets_[i], posting_offsets_[i + 1]) in the two arrays.
  std::vector<std::uint64_t> posting_offsets_;
  std::vector<std::uint32_t> posting_chunks_;
  std::vector<std::uint32_t> posting_frequencies_;
  std::vector<std::uint32_t> lengths_;
  std::vector<std::uint32_t> analyzer_of_;
  double average_length_ = 0;
};

}  // namespace rag
