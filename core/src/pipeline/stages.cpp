#include "rag/stages.hpp"

namespace rag {
namespace {

StageReport describe(const PluginRegistry& registry, PluginKind kind, std::string stage, const std::string& plugin,
                     const Options& options) {
  StageReport r{std::move(stage), plugin, "", "", options.effective()};
  if (const auto info = registry.info(kind, plugin)) {
    r.version = info->version;
    r.library = info->file;
  }
  return r;
}

}  // namespace

PipelineStages::PipelineStages(const Pipeline& pipeline, const PluginRegistry& registry)
    : pipeline_(pipeline), registry_(registry) {
  for (std::size_t i = 0; i < pipeline.chunkers.size(); ++i) {
    const ChunkerRule& rule = pipeline.chunkers[i];
    Options options(rule.options, rule.where + ".options");
    chunkers_.push_back(registry.make_chunker(rule.plugin, options));
    report_.push_back(describe(registry, PluginKind::chunker, "chunkers[" + std::to_string(i) + "]", rule.plugin, options));
    report_.back().rule = &rule;
  }
  Options retriever_options(pipeline.retriever.options, pipeline.retriever.where + ".options");
  retriever_ = registry.make_retriever(pipeline.retriever.plugin, retriever_options);
  report_.push_back(describe(registry, PluginKind::retriever, "retriever", pipeline.retriever.plugin, retriever_options));
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
  report_.push_back(describe(registry, PluginKind::generator, "generator", pipeline.generator.plugin, generator_options));
}

std::unique_ptr<Retriever> PipelineStages::take_retriever() {
  if (retriever_) return std::move(retriever_);
  Options options(pipeline_.retriever.options, pipeline_.retriever.where + ".options");
  return registry_.make_retriever(pipeline_.retriever.plugin, options);
}

std::unique_ptr<Generator> PipelineStages::make_generator() const {
  Options options(pipeline_.generator.options, pipeline_.generator.where + ".options");
  return registry_.make_generator(pipeline_.generator.plugin, options);
}

}  // namespace rag
