#include "rag/project.hpp"

#include <algorithm>

#include "rag/error.hpp"

namespace rag {
namespace fs = std::filesystem;

namespace {

constexpr const char* kConfigs = "configs";
constexpr const char* kDefault = "default";

// A project is a folder holding configs/default.yaml.
bool is_project(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(folder / kConfigs / (std::string(kDefault) + ".yaml"), ec);
}

bool has_yaml_extension(const fs::path& path) { return path.extension() == ".yaml" || path.extension() == ".yml"; }

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

std::optional<fs::path> find_project(const fs::path& from) {
  for (fs::path folder = from.lexically_normal();; folder = folder.parent_path()) {
    if (is_project(folder)) return folder;
    if (folder == folder.parent_path() || folder.empty()) return std::nullopt;
  }
}

PipelineLocation locate_pipeline(const std::string& spec, const fs::path& working_folder) {
  std::error_code ec;
  const std::optional<fs::path> project = find_project(working_folder);
  const std::string wanted = spec.empty() ? kDefault : spec;
  const fs::path named = project ? *project / kConfigs / (wanted + ".yaml") : fs::path();
  // A name when the project has a pipeline of that name; otherwise a path (checked by
  // Pipeline::load, which says what is wrong with it).
  const bool is_name = !has_yaml_extension(wanted) && project && fs::is_regular_file(named, ec);
  if (!spec.empty() && !is_name && (has_yaml_extension(spec) || fs::is_regular_file(working_folder / spec, ec)))
    return {(working_folder / spec).lexically_normal(), spec};
  if (!spec.empty() && !is_name && fs::is_directory(working_folder / spec, ec))
    throw Error("the pipeline '" + spec + "' is a folder; give a pipeline file (FILE.yaml)" +
                (project ? " or the name of one of " + project->string() + "'s: " + list(pipeline_names(*project)) : std::string()));
  if (!project)
    throw Error((spec.empty() ? std::string("no pipeline given") : "no pipeline file '" + spec + "'") +
                ", and no rag project (a folder with configs/default.yaml) in " + working_folder.string() +
                " or above to find one in; pass --pipeline FILE.yaml, or run from inside a project");
  if (!is_name)
    throw Error("no pipeline named '" + wanted + "' in the project at " + project->string() + " (no " +
                display_path(named, working_folder) + "); its pipelines: " + list(pipeline_names(*project)));
  return {named, wanted == kDefault ? "" : wanted};
}

fs::path pipeline_base(const fs::path& file) {
  for (fs::path folder = file.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    if (folder.filename() == kConfigs && is_project(folder.parent_path())) return folder.parent_path();
    if (folder == folder.parent_path()) break;
  }
  return file.parent_path();
}

std::vector<std::string> pipeline_names(const fs::path& project) {
  std::vector<std::string> names;
  std::error_code ec;
  const fs::path configs = project / kConfigs;
  for (fs::recursive_directory_iterator it(configs, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml" && it->is_regular_file(ec))
      names.push_back(it->path().lexically_relative(configs).replace_extension().generic_string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string display_path(const fs::path& path) {
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  return ec ? path.string() : display_path(path, here);
}

std::string display_path(const fs::path& path, const fs::path& working_folder) {
  const fs::path relative = path.lexically_relative(working_folder);
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

}  // namespace rag
