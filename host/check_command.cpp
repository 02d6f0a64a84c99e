// `rag check`: the whole pipeline validated, each stage with its effective options, and the
// state of its index.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.hpp"
#include "rag/index.hpp"
#include "rag/project.hpp"
#include "rag/responses.hpp"
#include "text_output.hpp"

namespace rag::commands {
namespace {

using json = nlohmann::ordered_json;

// YAML options as JSON: numbers and booleans as such, the rest as strings.
json to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = to_json(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& item : node) out.push_back(to_json(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  if (node.Tag() != "!") {  // not a quoted string: it may be a number or a boolean
    long long integer = 0;
    double number = 0;
    bool boolean = false;
    if (YAML::convert<long long>::decode(node, integer)) return integer;
    if (YAML::convert<double>::decode(node, number)) return number;
    if (YAML::convert<bool>::decode(node, boolean)) return boolean;
  }
  return node.Scalar();
}

std::string flow(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

const char* state_name(IndexState::Kind kind) {
  switch (kind) {
    case IndexState::Kind::missing: return "missing";
    case IndexState::Kind::stale: return "stale";
    case IndexState::Kind::current: return "current";
  }
  return "unknown";
}

// A damaged index fails the check, so that a script or a cron job notices; a missing or stale one
// is a state to report, which the next `rag index` mends.
int damaged_status(const IndexState& state) { return state.damaged ? 1 : 0; }

}  // namespace

int check(const cli::Invocation& inv) {
  cli::po::options_description options("check options");
  cli::add_pipeline_options(options);
  cli::add_format_option(options);
  const auto vm = cli::parse(inv, "[--pipeline NAME|FILE] [--set KEY=VALUE ...] [--format text|json]", options);
  if (!vm) return 0;
  const cli::Format format = cli::read_format(*vm);
  const cli::LoadedPipeline loaded(*vm);
  const Pipeline& p = loaded.pipeline;
  const IndexState state = inspect_index(loaded.stages, /*verify=*/true);  // every index file read whole: damage is found
  // Exit 1 for what `rag index` would stop at: a corpus that is not a folder, a damaged index.
  std::error_code ec;
  const std::string corpus_problem = std::filesystem::is_directory(p.corpus_dir, ec) ? ""
                                     : std::filesystem::exists(p.corpus_dir, ec)      ? "is a file, not a folder"
                                                                                      : "does not exist";
  const int status = corpus_problem.empty() ? damaged_status(state) : 1;

  if (format == cli::Format::json) {
    json stages = json::array();
    for (const auto& s : loaded.stages.report()) {
      json stage = {{"stage", s.stage}};
      if (!s.plugin.empty())
        stage.update({{"plugin", s.plugin}, {"version", s.version}, {"library", s.library.string()}});
      stage["options"] = to_json(s.options);
      stages.push_back(std::move(stage));
    }
    json index = {{"path", p.index_dir.string()}, {"state", state_name(state.kind)}};
    if (!state.why.empty()) index["why"] = state.why;
    if (state.damaged) index["damaged"] = true;
    if (state.kind != IndexState::Kind::missing && state.manifest.is_object())
      index.update({{"chunks", state.manifest.value("chunks", 0)},
                    {"segments", state.manifest.value("segments", json::array()).size()},
                    {"built_at", state.manifest.value("built_at", "")}});
    const json out = {{"pipeline", {{"name", p.name}, {"description", p.description}, {"file", p.file.string()},
                                    {"base", p.base.string()}, {"overrides", p.overrides}}},
                      {"corpus", {{"root", p.corpus_root}, {"folder", p.corpus_dir.string()},
                                  {"exists", corpus_problem.empty()}, {"include", p.include},
                                  {"exclude", p.exclude}, {"max_file_size", p.max_file_bytes}}},
                      {"stages", std::move(stages)},
                      {"index", std::move(index)}};
    cli::print(json_text(out, 2));  // the corpus's file names, which need not be UTF-8
    return status;
  }

  std::cout << "pipeline " << p.name << (p.description.empty() ? "" : ": " + p.description) << "\n"
            << "  file         " << p.label() << "\n"
            << "  base         " << p.base.string() << " (relative paths of the pipeline start there)\n"
            << "  corpus       " << p.corpus_root << " (" << p.corpus_dir.string()
            << (corpus_problem.empty() ? ")" : ", which " + corpus_problem + "; set corpus.root to the repository's folder)") << "\n"
            << "               include " << flow(YAML::Node(p.include)) << ", exclude " << flow(YAML::Node(p.exclude))
            << ", max_file_size " << p.max_file_bytes << "\n";
  for (const auto& s : loaded.stages.report()) {
    std::cout << "  " << s.stage << std::string(s.stage.size() < 13 ? 13 - s.stage.size() : 1, ' ');
    if (!s.plugin.empty()) std::cout << s.plugin << " " << s.version << " (" << display_path(s.library) << ")";
    if (s.rule != nullptr)
      std::cout << " for " << flow(YAML::Node(s.rule->files)) << (s.rule->continues ? ", then the next rule" : "");
    // A member of a fusion: its options are shown in the fusion's.
    if (s.stage.find('.') == std::string::npos) std::cout << (s.plugin.empty() ? "" : "\n               ") << flow(s.options);
    std::cout << "\n";
  }
  std::cout << "  index        " << display_path(p.index_dir) << ": " << (state.damaged ? "damaged" : state_name(state.kind));
  if (state.kind == IndexState::Kind::current)
    std::cout << " (" << cli::counted(state.manifest.value("chunks", std::size_t{0}), "chunk") << " in "
              << cli::counted(state.manifest.value("segments", json::array()).size(), "segment") << ", built "
              << state.manifest.value("built_at", "?") << ")\n";
  else if (state.kind == IndexState::Kind::missing)
    std::cout << " (`" << p.command("index") << "` builds it)\n";
  else if (state.damaged)  // what the file says to run, with this pipeline's own command
    std::cout << ": " << state.why.substr(0, state.why.find("; run `")) << " (`" << p.command("index")
              << " --full` rebuilds it)\n";
  else
    std::cout << ": " << state.why << " (`" << p.command("index") << "` brings it up to date)\n";
  return status;
}

}  // namespace rag::commands
