#pragma once
// A named pipeline, read from configs/<name>.yaml: which files make the corpus, which chunker
// handles which files, which retriever indexes the chunks, and where the index lives.
// Relative paths in the file are relative to the pipeline's project (see project.hpp), never to
// the working folder.
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
  YAML::Node options;  ///< `options:`, and the keys of `search:` (the retriever's)
  std::string where;
  /// The keys of options that came from `search:`: how the index is searched, not what it holds,
  /// so content_hash() leaves them out and changing them needs no `rag index`.
  std::vector<std::string> search_keys;
};

struct Pipeline {
  std::filesystem::path file;  ///< where it was read from, absolute
  /// What its relative paths are relative to: see pipeline_base() in project.hpp.
  std::filesystem::path base;
  /// How commands name it ("" for the project's default), see PipelineLocation.
  std::string reference;
  /// The `--set KEY=VALUE` overrides applied on top of the file, in order.
  std::vector<std::string> overrides;
  std::string name;  ///< `name:` or the file's stem
  std::string description;

  /// The corpus folder as written; results name files "<corpus_root>/<path below root>".
  std::string corpus_root;
  /// Where the corpus is: corpus_root resolved against `base`.
  std::filesystem::path corpus_dir;
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
  /// How questions in other languages are read (`translation:`, see translation.hpp), validated
  /// where it is used; absent, they are not translated.
  YAML::Node translation;
  std::string translation_where;
  /// The index folder, resolved against `base`. Overrides that change what the index holds give
  /// it a folder of its own, `<index>@<digest>`, so that an experiment never replaces the index
  /// of the pipeline as written (unless they set `index` itself).
  std::filesystem::path index_dir;
  std::vector<std::filesystem::path> plugin_paths;  ///< resolved against `base`
  /// The YAML it was read from, its overrides applied (what `rag tune` writes out).
  YAML::Node yaml;

  /// Reads and validates `path`, with `overrides` (each "KEY=VALUE", KEY a path of keys such
  /// as retriever.options.k1 or chunkers[0].options.max_chunk_size, [*] for every entry of a
  /// list; VALUE is YAML) applied first. Throws rag::Error naming the file and the key on an
  /// unknown key, a wrong type, a missing required key or an override that does not apply.
  static Pipeline load(const std::filesystem::path& path, const std::vector<std::string>& overrides = {},
                       std::string reference = {});

  /// The rules that chunk a path relative to the corpus root, in order: the first that matches,
  /// and after a rule with `continue: true` the next one that matches too. Empty when none does.
  std::vector<const ChunkerRule*> chunkers_for(std::string_view relative_path) const;

  /// A digest of everything that decides what the index holds (corpus rules, chunkers,
  /// retriever), not of names, descriptions or comments.
  std::string content_hash() const;

  /// The command line that runs `verb` on this pipeline as it was given, for messages:
  /// "rag index", "rag index --pipeline tfidf --set retriever.options.k1=0.9".
  std::string command(const std::string& verb) const;

  /// The file as messages name it, with the overrides when there are some.
  std::string label() const;
};

}  // namespace rag
