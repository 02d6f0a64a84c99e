#pragma once
// What every command shares: option parsing with clear errors, the pipeline and the plugins.
#include <boost/program_options.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rag/dataset.hpp"
#include "rag/index.hpp"
#include "rag/pipeline.hpp"
#include "rag/plugin_registry.hpp"
#include "rag/stages.hpp"

namespace rag::cli {

namespace po = boost::program_options;

/// A command's arguments: `args` are the words after the command name.
struct Invocation {
  std::string command;
  std::vector<std::string> args;
};

/// Parses `inv.args`; returns nothing when --help was asked (after printing it). Throws
/// rag::Error naming the command for an unknown option or a bad value; for a command that takes
/// a query, an unknown option may be the query's first word, and the message says how to pass it.
std::optional<po::variables_map> parse(const Invocation& inv, const std::string& synopsis, po::options_description options,
                                       const po::positional_options_description& positional = {});

/// The words of a query given unquoted (`rag search OpenAI compatible server`), joined by spaces.
std::string joined_words(const std::vector<std::string>& words);

/// Adds --pipeline, --set and --max_chunk_size.
void add_pipeline_options(po::options_description& options);

/// The overrides of --set and --max_chunk_size, in order.
std::vector<std::string> read_overrides(const po::variables_map& vm);

/// The pipeline that --pipeline names from the working folder (see project.hpp), with the
/// overrides of --set and --max_chunk_size.
Pipeline load_pipeline(const po::variables_map& vm);

/// The plugins the pipeline can use (its plugin_paths, RAG_PLUGIN_PATH, the build's folder).
std::unique_ptr<PluginRegistry> load_plugins(const Pipeline& pipeline);

/// A command's pipeline, its plugins and its stages, the whole pipeline checked (see
/// PipelineStages) before the command goes on.
struct LoadedPipeline {
  explicit LoadedPipeline(const po::variables_map& vm);
  explicit LoadedPipeline(Pipeline loaded);
  LoadedPipeline(const LoadedPipeline&) = delete;
  LoadedPipeline& operator=(const LoadedPipeline&) = delete;

  const Pipeline pipeline;
  const std::unique_ptr<PluginRegistry> registry;  // before the stages, which it outlives
  PipelineStages stages;
};

/// Reads --k and checks it lies in [1, max].
std::size_t read_k(const po::variables_map& vm, std::size_t max);
/// The value of a count option (`--show`), which must not be negative.
std::size_t read_count(const po::variables_map& vm, const std::string& name);
/// The files of a repeatable option (`--dataset`), in order. One named twice, even by two
/// spellings of its path, is an error: its questions would count twice.
std::vector<std::string> read_distinct_files(const po::variables_map& vm, const std::string& name);

/// Checks, before any work, the files a command will write (`outputs`: option name without
/// dashes, and path): each in a folder that exists and may be written, none a folder itself, none
/// a file the command reads (`inputs`), which it would replace, and no two the same. Throws
/// rag::Error naming the option.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                   const std::vector<std::filesystem::path>& inputs);
/// Checks an output (a file, or a folder outputs go to) against a pipeline the command reads:
/// not its file, and not inside its corpus or its index folder (those of its tuned variants,
/// `<index>@<digest>`, too), where the output would replace or add to what the pipeline reads.
/// Throws rag::Error naming the option.
void check_output_beside(const std::string& option, const std::filesystem::path& output, const Pipeline& pipeline);
/// Warns, on stderr, about the ground-truth files of `truths` that no chunk of `index` comes
/// from (recall cannot find them: a dataset whose paths lack the corpus's prefix scores 0 on
/// everything), naming the first few and the indexed file each probably means. `whose` says
/// where they come from ("--truth", "answered.json"). Returns how many files were not found.
std::size_t warn_unindexed_truths(const std::vector<SourceSpan>& truths, const Index& index, const std::string& whose);
/// The same for every source of `questions`.
std::size_t warn_unindexed_truths(const std::vector<Question>& questions, const Index& index, const std::string& whose);
/// The outputs of `names` that `vm` holds, as check_outputs takes them.
std::vector<std::pair<std::string, std::string>> outputs_given(const po::variables_map& vm,
                                                               const std::vector<std::string>& names);

/// Where a dataset command writes: the file named as `input` in the folder `save_directory`.
/// Throws rag::Error when that is `input` itself, which the output would replace.
std::filesystem::path output_for(const std::filesystem::path& input, const std::string& save_directory);

/// How a command prints its result: for people (text, the default on a terminal) or for
/// programs (JSON, the default when stdout is not a terminal).
enum class Format { text, json };
/// Adds --format, and --json for --format json.
void add_format_option(po::options_description& options);
/// The --format given, or the default for where stdout goes.
Format read_format(const po::variables_map& vm);

/// A warning on stderr when some of `files` (those of results shown) changed since they were
/// indexed, naming them and the command that updates the index.
void warn_changed(const Index& index, const Pipeline& pipeline, const std::vector<std::string>& files);

/// On stderr, what search_questions() met (`whose`: the pipeline, for commands that run several):
/// the retriever's warnings and how many questions they touched (a remote shard left out), and
/// sources cut to the grader's limit.
void note_results(const ResultsFile& results, const std::string& whose = {});

/// Milliseconds elapsed since `start`.
double milliseconds_since(std::chrono::steady_clock::time_point start);

/// Prints JSON (or any text) to stdout, then a newline.
void print(const std::string& text);

/// Throws rag::Error when standard input, about to be read ("-"), is a folder (`< /tmp`): reading
/// it would fail as if it were empty.
void check_standard_input();

/// The most bytes one question read from standard input may hold (a whole message for `answer -`,
/// a line for `search -`): past it the input is no question (`< /dev/zero`, a binary file), and
/// reading on would only fill memory.
inline constexpr std::size_t kMaxInputQuestionBytes = 1 << 20;

/// Reads standard input to its end (`line` false) or to its next line break, which is not kept
/// (`line` true); false when it has ended with nothing read. Throws rag::Error when what is read
/// passes kMaxInputQuestionBytes (the line break that ends it aside), or when the input cannot be
/// read.
bool read_standard_input(std::string& text, bool line);

}  // namespace rag::cli
