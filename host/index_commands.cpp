// `rag index`, `rag chunks` and `rag plugins`.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.hpp"
#include "rag/file_io.hpp"
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

int chunks(const cli::Invocation& inv) {
  cli::po::options_description options("chunks options");
  cli::add_pipeline_options(options);
  options.add_options()("export", cli::po::value<std::string>()->required(), "write every chunk to this JSON Lines file");
  const auto vm = cli::parse(inv, "--export FILE.jsonl [--pipeline FILE]", options);
  if (!vm) return 0;
  const Pipeline pipeline = cli::load_pipeline(*vm);
  const auto registry = cli::load_plugins(pipeline);
  const Index index(pipeline, *registry);
  std::string lines;
  for (std::size_t id = 0; id < index.chunks().size(); ++id) {
    const Chunk& c = index.chunks()[id];
    lines += nlohmann::ordered_json{{"id", id},
                                    {"file_path", c.file_path},
                                    {"kind", c.kind},
                                    {"section", c.section},
                                    {"first_character_index", c.first_char},
                                    {"last_character_index", c.last_char},
                                    {"text", c.text}}
                 .dump() +
             "\n";
  }
  const std::string file = (*vm)["export"].as<std::string>();
  write_file_atomically(file, lines);
  std::cerr << "wrote " << index.chunks().size() << " chunks to " << file << "\n";
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
