#pragma once
// A corpus small enough to score by hand, for the retriever tests: three one-line chunks whose
// lengths are 2, 3 and 1 terms (average 2); "apple" is in chunks 0 (once) and 1 (twice).
#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/options.hpp"
#include "retrievers/built_retriever.hpp"

namespace rag::testing {

inline Chunk text_chunk(const std::string& text) { return {"f.txt", "text", "", 0, text.size(), 0, text.size(), text}; }

inline const std::vector<Chunk> kToyChunks = {text_chunk("apple banana"), text_chunk("apple apple cherry"),
                                              text_chunk("banana")};

/// Makes `Retriever`s from `yaml` options, indexing the text alone with plain words (no
/// stemming, no stopwords) so that scores are easy to compute by hand.
template <class Retriever>
std::function<std::unique_ptr<Retriever>()> plain_words(const std::string& yaml) {
  return [yaml] {
    YAML::Node node = YAML::Load(yaml);
    node["index_path"] = false;
    node["index_section"] = false;
    node["analysis"]["default"]["stemmer"] = "none";
    node["analysis"]["default"]["stopwords"] = "none";
    Options options(node, "test");
    return std::make_unique<Retriever>(options);
  };
}

/// A `Retriever` of plain_words(yaml) built and opened over kToyChunks, one segment.
template <class Retriever>
std::unique_ptr<BuiltRetriever<Retriever>> make_toy(const std::string& yaml) {
  return std::make_unique<BuiltRetriever<Retriever>>(plain_words<Retriever>(yaml), kToyChunks);
}

}  // namespace rag::testing
