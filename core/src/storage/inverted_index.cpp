#include "rag/inverted_index.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace rag {
namespace {

enum Section : std::size_t {
  kTerms,
  kTermOffsets,
  kPostingOffsets,
  kPostingChunks,
  kPostingFrequencies,
  kPostingFields,
  kLengths,
  kFieldLengths,
  kAnalyzers,
  kTotals
};

// The field of a term occurrence, as FieldCounts counts them (the text is not counted apart).
enum Field : std::uint32_t { kText, kPath, kSectionField };

// A chunk's distinct terms: an id (the thread's, then the segment's), its frequency in all
// fields, and in the path and section fields (FieldCounts::packed()).
struct Counted {
  std::uint32_t id;
  std::uint32_t tf;
  std::uint32_t fields;
};

// The page title of each file of `chunks` (see IndexedFields::title): views into the chunks.
std::vector<std::string_view> page_titles(const SegmentChunks& chunks) {
  static constexpr std::string_view kLevel = " > ";
  std::vector<std::string_view> title(chunks.file_count());
  std::vector<std::size_t> first(chunks.file_count(), std::numeric_limits<std::size_t>::max());
  for (std::uint32_t i = 0; i < chunks.size(); ++i) {
    const ChunkView c = chunks.chunk(i);
    const std::uint32_t f = chunks.file_of(i);
    if (c.kind != "markdown" || c.section.empty() || c.first_byte >= first[f]) continue;
    first[f] = c.first_byte;
    title[f] = c.section.substr(0, c.section.find(kLevel));
  }
  return title;
}

constexpr std::uint32_t kGone = std::numeric_limits<std::uint32_t>::max();

}  // namespace

IndexedFields IndexedFields::from_options(Options& options) {
  IndexedFields f;
  f.path = options.get<bool>("index_path", f.path);
  f.section = options.get<bool>("index_section", f.section);
  f.title = options.get<bool>("index_title", f.title);
  return f;
}

void InvertedIndex::write(const SegmentChunks& chunks, const AnalyzerSet& analyzers, IndexedFields fields,
                          BinaryWriter& out) {
  const std::size_t n = chunks.size();
  // Each thread numbers the terms it meets in a vocabulary of its own; a chunk keeps its distinct
  // terms as (thread's id, frequency), 8 bytes each rather than a string: what bounds memory.
  struct Vocabulary {
    std::unordered_map<std::string, std::uint32_t> ids;
    std::vector<const std::string*> terms;  // by id
  };
  tbb::enumerable_thread_specific<Vocabulary> vocabularies;
  std::vector<std::vector<Counted>> counted(n);
  std::vector<Vocabulary*> vocabulary_of(n);
  std::vector<std::uint32_t> lengths(n, 0), field_lengths(n, 0), analyzer_of(n, 0);
  const std::vector<std::string_view> titles = fields.path && fields.title ? page_titles(chunks) : std::vector<std::string_view>();
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    const ChunkView c = chunks.chunk(static_cast<std::uint32_t>(i));
    analyzer_of[i] = analyzers.id_for_kind(c.kind);
    const Analyzer& analyzer = *analyzers.analyzers()[analyzer_of[i]];
    std::vector<std::string> terms;
    analyzer.analyze(c.text, terms);
    const std::size_t text_end = terms.size();
    if (fields.path) analyzer.analyze(c.relative_path, terms);
    if (!titles.empty()) analyzer.analyze(titles[chunks.file_of(static_cast<std::uint32_t>(i))], terms);
    const std::size_t path_end = terms.size();
    if (fields.section) analyzer.analyze(c.section, terms);
    lengths[i] = static_cast<std::uint32_t>(terms.size());
    field_lengths[i] = FieldCounts{static_cast<std::uint32_t>(path_end - text_end), static_cast<std::uint32_t>(terms.size() - path_end)}.packed();
    Vocabulary& vocabulary = vocabularies.local();
    vocabulary_of[i] = &vocabulary;
    std::vector<std::uint64_t> occurrences;  // (id, field), sorted: a term's fields side by side
    occurrences.reserve(terms.size());
    for (std::size_t t = 0; t < terms.size(); ++t) {
      const auto [it, added] = vocabulary.ids.try_emplace(std::move(terms[t]), static_cast<std::uint32_t>(vocabulary.terms.size()));
      if (added) vocabulary.terms.push_back(&it->first);
      const Field field = t < text_end ? kText : t < path_end ? kPath : kSectionField;
      occurrences.push_back(std::uint64_t{it->second} << 2 | field);
    }
    std::sort(occurrences.begin(), occurrences.end());
    for (std::size_t t = 0; t < occurrences.size();) {
      const auto id = static_cast<std::uint32_t>(occurrences[t] >> 2);
      FieldCounts in_fields;
      std::size_t u = t;
      for (; u < occurrences.size() && occurrences[u] >> 2 == id; ++u) {
        in_fields.path += (occurrences[u] & 3) == kPath;
        in_fields.section += (occurrences[u] & 3) == kSectionField;
      }
      counted[i].push_back({id, static_cast<std::uint32_t>(u - t), in_fields.packed()});
      t = u;
    }
  });

  // One sorted vocabulary, so that a lookup is a binary search and opening needs no hashing; each
  // thread's ids mapped to it.
  struct Entry {
    std::string_view term;
    Vocabulary* vocabulary;
    std::uint32_t id;
  };
  std::vector<Entry> entries;
  for (Vocabulary& v : vocabularies)
    for (std::uint32_t id = 0; id < v.terms.size(); ++id) entries.push_back({*v.terms[id], &v, id});
  tbb::parallel_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.term < y.term; });
  std::map<const Vocabulary*, std::vector<std::uint32_t>> global_id;
  for (Vocabulary& v : vocabularies) global_id[&v].resize(v.terms.size());
  std::string terms;
  std::vector<std::uint64_t> term_offsets(1, 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i == 0 || entries[i - 1].term != e.term) {  // else met in another thread too
      terms += e.term;
      term_offsets.push_back(terms.size());
    }
    global_id[e.vocabulary][e.id] = static_cast<std::uint32_t>(term_offsets.size() - 2);
  }
  entries.clear();
  entries.shrink_to_fit();
  const std::size_t vocabulary_size = term_offsets.size() - 1;
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t d) {
    const std::vector<std::uint32_t>& to_global = global_id[vocabulary_of[d]];
    for (Counted& term : counted[d]) term.id = to_global[term.id];
  });

  // Postings by counting sort: chunk ids come out ascending in every list.
  std::vector<std::uint64_t> counts(vocabulary_size + 1, 0);
  for (const auto& doc : counted)
    for (const Counted& term : doc) ++counts[term.id + 1];
  std::partial_sum(counts.begin(), counts.end(), counts.begin());
  const std::vector<std::uint64_t> posting_offsets = counts;
  std::vector<std::uint32_t> posting_chunks(counts.back()), posting_frequencies(counts.back()), posting_fields(counts.back());
  for (std::size_t d = 0; d < n; ++d)
    for (const Counted& term : counted[d]) {
      const std::uint64_t at = counts[term.id]++;
      posting_chunks[at] = static_cast<std::uint32_t>(d);
      posting_frequencies[at] = term.tf;
      posting_fields[at] = term.fields;
    }
  out.section(terms);
  out.section<std::uint64_t>(term_offsets);
  out.section<std::uint64_t>(posting_offsets);
  out.section<std::uint32_t>(posting_chunks);
  out.section<std::uint32_t>(posting_frequencies);
  out.section<std::uint32_t>(posting_fields);
  write_lengths(lengths, field_lengths, analyzer_of, out);
}

void InvertedIndex::write_lengths(std::span<const std::uint32_t> lengths, std::span<const std::uint32_t> field_lengths,
                                  std::span<const std::uint32_t> analyzer_of, BinaryWriter& out) {
  std::uint64_t totals[3] = {0, 0, 0};
  for (std::size_t c = 0; c < lengths.size(); ++c) {
    const FieldCounts f = FieldCounts::unpack(field_lengths[c]);
    totals[0] += lengths[c];
    totals[1] += f.path;
    totals[2] += f.section;
  }
  out.section<std::uint32_t>(lengths);
  out.section<std::uint32_t>(field_lengths);
  out.section<std::uint32_t>(analyzer_of);
  out.section<std::uint64_t>(totals);
}

void InvertedIndex::merge(const SegmentList& sources, std::span<const InvertedIndex* const> indexes, BinaryWriter& out) {
  const std::span<const Segment> segments = sources.segments();
  // The new id of every chunk kept, kGone for removed ones; lengths and analyzers of those kept.
  std::vector<std::vector<std::uint32_t>> new_id(segments.size());
  std::vector<std::uint32_t> lengths, field_lengths, analyzer_of;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const InvertedIndex& index = *indexes[s];
    new_id[s].resize(index.chunk_count());
    for (std::uint32_t c = 0; c < index.chunk_count(); ++c) {
      if (segments[s].is_removed(c)) {
        new_id[s][c] = kGone;
        continue;
      }
      new_id[s][c] = static_cast<std::uint32_t>(lengths.size());
      lengths.push_back(index.length(c));
      field_lengths.push_back(index.field_lengths(c).packed());
      analyzer_of.push_back(index.analyzer_of(c));
    }
  }
  // The union of the vocabularies in order (a k-way merge), each merged term with its id in
  // every source that has it; terms left with no chunk are dropped, as a new build would.
  struct Entry {
    std::string_view term;
    std::size_t source;
    std::uint32_t id;
    bool operator>(const Entry& other) const { return std::tie(term, source) > std::tie(other.term, other.source); }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heads;
  for (std::size_t s = 0; s < segments.size(); ++s)
    if (indexes[s]->term_count() > 0) heads.push({indexes[s]->term(0), s, 0});
  std::string terms;
  std::vector<std::uint64_t> term_offsets(1, 0), posting_offsets(1, 0);
  std::vector<std::vector<std::pair<std::size_t, std::uint32_t>>> sources_of;  // per merged term
  while (!heads.empty()) {
    const std::string_view term = heads.top().term;
    std::vector<std::pair<std::size_t, std::uint32_t>> found;
    std::uint64_t live = 0;
    while (!heads.empty() && heads.top().term == term) {
      const Entry e = heads.top();
      heads.pop();
      found.emplace_back(e.source, e.id);
      for (const std::uint32_t c : indexes[e.source]->postings_of(e.id).chunks) {
        if (c >= new_id[e.source].size()) indexes[e.source]->damaged();
        live += new_id[e.source][c] != kGone;
      }
      if (e.id + 1 < indexes[e.source]->term_count()) heads.push({indexes[e.source]->term(e.id + 1), e.source, e.id + 1});
    }
    if (live == 0) continue;
    terms += term;
    term_offsets.push_back(terms.size());
    posting_offsets.push_back(posting_offsets.back() + live);
    sources_of.push_back(std::move(found));
  }
  out.section(terms);
  out.section<std::uint64_t>(term_offsets);
  out.section<std::uint64_t>(posting_offsets);
  // Postings in three passes, chunk ids, frequencies, field frequencies, so that none is
  // gathered whole.
  for (const Section section : {kPostingChunks, kPostingFrequencies, kPostingFields}) {
    out.begin_section();
    std::vector<std::uint32_t> buffer;
    for (const auto& found : sources_of) {
      for (const auto& [s, id] : found) {
        const Postings p = indexes[s]->postings_of(id);
        const std::span<const std::uint32_t> values = section == kPostingChunks      ? p.chunks
                                                      : section == kPostingFrequencies ? p.frequencies
                                                                                       : p.fields;
        for (std::size_t i = 0; i < p.chunks.size(); ++i)
          if (const std::uint32_t c = new_id[s][p.chunks[i]]; c != kGone)
            buffer.push_back(section == kPostingChunks ? c : values[i]);
      }
      if (buffer.size() >= (1U << 16)) {
        out.append<std::uint32_t>(buffer);
        buffer.clear();
      }
    }
    out.append<std::uint32_t>(buffer);
    out.end_section();
  }
  write_lengths(lengths, field_lengths, analyzer_of, out);
}

InvertedIndex::InvertedIndex(const BinaryReader& in, std::size_t first, std::size_t chunks)
    : in_(in),
      terms_(in.bytes(first + kTerms)),
      term_offsets_(in.array<std::uint64_t>(first + kTermOffsets)),
      posting_offsets_(in.array<std::uint64_t>(first + kPostingOffsets)),
      posting_chunks_(in.array<std::uint32_t>(first + kPostingChunks)),
      posting_frequencies_(in.array<std::uint32_t>(first + kPostingFrequencies)),
      posting_fields_(in.array<std::uint32_t>(first + kPostingFields)),
      lengths_(in.array<std::uint32_t>(first + kLengths)),
      field_lengths_(in.array<std::uint32_t>(first + kFieldLengths)),
      analyzer_of_(in.array<std::uint32_t>(first + kAnalyzers)),
      totals_(in.array<std::uint64_t>(first + kTotals)) {
  // What can be checked without reading the postings: the rest is checked as it is read.
  const bool consistent = !term_offsets_.empty() && term_offsets_.back() == terms_.size() &&
                          posting_offsets_.size() == term_offsets_.size() &&
                          posting_offsets_.back() == posting_chunks_.size() &&
                          posting_chunks_.size() == posting_frequencies_.size() &&
                          posting_chunks_.size() == posting_fields_.size() && lengths_.size() == chunks &&
                          field_lengths_.size() == chunks && analyzer_of_.size() == chunks && totals_.size() == 3;
  if (!consistent) in.damaged("does not match the chunks of its segment");
}

std::string_view InvertedIndex::term(std::size_t id) const {
  const std::uint64_t begin = term_offsets_[id], end = term_offsets_[id + 1];
  if (begin > end || end > terms_.size()) damaged();
  return terms_.substr(begin, end - begin);
}

InvertedIndex::Postings InvertedIndex::postings(std::string_view wanted) const {
  std::size_t low = 0, high = term_count();
  while (low < high) {
    const std::size_t mid = (low + high) / 2;
    if (term(mid) < wanted) low = mid + 1;
    else high = mid;
  }
  if (low == term_count() || term(low) != wanted) return {};
  return postings_of(low);
}

InvertedIndex::Postings InvertedIndex::postings_of(std::size_t id) const {
  const std::uint64_t begin = posting_offsets_[id], end = posting_offsets_[id + 1];
  if (begin > end || end > posting_chunks_.size()) damaged();
  return {posting_chunks_.subspan(begin, end - begin), posting_frequencies_.subspan(begin, end - begin),
          posting_fields_.subspan(begin, end - begin)};
}

InvertedIndexSet::~InvertedIndexSet() = default;

void InvertedIndexSet::build(const SegmentChunks& chunks, const AnalyzerSet& analyzers, IndexedFields fields,
                             const std::filesystem::path& dir) const {
  BinaryWriter out(dir / format_.name, format_.kind, format_.version);
  InvertedIndex::write(chunks, analyzers, fields, out);
  out.commit();
}

void InvertedIndexSet::merge(const SegmentList& sources, const std::filesystem::path& dir) const {
  InvertedIndexSet inputs(format_);
  inputs.open(sources);
  std::vector<const InvertedIndex*> indexes;
  for (const auto& part : inputs.parts_) {
    part->reader.verify();  // read whole anyway: damage stops here, not in the new segment
    indexes.push_back(&part->index);
  }
  BinaryWriter out(dir / format_.name, format_.kind, format_.version);
  InvertedIndex::merge(sources, indexes, out);
  out.commit();
}

void InvertedIndexSet::open(const SegmentList& segments) {
  parts_.clear();
  live_chunks_ = live_length_ = live_path_length_ = live_section_length_ = 0;
  for (const Segment& s : segments.segments()) {
    parts_.push_back(std::make_unique<Part>(s, format_));
    const InvertedIndex& index = parts_.back()->index;
    live_chunks_ += index.chunk_count();
    live_length_ += index.total_length();
    live_path_length_ += index.total_path_length();
    live_section_length_ += index.total_section_length();
    // Removed chunks leave the statistics: the lengths of the few there are.
    for (std::size_t word = 0; word < s.removed.size(); ++word)
      for (std::uint64_t bits = s.removed[word]; bits != 0; bits &= bits - 1) {
        const auto c = static_cast<std::uint32_t>(64 * word + static_cast<std::size_t>(__builtin_ctzll(bits)));
        if (c >= index.chunk_count() || index.length(c) > live_length_) index.damaged();
        parts_.back()->removed.push_back(c);
        const FieldCounts f = index.field_lengths(c);
        if (f.path > live_path_length_ || f.section > live_section_length_) index.damaged();
        live_length_ -= index.length(c);
        live_path_length_ -= f.path;
        live_section_length_ -= f.section;
        --live_chunks_;
      }
  }
}

InvertedIndexSet::Part::Part(const Segment& s, const FileFormat& format)
    : segment(s), reader(s.dir / format.name, format.kind, format.version), index(reader, 0, s.chunks->size()) {}

InvertedIndexSet::TermPostings InvertedIndexSet::postings(std::string_view term) const {
  TermPostings out;
  out.in_part.reserve(parts_.size());
  for (const auto& part : parts_) {
    out.in_part.push_back(part->index.postings(term));
    const auto& chunks = out.in_part.back().chunks;
    out.document_frequency += chunks.size();
    // Less the removed chunks that hold the term: each looked for in the postings while they are
    // few against them (an update removes a few files' chunks; a common term is in thousands).
    const std::vector<std::uint32_t>& removed = part->removed;
    if (removed.empty()) continue;
    std::size_t gone = 0;
    if (removed.size() * 16 < chunks.size()) {
      for (const std::uint32_t c : removed) gone += std::binary_search(chunks.begin(), chunks.end(), c);
    } else {
      for (const std::uint32_t c : chunks) gone += part->segment.is_removed(c);
    }
    out.document_frequency -= gone;
  }
  return out;
}


}  // namespace rag
