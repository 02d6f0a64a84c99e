// rag's BM25 next to Xapian's on the same chunks and the same queries.
//
//   xapian_bench --chunks chunks.jsonl --pipeline configs/default.yaml --work DIR [--runs 5]
//                --dataset answered.json [--dataset ...]
//
// The chunks come from `rag chunks --export`. rag's side is the bm25 retriever with the
// pipeline's options; Xapian's indexes the same fields (text, file path, section) with the same
// stemmer (Snowball english, every term stemmed) and stopword list, and ranks with BM25Weight at
// the same k1 and b; both get rag's rule against overlapping results (drop_repeats). Build:
// build + write to disk, median of the runs. Latency: each question
// once per run after a warm-up, p50/p95/p99 of a run, median over the runs. Recall@5 with the
// grader's rule. Prints a Markdown table; our figures also as ratios to Xapian's.
#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bm25_retriever.hpp"
#include "rag/analyzer.hpp"
#include "rag/chunk_vector.hpp"
#include "rag/dataset.hpp"
#include "rag/evaluation.hpp"
#include "rag/index.hpp"
#include "rag/pipeline.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr std::size_t kDepth = 10;             // results per query, as search_dataset writes
constexpr std::size_t kCandidates = rag::candidates_for(kDepth);  // asked of each engine, before dropping repeats

struct Args {
  fs::path chunks, pipeline, work;
  std::vector<fs::path> datasets;
  int runs = 5;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--chunks") a.chunks = value;
    else if (key == "--pipeline") a.pipeline = value;
    else if (key == "--work") a.work = value;
    else if (key == "--dataset") a.datasets.emplace_back(value);
    else if (key == "--runs") a.runs = std::max(1, std::stoi(value));
    else throw std::runtime_error("unknown argument " + key);
  }
  if (a.chunks.empty() || a.pipeline.empty() || a.work.empty() || a.datasets.empty())
    throw std::runtime_error("usage: xapian_bench --chunks F --pipeline F --work DIR --dataset F [--dataset F] [--runs N]");
  return a;
}

std::vector<rag::Chunk> read_chunks(const fs::path& file) {
  std::ifstream in(file);
  std::vector<rag::Chunk> chunks;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    rag::Chunk c;
    c.file_path = j.at("file_path");
    c.kind = j.at("kind");
    c.section = j.at("section");
    c.first_char = j.at("first_character_index");
    c.last_char = j.at("last_character_index");
    c.text = j.at("text");
    chunks.push_back(std::move(c));
  }
  if (chunks.empty()) throw std::runtime_error(file.string() + ": no chunks");
  return chunks;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

std::uintmax_t folder_size(const fs::path& dir) {
  std::uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

// rag's english stopword list, for Xapian.
class RagStopper : public Xapian::Stopper {
 public:
  bool operator()(const std::string& term) const override { return rag::is_stopword("english", term); }
};

// One engine under test: builds from chunks, answers a query with chunk ids.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual void build(const std::vector<rag::Chunk>& chunks, const fs::path& dir) = 0;
  virtual void open(const fs::path& dir) = 0;
  virtual std::vector<rag::Hit> search(const std::string& query) = 0;
};

class RagEngine final : public Engine {
 public:
  explicit RagEngine(const rag::Pipeline& pipeline) : pipeline_(pipeline) {}
  void build(const std::vector<rag::Chunk>& chunks, const fs::path& dir) override {
    chunks_ = std::make_unique<rag::ChunkVector>(chunks, pipeline_.corpus_root);
    fs::create_directories(dir);
    make()->build(*chunks_, dir);
    segments_ = {{dir, chunks_.get(), 0, {}}};
    list_ = std::make_unique<rag::SegmentList>(segments_);
  }
  void open(const fs::path&) override {
    retriever_ = make();
    retriever_->open(*list_);
  }
  std::vector<rag::Hit> search(const std::string& query) override { return retriever_->search(query, kCandidates); }

 private:
  std::unique_ptr<rag::Bm25Retriever> make() const {
    rag::Options options(pipeline_.retriever.options, pipeline_.retriever.where);
    return std::make_unique<rag::Bm25Retriever>(options);
  }
  const rag::Pipeline& pipeline_;
  std::unique_ptr<rag::ChunkVector> chunks_;
  std::vector<rag::Segment> segments_;
  std::unique_ptr<rag::SegmentList> list_;
  std::unique_ptr<rag::Bm25Retriever> retriever_;
};

class XapianEngine final : public Engine {
 public:
  void build(const std::vector<rag::Chunk>& chunks, const fs::path& dir) override {
    Xapian::WritableDatabase db(dir.string(), Xapian::DB_CREATE_OR_OVERWRITE);
    Xapian::TermGenerator terms;
    terms.set_stemmer(Xapian::Stem("english"));
    terms.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
    terms.set_stopper(&stopper_);
    terms.set_stopper_strategy(Xapian::TermGenerator::STOP_ALL);
    for (std::size_t id = 0; id < chunks.size(); ++id) {
      Xapian::Document doc;
      terms.set_document(doc);
      terms.index_text_without_positions(chunks[id].text);
      terms.index_text_without_positions(chunks[id].file_path);
      terms.index_text_without_positions(chunks[id].section);
      db.replace_document(static_cast<Xapian::docid>(id + 1), doc);
    }
    db.commit();
    db.close();
  }
  void open(const fs::path& dir) override {
    db_ = std::make_unique<Xapian::Database>(dir.string());
    enquire_ = std::make_unique<Xapian::Enquire>(*db_);
    enquire_->set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
    parser_.set_stemmer(Xapian::Stem("english"));
    parser_.set_stemming_strategy(Xapian::QueryParser::STEM_ALL);
    parser_.set_stopper(&stopper_);
    parser_.set_default_op(Xapian::Query::OP_OR);
    parser_.set_database(*db_);
  }
  std::vector<rag::Hit> search(const std::string& query) override {
    std::vector<rag::Hit> hits;
    // Plain words: a question's "AND", quotes or '-' are not query syntax.
    enquire_->set_query(parser_.parse_query(query, 0));
    const Xapian::MSet top = enquire_->get_mset(0, static_cast<Xapian::doccount>(kCandidates));
    for (auto it = top.begin(); it != top.end(); ++it) hits.push_back({*it - 1, it.get_weight()});
    return hits;
  }

 private:
  RagStopper stopper_;
  std::unique_ptr<Xapian::Database> db_;
  std::unique_ptr<Xapian::Enquire> enquire_;
  Xapian::QueryParser parser_;
};

struct Figures {
  double build_seconds = 0;
  std::uintmax_t index_bytes = 0;
  double p50 = 0, p95 = 0, p99 = 0;  // ms
  std::vector<double> recall5;      // per dataset
};

Figures measure(Engine& engine, const std::vector<rag::Chunk>& chunks, const fs::path& dir,
                const std::vector<std::vector<rag::Question>>& datasets, int runs) {
  Figures f;
  std::vector<double> builds;
  for (int run = 0; run < runs; ++run) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    const auto start = Clock::now();
    engine.build(chunks, dir);
    builds.push_back(seconds_since(start));
  }
  f.build_seconds = median(builds);
  f.index_bytes = folder_size(dir);
  engine.open(dir);
  const rag::ChunkVector source(chunks);

  std::vector<double> p50, p95, p99;
  std::vector<std::vector<rag::ResultsFile>> results(datasets.size());
  for (int run = -1; run < runs; ++run) {  // run -1 warms caches up and is not counted
    std::vector<double> latencies;
    for (std::size_t d = 0; d < datasets.size(); ++d) {
      rag::ResultsFile file;
      file.k = kDepth;
      for (const rag::Question& q : datasets[d]) {
        const auto start = Clock::now();
        // rag::Index::search's rule against overlapping results, for both engines.
        const std::vector<rag::Hit> hits = rag::drop_repeats(engine.search(q.text), source, kDepth);
        latencies.push_back(seconds_since(start) * 1000);
        rag::SearchResult r{q.id, q.text, {}, 0};
        for (const rag::Hit& h : hits)
          r.sources.push_back({{chunks[h.chunk].file_path, chunks[h.chunk].first_char, chunks[h.chunk].last_char}, 0, "", ""});
        file.results.push_back(std::move(r));
      }
      if (run == runs - 1) f.recall5.push_back(rag::evaluate(datasets[d], file, {5}).recall.at(5));
    }
    if (run < 0) continue;
    p50.push_back(percentile(latencies, 0.50));
    p95.push_back(percentile(latencies, 0.95));
    p99.push_back(percentile(latencies, 0.99));
  }
  f.p50 = median(p50);
  f.p95 = median(p95);
  f.p99 = median(p99);
  return f;
}

void row(const std::string& name, double ours, double theirs, const char* format) {
  char a[32], b[32];
  std::snprintf(a, sizeof a, format, ours);
  std::snprintf(b, sizeof b, format, theirs);
  std::printf("| %-34s | %12s | %12s | %8.2f |\n", name.c_str(), a, b, theirs != 0 ? ours / theirs : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const rag::Pipeline pipeline = rag::Pipeline::load(args.pipeline);
    const std::vector<rag::Chunk> chunks = read_chunks(args.chunks);
    std::vector<std::vector<rag::Question>> datasets;
    std::size_t questions = 0;
    for (const auto& d : args.datasets) {
      datasets.push_back(rag::load_questions(d));
      questions += datasets.back().size();
    }
    RagEngine ours(pipeline);
    XapianEngine xapian;
    const Figures a = measure(ours, chunks, args.work / "rag", datasets, args.runs);
    const Figures b = measure(xapian, chunks, args.work / "xapian", datasets, args.runs);

    std::printf("%zu chunks, %zu questions, %d runs (medians); rag %s bm25 (pipeline %s), Xapian %s BM25Weight(k1 1.2, b 0.75)\n\n",
                chunks.size(), questions, args.runs, RAG_VERSION, pipeline.name.c_str(), Xapian::version_string());
    std::printf("| %-34s | %12s | %12s | %8s |\n", "", "rag", "Xapian", "rag/Xap");
    std::printf("|%s|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(14, '-').c_str(), std::string(14, '-').c_str(),
                std::string(10, '-').c_str());
    row("build + write (s)", a.build_seconds, b.build_seconds, "%.3f");
    row("index size (MB)", static_cast<double>(a.index_bytes) / 1e6, static_cast<double>(b.index_bytes) / 1e6, "%.1f");
    row("query p50 (ms)", a.p50, b.p50, "%.3f");
    row("query p95 (ms)", a.p95, b.p95, "%.3f");
    row("query p99 (ms)", a.p99, b.p99, "%.3f");
    for (std::size_t d = 0; d < datasets.size(); ++d)
      row("recall@5 " + args.datasets[d].stem().string(), a.recall5[d], b.recall5[d], "%.4f");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
