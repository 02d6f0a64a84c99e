#pragma once
// Where pipelines are, whatever the working folder. A project is a folder holding
// configs/default.yaml; its pipelines are configs/<name>.yaml, named by <name> ("tfidf",
// "ablation/1-plain"). Commands find the project of the working folder by walking up from it, as
// git finds a repository, and a pipeline's relative paths are resolved against its own project,
// not against the working folder.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rag {

/// The nearest folder from `from` upwards (`from` included) that holds configs/default.yaml.
std::optional<std::filesystem::path> find_project(const std::filesystem::path& from);

/// A pipeline file found from what a user typed.
struct PipelineLocation {
  std::filesystem::path file;  ///< absolute
  /// How commands name it again from the same working folder: "" for the project's default,
  /// "tfidf" for configs/tfidf.yaml of the project, else the path as given.
  std::string reference;
};

/// What `--pipeline SPEC` names from `working_folder` (absolute): the pipeline of that name in the
/// working folder's project (SPEC without a .yaml/.yml extension, configs/SPEC.yaml existing);
/// else a file, relative to the working folder; with SPEC empty, the project's default. Throws
/// rag::Error saying what was looked for, and which pipelines the project has, when there is
/// no such pipeline or file.
PipelineLocation locate_pipeline(const std::string& spec, const std::filesystem::path& working_folder);

/// The folder a pipeline file's relative paths (corpus root, index, plugin paths) are relative
/// to: the project whose `configs` folder holds the file (configs/x.yaml and
/// configs/ablation/y.yaml both resolve against the project), else the file's own folder.
std::filesystem::path pipeline_base(const std::filesystem::path& file);

/// The names of a project's pipelines (configs/**/*.yaml without the extension), sorted.
std::vector<std::string> pipeline_names(const std::filesystem::path& project);

/// `path` as messages show it: relative to `working_folder` (by default the current one) when it
/// lies below it, else absolute.
std::string display_path(const std::filesystem::path& path, const std::filesystem::path& working_folder);
std::string display_path(const std::filesystem::path& path);

}  // namespace rag
