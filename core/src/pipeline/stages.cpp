#include "rag/stages.hpp"

#include <set>

namespace rag {
namespace {

StageReport describe(const PluginRegistry& registry, PluginKind kind, std::string stage, const std::string& plugin,
                     const YAML::Node& options) {
  StageReport r{std::move(stage), plugin, "", "", options};
  if (const auto info = registry.info(kind, plugin)) {
    r.version = info->version;
    r.library = info->file;
  }
  return r;
}

// A retriever made of others (fusion) names each in its options as {plugin: name, options: ...}:
// what they make is the index too, so each is a stage of its own ("retriever.retrievers[0]"),
// with its version. Any mapping of the retriever's options whose `plugin` names a retriever is
// taken as one, at any depth. `at` is the path of `node` below the stages.
void add_member_retrievers(const PluginRegistry& registry, const YAML::Node& node, const std::string& at,
                           std::vector<StageReport>& report) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) add_member_retrievers(registry, node[i], at + "[" + std::to_string(i) + "]", report);
    return;
  }
  if (!node.IsMap()) return;
  // A key missing from a const node is an invalid node, which throws when asked its type.
  const YAML::Node plugin = node["plugin"], options = node["options"];
  if (plugin.IsDefined() && plugin.IsScalar() && registry.info(PluginKind::retriever, plugin.Scalar()))
    report.push_back(describe(registry, PluginKind::retriever, at, plugin.Scalar(), options.IsDefined() ? options : YAML::Node()));
  for (const auto& entry : node)
    if (entry.first.IsScalar()) add_member_retrievers(registry, entry.second, at + "." + entry.first.Scalar(), report);
}

// The retrievers' `analysis:` (rag/analyzer.hpp, AnalyzerSet) names chunk kinds, which are the
// pipeline's chunkers: a kind no chunker makes ("markdwn") would be read and never used.
void check_analysis_kinds(const Pipeline& pipeline, const YAML::Node& effective) {
  if (!effective.IsMap()) return;
  const YAML::Node analysis = effective["analysis"];
  if (!analysis.IsDefined() || !analysis.IsMap()) return;
  std::set<std::string> kinds;
  for (const ChunkerRule& rule : pipeline.chunkers) kinds.insert(rule.plugin);
  for (const auto& entry : analysis) {
    const std::string kind = entry.first.as<std::string>();
    if (kind == "default" || kinds.count(kind)) continue;
    std::string known = "default";
    for (const std::string& k : kinds) known += ", " + k;
    throw Error(pipeline.retriever.where + ".options.analysis: '" + kind +
                "' is no kind of chunk of this pipeline; a kind is the name of a chunker's plugin (here: " + known + ")");
  }
}

// The retriever's options as the pipeline gives them, its `search:` keys said where written.
Options retriever_options_of(const Pipeline& pipeline) {
  Options options(pipeline.retriever.options, pipeline.retriever.where + ".options");
  options.place(pipeline.retriever.search_keys, pipeline.retriever.where + ".search");
  return options;
}

}  // namespace

PipelineStages::PipelineStages(const Pipeline& pipeline, const PluginRegistry& registry)
    : pipeline_(pipeline), registry_(registry) {
  for (std::size_t i = 0; i < pipeline.chunkers.size(); ++i) {
    const ChunkerRule& rule = pipeline.chunkers[i];
    Options options(rule.options, rule.where + ".options");
    chunkers_.push_back(registry.make_chunker(rule.plugin, options));
    report_.push_back(
        describe(registry, PluginKind::chunker, "chunkers[" + std::to_string(i) + "]", rule.plugin, options.effective()));
    report_.back().rule = &rule;
  }
  Options retriever_options = retriever_options_of(pipeline);
  retriever_ = registry.make_retriever(pipeline.retriever.plugin, retriever_options);
  report_.push_back(
      describe(registry, PluginKind::retriever, "retriever", pipeline.retriever.plugin, retriever_options.effective()));
  check_analysis_kinds(pipeline, report_.back().options);
  add_member_retrievers(registry, retriever_options.effective(), "retriever", report_);
  Options context_options(pipeline.context, pipeline.context_where);
  context_ = ContextConfig::from_options(context_options);
  report_.push_back({"context", "", "", "", context_options.effective()});
  if (pipeline.translation.IsDefined() && !pipeline.translation.IsNull()) {
    Options translation_options(pipeline.translation, pipeline.translation_where);
    translator_ = std::make_unique<QueryTranslator>(TranslationConfig::from_options(translation_options, pipeline.base));
    report_.push_back({"translation", "", "", "", translation_options.effective()});
  } else {
    translator_ = std::make_unique<QueryTranslator>();
  }
  Options generator_options(pipeline.generator.options, pipeline.generator.where + ".options");
  generator_ = registry.make_generator(pipeline.generator.plugin, generator_options);
  report_.push_back(
      describe(registry, PluginKind::generator, "generator", pipeline.generator.plugin, generator_options.effective()));
}

std::unique_ptr<Retriever> PipelineStages::take_retriever() {
  if (retriever_) return std::move(retriever_);
  Options options = retriever_options_of(pipeline_);
  return registry_.make_retriever(pipeline_.retriever.plugin, options);
}

std::unique_ptr<Generator> PipelineStages::make_generator() const {
  Options options(pipeline_.generator.options, pipeline_.generator.where + ".options");
  return registry_.make_generator(pipeline_.generator.plugin, options);
}

}  // namespace rag
