#pragma once
// The inverted index of one segment: for every term, the chunks that contain it and how often,
// and every chunk's length in terms. Lexical retrievers (bm25, tfidf, ...) write one per segment
// into their own file and read it in place. Terms come from the AnalyzerSet: each chunk is
// analyzed by the analyzer of its kind, and a query must be analyzed by each analyzer in turn,
// scoring only the chunks of that analyzer. Besides the counts over the whole chunk, each
// posting and each chunk also count the fields apart (FieldCounts), for per-field scoring.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/binary_file.hpp"
#include "rag/retriever.hpp"
#include "rag/score_accumulator.hpp"

namespace rag {

/// What of a chunk is indexed besides its text.
struct IndexedFields {
  bool path = true;     ///< the file path below the corpus root ("vllm/entrypoints/openai/api_server.py")
  bool section = true;  ///< the header path or qualified name
  /// With `path`: the page's title in the path field of every chunk of the file, passages
  /// without a header path included. The title is the first level of the header path of the
  /// file's first Markdown chunk (a file without one has none).
  bool title = false;

  /// Reads index_path, index_section and index_title.
  static IndexedFields from_options(Options& options);
};

/// Counts for the two fields besides the text (see IndexedFields): the path field (the path,
/// and the title with `title`) and the section field. Stored as one 32-bit word, 16 bits each,
/// a count past 65535 kept at 65535.
struct FieldCounts {
  std::uint32_t path = 0;
  std::uint32_t section = 0;

  std::uint32_t packed() const { return std::min<std::uint32_t>(path, 0xFFFF) | std::min<std::uint32_t>(section, 0xFFFF) << 16; }
  static FieldCounts unpack(std::uint32_t word) { return {word & 0xFFFF, word >> 16}; }
};

class InvertedIndex {
 public:
  struct Postings {
    std::span<const std::uint32_t> chunks;       ///< ascending chunk ids (in the segment)
    std::span<const std::uint32_t> frequencies;  ///< term frequency in each, all fields together
    std::span<const std::uint32_t> fields;       ///< FieldCounts::packed() of the frequency in each field
  };

  /// Analyzes `chunks` in parallel and appends their index to `out` (kSections sections).
  static void write(const SegmentChunks& chunks, const AnalyzerSet& analyzers, IndexedFields fields, BinaryWriter& out);
  /// Appends to `out` the index of the chunks of `sources` that are not removed, in order,
  /// numbered from 0: what write() makes of them. `indexes[i]` is the index of segment i.
  static void merge(const SegmentList& sources, std::span<const InvertedIndex* const> indexes, BinaryWriter& out);

  /// Reads in place the kSections sections of `in` from `first` on, written for `chunks` chunks.
  /// Throws rag::Error when their sizes do not fit together.
  InvertedIndex(const BinaryReader& in, std::size_t first, std::size_t chunks);
  static constexpr std::size_t kSections = 10;

  std::size_t chunk_count() const { return lengths_.size(); }
  std::size_t term_count() const { return term_offsets_.empty() ? 0 : term_offsets_.size() - 1; }
  /// Number of terms indexed for the chunk, all fields together.
  std::uint32_t length(std::uint32_t chunk) const { return lengths_[chunk]; }
  /// How many of those are in its path and section fields (the rest are its text's).
  FieldCounts field_lengths(std::uint32_t chunk) const { return FieldCounts::unpack(field_lengths_[chunk]); }
  /// The sum of all chunks' lengths, and of their path and section field lengths.
  std::uint64_t total_length() const { return totals_[0]; }
  std::uint64_t total_path_length() const { return totals_[1]; }
  std::uint64_t total_section_length() const { return totals_[2]; }
  /// The AnalyzerSet id the chunk was analyzed with.
  std::uint32_t analyzer_of(std::uint32_t chunk) const { return analyzer_of_[chunk]; }
  /// Empty postings for a term no chunk contains.
  Postings postings(std::string_view term) const;
  std::string_view term(std::size_t id) const;
  Postings postings_of(std::size_t id) const;
  /// Throws rag::Error naming the file: the index is damaged.
  [[noreturn]] void damaged() const { in_.damaged("is inconsistent"); }

 private:
  /// Appends the per-chunk sections (lengths, field lengths, analyzers) and the totals.
  static void write_lengths(std::span<const std::uint32_t> lengths, std::span<const std::uint32_t> field_lengths,
                            std::span<const std::uint32_t> analyzer_of, BinaryWriter& out);

  const BinaryReader& in_;
  std::string_view terms_;  // sorted, concatenated; term i is [term_offsets_[i], term_offsets_[i + 1])
  std::span<const std::uint64_t> term_offsets_;
  std::span<const std::uint64_t> posting_offsets_;  // postings of term i: [posting_offsets_[i], [i + 1])
  std::span<const std::uint32_t> posting_chunks_;
  std::span<const std::uint32_t> posting_frequencies_;
  std::span<const std::uint32_t> posting_fields_;
  std::span<const std::uint32_t> lengths_;
  std::span<const std::uint32_t> field_lengths_;
  std::span<const std::uint32_t> analyzer_of_;
  std::span<const std::uint64_t> totals_;
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
    std::vector<std::uint32_t> removed;  ///< the ids of the segment's removed chunks, ascending
  };
  const std::vector<std::unique_ptr<Part>>& parts() const { return parts_; }
  /// Chunks not removed, the sum of their lengths, and of their path and section field lengths.
  std::uint64_t live_chunks() const { return live_chunks_; }
  std::uint64_t live_length() const { return live_length_; }
  std::uint64_t live_path_length() const { return live_path_length_; }
  std::uint64_t live_section_length() const { return live_section_length_; }

  /// A term's postings in each part (parts() order) and how many chunks not removed hold it.
  struct TermPostings {
    std::uint64_t document_frequency = 0;
    std::vector<InvertedIndex::Postings> in_part;
  };
  TermPostings postings(std::string_view term) const;
  /// Calls `visit(id, part, tf, chunk)` for every posting of `postings` of a chunk not removed,
  /// in part order: `id` is the index-wide chunk id, `chunk` the id in the part, `tf` the term's
  /// frequency in it; a `visit` that takes a fifth argument also gets the term's FieldCounts
  /// there. A chunk id outside its part stops with an error.
  template <class Visit>
  void for_each_posting(const TermPostings& postings, Visit visit) const {
    walk(postings, nullptr, visit);
  }
  /// for_each_posting for the chunks that `among` has scored only: what a common term adds to
  /// the candidates of rarer ones. Faster than testing in `visit`: the postings are first
  /// filtered without a branch, which a test mispredicts about as often as it passes.
  template <class Visit>
  void for_each_posting_among(const TermPostings& postings, const ScoreAccumulator& among, Visit visit) const {
    walk(postings, &among, visit);
  }

 private:
  template <class Visit>
  void walk(const TermPostings& postings, const ScoreAccumulator* among, Visit visit) const {
    thread_local std::vector<std::uint32_t> kept;  // positions in a part's postings, with `among`
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const Part& part = *parts_[p];
      // Read once into locals: through the references, each posting would load them again.
      const std::uint32_t* const chunks = postings.in_part[p].chunks.data();
      const std::uint32_t* const frequencies = postings.in_part[p].frequencies.data();
      const std::uint32_t* const fields = postings.in_part[p].fields.data();
      const std::size_t size = postings.in_part[p].chunks.size();
      const std::size_t chunk_count = part.index.chunk_count();
      constexpr std::size_t kIdLimit = std::numeric_limits<std::uint32_t>::max();
      const auto limit = static_cast<std::uint32_t>(std::min(chunk_count, kIdLimit));  // as chunk ids compare
      const Segment& segment = part.segment;
      const std::uint32_t base = segment.base;
      // The postings at positions(j) for j below n, whose chunk ids are known to be in the part;
      // a loop for segments without removals, which has no test for them.
      const auto visit_each = [&](std::size_t n, auto positions) {
        const auto run = [&]<bool Removals>() {
          for (std::size_t j = 0; j < n; ++j) {
            const std::size_t i = positions(j);
            const std::uint32_t c = chunks[i];
            if (Removals && segment.is_removed(c)) continue;
            if constexpr (std::is_invocable_v<Visit, std::uint32_t, const Part&, std::uint32_t, std::uint32_t, FieldCounts>)
              visit(base + c, part, frequencies[i], c, FieldCounts::unpack(fields[i]));
            else
              visit(base + c, part, frequencies[i], c);
          }
        };
        if (segment.removed.empty()) run.template operator()<false>();
        else run.template operator()<true>();
      };
      // Chunk ids checked together, in a loop the compiler vectorises, rather than by a branch on
      // each in the loops that read them.
      const auto check = [&](std::size_t begin, std::size_t end) {
        std::uint32_t outside = 0;
        for (std::size_t i = begin; i < end; ++i) outside |= chunks[i] >= limit;
        if (outside != 0) part.index.damaged();
      };
      if (!among) {
        check(0, size);
        visit_each(size, [](std::size_t j) { return j; });
        continue;
      }
      if (kept.size() < size) kept.resize(size);
      std::uint32_t* const positions = kept.data();  // not the thread's vector looked up at each posting
      const std::uint8_t* const scored = among->scored_flags() + base;
      std::size_t n = 0;
      for (std::size_t begin = 0; begin < size; begin += kFilterBlock) {
        const std::size_t end = std::min(size, begin + kFilterBlock);
        check(begin, end);
#pragma GCC unroll 4
        for (std::size_t i = begin; i < end; ++i) {
          positions[n] = static_cast<std::uint32_t>(i);
          n += scored[chunks[i]];
        }
      }
      visit_each(n, [positions](std::size_t j) { return positions[j]; });
    }
  }

  static constexpr std::size_t kFilterBlock = 256;  // postings whose chunk ids are checked at once

  FileFormat format_;
  std::vector<std::unique_ptr<Part>> parts_;
  std::uint64_t live_chunks_ = 0;
  std::uint64_t live_length_ = 0;
  std::uint64_t live_path_length_ = 0;
  std::uint64_t live_section_length_ = 0;
};

}  // namespace rag
