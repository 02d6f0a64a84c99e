#include "bm25_retriever.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "rag/question_words.hpp"
#include "rag/segment_store.hpp"

namespace rag {
namespace {

// Below this many candidates, common terms still bring in chunks of their own.
constexpr std::size_t kMinCandidates = 1000;

}  // namespace

Bm25Retriever::Bm25Retriever(Options& options)
    : parameters_(Bm25Parameters::from_options(options)), index_({"bm25.bin", "bm25", 3}) {  // 3: field counts
  fields_ = IndexedFields::from_options(options);
  Options feedback = options.child("feedback");
  feedback_.documents = static_cast<std::size_t>(feedback.get_integer("documents", 0, 0, 1000));
  feedback_.terms = static_cast<std::size_t>(feedback.get_integer("terms", 20, 1, 1000));
  feedback_.weight = feedback.get_number("weight", 0.2, 0.0, 1.0);
  feedback.finish();
  for (double& b : field_weights_.b) b = parameters_.b;
  if (options.has("fields")) {
    Options fields = options.child("fields");
    field_weights_.enabled = true;
    static constexpr const char* kFieldNames[] = {"text", "path", "section"};
    for (int f = 0; f < 3; ++f) {
      Options field = fields.child(kFieldNames[f]);
      field_weights_.weight[f] = field.get_number("weight", 1.0, 0.0, 100.0);
      field_weights_.b[f] = field.get_number("b", parameters_.b, 0.0, 1.0);
      field.finish();
    }
    fields.finish();
  }
  file_weight_ = options.get_number("file_weight", 0.0, 0.0, 100.0);
  path_weight_ = options.get_number("path_weight", 0.0, 0.0, 100.0);
  common_share_ = options.get_number("common_share", 1.0 / 16, 0.0, 1.0);
  Options analysis = options.child("analysis");
  analyzers_ = std::make_unique<AnalyzerSet>(analysis);
  options.finish();
}

void Bm25Retriever::build(const SegmentChunks& chunks, const std::filesystem::path& dir) {
  index_.build(chunks, *analyzers_, fields_, dir);
}

void Bm25Retriever::merge(const SegmentList& sources, const SegmentChunks&, const std::filesystem::path& dir) {
  index_.merge(sources, dir);
}

void Bm25Retriever::open(const SegmentList& segments) {
  segments_ = &segments;
  index_.open(segments);
  const auto average = [&](std::uint64_t length) {
    return index_.live_chunks() > 0 && length > 0 ? static_cast<double>(length) / static_cast<double>(index_.live_chunks())
                                                  : 1.0;
  };
  average_length_ = average(index_.live_length());
  const std::uint64_t fields = index_.live_path_length() + index_.live_section_length();
  average_field_length_[0] = average(index_.live_length() - std::min(fields, index_.live_length()));
  average_field_length_[1] = average(index_.live_path_length());
  average_field_length_[2] = average(index_.live_section_length());
}

void Bm25Retriever::score(const WeightedTerms& terms, ScoreAccumulator& scores) const {
  const auto n = static_cast<double>(index_.live_chunks());
  struct Term {
    InvertedIndexSet::TermPostings postings;
    std::uint32_t analyzer;
    std::string_view term;
    double weight;
  };
  std::vector<Term> found;
  for (std::uint32_t a = 0; a < terms.size(); ++a)
    for (const auto& [term, weight] : terms[a])
      if (auto postings = index_.postings(term); postings.document_frequency > 0)
        found.push_back({std::move(postings), a, term, weight});
  // Rarest first, in an order that does not depend on the segments: once rarer terms have found
  // kMinCandidates chunks, terms in more than common_share of the chunks only add to those.
  std::sort(found.begin(), found.end(), [](const Term& x, const Term& y) {
    return std::tie(x.postings.document_frequency, x.analyzer, x.term) <
           std::tie(y.postings.document_frequency, y.analyzer, y.term);
  });
  const bool single_analyzer = analyzers_->analyzers().size() == 1;
  for (const Term& t : found) {
    const auto df = static_cast<double>(t.postings.document_frequency);
    const double weight = t.weight * bm25_idf(parameters_, n, df);
    const bool opens = df <= common_share_ * n || scores.touched().size() < kMinCandidates;
    if (field_weights_.enabled) add_postings_of_variant<true>(t.postings, t.analyzer, single_analyzer, weight, opens, scores);
    else add_postings_of_variant<false>(t.postings, t.analyzer, single_analyzer, weight, opens, scores);
  }
}

template <bool PerField>
void Bm25Retriever::add_postings_of_variant(const InvertedIndexSet::TermPostings& postings, std::uint32_t analyzer,
                                            bool single_analyzer, double weight, bool opens, ScoreAccumulator& scores) const {
  // A loop for each variant and for opening or not: the formula and the way to add are chosen
  // once a term.
  const auto run = [&]<Bm25Variant V>() {
    if (opens) add_postings<V, PerField, true>(postings, analyzer, single_analyzer, weight, scores);
    else add_postings<V, PerField, false>(postings, analyzer, single_analyzer, weight, scores);
  };
  switch (parameters_.variant) {
    case Bm25Variant::robertson: return run.template operator()<Bm25Variant::robertson>();
    case Bm25Variant::lucene: return run.template operator()<Bm25Variant::lucene>();
    case Bm25Variant::bm25l: return run.template operator()<Bm25Variant::bm25l>();
    case Bm25Variant::bm25plus: return run.template operator()<Bm25Variant::bm25plus>();
  }
}

template <Bm25Variant V, bool PerField, bool Opens>
void Bm25Retriever::add_postings(const InvertedIndexSet::TermPostings& postings, std::uint32_t analyzer,
                                 bool single_analyzer, double weight, ScoreAccumulator& scores) const {
  const Bm25Parameters p = parameters_;
  // The length normalisation 1 - b + b |d| / avgdl, with the division by avgdl done once; per
  // field for BM25F.
  const double one_minus_b = 1.0 - p.b, b_per_length = p.b / average_length_;
  double field_one_minus_b[3], field_b_per_length[3];
  for (int f = 0; f < 3; ++f) {
    field_one_minus_b[f] = 1.0 - field_weights_.b[f];
    field_b_per_length[f] = field_weights_.b[f] / average_field_length_[f];
  }
  const double* w = field_weights_.weight;
  const double path_weight = path_weight_;
  // A term that opens candidates gathers its scores and adds them in one call, whose loop has no
  // branch on new chunks (ScoreAccumulator::add); one that does not adds only to chunks already
  // scored, without a test. Buffers per thread, at most two scores a posting (path and text).
  thread_local std::vector<std::uint32_t> gathered_ids;
  thread_local std::vector<double> gathered_scores;
  std::uint32_t* ids = nullptr;
  double* values = nullptr;
  std::size_t gathered = 0;
  if constexpr (Opens) {
    std::size_t most = 0;
    for (const InvertedIndex::Postings& in_part : postings.in_part) most += in_part.chunks.size();
    if (PerField || path_weight > 0) most *= 2;
    if (gathered_ids.size() < most) {
      gathered_ids.resize(most);
      gathered_scores.resize(most);
    }
    ids = gathered_ids.data();
    values = gathered_scores.data();
  }
  const auto add = [&](std::uint32_t id, double score) {
    if constexpr (Opens) {
      ids[gathered] = id;
      values[gathered] = score;
      ++gathered;
    } else {
      scores.add_to_scored(id, score);
    }
  };
  const auto visit = [&](std::uint32_t id, const InvertedIndexSet::Part& part, std::uint32_t tf, std::uint32_t c,
                         FieldCounts in_fields) {
    if (!single_analyzer && part.index.analyzer_of(c) != analyzer) return;
    if (path_weight > 0 && in_fields.path > 0) {
      const double path_norm = field_one_minus_b[1] + field_b_per_length[1] * part.index.field_lengths(c).path;
      add(id, path_weight * weight * bm25_tf_weight<V>(p, in_fields.path, path_norm));
    }
    if constexpr (PerField) {
      const std::uint32_t length = part.index.length(c);
      const FieldCounts lengths = part.index.field_lengths(c);
      const std::uint32_t text_tf = tf - std::min(tf, in_fields.path + in_fields.section);
      const std::uint32_t text_length = length - std::min(length, lengths.path + lengths.section);
      // Each field's frequency, weighted and normalised by its length: the field's norm is at
      // least 1 - b > 0, or b = 1 and an empty field (no frequency to divide) when it is 0.
      double pseudo_tf = 0;
      if (text_tf > 0) pseudo_tf += w[0] * text_tf / (field_one_minus_b[0] + field_b_per_length[0] * text_length);
      if (in_fields.path > 0) pseudo_tf += w[1] * in_fields.path / (field_one_minus_b[1] + field_b_per_length[1] * lengths.path);
      if (in_fields.section > 0)
        pseudo_tf += w[2] * in_fields.section / (field_one_minus_b[2] + field_b_per_length[2] * lengths.section);
      if (pseudo_tf > 0) add(id, weight * bm25_tf_weight<V>(p, pseudo_tf, 1.0));
    } else {
      const double norm = one_minus_b + b_per_length * part.index.length(c);
      add(id, weight * bm25_tf_weight<V>(p, tf, norm));
    }
  };
  const auto walk = [&](auto&& visitor) {
    if constexpr (Opens) index_.for_each_posting(postings, visitor);
    else index_.for_each_posting_among(postings, scores, visitor);
  };
  if (PerField || path_weight > 0) {
    walk(visit);
  } else {  // the field counts are not read: a posting costs what it did before they were stored
    walk([&](std::uint32_t id, const InvertedIndexSet::Part& part, std::uint32_t tf, std::uint32_t c) {
      visit(id, part, tf, c, FieldCounts{});
    });
  }
  if constexpr (Opens) scores.add({ids, gathered}, {values, gathered});
}

Bm25Retriever::WeightedTerms Bm25Retriever::expand(const WeightedTerms& terms, const std::vector<Hit>& top) const {
  const auto n = static_cast<double>(index_.live_chunks());
  double total = 0;
  for (const Hit& h : top) total += std::max(0.0, h.score);
  if (total <= 0) return terms;
  const auto& analyzers = analyzers_->analyzers();
  WeightedTerms expanded(terms.size());
  for (std::uint32_t a = 0; a < terms.size(); ++a) {
    // The relevance model: each term's share of a feedback chunk, by the chunk's share of the
    // scores, by idf so that words common everywhere do not take over.
    std::map<std::string, double> model;
    for (const Hit& h : top) {
      if (analyzers_->id_for_kind(segments_->chunk(h.chunk).kind) != a) continue;
      const auto counted = count_terms(analyzers[a]->analyze(segments_->chunk(h.chunk).text));
      double length = 0;
      for (const auto& [term, count] : counted) length += count;
      for (const auto& [term, count] : counted) {
        const auto df = static_cast<double>(index_.postings(term).document_frequency);
        model[term] += count / length * std::max(0.0, h.score) / total * std::log(n / std::max(1.0, df));
      }
    }
    std::vector<std::pair<double, std::string>> best;
    for (const auto& [term, weight] : model) best.emplace_back(weight, term);
    const std::size_t keep = std::min(feedback_.terms, best.size());
    std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(keep), best.end(), std::greater<>());
    best.resize(keep);
    double model_sum = 0, query_sum = 0;
    for (const auto& [weight, term] : best) model_sum += weight;
    for (const auto& [term, weight] : terms[a]) query_sum += weight;
    if (query_sum <= 0) query_sum = 1;  // a word read several ways may weigh <= 0 (weigh_as_one, Robertson)
    std::map<std::string, double> mixed;
    for (const auto& [term, weight] : terms[a]) mixed[term] += (1 - feedback_.weight) * weight / query_sum;
    if (model_sum > 0)
      for (const auto& [weight, term] : best) mixed[term] += feedback_.weight * weight / model_sum;
    expanded[a].assign(mixed.begin(), mixed.end());
  }
  return expanded;
}

std::vector<Hit> Bm25Retriever::top_lifted_by_file(const ScoreAccumulator& scores, std::size_t k) const {
  // The two best scores of each file: a chunk is lifted by the best of the others. Per thread,
  // sized for every file (zeroed memory: see ScoreAccumulator) and cleaned after each query where
  // it was used; so are each chunk's file and score, looked up once.
  using Two = std::array<double, 2>;
  thread_local ZeroedMemory per_file;
  thread_local std::vector<std::uint32_t> files;
  thread_local std::vector<double> raw_scores;
  per_file.grow(segments_->file_limit() * sizeof(Two));
  const std::vector<std::uint32_t>& touched = scores.touched();
  if (files.size() < touched.size()) {
    files.resize(touched.size());
    raw_scores.resize(touched.size());
  }
  // The thread's vectors looked up once, not per chunk.
  Two* const best = reinterpret_cast<Two*>(per_file.data());
  std::uint32_t* const file_of = files.data();
  double* const raw = raw_scores.data();
  const std::uint32_t* const chunks = touched.data();
  const std::size_t n = touched.size();
  // Files apart: the loop that looks them up reads nothing else. With one segment (what a full
  // build makes) without looking the segment up for each, and through the index's own store
  // (final: its lookup is inlined) rather than a virtual call per chunk.
  if (const std::span<const Segment> in = segments_->segments(); in.size() == 1) {
    const std::uint32_t base = in[0].base;
    const auto look_up = [&](const auto& store) {
      for (std::size_t i = 0; i < n; ++i) file_of[i] = store.file_of(chunks[i] - base);
    };
    if (const auto* store = dynamic_cast<const SegmentStore*>(in[0].chunks)) look_up(*store);
    else look_up(*in[0].chunks);
  } else {
    for (std::size_t i = 0; i < n; ++i) file_of[i] = segments_->file_of(chunks[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    raw[i] = scores.score(chunks[i]);
    auto& [first, second] = best[file_of[i]];
    second = std::max(second, std::min(first, raw[i]));
    first = std::max(first, raw[i]);
  }
  // The bests are those before the lift.
  BestHits lifted(k, segments_);
  const double file_weight = file_weight_;
  for (std::size_t i = 0; i < n; ++i) {
    // The second best for the file's best chunk, the best for the others: chosen by an index,
    // as a branch on it is mispredicted often.
    const Two& two = best[file_of[i]];
    lifted.offer({chunks[i], raw[i] + file_weight * two[raw[i] == two[0]]});
  }
  for (std::size_t i = 0; i < n; ++i) best[file_of[i]] = {0.0, 0.0};
  return lifted.take();
}

std::vector<Hit> Bm25Retriever::search(std::string_view query, std::size_t k) const {
  const auto& analyzers = analyzers_->analyzers();
  WeightedTerms terms(analyzers.size());
  const auto n = static_cast<double>(index_.live_chunks());
  const auto frequency = [&](const std::string& term) { return static_cast<double>(index_.postings(term).document_frequency); };
  const auto idf = [&](double df) { return bm25_idf(parameters_, n, df); };
  for (std::uint32_t a = 0; a < analyzers.size(); ++a) {
    QueryTerms read = query_terms(query, *analyzers[a]);
    for (auto& [term, count] : read.counted) terms[a].emplace_back(std::move(term), count);
    for (std::vector<std::string>& readings : read.read_several_ways)
      for (auto& weighed : weigh_as_one(std::move(readings), n, frequency, idf)) terms[a].push_back(std::move(weighed));
  }
  const std::uint32_t limit = segments_ ? segments_->id_limit() : 0;
  ScoreAccumulator scores(limit);
  score(terms, scores);
  if (feedback_.documents > 0) {
    ScoreAccumulator second(limit);
    score(expand(terms, scores.top(feedback_.documents, segments_)), second);
    scores = std::move(second);
  }
  return file_weight_ > 0 ? top_lifted_by_file(scores, k) : scores.top(k, segments_);
}

}  // namespace rag
