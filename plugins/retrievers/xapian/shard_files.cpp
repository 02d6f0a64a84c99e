#include "shard_files.hpp"

#include <tbb/parallel_for.h>
#include <xapian.h>

#include <algorithm>

#include "rag/checksum.hpp"
#include "rag/error.hpp"

namespace rag::xapian_shards {
namespace fs = std::filesystem;

namespace {

constexpr const char* kTableFile = "xapian.bin";
constexpr std::uint32_t kTableVersion = 1;
// Glass refuses terms over 245 bytes; longer ones keep this much and a digest of the whole.
constexpr std::size_t kMaxTerm = 240, kKeptOfLongTerm = 200;
// Chunks analyzed in parallel at a time before they are added to a shard, in order.
constexpr std::size_t kBatch = 512;

// The shard each chunk of `chunks` goes to, as lists of chunk ids in order.
std::vector<std::vector<std::uint32_t>> members_of(const SegmentChunks& chunks, std::uint32_t shards) {
  std::vector<std::vector<std::uint32_t>> members(shards);
  for (std::uint32_t c = 0; c < chunks.size(); ++c) members[shard_of(chunks.chunk(c).relative_path, shards)].push_back(c);
  return members;
}

Xapian::Document document(const ChunkView& chunk, const Indexing& indexing) {
  const std::uint32_t a = indexing.analyzers->id_for_kind(chunk.kind);
  const Analyzer& analyzer = *indexing.analyzers->analyzers()[a];
  std::vector<std::string> terms;
  analyzer.analyze(chunk.text, terms);
  if (indexing.fields.path) analyzer.analyze(chunk.relative_path, terms);
  if (indexing.fields.section) analyzer.analyze(chunk.section, terms);
  Xapian::Document doc;
  // wdf is the term's count, so the document's length is its number of terms, as bm25's is.
  for (const auto& [term, count] : count_terms(std::move(terms))) doc.add_term(xapian_term(term), count);
  if (indexing.analyzers->analyzers().size() > 1) doc.add_boolean_term(analyzer_term(a));
  return doc;
}

// Indexes the chunks `ids` of `chunks` into a new database at `path`; returns its uuid.
std::string write_shard(const SegmentChunks& chunks, std::span<const std::uint32_t> ids, const Indexing& indexing,
                        const fs::path& path) {
  Xapian::WritableDatabase db(path.string(), Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_BACKEND_GLASS | Xapian::DB_NO_TERMLIST);
  std::vector<Xapian::Document> batch;
  for (std::size_t begin = 0; begin < ids.size(); begin += kBatch) {
    // Each its own empty document: copies of one would share its reference count, which Xapian
    // does not update atomically, and the threads below replace them at once (a leak, or worse).
    batch.clear();
    batch.resize(std::min(kBatch, ids.size() - begin));
    tbb::parallel_for(std::size_t{0}, batch.size(), [&](std::size_t j) { batch[j] = document(chunks.chunk(ids[begin + j]), indexing); });
    for (const Xapian::Document& doc : batch) db.add_document(doc);  // ids 1, 2, ... in chunk order
  }
  db.commit();
  std::string uuid = db.get_uuid();
  db.close();
  return uuid;
}

// A database that does not change, put at `to` too: its files are immutable, so hard links do.
void link_database(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
    std::error_code ec;
    fs::create_hard_link(entry.path(), to / entry.path().filename(), ec);
    if (ec) fs::copy_file(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
  }
}

void write_table(const fs::path& dir, const std::vector<std::vector<std::uint32_t>>& members,
                 const std::vector<std::string>& uuids) {
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> ids;
  std::string names;
  for (std::size_t i = 0; i < members.size(); ++i) {
    ids.insert(ids.end(), members[i].begin(), members[i].end());
    offsets.push_back(ids.size());
    names += uuids[i] + "\n";
  }
  BinaryWriter out(dir / kTableFile, "xapian", kTableVersion);
  out.section<std::uint64_t>(offsets);
  out.section<std::uint32_t>(ids);
  out.section(names);
  out.commit();
}

// Runs `write` and turns Xapian's errors into rag's, naming the database.
template <class Write>
auto writing(const fs::path& path, Write write) {
  try {
    return write();
  } catch (const Xapian::Error& e) {
    throw Error(path.string() + ": Xapian: " + e.get_description());
  }
}

}  // namespace

std::uint32_t shard_of(std::string_view relative_path, std::uint32_t shards) {
  return static_cast<std::uint32_t>(Digest().add(relative_path).value() % shards);
}

fs::path shard_dir(const fs::path& dir, std::uint32_t shard) { return dir / ("shard-" + std::to_string(shard)); }

std::string xapian_term(std::string_view term) {
  if (term.size() <= kMaxTerm) return std::string(term);
  return std::string(term.substr(0, kKeptOfLongTerm)) + '\x01' + Digest().add(term).hex();
}

std::string analyzer_term(std::uint32_t analyzer) { return std::string(1, '\x01').append(std::to_string(analyzer)); }

void build(const SegmentChunks& chunks, const Indexing& indexing, const fs::path& dir) {
  const auto members = members_of(chunks, indexing.shards);
  std::vector<std::string> uuids(indexing.shards);
  tbb::parallel_for(std::uint32_t{0}, indexing.shards, [&](std::uint32_t i) {
    const fs::path path = shard_dir(dir, i);
    uuids[i] = writing(path, [&] { return write_shard(chunks, members[i], indexing, path); });
  });
  write_table(dir, members, uuids);
}

void merge(const SegmentList& sources, const SegmentChunks& merged, const Indexing& indexing, const fs::path& dir) {
  // Shards that lose chunks are indexed again; the others keep their documents, in order.
  std::vector<char> loses(indexing.shards, 0);
  for (const Segment& s : sources.segments())
    for (std::size_t word = 0; word < s.removed.size(); ++word)
      for (std::uint32_t bit = 0; bit < 64; ++bit)
        if (s.removed[word] >> bit & 1U) {
          const auto c = static_cast<std::uint32_t>(word * 64 + bit);
          if (c < s.chunks->size()) loses[shard_of(s.chunks->chunk(c).relative_path, indexing.shards)] = 1;
        }
  const auto members = members_of(merged, indexing.shards);
  std::vector<std::string> uuids(indexing.shards);
  tbb::parallel_for(std::uint32_t{0}, indexing.shards, [&](std::uint32_t i) {
    const fs::path path = shard_dir(dir, i);
    uuids[i] = writing(path, [&] {
      if (loses[i]) return write_shard(merged, members[i], indexing, path);
      if (sources.segments().size() == 1) {
        link_database(shard_dir(sources.segments()[0].dir, i), path);
      } else {
        Xapian::Database all;
        for (const Segment& s : sources.segments()) all.add_database(Xapian::Database(shard_dir(s.dir, i).string()));
        all.compact(path.string(), Xapian::DB_BACKEND_GLASS);  // renumbered: each source's documents after the last's
      }
      const Xapian::Database reused(path.string());
      if (reused.get_doccount() != members[i].size())
        throw Error(path.string() + " holds " + std::to_string(reused.get_doccount()) + " chunks instead of " +
                    std::to_string(members[i].size()) + ": the index is damaged; run `rag index --full` to rebuild it");
      return reused.get_uuid();
    });
  });
  write_table(dir, members, uuids);
}

ShardTable::ShardTable(const Segment& segment, std::uint32_t shards)
    : reader_(segment.dir / kTableFile, "xapian", kTableVersion) {
  if (reader_.section_count() != 3) reader_.damaged("is inconsistent");
  offsets_ = reader_.array<std::uint64_t>(0);
  chunk_ids_ = reader_.array<std::uint32_t>(1);
  if (offsets_.size() != std::size_t{shards} + 1)
    throw Error(reader_.path().string() + " was written for " + std::to_string(offsets_.size() - 1) +
                " shards, the pipeline has " + std::to_string(shards) + "; run `rag index --full` to rebuild the index");
  const std::size_t n = segment.chunks->size();
  bool fits = offsets_.front() == 0 && offsets_.back() == chunk_ids_.size() && chunk_ids_.size() == n;
  for (std::size_t i = 0; fits && i < shards; ++i) fits = offsets_[i] <= offsets_[i + 1];
  if (!fits) reader_.damaged("is inconsistent");  // ids are checked as hits are read: opening reads no array whole
  std::string_view names = reader_.bytes(2);
  for (std::size_t end; (end = names.find('\n')) != std::string_view::npos; names.remove_prefix(end + 1))
    uuids_.push_back(names.substr(0, end));
  if (uuids_.size() != shards || !names.empty()) reader_.damaged("is inconsistent");
}

std::span<const std::uint32_t> ShardTable::chunks(std::uint32_t shard) const {
  return chunk_ids_.subspan(offsets_[shard], offsets_[shard + 1] - offsets_[shard]);
}

std::string_view ShardTable::uuid(std::uint32_t shard) const { return uuids_[shard]; }

}  // namespace rag::xapian_shards
