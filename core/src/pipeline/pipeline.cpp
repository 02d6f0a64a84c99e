#include "rag/pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>

#include "rag/checksum.hpp"
#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/glob.hpp"
#include "rag/options.hpp"
#include "rag/project.hpp"
#include "pipeline_overrides.hpp"

namespace rag {
namespace {

// Reads one mapping of the pipeline file, refusing keys it does not know.
class Section {
 public:
  Section(const YAML::Node& node, std::string where, std::string file)
      : node_(node), where_(std::move(where)), file_(std::move(file)) {
    if (!node_.IsMap()) fail("must be a mapping");
  }

  YAML::Node optional(const std::string& key) {
    known_.insert(key);
    const YAML::Node& node = node_;  // const: a lookup must not insert the key
    const YAML::Node value = node[key];
    // A missing key gives an "invalid" node that throws on most calls; hand out a plain one.
    return value.IsDefined() ? value : YAML::Node(YAML::NodeType::Undefined);
  }
  YAML::Node required(const std::string& key) {
    YAML::Node value = optional(key);
    if (!value.IsDefined() || value.IsNull()) fail_key(key, "is required");
    return value;
  }
  std::string string(const std::string& key, const YAML::Node& value) const {
    if (!value.IsScalar()) fail_key(key, "must be a string");
    return value.Scalar();
  }
  std::vector<std::string> strings(const std::string& key, const YAML::Node& value) const {
    if (value.IsScalar()) return {value.Scalar()};
    if (!value.IsSequence()) fail_key(key, "must be a list of strings");
    std::vector<std::string> out;
    for (const auto& item : value) {
      if (!item.IsScalar()) fail_key(key, "must be a list of strings");
      out.push_back(item.Scalar());
    }
    return out;
  }
  void finish() const {
    std::set<std::string> seen;
    for (const auto& kv : node_) {
      if (!kv.first.IsScalar())  // e.g. `[a]: 1`, which as<std::string>() would reject with no word of where
        throw Error(file_ + ": " + (where_.empty() ? "the pipeline" : where_) + " has a key that is not a name (line " +
                    std::to_string(kv.first.Mark().line + 1) + ")");
      const auto key = kv.first.as<std::string>();
      // yaml-cpp keeps the first of two equal keys and drops the second without a word.
      if (!seen.insert(key).second) throw Error(file_ + ": " + prefix() + key + " is given twice; keep one");
      if (known_.count(key)) continue;
      std::string allowed;
      for (const auto& k : known_) allowed += (allowed.empty() ? "" : ", ") + k;
      throw Error(file_ + ": " + (where_.empty() ? "" : where_ + ": ") + "unknown key '" + key + "' (allowed: " + allowed + ")");
    }
  }
  [[noreturn]] void fail_key(const std::string& key, const std::string& message) const {
    throw Error(file_ + ": " + prefix() + key + " " + message);
  }
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(file_ + ": " + (where_.empty() ? "the pipeline" : where_) + " " + message);
  }
  std::string prefix() const { return where_.empty() ? "" : where_ + "."; }

 private:
  YAML::Node node_;
  std::string where_;
  std::string file_;
  std::set<std::string> known_;
};

// `fallback`: the plugin of a section that names none (the generator's; a retriever must be named).
PluginChoice read_plugin_choice(Section& parent, const std::string& key, const std::string& file,
                                const char* fallback = nullptr) {
  Section s(parent.required(key), key, file);
  PluginChoice choice;
  const YAML::Node plugin = fallback ? s.optional("plugin") : s.required("plugin");
  choice.plugin = plugin.IsDefined() ? s.string("plugin", plugin) : fallback;
  choice.options = s.optional("options");
  choice.where = file + ": " + key;
  // `search:` holds options that change how the index is searched, not what it holds: the plugin
  // reads them with the others; the index's configuration digest leaves them out.
  if (const YAML::Node search = key == "retriever" ? s.optional("search") : YAML::Node(YAML::NodeType::Undefined);
      search.IsDefined() && !search.IsNull()) {
    if (!search.IsMap()) s.fail_key("search", "must be a mapping of options");
    const bool none = !choice.options.IsDefined() || choice.options.IsNull();
    if (!none && !choice.options.IsMap()) s.fail_key("options", "must be a mapping");
    // A copy: the pipeline's own nodes stay as written (reset() rebinds; `=` would write into them).
    YAML::Node merged = none ? YAML::Node(YAML::NodeType::Map) : YAML::Clone(choice.options);
    for (const auto& kv : search) {
      const auto name = kv.first.as<std::string>();
      if (merged[name].IsDefined()) s.fail_key("search", "sets " + name + ", which options sets too; keep one");
      merged[name] = YAML::Clone(kv.second);
      choice.search_keys.push_back(name);
    }
    choice.options.reset(merged);
  }
  s.finish();
  return choice;
}

std::string shell_quoted(const std::string& word) {
  if (word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/=:@+%") ==
      std::string::npos)
    return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// How messages name a pipeline file shown as `shown` once overrides apply.
std::string label_of(const std::string& shown, const std::vector<std::string>& overrides) {
  std::string out = shown;
  for (const auto& o : overrides) out += (&o == &overrides.front() ? " with" : "") + std::string(" --set ") + shell_quoted(o);
  return out;
}

// The pipeline in `root`, read from `path`; `label` names it in messages.
Pipeline parse(const YAML::Node& root, const std::filesystem::path& path, const std::string& label) {
  const std::string file = label;
  if (!root.IsMap()) throw Error(file + ": a pipeline must be a YAML mapping (see configs/default.yaml)");

  Pipeline p;
  p.file = path;
  p.base = pipeline_base(path);
  const auto resolve = [&](const std::string& written) {
    const std::filesystem::path resolved = (p.base / written).lexically_normal();
    return resolved.has_filename() ? resolved : resolved.parent_path();  // "index/" names the folder "index"
  };
  Section top(root, "", file);
  const YAML::Node name = top.optional("name");
  p.name = name.IsDefined() ? top.string("name", name) : path.stem().string();
  if (const YAML::Node d = top.optional("description"); d.IsDefined()) p.description = top.string("description", d);

  Section corpus(top.required("corpus"), "corpus", file);
  p.corpus_root = corpus.string("root", corpus.required("root"));
  if (p.corpus_root.empty()) corpus.fail_key("root", "is empty; name the repository's folder (e.g. data/raw/vllm-0.10.1)");
  while (p.corpus_root.size() > 1 && p.corpus_root.back() == '/') p.corpus_root.pop_back();
  p.corpus_dir = resolve(p.corpus_root);
  if (const YAML::Node n = corpus.optional("include"); n.IsDefined()) p.include = corpus.strings("include", n);
  if (const YAML::Node n = corpus.optional("exclude"); n.IsDefined()) p.exclude = corpus.strings("exclude", n);
  if (const YAML::Node n = corpus.optional("max_file_size"); n.IsDefined()) {
    try {
      const long long bytes = n.as<long long>();
      if (bytes <= 0) corpus.fail_key("max_file_size", "must be a positive number of bytes");
      p.max_file_bytes = static_cast<std::uintmax_t>(bytes);
    } catch (const YAML::Exception&) {
      corpus.fail_key("max_file_size", "must be a number of bytes");
    }
  }
  corpus.finish();

  const YAML::Node chunkers = top.required("chunkers");
  if (!chunkers.IsSequence() || chunkers.size() == 0)
    top.fail_key("chunkers", "must be a non-empty list of {plugin, files, options}");
  for (std::size_t i = 0; i < chunkers.size(); ++i) {
    const std::string where = "chunkers[" + std::to_string(i) + "]";
    Section c(chunkers[i], where, file);
    ChunkerRule rule;
    rule.plugin = c.string("plugin", c.required("plugin"));
    rule.files = c.strings("files", c.required("files"));
    rule.options = c.optional("options");
    if (const YAML::Node n = c.optional("continue"); n.IsDefined()) {
      try {
        rule.continues = n.as<bool>();
      } catch (const YAML::Exception&) {
        c.fail_key("continue", "must be true or false");
      }
    }
    rule.where = file + ": " + where;
    c.finish();
    p.chunkers.push_back(std::move(rule));
  }

  p.retriever = read_plugin_choice(top, "retriever", file);
  // Extractive unless named otherwise, also for a section that only sets options
  // (`--set generator.options.max_chars=200` on a pipeline without one).
  if (const YAML::Node g = top.optional("generator"); g.IsDefined()) {
    p.generator = read_plugin_choice(top, "generator", file, "extractive");
  } else {
    p.generator = {"extractive", YAML::Node(YAML::NodeType::Undefined), file + ": generator", {}};
  }
  p.context = top.optional("context");
  p.context_where = file + ": context";
  p.translation = top.optional("translation");
  p.translation_where = file + ": translation";
  p.index_dir = resolve(top.string("index", top.required("index")));
  // The index folder is the index's alone: rebuilds delete other generations in it.
  if (p.index_dir == p.base || is_within(p.corpus_dir, p.index_dir))
    top.fail_key("index", "must be a folder of its own (e.g. index/" + p.name +
                              "), not the project, the corpus or a folder that holds the corpus");
  if (const YAML::Node n = top.optional("plugin_paths"); n.IsDefined())
    for (const auto& s : top.strings("plugin_paths", n)) p.plugin_paths.push_back(resolve(s));
  top.finish();
  return p;
}

}  // namespace

Pipeline Pipeline::load(const std::filesystem::path& path, const std::vector<std::string>& overrides,
                        std::string reference) {
  const std::filesystem::path file = std::filesystem::absolute(path).lexically_normal();
  const std::string shown = display_path(file, std::filesystem::current_path());
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw Error(shown + ": pipeline file not found (pipelines live in configs/<name>.yaml; pass --pipeline NAME or FILE)");
  if (std::filesystem::is_directory(file, ec))
    throw Error(shown + ": is a folder; pass a pipeline file (configs/<name>.yaml)");
  std::ifstream text(file, std::ios::binary);
  if (!text) throw Error(shown + ": cannot read the pipeline file (" + std::strerror(errno) + ")");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's words for a tab in indentation ("illegal map value") do not say what is wrong.
    std::string hint;
    if (e.mark.line >= 0) {
      std::ifstream in(file);
      std::string line;
      for (int n = 0; std::getline(in, line); ++n)
        if (n <= e.mark.line && line.find('\t') < line.find_first_not_of(" \t")) {
          hint = " (line " + std::to_string(n + 1) + " is indented with a tab: YAML indents with spaces only)";
          break;
        }
    }
    throw Error(shown + ": not valid YAML: " + e.what() + hint);
  }
  if (overrides.empty()) {
    Pipeline p = parse(root, file, shown);
    p.reference = std::move(reference);
    p.yaml = root;
    return p;
  }
  YAML::Node changed = YAML::Clone(root);
  if (!changed.IsMap()) throw Error(shown + ": a pipeline must be a YAML mapping (see configs/default.yaml)");
  bool sets_index = false;
  for (const auto& o : overrides) {
    apply_override(changed, o);
    sets_index = sets_index || o.rfind("index=", 0) == 0;
  }
  Pipeline p = parse(changed, file, label_of(shown, overrides));
  p.reference = std::move(reference);
  p.overrides = overrides;
  p.yaml = changed;
  if (!sets_index) {
    // The index of the file as written stays its own: overrides that change what an index holds
    // get a folder named after the configuration.
    std::string written_hash;
    try {
      written_hash = parse(root, file, shown).content_hash();
    } catch (const Error&) {
      // the file alone is not a valid pipeline: its index cannot be this one either
    }
    if (const std::string hash = p.content_hash(); hash != written_hash) {
      std::string folder = p.index_dir.filename().string();
      folder += '@';
      folder += hash.substr(0, 12);
      p.index_dir.replace_filename(folder);
    }
  }
  return p;
}

std::vector<const ChunkerRule*> Pipeline::chunkers_for(std::string_view relative_path) const {
  std::vector<const ChunkerRule*> rules;
  for (const auto& rule : chunkers) {
    const bool matches = std::any_of(rule.files.begin(), rule.files.end(),
                                     [&](const std::string& pattern) { return glob_match(pattern, relative_path); });
    if (!matches) continue;
    rules.push_back(&rule);
    if (!rule.continues) break;
  }
  return rules;
}

std::string Pipeline::content_hash() const {
  // Numbers by value: --set k1=1.20 is the pipeline that says 1.2, and shares its index. No
  // options, null and {} are one (a retriever with `search:` alone has {} once it is left out).
  auto dump = [](const YAML::Node& node) {
    if (node.IsNull() || (node.IsMap() && node.size() == 0)) return std::string();
    YAML::Emitter out;
    out << canonical_numbers(node);
    return std::string(out.c_str());
  };
  Digest d;
  d.add(corpus_root).add(max_file_bytes);
  for (const auto& s : include) d.add("include").add(s);
  for (const auto& s : exclude) d.add("exclude").add(s);
  for (const auto& rule : chunkers) {
    d.add("chunker").add(rule.plugin).add(dump(rule.options)).add(rule.continues ? "continue" : "stop");
    for (const auto& s : rule.files) d.add(s);
  }
  // A copy made at construction: assigning to a Node that shares retriever.options would write into it.
  YAML::Node indexed = retriever.search_keys.empty() ? retriever.options : YAML::Clone(retriever.options);
  for (const std::string& key : retriever.search_keys) indexed.remove(key);
  d.add("retriever").add(retriever.plugin).add(dump(indexed));
  return d.hex();
}

std::string Pipeline::command(const std::string& verb) const {
  std::string out = "rag " + verb;
  if (!reference.empty()) out += " --pipeline " + shell_quoted(reference);
  for (const auto& o : overrides) out += " --set " + shell_quoted(o);
  return out;
}

std::string Pipeline::label() const { return label_of(display_path(file, std::filesystem::current_path()), overrides); }

}  // namespace rag
