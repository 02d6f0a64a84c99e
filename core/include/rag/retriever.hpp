#pragma once
// The interface a retriever plugin implements.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include <boost/config.hpp>

#include "rag/chunk.hpp"

namespace rag {

/// One result: a chunk id (its position in the ChunkList) and a score, higher is better.
struct Hit {
  std::uint32_t chunk = 0;
  double score = 0.0;
};

class BOOST_SYMBOL_VISIBLE Retriever {
 public:
  virtual ~Retriever() = default;

  /// Builds the retriever's structures over all chunks. May run in parallel internally (TBB).
  virtual void build(ChunkList chunks) = 0;
  /// Writes the retriever's files into `dir`, a folder that belongs to it alone.
  virtual void save(const std::filesystem::path& dir) const = 0;
  /// Reads what save() wrote. `chunks` is the same list build() saw. Throws rag::Error when
  /// a file is missing or damaged, saying to re-index.
  virtual void load(const std::filesystem::path& dir, ChunkList chunks) = 0;
  /// The best `k` chunks for `query`, best first; fewer when fewer match. Thread-safe.
  virtual std::vector<Hit> search(std::string_view query, std::size_t k) const = 0;
};

}  // namespace rag
