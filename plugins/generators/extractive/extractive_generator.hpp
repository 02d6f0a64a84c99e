#pragma once
// The `extractive` generator: answers offline, with no model, by quoting the evidence. It cuts
// each source into sentences (prose, docstrings, comments) and lines (code, which it never cuts),
// scores them by how much of the question they cover (query terms weighted by how rare they are
// in the evidence), the rank of their source and their place in it, picks the best few without
// repeating itself, and writes them in order, each group cited with its source number.
// Deterministic: the same request always gives the same answer.
#include <string>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"

namespace rag {

class ExtractiveGenerator final : public Generator {
 public:
  /// Options: max_chars (code points of quoted text, default 300; a single sentence or line
  /// longer than that is left out), max_units (sentences or lines, default 3), citations (add
  /// [n] after each source's part, default true).
  explicit ExtractiveGenerator(Options& options);

  std::string generate(const GenerationRequest& request) override;
  std::string describe() const override;

  /// A sentence or a code line of a source, in the source's order.
  struct Unit {
    std::size_t evidence = 0;  ///< index in the request's evidence
    std::size_t position = 0;  ///< order within its source
    bool code = false;
    std::string text;
    std::size_t chars = 0;
    bool ends_with_colon = false;  ///< announces what follows ("Run:", "For example:")
  };
  /// The units of one source, by its kind: Python is code lines plus docstring and comment
  /// sentences; Markdown is sentences, list items and table rows, with fenced code as lines;
  /// anything else is sentences. Headings are left out.
  static std::vector<Unit> split_units(const Evidence& evidence, std::size_t evidence_index);

 private:
  std::size_t max_chars_ = 300;
  std::size_t max_units_ = 3;
  bool citations_ = true;
  Analyzer analyzer_;
};

}  // namespace rag
