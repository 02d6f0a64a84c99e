#pragma once
// The chunks of an index on disk: every chunk's file, kind, section, spans and text.
#include <filesystem>
#include <vector>

#include "rag/chunk.hpp"

namespace rag {

void save_chunks(const std::filesystem::path& file, ChunkList chunks);
/// Throws rag::Error when the file is missing, damaged or of another format.
std::vector<Chunk> load_chunks(const std::filesystem::path& file);

}  // namespace rag
