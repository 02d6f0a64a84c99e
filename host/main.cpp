// rag: runs named YAML pipelines over a codebase. Command-line dispatch and error reporting.
#include <boost/dll/import.hpp>
#include <boost/dll/runtime_symbol_info.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "rag/error.hpp"

namespace {

// `rag serve` runs from librag_serve.so, beside the program in a build tree or in its lib folder
// once installed: loading cpp-httplib (and with it OpenSSL and Brotli) only for the server keeps
// milliseconds off the start of every other command.
int serve(const rag::cli::Invocation& inv) {
  const std::filesystem::path folder = boost::dll::program_location().parent_path();
  std::string tried;
  for (const auto& file : {folder / "librag_serve.so", folder / ".." / RAG_INSTALL_LIBDIR / "librag_serve.so"}) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      tried += (tried.empty() ? "" : ", ") + file.lexically_normal().string();
      continue;
    }
    static boost::dll::shared_library module;  // loaded until exit: what the server throws may be defined in it
    try {
      module.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      throw rag::Error("cannot load " + file.string() + " (" + e.what() + "); rebuild or reinstall rag");
    }
    return module.get_alias<int(const rag::cli::Invocation&)>("rag_serve")(inv);
  }
  throw rag::Error("rag serve needs librag_serve.so, which is in none of " + tried + "; rebuild or reinstall rag");
}

struct Command {
  int (*run)(const rag::cli::Invocation&);
  const char* summary;
};

const std::map<std::string, Command>& command_table() {
  static const std::map<std::string, Command> table = {
      {"index", {rag::commands::index, "chunk the corpus and build the pipeline's index"}},
      {"chunks", {rag::commands::chunks, "export the index's chunks, or measure which ground-truth spans they reach"}},
      {"search", {rag::commands::search, "answer one query with ranked source locations (text on a terminal, else JSON)"}},
      {"search_dataset", {rag::commands::search_dataset, "search every question of a dataset, write a results file"}},
      {"evaluate", {rag::commands::evaluate, "recall@k and MRR of a results file against an answered dataset"}},
      {"mesure_recall_at_k_on_dataset", {rag::commands::evaluate, "the same as evaluate"}},
      {"compare", {rag::commands::compare, "A/B two or more pipelines on answered datasets, with a paired significance test"}},
      {"tune", {rag::commands::tune, "choose a pipeline's options by cross-validation and report held-out-fold recall"}},
      {"plugins", {rag::commands::plugins, "list the plugins found and where"}},
      {"serve", {serve, "serve search, answers and a web page over HTTP (docs/http-api.md)"}},
      {"check", {rag::commands::check, "validate a pipeline, show each stage's options and whether its index is current"}},
      {"answer", {rag::commands::answer, "answer one question from retrieved sources, with citations (text on a terminal, else JSON)"}},
      {"answer_dataset", {rag::commands::answer_dataset, "add an answer to every result of a results file (or dataset)"}},
      {"evaluate_answers", {rag::commands::evaluate_answers, "ROUGE-L, token F1 and cited sources of answers against references"}},
  };
  return table;
}

void usage(std::ostream& out) {
  out << "usage: rag <command> [options]   (rag <command> --help for its options)\n\ncommands:\n";
  for (const auto& [name, command] : command_table())
    out << "  " << name << std::string(name.size() < 30 ? 30 - name.size() : 1, ' ') << command.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit (`ulimit -f`) a write should fail with EFBIG, which is reported and
  // cleaned up, instead of SIGXFSZ killing the process and leaving a temporary file behind.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return 0;
  }
  if (name == "--version") {
    std::cout << "rag " << RAG_VERSION << "\n";
    return 0;
  }
  const auto it = command_table().find(name);
  if (it == command_table().end()) {
    std::cerr << "error: unknown command '" << name << "' (see `rag --help`)\n";
    return 2;
  }
  try {
    const int status = it->second.run({name, std::vector<std::string>(argv + 2, argv + argc)});
    // What a command prints (std::cout, or printf for a few tables) fails quietly: a full disk, a
    // file-size limit, a closed descriptor. Said here, or a script would take cut-off output for a
    // whole one. errno is the last failure's, which is the write's unless something failed since.
    const bool flushed = static_cast<bool>(std::cout.flush()) && std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
    if (!flushed) {
      std::cerr << "error: the output could not be written whole (" << std::strerror(errno) << ")\n";
      return 1;
    }
    return status;
  } catch (const rag::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 1;
}
