#pragma once
// The `extractive` generator: answers offline, with no model, by quoting the evidence. It cuts
// each source into units: sentences (prose, docstrings, comments) and code statements (whole
// logical lines, never cut). It scores them by how much of the question they cover (question
// words weighted by how rare they are among the units) and by the rank of their source, picks the
// best few without repeating itself, and writes them one paragraph per source, best source first,
// in text order, each cited with its source number. Deterministic: the same request always gives
// the same answer.
#include <string>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"

namespace rag {

class ExtractiveGenerator final : public Generator {
 public:
  /// Options: max_chars (code points of quoted text, default 300; longer sentences and code
  /// statements are passed over unless nothing else covers the question, and then cut at a word,
  /// or kept to whole lines), max_units (sentences or statements chosen, default 3, not counting
  /// what a unit ending in ':' brings along), citations (cite each source's part as [n], default
  /// true).
  explicit ExtractiveGenerator(Options& options);

  /// The answer; with request.on_text, also handed out paragraph by paragraph.
  std::string generate(const GenerationRequest& request) override;
  std::string describe() const override;

  /// A sentence or a code statement of a source.
  struct Unit {
    std::size_t evidence = 0;  ///< index in the request's evidence
    bool code = false;
    std::string text;
    std::size_t chars = 0;
    bool item = false;             ///< a list item, a table row or a comment line
    bool ends_with_colon = false;  ///< announces what follows ("Run:", "For example:")
  };
  /// The units of one source, in text order, by its kind: Python is code statements plus
  /// docstring and comment sentences; anything else is read as Markdown: sentences, list items
  /// and table rows (links reduced to their words), with fenced code as statements. Headings,
  /// admonition titles and licence headers are left out.
  static std::vector<Unit> split_units(const Evidence& evidence, std::size_t evidence_index);

 private:
  std::string compose(const GenerationRequest& request) const;

  std::size_t max_chars_ = 300;
  std::size_t max_units_ = 3;
  bool citations_ = true;
  Analyzer analyzer_;
};

}  // namespace rag
