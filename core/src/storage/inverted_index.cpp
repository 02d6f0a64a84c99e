#include "rag/inverted_index.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace rag {

IndexedFields IndexedFields::from_options(Options& options) {
  IndexedFields f;
  f.path = options.get<bool>("index_path", f.path);
  f.section = options.get<bool>("index_section", f.section);
  return f;
}

void InvertedIndex::build(ChunkList chunks, const AnalyzerSet& analyzers, IndexedFields fields) {
  const std::size_t n = chunks.size();
  // Per chunk: its distinct terms with their frequencies.
  std::vector<std::vector<std::pair<std::string, std::uint32_t>>> counted(n);
  lengths_.assign(n, 0);
  analyzer_of_.assign(n, 0);
  // The folders every chunk shares ("data/raw/vllm-0.10.1/") say nothing about any chunk and
  // would put every chunk in the postings of their words: the path is indexed below them.
  std::size_t common = n ? chunks[0].file_path.size() : 0;
  for (const Chunk& c : chunks) {
    common = std::min(common, c.file_path.size());
    for (std::size_t i = 0; i < common; ++i)
      if (c.file_path[i] != chunks[0].file_path[i]) common = i;
  }
  const std::size_t prefix = n ? chunks[0].file_path.rfind('/', common == 0 ? 0 : common - 1) + 1 : 0;
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    const Chunk& c = chunks[i];
    analyzer_of_[i] = analyzers.id_for_kind(c.kind);
    const Analyzer& analyzer = *analyzers.analyzers()[analyzer_of_[i]];
    std::vector<std::string> terms;
    analyzer.analyze(c.text, terms);
    if (fields.path) analyzer.analyze(std::string_view(c.file_path).substr(prefix), terms);
    if (fields.section) analyzer.analyze(c.section, terms);
    lengths_[i] = static_cast<std::uint32_t>(terms.size());
    counted[i] = count_terms(std::move(terms));
  });

  // The vocabulary, sorted so that a lookup is a binary search and loading needs no hashing.
  std::unordered_map<std::string_view, std::uint32_t> ids;
  std::vector<std::string_view> vocabulary;
  for (const auto& doc : counted)
    for (const auto& [term, tf] : doc)
      if (ids.emplace(term, 0).second) vocabulary.push_back(term);
  tbb::parallel_sort(vocabulary.begin(), vocabulary.end());
  terms_.clear();
  term_offsets_.assign(1, 0);
  for (std::size_t i = 0; i < vocabulary.size(); ++i) {
    ids[vocabulary[i]] = static_cast<std::uint32_t>(i);
    terms_ += vocabulary[i];
    term_offsets_.push_back(terms_.size());
  }

  // Each chunk's terms as ids, in parallel (the map is only read now), then postings by
  // counting sort: chunk ids come out ascending in every list.
  std::vector<std::vector<std::uint32_t>> term_ids(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t d) {
    term_ids[d].reserve(counted[d].size());
    for (const auto& [term, tf] : counted[d]) term_ids[d].push_back(ids.find(term)->second);
  });
  std::vector<std::uint64_t> counts(vocabulary.size() + 1, 0);
  for (const auto& doc : term_ids)
    for (const std::uint32_t id : doc) ++counts[id + 1];
  std::partial_sum(counts.begin(), counts.end(), counts.begin());
  posting_offsets_ = counts;
  posting_chunks_.assign(counts.back(), 0);
  posting_frequencies_.assign(counts.back(), 0);
  for (std::size_t d = 0; d < n; ++d)
    for (std::size_t t = 0; t < term_ids[d].size(); ++t) {
      const std::uint64_t at = counts[term_ids[d][t]]++;
      posting_chunks_[at] = static_cast<std::uint32_t>(d);
      posting_frequencies_[at] = counted[d][t].second;
    }
  const double total = std::accumulate(lengths_.begin(), lengths_.end(), 0.0);
  average_length_ = n ? total / static_cast<double>(n) : 0.0;
}

void InvertedIndex::save(BinaryWriter& out) const {
  out.str(terms_);
  out.array<std::uint64_t>(term_offsets_);
  out.array<std::uint64_t>(posting_offsets_);
  out.array<std::uint32_t>(posting_chunks_);
  out.array<std::uint32_t>(posting_frequencies_);
  out.array<std::uint32_t>(lengths_);
  out.array<std::uint32_t>(analyzer_of_);
}

void InvertedIndex::load(BinaryReader& in, std::size_t expected_chunks) {
  terms_ = in.str();
  term_offsets_ = in.array<std::uint64_t>();
  posting_offsets_ = in.array<std::uint64_t>();
  posting_chunks_ = in.array<std::uint32_t>();
  posting_frequencies_ = in.array<std::uint32_t>();
  lengths_ = in.array<std::uint32_t>();
  analyzer_of_ = in.array<std::uint32_t>();
  const bool consistent = !term_offsets_.empty() && term_offsets_.back() == terms_.size() &&
                          posting_offsets_.size() == term_offsets_.size() &&
                          posting_offsets_.back() == posting_chunks_.size() &&
                          posting_chunks_.size() == posting_frequencies_.size() && lengths_.size() == expected_chunks &&
                          analyzer_of_.size() == expected_chunks &&
                          std::is_sorted(term_offsets_.begin(), term_offsets_.end()) &&
                          std::is_sorted(posting_offsets_.begin(), posting_offsets_.end()) &&
                          std::all_of(posting_chunks_.begin(), posting_chunks_.end(),
                                      [&](std::uint32_t c) { return c < expected_chunks; });
  if (!consistent) throw Error("the inverted index does not match the chunks: the index is damaged; run `rag index`");
  const double total = std::accumulate(lengths_.begin(), lengths_.end(), 0.0);
  average_length_ = expected_chunks ? total / static_cast<double>(expected_chunks) : 0.0;
}

std::string_view InvertedIndex::term(std::size_t id) const {
  return std::string_view(terms_).substr(term_offsets_[id], term_offsets_[id + 1] - term_offsets_[id]);
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
  const auto begin = posting_offsets_[id];
  const auto size = posting_offsets_[id + 1] - begin;
  return {std::span(posting_chunks_).subspan(begin, size), std::span(posting_frequencies_).subspan(begin, size), begin};
}

}  // namespace rag
