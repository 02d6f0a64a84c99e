// `rag index` and `rag plugins`.
#include <iostream>

#include "commands.hpp"
#include "rag/index.hpp"

namespace rag::commands {

int index(const cli::Invocation& inv) {
  cli::po::options_description options("index options");
  cli::add_pipeline_options(options);
  options.add_options()("verbose,v", "list every file passed over");
  const auto vm = cli::parse(inv, "[--pipeline FILE] [--max_chunk_size N]", options);
  if (!vm) return 0;
  const Pipeline pipeline = cli::load_pipeline(*vm);
  const auto registry = cli::load_plugins(pipeline);
  const IndexReport report = build_index(pipeline, *registry);
  if (vm->count("verbose"))
    for (const auto& note : report.notes) std::cerr << "note: " << note << "\n";
  std::cerr << "indexed " << report.files << " files into " << report.chunks << " chunks in " << report.seconds
            << " s -> " << pipeline.index_dir.string();
  if (report.skipped) std::cerr << " (" << report.skipped << " files passed over" << (vm->count("verbose") ? "" : "; -v lists them") << ")";
  std::cerr << "\n";
  return 0;
}

int plugins(const cli::Invocation& inv) {
  cli::po::options_description options("plugins options");
  options.add_options()("pipeline", cli::po::value<std::string>(), "also search the pipeline's plugin_paths");
  const auto vm = cli::parse(inv, "[--pipeline FILE]", options);
  if (!vm) return 0;
  std::vector<std::filesystem::path> extra;
  if (vm->count("pipeline")) extra = Pipeline::load((*vm)["pipeline"].as<std::string>()).plugin_paths;
  const PluginRegistry registry(PluginRegistry::search_path(extra));
  std::cout << "folders searched:";
  for (const auto& f : registry.folders()) std::cout << " " << f.string();
  std::cout << "\n\n";
  for (const auto& p : registry.plugins())
    std::cout << to_string(p.kind) << "\t" << p.name << "\t" << p.version << "\t" << p.file.string() << "\n\t"
              << p.summary << "\n";
  for (const auto& problem : registry.problems()) std::cout << "problem: " << problem << "\n";
  return 0;
}

}  // namespace rag::commands
