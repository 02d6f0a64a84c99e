#pragma once
// How well the retrieved sources support an answer to a question, so that an answer can decline
// when they do not: a question about something the corpus never discusses still retrieves its
// best-matching chunks, and quoting them would cite text that answers nothing.
#include <string>
#include <string_view>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/generator.hpp"
#include "rag/index.hpp"

namespace rag {

struct Support {
  /// The share of the question's words, each weighted by its rarity in the corpus, that the best
  /// single source states (string literals of code and examples are data, not statements), of
  /// at most the weight cap: a long question's words past it (its context, "I'm tired of typing
  /// a long command every time") do not count against it.
  double coverage = 0;
  /// The best retrieval score over what words of that weight could score at most, capped at 1
  /// (0 when the sources carry no scores, as a results file may not: coverage alone counts).
  double score = 0;
  /// The calibrated support in [0, 1]: the evidence supports an answer at or above the pipeline's
  /// context.min_support.
  double value = 0;
  /// What coverage and score are read from, so that they can be read again under another cap
  /// (bench/abstention.py): the question's words' weight, the weight the best source states, and
  /// the best retrieval score in units of weight (what one unit can score at most).
  double weight = 0;
  double covered = 0;
  double scored = 0;
  /// The command-line options and environment variables the question names (`--n-gpu-layers`,
  /// `OLLAMA_KEEP_ALIVE`) when no file of the index writes any of them (in any case; an option
  /// also as the field it sets): users copy such names exactly, so the question is about another
  /// program's, whatever words the sources share with it. Support is then 0 and the answer
  /// declines, saying so. Empty otherwise.
  std::vector<std::string> unwritten;
};

/// Measures support against the corpus of `index` (which gives the words' rarity: how many of
/// its chunks hold them) and must outlive the meter.
class SupportMeter {
 public:
  explicit SupportMeter(const Index& index);

  /// The support the evidence of `request` gives its query (request.query, the question as
  /// retrieval read it): the coverage, scaled down by score / `score_knee` when the score is
  /// under the knee (0: the score is not read); both of at most `weight_cap` of the question's
  /// weight (0: all of it).
  Support measure(const GenerationRequest& request, double score_knee, double weight_cap) const;

 private:
  const Index& index_;
  Analyzer analyzer_;
};

/// Whether a source of `kind` at `relative_path` (below the corpus root) is an input of the
/// project's tests or benchmarks rather than a statement about the project: a plain data file
/// (kind "text", named .txt, .json, .jsonl, .csv or .tsv) in a folder named tests, test, testdata,
/// fixtures, benchmarks or benchmark, such as a prompt or a sample text. Its words support no
/// answer; a page or a script there states what it states.
bool is_test_input(std::string_view kind, std::string_view relative_path);

/// How many chunks of `index` hold `word` (any word of a phrase), as its retriever finds them,
/// up to 200: more is common, and counting further would cost a search through all of them.
std::size_t chunks_holding(const Index& index, std::string_view word);

/// The text of `evidence` with the string literals of its code left out: Markdown and plain text
/// keep their prose and lose the quoted strings of fenced code; Python keeps docstrings and
/// comments; other code keeps its comments. What the source states, rather than data it carries
/// (prompts, JSON payloads, test inputs).
std::string stated_text(const Evidence& evidence);

}  // namespace rag
