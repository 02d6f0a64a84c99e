#include "rag/plugin_registry.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cstdlib>

#include "plugin_boundary.hpp"
#include "rag/file_io.hpp"
#include "rag/project.hpp"

namespace rag {
namespace fs = std::filesystem;

std::string_view to_string(PluginKind kind) {
  switch (kind) {
    case PluginKind::chunker: return "chunker";
    case PluginKind::retriever: return "retriever";
    case PluginKind::generator: return "generator";
  }
  return "unknown";
}

PluginRegistry::PluginRegistry(const std::vector<fs::path>& folders) : folders_(folders) {
  for (const auto& folder : folders) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".so" && it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    unloaded_.insert(unloaded_.end(), files.begin(), files.end());
  }
}

std::size_t PluginRegistry::find(PluginKind kind, std::string_view name) const {
  const auto known = [&] {
    return static_cast<std::size_t>(std::find_if(plugins_.begin(), plugins_.end(), [&](const PluginInfo& p) {
                                      return p.kind == kind && p.name == name;
                                    }) - plugins_.begin());
  };
  if (const std::size_t at = known(); at < plugins_.size()) return at;
  const std::string file_name = "lib" + std::string(name) + ".so";
  for (std::size_t i = 0; i < unloaded_.size();)
    if (unloaded_[i].filename() == file_name) {
      const fs::path file = unloaded_[i];
      unloaded_.erase(unloaded_.begin() + static_cast<std::ptrdiff_t>(i));
      load(file);
      if (const std::size_t at = known(); at < plugins_.size()) return at;
    } else {
      ++i;
    }
  load_all();
  return known();
}

std::optional<PluginInfo> PluginRegistry::info(PluginKind kind, std::string_view name) const {
  const std::lock_guard lock(mutex_);
  const std::size_t at = find(kind, name);
  return at < plugins_.size() ? std::optional(plugins_[at]) : std::nullopt;
}

void PluginRegistry::load_all() const {
  for (const auto& file : unloaded_) load(file);
  unloaded_.clear();
}

const std::vector<PluginInfo>& PluginRegistry::plugins() const {
  const std::lock_guard lock(mutex_);
  load_all();
  return plugins_;
}

const std::vector<std::string>& PluginRegistry::problems() const {
  const std::lock_guard lock(mutex_);
  load_all();
  return problems_;
}

namespace {

// Where rag's own plugins are, after the folders a user adds.
std::vector<fs::path> own_plugin_folders() {
  const fs::path program_folder = boost::dll::program_location().parent_path();
  return {program_folder / "rag-plugins",                       // a build tree
          program_folder / ".." / "lib" / "rag" / "plugins"};  // an installation
}

}  // namespace

std::vector<fs::path> PluginRegistry::search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> folders = extra;
  if (const char* env = std::getenv("RAG_PLUGIN_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const auto piece = rest.substr(0, colon);
      if (!piece.empty()) folders.emplace_back(piece);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (fs::path& own : own_plugin_folders()) folders.push_back(std::move(own));
  return folders;
}

void PluginRegistry::load(const fs::path& file) const {
  boost::dll::shared_library library;
  try {
    library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    problems_.push_back(file.string() + ": cannot be loaded (" + e.what() + ")");
    return;
  }
  if (!library.has(kPluginEntryPoint)) {
    problems_.push_back(file.string() + ": not a rag plugin (no '" + kPluginEntryPoint + "' entry point)");
    return;
  }
  const PluginDescriptor* d = library.get_alias<PluginEntryPoint>(kPluginEntryPoint)();
  if (d == nullptr) {
    problems_.push_back(file.string() + ": its entry point returned no descriptor");
    return;
  }
  if (d->abi_version != kPluginAbiVersion) {
    problems_.push_back(file.string() + ": built for plugin ABI " + std::to_string(d->abi_version) +
                        ", this rag uses ABI " + std::to_string(kPluginAbiVersion) + "; rebuild the plugin");
    return;
  }
  const bool has_factory = (d->kind == PluginKind::chunker && d->make_chunker) ||
                           (d->kind == PluginKind::retriever && d->make_retriever) ||
                           (d->kind == PluginKind::generator && d->make_generator);
  if (!has_factory) {
    problems_.push_back(file.string() + ": declares a " + std::string(to_string(d->kind)) + " but no factory for it");
    return;
  }
  for (const auto& known : plugins_)
    if (known.kind == d->kind && known.name == d->name) {  // the first one loaded wins
      problems_.push_back(file.string() + ": not used: the " + std::string(to_string(d->kind)) + " plugin '" + d->name +
                          "' comes first from " + known.file.string() + " (earlier folders of the plugin path come first)");
      return;
    }
  plugins_.push_back({d->kind, d->name, d->version, d->summary, file});
  descriptors_.push_back(d);
  libraries_.push_back(std::make_shared<const boost::dll::shared_library>(std::move(library)));
}

const PluginDescriptor& PluginRegistry::descriptor(PluginKind kind, std::string_view name, const Options& options) const {
  {
    const std::lock_guard lock(mutex_);
    if (const std::size_t at = find(kind, name); at < plugins_.size()) return *descriptors_[at];
  }
  std::string known;
  for (const auto& p : plugins())
    if (p.kind == kind) known += (known.empty() ? "" : ", ") + p.name;
  // Named where the pipeline names the plugin: "p.yaml: retriever.options" -> "p.yaml: retriever.plugin".
  std::string where = options.where();
  if (const auto dot = where.rfind(".options"); dot != std::string::npos && dot + 8 == where.size()) where.resize(dot);
  std::string message = where + ".plugin: unknown " + std::string(to_string(kind)) + " plugin '" + std::string(name) +
                        "' (known: " + (known.empty() ? "none" : known) + ")";
  const std::string file_name = "lib" + std::string(name) + ".so";
  for (const auto& problem : problems())
    if (problem.find("/" + file_name + ":") != std::string::npos) message += "; " + problem;
  std::string folders;
  for (const auto& f : folders_) folders += (folders.empty() ? "" : ", ") + display_path(f);
  throw Error(message + "; plugins are looked for in: " + folders + " (add folders with RAG_PLUGIN_PATH or plugin_paths)");
}

namespace {

// A plugin's factory, guarded: a constructor may throw anything, and returns nothing at its peril.
// A plugin that is not one of rag's own is named with its library in the message: a plugin path
// may hold one of the same name as a built-in, which then comes first.
template <class Make>
auto construct(const PluginDescriptor& d, const fs::path& library, Options& options, Make make) {
  const std::vector<fs::path> own_folders = own_plugin_folders();
  const bool own = std::any_of(own_folders.begin(), own_folders.end(), [&](const fs::path& folder) {
    return is_within(library.lexically_normal(), folder.lexically_normal());
  });
  auto object = plugin_boundary::guarded(
      [&] { return options.where() + ": the " + std::string(d.name) + " plugin failed to start"; }, [&] {
        try {
          return make();
        } catch (const Error& e) {
          if (own) throw;
          throw Error(std::string(e.what()) + " (the " + d.name + " plugin " + d.version + " of " + library.string() + ")");
        }
      });
  if (!object) throw Error(options.where() + ": the " + std::string(d.name) + " plugin made no object");
  return object;
}

}  // namespace

std::unique_ptr<Chunker> PluginRegistry::make_chunker(std::string_view name, Options& options) const {
  const auto& d = descriptor(PluginKind::chunker, name, options);
  return plugin_boundary::hold(construct(d, file_of(d), options, [&] { return d.make_chunker(options); }), library_of(d), d.name);
}

std::unique_ptr<Retriever> PluginRegistry::make_retriever(std::string_view name, Options& options) const {
  const auto& d = descriptor(PluginKind::retriever, name, options);
  return plugin_boundary::hold(construct(d, file_of(d), options, [&] { return d.make_retriever(options, *this); }), library_of(d),
                               d.name);
}

std::unique_ptr<Generator> PluginRegistry::make_generator(std::string_view name, Options& options) const {
  const auto& d = descriptor(PluginKind::generator, name, options);
  return plugin_boundary::hold(construct(d, file_of(d), options, [&] { return d.make_generator(options); }), library_of(d),
                               d.name);
}

std::size_t PluginRegistry::slot_of(const PluginDescriptor& d) const {
  return static_cast<std::size_t>(std::find(descriptors_.begin(), descriptors_.end(), &d) - descriptors_.begin());
}

fs::path PluginRegistry::file_of(const PluginDescriptor& d) const {
  const std::lock_guard lock(mutex_);
  return plugins_[slot_of(d)].file;
}

std::shared_ptr<const boost::dll::shared_library> PluginRegistry::library_of(const PluginDescriptor& d) const {
  const std::lock_guard lock(mutex_);
  return libraries_[slot_of(d)];
}

}  // namespace rag
