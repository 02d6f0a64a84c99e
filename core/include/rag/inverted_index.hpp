#pragma once
// The inverted index of one segment: for every term, the chunks that contain it and how often,
// and every chunk's length in terms. Lexical retrievers (bm25, tfidf, ...) write one per segment
// into their own file and read it in place. Terms come from the AnalyzerSet: each chunk is
// analyzed by the analyzer of its kind, and a query must be analyzed by each analyzer in turn,
// scoring only the chunks of that analyzer.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/binary_file.hpp"
#include "rag/retriever.hpp"

namespace rag {

/// What of a chunk is indexed besides its text.
struct IndexedFields {
  bool path = true;     ///< the file path below the corpus root ("vllm/entrypoints/openai/api_server.py")
  bool section = true;  ///< the header path or qualified name

  /// Reads index_path and index_section.
  static IndexedFields from_options(Options& options);
};

class InvertedIndex {
 public:
  struct Postings {
    std::span<const std::uint32_t> chunks;       ///< ascending chunk ids (in the segment)
    std::span<const std::uint32_t> frequencies;  ///< term frequency in each
  };

  /// Analyzes `chunks` in parallel and appends their index to `out` (kSections sections).
  static void write(const SegmentChunks& chunks, const AnalyzerSet& analyzers, IndexedFields fields, BinaryWriter& out);
  /// Appends to `out` the index of the chunks of `sources` that are not removed, in order,
  /// numbered from 0: what write() makes of them. `indexes[i]` is the index of segment i.
  static void merge(const SegmentList& sources, std::span<const InvertedIndex* const> indexes, BinaryWriter& out);

  /// Reads in place the kSections sections of `in` from `first` on, written for `chunks` chunks.
  /// Throws rag::Error when their sizes do not fit together.
  InvertedIndex(const BinaryReader& in, std::size_t first, std::size_t chunks);
  static constexpr std::size_t kSections = 8;

  std::size_t chunk_count() const { return lengths_.size(); }
  std::size_t term_count() const { return term_offsets_.empty() ? 0 : term_offsets_.size() - 1; }
  /// Number of terms indexed for the chunk.
  std::uint32_t length(std::uint32_t chunk) const { return lengths_[chunk]; }
  /// The sum of all chunks' lengths.
  std::uint64_t total_length() const { return total_length_; }
  /// The AnalyzerSet id the chunk was analyzed with.
  std::uint32_t analyzer_of(std::uint32_t chunk) const { return analyzer_of_[chunk]; }
  /// Empty postings for a term no chunk contains.
  Postings postings(std::string_view term) const;
  std::string_view term(std::size_t id) const;
  Postings postings_of(std::size_t id) const;
  /// Throws rag::Error naming the file: the index is damaged.
  [[noreturn]] void damaged() const { in_.damaged("is inconsistent"); }

 private:
  const BinaryReader& in_;
  std::string_view terms_;  // sorted, concatenated; term i is [term_offsets_[i], term_offsets_[i + 1])
  std::span<const std::uint64_t> term_offsets_;
  std::span<const std::uint64_t> posting_offsets_;  // postings of term i: [posting_offsets_[i], [i + 1])
  std::span<const std::uint32_t> posting_chunks_;
  std::span<const std::uint32_t> posting_frequencies_;
  std::span<const std::uint32_t> lengths_;
  std::span<const std::uint32_t> analyzer_of_;
  std::uint64_t total_length_ = 0;
};

/// The inverted indexes of every segment of an index, each in its segment's file `<dir>/<name>`
/// (a BinaryFile of `kind` and `version` that holds it from section 0), opened together, with
/// the statistics of the chunks not removed: what a lexical retriever scores with.
class InvertedIndexSet {
 public:
  struct FileFormat {
    std::string name;  ///< "bm25.bin"
    std::string kind;  ///< "bm25"
    std::uint32_t version = 1;
  };
  explicit InvertedIndexSet(FileFormat format) : format_(std::move(format)) {}
  ~InvertedIndexSet();

  /// Writes the file of a new segment holding `chunks` into `dir`.
  void build(const SegmentChunks& chunks, const AnalyzerSet& analyzers, IndexedFields fields,
             const std::filesystem::path& dir) const;
  /// Writes into `dir` the file of the segment that merges `sources` (see Retriever::merge),
  /// from their files, whose checksums are verified first.
  void merge(const SegmentList& sources, const std::filesystem::path& dir) const;
  /// Opens the files of `segments`, which must outlive this.
  void open(const SegmentList& segments);

  /// A segment with its file read in place.
  struct Part {
    Part(const Segment& s, const FileFormat& format);
    const Segment& segment;
    BinaryReader reader;
    InvertedIndex index;  // reads from `reader`
  };
  const std::vector<std::unique_ptr<Part>>& parts() const { return parts_; }
  const SegmentList& segments() const { return *segments_; }
  /// Chunks not removed, and the sum of their lengths.
  std::uint64_t live_chunks() const { return live_chunks_; }
  std::uint64_t live_length() const { return live_length_; }

  /// A term's postings in each part (parts() order) and how many chunks not removed hold it.
  struct TermPostings {
    std::uint64_t document_frequency = 0;
    std::vector<InvertedIndex::Postings> in_part;
  };
  TermPostings postings(std::string_view term) const;
  /// Calls `visit(id, part, tf, chunk)` for every posting of `postings` of a chunk not removed,
  /// in part order: `id` is the index-wide chunk id, `chunk` the id in the part, `tf` the term's
  /// frequency in it. A chunk id outside its part stops with an error.
  template <class Visit>
  void for_each_posting(const TermPostings& postings, Visit visit) const {
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const Part& part = *parts_[p];
      const InvertedIndex::Postings& in_part = postings.in_part[p];
      const bool removals = !part.segment.removed.empty();
      for (std::size_t i = 0; i < in_part.chunks.size(); ++i) {
        const std::uint32_t c = in_part.chunks[i];
        if (c >= part.index.chunk_count()) part.index.damaged();
        if (removals && part.segment.is_removed(c)) continue;
        visit(part.segment.base + c, part, in_part.frequencies[i], c);
      }
    }
  }

 private:
  FileFormat format_;
  const SegmentList* segments_ = nullptr;
  std::vector<std::unique_ptr<Part>> parts_;
  std::uint64_t live_chunks_ = 0;
  std::uint64_t live_length_ = 0;
};

}  // namespace rag
