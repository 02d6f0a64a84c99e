#pragma once
// A named pipeline, read from configs/<name>.yaml: which files make the corpus, which chunker
// handles which files, which retriever indexes the chunks, and where the index lives.
// Relative paths in the file are relative to the current working directory (the project root).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

namespace rag {

struct ChunkerRule {
  std::string plugin;              ///< chunker plugin name
  std::vector<std::string> files;  ///< globs (see glob.hpp); the first rule that matches a file wins
  YAML::Node options;              ///< handed to the plugin, which validates them
  std::string where;               ///< "configs/x.yaml: chunkers[0]" for messages
  /// `continue: true`: the files this rule chunks are also handed to the next matching rule,
  /// so that one file can be indexed at several granularities.
  bool continues = false;
};

struct PluginChoice {
  std::string plugin;
  YAML::Node options;
  std::string where;
};

struct Pipeline {
  std::filesystem::path file;  ///< where it was read from
  std::string name;            ///< `name:` or the file's stem
  std::string description;

  /// The corpus folder as written; results name files "<root>/<path below root>".
  std::string corpus_root;
  std::vector<std::string> include{"**"};
  std::vector<std::string> exclude;
  std::uintmax_t max_file_bytes = 10'000'000;

  std::vector<ChunkerRule> chunkers;
  PluginChoice retriever;
  /// How answers are written (`generator:`); the `extractive` plugin when the file names none.
  PluginChoice generator;
  /// How retrieved chunks become a generator's context (`context:`), validated where it is used.
  YAML::Node context;
  std::string context_where;
  std::filesystem::path index_dir;
  std::vector<std::filesystem::path> plugin_paths;

  /// Reads and validates `path`. Throws rag::Error naming the file and the key on an unknown
  /// key, a wrong type or a missing required key.
  static Pipeline load(const std::filesystem::path& path);

  /// Sets `key` to `value` in the options of every chunker (e.g. --max_chunk_size).
  void set_chunker_option(const std::string& key, const YAML::Node& value);

  /// The rules that chunk a path relative to the corpus root, in order: the first that matches,
  /// and after a rule with `continue: true` the next one that matches too. Empty when none does.
  std::vector<const ChunkerRule*> chunkers_for(std::string_view relative_path) const;

  /// A digest of everything that decides what the index holds (corpus rules, chunkers,
  /// retriever), not of names, descriptions or comments.
  std::string content_hash() const;
};

}  // namespace rag
