#include "cli.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <set>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/project.hpp"
#include "text_output.hpp"

namespace rag::cli {

std::optional<po::variables_map> parse(const Invocation& inv, const std::string& synopsis, po::options_description options,
                                       const po::positional_options_description& positional) {
  options.add_options()("help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(inv.args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: rag " << inv.command << " " << synopsis << "\n\n" << options << "\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    std::string message = "rag " + inv.command + ": " + e.what();
    const bool takes_pipeline = options.find_nothrow("pipeline", false) != nullptr;
    if (!takes_pipeline && (e.get_option_name() == "--pipeline" || e.get_option_name() == "--set"))
      message += "; " + inv.command + " reads the files it is given and uses no pipeline";
    else if (e.get_option_name() == "--set")
      message += "; " + inv.command + " takes a pipeline as it is written, without overrides";
    else if (positional.max_total_count() > 0 && positional.name_for_position(0) == "query")
      message += "; if it is part of the query, put the query after `--`: rag " + inv.command + " -- " +
                 e.get_option_name() + " ...";
    throw Error(message + " (see `rag " + inv.command + " --help`)");
  } catch (const po::error& e) {
    throw Error("rag " + inv.command + ": " + e.what() + " (see `rag " + inv.command + " --help`)");
  }
  // An empty file name or value ('' from an unset shell variable) would be met later as ": file
  // not found". The query says so itself (an empty question is refused as such).
  for (const auto& [name, value] : vm) {
    const po::option_description* option = options.find_nothrow(name, false);
    if (name == "query" || !option || option->semantic()->min_tokens() == 0) continue;  // a flag (--json) is empty
    const auto* text = boost::any_cast<std::string>(&value.value());
    const auto* texts = boost::any_cast<std::vector<std::string>>(&value.value());
    if ((text && text->empty()) || (texts && std::find(texts->begin(), texts->end(), "") != texts->end())) {
      bool argument = false;  // given by position (RESULTS), not as --name
      for (unsigned i = 0; i < std::min(positional.max_total_count(), 8u); ++i) argument = argument || positional.name_for_position(i) == name;
      std::string upper = name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      throw Error("rag " + inv.command + ": " + (argument ? upper : "--" + name) + " is empty; give a value (see `rag " +
                  inv.command + " --help`)");
    }
  }
  return vm;
}

std::string joined_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

void add_pipeline_options(po::options_description& options) {
  options.add_options()
      ("pipeline", po::value<std::string>(),
       "a pipeline's name (tfidf: configs/tfidf.yaml of the project around the working folder) or file; "
       "default: the project's configs/default.yaml")
      ("set", po::value<std::vector<std::string>>()->composing(),
       "KEY=VALUE: override a key of the pipeline (retriever.options.k1=0.9, chunkers[*].options.max_chunk_size=500); "
       "repeatable")
      ("max_chunk_size", po::value<long long>(), "the same as --set chunkers[*].options.max_chunk_size=N");
}

std::vector<std::string> read_overrides(const po::variables_map& vm) {
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("max_chunk_size")) {
    const long long size = vm["max_chunk_size"].as<long long>();
    if (size <= 0) throw Error("--max_chunk_size must be a positive number of characters, got " + std::to_string(size));
    // Two sizes given, one would win unseen (the later override).
    for (const auto& o : overrides)
      if (o.find("max_chunk_size") != std::string::npos)
        throw Error("--max_chunk_size and --set " + o + " both set a chunk size: give one");
    overrides.push_back("chunkers[*].options.max_chunk_size=" + std::to_string(size));
  }
  return overrides;
}

Pipeline load_pipeline(const po::variables_map& vm) {
  const PipelineLocation location =
      locate_pipeline(vm.count("pipeline") ? vm["pipeline"].as<std::string>() : "", std::filesystem::current_path());
  return Pipeline::load(location.file, read_overrides(vm), location.reference);
}

std::unique_ptr<PluginRegistry> load_plugins(const Pipeline& pipeline) {
  return std::make_unique<PluginRegistry>(PluginRegistry::search_path(pipeline.plugin_paths));
}

LoadedPipeline::LoadedPipeline(const po::variables_map& vm) : LoadedPipeline(load_pipeline(vm)) {}

LoadedPipeline::LoadedPipeline(Pipeline loaded)
    : pipeline(std::move(loaded)), registry(load_plugins(pipeline)), stages(pipeline, *registry) {}

std::size_t read_k(const po::variables_map& vm, std::size_t max) {
  const long long k = vm["k"].as<long long>();
  if (k < 1 || static_cast<unsigned long long>(k) > max)
    throw Error("--k must be between 1 and " + std::to_string(max) + ", got " + std::to_string(k));
  return static_cast<std::size_t>(k);
}

void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::filesystem::path>& inputs) {
  std::error_code ec;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    check_folder_of(path);
    if (std::filesystem::is_directory(path, ec)) throw Error("--" + option + " " + path + ": a folder; give a file name");
    // Found now, not after the work: the file is written through a temporary file beside it.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (::access(folder.empty() ? "." : folder.c_str(), W_OK) != 0)
      throw Error("--" + option + " " + path + ": the folder " + (folder.empty() ? std::string(".") : folder.string()) +
                  " cannot be written (" + std::strerror(errno) + "); write it elsewhere");
    for (const auto& input : inputs)
      if (std::filesystem::equivalent(path, input, ec))
        throw Error("--" + option + " " + path + " is a file this command reads (" + input.string() +
                    "), which the output would replace: write it elsewhere");
    for (std::size_t j = 0; j < i; ++j)
      if (std::filesystem::weakly_canonical(path, ec) == std::filesystem::weakly_canonical(outputs[j].second, ec))
        throw Error("--" + outputs[j].first + " and --" + option + " name the same file, " + path +
                    ", and one would replace the other: give each its own");
  }
}

void check_output_beside(const std::string& option, const std::filesystem::path& output, const Pipeline& pipeline) {
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::weakly_canonical(std::filesystem::absolute(output, ec), ec);
  const auto fail = [&](const std::string& what) {
    throw Error("--" + option + " " + output.string() + " is " + what + ", which the output would damage: write it elsewhere");
  };
  if (std::filesystem::equivalent(output, pipeline.file, ec)) fail("the pipeline file " + pipeline.file.string());
  if (is_within(path, std::filesystem::weakly_canonical(pipeline.corpus_dir, ec))) fail("inside the corpus of " + pipeline.label() + " (" + display_path(pipeline.corpus_dir) + ")");
  // The index folder, and its tuned variants beside it.
  const std::filesystem::path index = std::filesystem::weakly_canonical(pipeline.index_dir, ec);
  const std::filesystem::path beside = path.lexically_relative(index.parent_path());
  if (is_within(path, index) || (!beside.empty() && beside.begin()->string().starts_with(index.filename().string() + "@")))
    fail("inside the index folder of " + pipeline.label() + " (" + display_path(pipeline.index_dir) + ")");
}

std::size_t warn_unindexed_truths(const std::vector<SourceSpan>& truths, const Index& index, const std::string& whose) {
  std::set<std::string> missing;
  std::size_t unfindable = 0;  // spans no retrieved span can overlap: empty, or past the file's end
  for (const SourceSpan& t : truths) {
    const auto file = index.file(t.file_path);
    if (!file || file->chunk_count == 0) {
      missing.insert(t.file_path);
    } else if (t.last <= t.first || t.last > file->size) {  // a file has no more code points than bytes
      if (unfindable++ < 3)
        std::cerr << "warning: " << whose << " gives " << t.file_path << " the span [" << t.first << ", " << t.last << "), "
                  << (t.last <= t.first ? "which is empty" : "which ends past the file's end") << ": recall cannot find it\n";
    }
  }
  if (unfindable > 3) std::cerr << "warning: " << whose << ": " << unfindable << " ground-truth spans in all are empty or past their file's end\n";
  if (missing.empty()) return 0;
  std::set<std::string_view> indexed;
  index.for_each([&](std::uint32_t, const ChunkView& c) { indexed.insert(c.file_path); });
  // The indexed file a truth's path probably means: one that ends with it, or that it ends with.
  const auto meant = [&](std::string_view truth) -> std::string {
    for (const std::string_view f : indexed) {
      const std::string_view longer = f.size() > truth.size() ? f : truth, shorter = f.size() > truth.size() ? truth : f;
      if (longer.size() > shorter.size() && longer.ends_with(shorter) && longer[longer.size() - shorter.size() - 1] == '/')
        return "; did you mean " + std::string(f) + "?";
    }
    return "";
  };
  constexpr std::size_t kNamed = 3;
  std::size_t named = 0;
  for (const std::string& file : missing) {
    if (named++ == kNamed) break;
    std::cerr << "warning: " << whose << " names " << file << ", which matches no file of the index (files are named as "
              << "results name them)" << meant(file) << "\n";
  }
  if (missing.size() > kNamed)
    std::cerr << "warning: " << whose << ": " << missing.size() << " ground-truth files in all match no file of the index; "
              << "recall cannot find them\n";
  return missing.size();
}

std::size_t warn_unindexed_truths(const std::vector<Question>& questions, const Index& index, const std::string& whose) {
  std::vector<SourceSpan> truths;
  for (const Question& q : questions) truths.insert(truths.end(), q.sources.begin(), q.sources.end());
  return warn_unindexed_truths(truths, index, whose);
}

void note_results(const ResultsFile& results, const std::string& whose) {
  const std::string who = whose.empty() ? "" : whose + ": ";
  for (const std::string& w : results.warnings) std::cerr << "warning: " << who << w << "\n";
  if (results.warned_questions > 0)
    std::cerr << "warning: " << who << results.warned_questions << " of " << results.results.size()
              << " questions were searched with part of the index left out, as warned above: their recall is lower\n";
  if (results.sources_cut == 0) return;
  std::cerr << "note: " << who << results.sources_cut << " sources were longer than " << kMaxSourceChars
            << " characters, which the grader rejects, and were cut to their first " << kMaxSourceChars
            << " (a chunker's max_chunk_size is above it)\n";
}

std::vector<std::pair<std::string, std::string>> outputs_given(const po::variables_map& vm,
                                                               const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& name : names)
    if (vm.count(name)) out.emplace_back(name, vm[name].as<std::string>());
  return out;
}

std::filesystem::path output_for(const std::filesystem::path& input, const std::string& save_directory) {
  std::filesystem::path output = std::filesystem::path(save_directory) / input.filename();
  std::error_code ec;
  if (std::filesystem::equivalent(output, input, ec))
    throw Error("--save_directory " + save_directory + " holds the input " + input.string() +
                ", and the output, of the same name, would replace it: choose another folder");
  return output;
}

std::size_t read_count(const po::variables_map& vm, const std::string& name) {
  const long long n = vm[name].as<long long>();
  if (n < 0) throw Error("--" + name + " must be 0 or more, got " + std::to_string(n));
  return static_cast<std::size_t>(n);
}

std::vector<std::string> read_distinct_files(const po::variables_map& vm, const std::string& name) {
  const auto files = vm[name].as<std::vector<std::string>>();
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code error;  // a file that does not exist is said to be missing when it is read
      if (files[i] == files[j] || std::filesystem::equivalent(files[i], files[j], error))
        throw Error("--" + name + " " + files[i] + " is given twice" + (files[i] == files[j] ? "" : " (as " + files[j] + ")") +
                    ": its questions would count twice; give each file once");
    }
  return files;
}

void add_format_option(po::options_description& options) {
  options.add_options()("format", po::value<std::string>(),
                        "text (for people; the default on a terminal) or json (the default otherwise)")(
      "json", "the same as --format json");
}

Format read_format(const po::variables_map& vm) {
  if (vm.count("json")) {
    if (vm.count("format") && vm["format"].as<std::string>() != "json")
      throw Error("--json and --format " + vm["format"].as<std::string>() + " disagree; give one of them");
    return Format::json;
  }
  if (!vm.count("format")) return ::isatty(STDOUT_FILENO) == 1 ? Format::text : Format::json;
  const std::string format = vm["format"].as<std::string>();
  if (format == "text") return Format::text;
  if (format == "json") return Format::json;
  throw Error("--format must be text or json, got '" + format + "'");
}

void warn_changed(const Index& index, const Pipeline& pipeline, const std::vector<std::string>& files) {
  std::vector<std::string> changed;
  for (const std::string& f : files)
    if (std::find(changed.begin(), changed.end(), f) == changed.end() && index.changed_since_indexing(f)) changed.push_back(f);
  if (changed.empty()) return;
  std::string names;
  for (std::size_t i = 0; i < changed.size() && i < 3; ++i) names += (i ? ", " : "") + changed[i];
  if (changed.size() > 3) names += ", ...";
  std::cerr << "warning: " << changed.size() << (changed.size() == 1 ? " file" : " files")
            << " of these results changed since indexing or " << (changed.size() == 1 ? "is" : "are") << " gone ("
            << printable(names) << "); results may point at old text (run `" << pipeline.command("index") << "`)\n";
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void print(const std::string& text) { std::cout << text << std::endl; }

void check_standard_input() {
  struct stat status {};
  if (::fstat(STDIN_FILENO, &status) != 0)
    throw Error(std::string("standard input cannot be read (") + std::strerror(errno) + "); give a file or a pipe");
  if (S_ISDIR(status.st_mode)) throw Error("standard input is a folder; give a file or a pipe (rag search - < questions.txt)");
}

bool read_standard_input(std::string& text, bool line) {
  text.clear();
  std::streambuf& in = *std::cin.rdbuf();
  bool read = false;
  for (int c = in.sbumpc(); c != std::char_traits<char>::eof(); c = in.sbumpc()) {
    read = true;
    if (line && c == '\n') return true;
    // A line break may end a question of exactly the most bytes (CR LF too); nothing else.
    if (text.size() >= kMaxInputQuestionBytes &&
        !((c == '\r' || c == '\n') && text.size() < kMaxInputQuestionBytes + 2))
      throw Error(std::string("standard input holds ") + (line ? "a line" : "a question") + " of more than " +
                  std::to_string(kMaxInputQuestionBytes >> 20) + " MiB; give questions as text, " +
                  (line ? "one a line" : "at most that long"));
    text += static_cast<char>(c);
  }
  // std::cin reads through stdio (synced, as rag never unsyncs it), so stdin's error flag is its.
  if (std::ferror(stdin) != 0) throw Error(std::string("standard input could not be read (") + std::strerror(errno) + ")");
  return read;
}

}  // namespace rag::cli
