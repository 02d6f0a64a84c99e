#pragma once
// The `extractive` generator: answers offline, with no model, by quoting the evidence. It cuts
// each source, and the section or definition around the best sources (the request's parents),
// into units: sentences (prose, docstrings, comments) and code statements (whole logical lines,
// never cut). It tells what is asked (what is X, how do I, which options, the default of X, where
// is X, why) and scores the units by how much of the question they cover (question words weighted
// by how rare they are among the units), by the rank of their source, and by how well their shape
// fits what is asked (a defining sentence, a command, a field with its docstring, a reason). It
// picks the best few without repeating itself, with what they announce (the code, list or table
// after a sentence ending in ':', a condition's body, a row's header), and writes them one
// paragraph per source, best source first, each cited with its source number; a question about a
// default is answered first by a sentence stating it. Code and tables never open the answer or a
// source's part bare, and every code block is closed. It matches the question as retrieval read it
// (request.query: English for a translated question) and, for a question in another language,
// says first in that language that the quotes are English. When nothing covers the question it
// returns an empty answer: the host declines. Deterministic: the same request always gives the
// same answer.
#include <string>
#include <vector>

#include "rag/analyzer.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"
#include "rag/question_kind.hpp"
#include "rag/question_words.hpp"

namespace rag {

class ExtractiveGenerator final : public Generator {
 public:
  /// Options: max_chars (code points of quoted text, default 600, where the facts of blind sets
  /// gain more than ROUGE-L against short references loses, docs/answers.md; longer sentences and
  /// code statements are passed over unless nothing else covers the question, and then cut at a
  /// word, or kept to whole lines), max_units (sentences or statements chosen, default 5, not counting
  /// what a unit brings along: what it announces, the field a docstring documents, the next
  /// sentences of the best one's paragraph; those may go past max_chars), citations (cite each
  /// source's part as [n], default true), restate (open the answer to an English question with the question turned into what
  /// the quotes answer for, "To enable prefix caching:", rag::extractive::restatement; default
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
    bool header = false;           ///< a table's header row: a label for the rows under it
    /// Announces what follows: ends with ':' ("Run:", "For example:"), or without a stop right
    /// before a code block ("To install it, run").
    bool announces = false;
    /// A sentence of the first paragraph under the heading that opens its source: a page or
    /// section opens by saying what its title names ("# Paged Attention" then "vLLM uses ...").
    bool lede = false;
    /// The first statement of a fenced code block: code before it is another block's.
    bool block_start = false;
    /// A sentence after another of its paragraph, which it goes on from.
    bool continues = false;
    /// A code statement that goes on past its text (brackets left open, a line continued by a
    /// backslash): quoted in a block, and followed there by a line "..." saying so.
    bool cut = false;

    /// A table row (its header too).
    bool row() const { return item && text.starts_with('|'); }
  };
  /// The units of one source, in text order, by its kind: Python is code statements plus
  /// docstring and comment sentences; anything else is read as Markdown: sentences, list items
  /// and table rows (links reduced to their words), with fenced code as statements. Headings,
  /// admonition titles and licence headers are left out.
  static std::vector<Unit> split_units(const Evidence& evidence, std::size_t evidence_index);

 private:
  /// A request read for its question: the sources' units, scored.
  struct Reading {
    std::string query;  ///< the question as the sources are matched against it (request.query)
    QuestionKind kind = QuestionKind::other;
    std::vector<Unit> units;
    std::size_t first_parent_unit = 0;  ///< units from here on are the parents' (sections, definitions)
    std::vector<std::string_view> titles;        ///< each unit's page title when it is the page's lede, else empty
    std::vector<std::vector<std::string>> terms;  ///< each unit's, sorted (a lede's with its title's, once read)
    std::vector<QuestionWord> words;              ///< what the question asks about
    std::vector<double> weight;                   ///< each word's, by how rare it is among the units
    std::vector<double> score;                    ///< each unit's; 0 for one that covers nothing asked
  };
  /// The answer: read, choose, write; empty when nothing covers the question.
  std::string compose(const GenerationRequest& request) const;
  /// The request's units and their terms, before any question is read: they depend on the
  /// request alone, so that every question it asks is read over the same units.
  Reading units_of(const GenerationRequest& request) const;
  /// Reads `question` (the request's query, or one of the questions it asks) over the units of
  /// `r` (units_of's): its kind and words, and each unit's score by the share of the question it
  /// covers, its source's rank and its shape. False when no unit holds a word of the question.
  bool score(const GenerationRequest& request, Reading& r, std::string_view question) const;
  /// The units to quote, best first, with what each announces; may cut the text of one that is
  /// too long alone. Empty when none scores. `parts`: the readings of the questions the request
  /// asks, when it asks several; a part no chosen unit answers brings its own best unit.
  std::vector<std::size_t> choose(const GenerationRequest& request, Reading& reading, const std::vector<Reading>& parts) const;
  /// The chosen units as the answer: what a default or "where" question is answered with first,
  /// then a paragraph per source, best first, code and tables as blocks.
  std::string write(const GenerationRequest& request, const Reading& reading, const std::vector<std::size_t>& chosen) const;
  /// Appends to `answer` the part of it `source` gives: its units `list` (indices in `units`, in
  /// text order but for a defining sentence put first), prose as one paragraph with an ellipsis
  /// where text is left out, code and tables as blocks that a line introduces unless a cited
  /// sentence does ("In `name` [n]:", the definition the block is in: a source merged from two
  /// neighbouring definitions is named after one of them). Units from `first_parent_unit` on
  /// are the parents'.
  void append_source(std::string& answer, const Evidence& source, const std::vector<Unit>& units,
                     const std::vector<std::size_t>& list, std::size_t first_parent_unit) const;
  /// For a question about a default: the sentence that states it ("The default of `dst` is `0`.
  /// [1]"), read from `units` in the order of `order` (best first); empty when none gives it.
  std::string default_sentence(const GenerationRequest& request, const std::string& query, const std::vector<Unit>& units,
                               const std::vector<std::size_t>& order, const std::vector<QuestionWord>& words) const;
  /// " [n]" for source number `n`; empty without citations.
  std::string cite(int number) const;
  /// The terms of a source's section and path: where it is.
  std::vector<std::string> place_terms(const Evidence& e) const;

  /// A source's rank counts, but a good sentence of the third source beats a poor one of the
  /// first (1 / (1 + kRankDecay x (rank - 1))); so for the place a "where" answer names.
  static constexpr double kRankDecay = 0.3;

  std::size_t max_chars_ = 600;
  std::size_t max_units_ = 5;
  bool citations_ = true;
  bool restate_ = true;
  Analyzer analyzer_;
};

}  // namespace rag
