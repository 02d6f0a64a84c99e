#include "pipeline_overrides.hpp"

#include <string>
#include <vector>

#include "rag/error.hpp"

namespace rag {
namespace {

// One step of an override's key path: a key of a mapping, an entry of a list, or every entry.
struct Step {
  enum class Kind { key, entry, every } kind = Kind::key;
  std::string key;
  std::size_t entry = 0;
};

// "chunkers[0].options.max_chunk_size" -> key chunkers, entry 0, key options, key max_chunk_size.
std::vector<Step> parse_key_path(const std::string& path, const std::string& assignment) {
  const auto bad = [&](const std::string& why) -> Error {
    return Error("--set " + assignment + ": " + why +
                 " (a key path is keys joined by dots, with [N] or [*] for entries of a list: "
                 "retriever.options.k1, chunkers[*].options.max_chunk_size)");
  };
  std::vector<Step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t end = path.find_first_of(".[]", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) throw bad("a key is missing");
    steps.push_back({Step::Kind::key, key, 0});
    i = end == std::string::npos ? path.size() : end;
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) throw bad("a '[' is not closed");
      const std::string inside = path.substr(i + 1, close - i - 1);
      if (inside == "*") {
        steps.push_back({Step::Kind::every, "", 0});
      } else if (!inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos && inside.size() < 10) {
        steps.push_back({Step::Kind::entry, "", std::stoul(inside)});
      } else {
        throw bad("[" + inside + "] is not an entry number or [*]");
      }
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') throw bad("unexpected '" + std::string(1, path[i]) + "'");
      if (++i == path.size()) throw bad("a key is missing");
    }
  }
  return steps;
}

std::string describe_path(const std::vector<Step>& steps, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    const Step& s = steps[i];
    if (s.kind == Step::Kind::key) {
      if (!out.empty()) out += '.';
      out += s.key;
    } else if (s.kind == Step::Kind::every) {
      out += "[*]";
    } else {
      // Appended piece by piece: `"[" + temporary` trips a false -Wrestrict of GCC 12 at -O3.
      out += '[';
      out += std::to_string(s.entry);
      out += ']';
    }
  }
  return out;
}

// Sets what steps[i..] name below `node` to `value`, creating missing mappings.
void assign(YAML::Node node, const std::vector<Step>& steps, std::size_t i, const YAML::Node& value,
            const std::string& assignment) {
  const Step& step = steps[i];
  const bool last = i + 1 == steps.size();
  const auto set_or_descend = [&](YAML::Node child_of, auto key) {
    if (last) child_of[key] = YAML::Clone(value);
    else assign(child_of[key], steps, i + 1, value, assignment);
  };
  const std::string here = i == 0 ? "the pipeline" : describe_path(steps, i);
  if (step.kind == Step::Kind::key) {
    if (node.IsDefined() && !node.IsNull() && !node.IsMap())
      throw Error("--set " + assignment + ": " + here + " is " + (node.IsSequence() ? "a list" : "a value") +
                  ", not a mapping with a key '" + step.key + "'");
    set_or_descend(node, step.key);
    return;
  }
  if (!node.IsSequence()) throw Error("--set " + assignment + ": " + here + " is not a list");
  if (step.kind == Step::Kind::every) {
    if (node.size() == 0) throw Error("--set " + assignment + ": " + here + " has no entries, so [*] would set nothing");
    for (std::size_t entry = 0; entry < node.size(); ++entry) set_or_descend(node, entry);
    return;
  }
  if (step.entry >= node.size())
    throw Error("--set " + assignment + ": " + here + " has " + std::to_string(node.size()) + " entries, so [" +
                std::to_string(step.entry) + "] is out of range (entries count from 0)");
  set_or_descend(node, step.entry);
}

}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw Error("--set wants KEY=VALUE (e.g. --set retriever.options.k1=0.9), got '" + assignment + "'");
  const std::vector<Step> steps = parse_key_path(assignment.substr(0, equals), assignment);
  // YAML reads nothing as null, which sets the key's default: an unset shell variable
  // (`--set retriever.options.k1=$K`) would run the default without a word.
  if (assignment.find_first_not_of(" \t", equals + 1) == std::string::npos)
    throw Error("--set " + assignment + ": the value is empty; give one, or null for the key's default");
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(equals + 1));
  } catch (const YAML::Exception& e) {
    throw Error("--set " + assignment + ": the value is not valid YAML (" + e.msg + ")");
  }
  assign(root, steps, 0, value, assignment);
}

}  // namespace rag
