#pragma once
// `--set KEY=VALUE` overrides of a pipeline's YAML, applied before the pipeline is read (see
// Pipeline::load for the syntax).
#include <yaml-cpp/yaml.h>

#include <string>

namespace rag {

/// Applies one override to `root`, creating the mappings its key path needs. Throws rag::Error
/// saying what does not fit: no '=', a malformed key path, an entry out of range, [*] of an
/// empty list, a key under a value or a list, a value that is not YAML.
void apply_override(YAML::Node& root, const std::string& assignment);

}  // namespace rag
