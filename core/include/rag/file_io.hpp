#pragma once
// Reading and writing whole files. Every file the program writes goes through
// write_file_atomically, so a crash or a full disk never leaves a half-written file behind.
#include <filesystem>
#include <string>
#include <string_view>

namespace rag {

/// The whole file, bytes as on disk. Throws rag::Error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// Writes `content` to a temporary file beside `path`, flushes it to disk and renames it over
/// `path`. Throws rag::Error (and leaves `path` as it was) on any failure, and when the folder
/// of `path` does not exist.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Creates `folder` and its parents when missing (a command's --save_directory). Throws
/// rag::Error naming the folder when that fails.
void create_folder(const std::filesystem::path& folder);

}  // namespace rag
