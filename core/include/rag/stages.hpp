#pragma once
// A pipeline's stages: the plugin objects its configuration names (a chunker per rule, the
// retriever, the generator) and its context assembly, all made from their options at once. This
// is how every command checks the whole pipeline before it touches an index: an unknown plugin,
// key or value is reported naming the file and the key, whichever stage the command needs.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rag/context.hpp"
#include "rag/pipeline.hpp"
#include "rag/plugin_registry.hpp"
#include "rag/translation.hpp"

namespace rag {

/// One stage as `rag check` shows it.
struct StageReport {
  std::string stage;             ///< "chunkers[0]", "retriever", "retriever.retrievers[0]" (a member of
                                 ///< a fusion), "context", "translation", "generator"
  std::string plugin;            ///< empty for context
  std::string version;           ///< the plugin's
  std::filesystem::path library;  ///< the plugin's
  YAML::Node options;            ///< every option the stage uses, defaults filled in
  const ChunkerRule* rule = nullptr;  ///< for a chunker, its rule of the pipeline
};

class PipelineStages {
 public:
  /// Makes every stage of `pipeline` (both must outlive this). Throws rag::Error for an unknown
  /// plugin or a bad option, naming the file and the key.
  PipelineStages(const Pipeline& pipeline, const PluginRegistry& registry);

  const Pipeline& pipeline() const { return pipeline_; }
  /// A chunker per rule of Pipeline::chunkers, in order. Thread-safe to use.
  const std::vector<std::unique_ptr<Chunker>>& chunkers() const { return chunkers_; }
  /// The retriever, not yet built or loaded: the one made when checking, then a new one at each
  /// further call (a retriever is loaded once).
  std::unique_ptr<Retriever> take_retriever();
  Generator& generator() const { return *generator_; }
  /// Another generator made from the pipeline's options, for a caller that answers several
  /// questions at once (a generator serves one question at a time).
  std::unique_ptr<Generator> make_generator() const;
  const ContextConfig& context() const { return context_; }
  /// Reads questions for retrieval (one that translates nothing without `translation:`).
  const QueryTranslator& translator() const { return *translator_; }

  /// Each stage, in pipeline order, with its effective options.
  const std::vector<StageReport>& report() const { return report_; }

 private:
  const Pipeline& pipeline_;
  const PluginRegistry& registry_;
  std::vector<std::unique_ptr<Chunker>> chunkers_;
  std::unique_ptr<Retriever> retriever_;
  std::unique_ptr<Generator> generator_;
  ContextConfig context_;
  std::unique_ptr<QueryTranslator> translator_;
  std::vector<StageReport> report_;
};

}  // namespace rag
