#pragma once
// Context assembly, between retrieval and generation: retrieved chunks become numbered evidence
// within a budget, overlapping or adjacent spans of one file merged into one; optionally the
// whole Markdown section or Python definition around the best hits is added as parent context,
// rebuilt from the chunk store; and the prompt is rendered from the pipeline's template, asking
// for an answer in the question's language.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/dataset.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"
#include "rag/retriever.hpp"

namespace rag {

/// The prompt used when the pipeline sets none: a succinct answer grounded in numbered sources.
extern const char* const kDefaultSystemPrompt;
extern const char* const kDefaultUserPrompt;

/// The default of ContextConfig::min_support, chosen by cross-validation on the public questions
/// and questions the corpus cannot answer (bench/abstention.py).
inline constexpr double kDefaultMinSupport = 0.16;
/// The default of ContextConfig::score_knee, chosen with kDefaultMinSupport for BM25.
inline constexpr double kDefaultScoreKnee = 1.0;
/// The default of ContextConfig::support_weight_cap, chosen with them.
inline constexpr double kDefaultSupportWeightCap = 25;

/// A pipeline's `context:` section.
struct ContextConfig {
  /// Code points of evidence text handed to the generator. The best source always goes in, cut
  /// to the budget at a line end when it alone is longer.
  std::size_t budget = 6000;
  /// Merge retrieved spans of one file that overlap or are separated by whitespace only.
  bool merge = true;
  /// How many of the best sources get parent context (0: none), and the code points all parents
  /// may take together; a parent that does not fit is left out, not cut.
  std::size_t parent_sources = 0;
  std::size_t parent_budget = 6000;
  /// An answer declines, citing nothing, when the support the sources give the question
  /// (rag/support.hpp) is under this: 0 never declines, 1 nearly always.
  double min_support = kDefaultMinSupport;
  /// Support shrinks when the best retrieval score is under this share of what BM25 could give
  /// the question's words; 0 leaves scores out, for retrievers that score otherwise (tfidf's
  /// cosines, fusion's ranks).
  double score_knee = kDefaultScoreKnee;
  /// The most of a question's word weight (its words' rarity, summed: about 8 for a word in one
  /// chunk of the corpus, 1 for a common one) the sources must support: a long question's words
  /// past it, its context, do not count against it. 0: all of it.
  double support_weight_cap = kDefaultSupportWeightCap;
  /// Prompt templates. Placeholders: {question}, {language} (its English name), {sources} (the
  /// numbered evidence), {parents} (the parent context block, empty without one); {{ and }} are
  /// literal braces.
  std::string system_prompt = kDefaultSystemPrompt;
  std::string user_prompt = kDefaultUserPrompt;

  /// Reads `context:` (absent means the defaults): budget, merge, parents: {sources, budget},
  /// min_support, score_knee, support_weight_cap, prompt: {system, user}. Throws rag::Error naming the key for an unknown key, a bad value or
  /// an unknown placeholder.
  static ContextConfig from_options(Options& options);
};

class ContextAssembler {
 public:
  /// `chunks` is the index's (or a list's) and must outlive the assembler. Source files are read
  /// at their `file_path` below `base` (the pipeline's base folder: results name files relative
  /// to it) to merge spans across a gap and to rebuild parents exactly; a file that no longer
  /// matches its chunks is not trusted, and the chunk store alone is used.
  ContextAssembler(ContextConfig config, const ChunkSource& chunks, std::filesystem::path base);

  /// The request for `question` from retrieval hits, best first.
  GenerationRequest assemble(const std::string& question, const std::vector<Hit>& hits) const;
  /// The same from the spans of a results file, best first. A span that is not a chunk of the
  /// store is read from its file; throws rag::Error when that file cannot be read.
  GenerationRequest assemble(const std::string& question, const std::vector<SourceSpan>& spans) const;

  const ContextConfig& config() const { return config_; }

 private:
  struct Passage {
    Chunk chunk;
    double score = 0;
    std::size_t rank = 0;
  };
  GenerationRequest assemble(const std::string& question, std::vector<Passage> passages) const;

  ContextConfig config_;
  const ChunkSource& chunks_;
  std::filesystem::path base_;
};

/// `text` with each {name} replaced by its value in `values`; {{ and }} give braces. Throws
/// rag::Error naming an unknown placeholder or an unclosed brace.
std::string render_template(std::string_view text,
                            const std::vector<std::pair<std::string_view, std::string>>& values);

/// The source numbers an answer cites ("[1]", "[2, 3]", "[1][4]"), each once, in order of first
/// citation; brackets in code (fenced blocks, `inline` spans) are not citations, nor a list in
/// brackets of which a number is not between 1 and `sources` (text the answer quotes).
std::vector<int> cited_numbers(std::string_view answer, std::size_t sources = SIZE_MAX);

}  // namespace rag
