#pragma once
// The interface a generator plugin implements: an answer from retrieved evidence.
#include <string>
#include <vector>

#include <boost/config.hpp>

#include "rag/chunk.hpp"

namespace rag {

/// A numbered source handed to a generator; `number` is what the answer cites ([1], [2], ...).
struct Evidence {
  int number = 0;
  const Chunk* chunk = nullptr;
  double score = 0.0;
};

class BOOST_SYMBOL_VISIBLE Generator {
 public:
  virtual ~Generator() = default;
  /// An answer to `question` grounded in `evidence`. Throws rag::Error on failure (server not
  /// reachable, model missing, ...), with what to do about it.
  virtual std::string answer(const std::string& question, const std::vector<Evidence>& evidence) = 0;
};

}  // namespace rag
