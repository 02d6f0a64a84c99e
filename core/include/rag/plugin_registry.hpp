#pragma once
// Finding and loading plugins (Boost.DLL). A library stays loaded while the registry or any
// object made by its plugin lives, so objects may outlive the registry; errors a plugin throws
// reach the caller as rag::Error made by the host (see src/pipeline/plugin_boundary.hpp).
#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rag/plugin.hpp"

namespace rag {

struct PluginInfo {
  PluginKind kind;
  std::string name;
  std::string version;
  std::string summary;
  std::filesystem::path file;
};

class PluginRegistry final : public PluginHost {
 public:
  /// Finds the shared libraries (recursively) in `folders` and loads them when needed: a plugin
  /// asked for by name is looked for first in the libraries named after it (lib<name>.so, earlier
  /// folders first), and only a name none of them declares loads every library (loading a
  /// library costs its relocations: a few milliseconds for all of them, at every command's
  /// start). Among the libraries loaded, a later plugin of the same kind and name is ignored.
  /// Libraries that are not plugins of this ABI are remembered in problems(), not thrown: they
  /// matter only when asked for by name.
  explicit PluginRegistry(const std::vector<std::filesystem::path>& folders);

  /// Where plugins are looked for: `extra` (a pipeline's plugin_paths), the folders of the
  /// environment variable RAG_PLUGIN_PATH (':'-separated), then the plugin folder of the
  /// build tree (rag-plugins/ beside the program) or of the installation (../lib/rag/plugins).
  static std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& extra);

  /// The plugin of this kind and name, loading what it takes to find it (as make_* do).
  std::optional<PluginInfo> info(PluginKind kind, std::string_view name) const;
  /// Every plugin of the folders (which loads every library).
  const std::vector<PluginInfo>& plugins() const;
  const std::vector<std::string>& problems() const;
  const std::vector<std::filesystem::path>& folders() const { return folders_; }

  /// Make a plugin object. Throws rag::Error for an unknown name (listing the known ones of
  /// that kind, and any load problem of a library of that name) or for bad options. Every call
  /// into the object is guarded: whatever it throws arrives as a rag::Error.
  std::unique_ptr<Chunker> make_chunker(std::string_view name, Options& options) const;
  std::unique_ptr<Retriever> make_retriever(std::string_view name, Options& options) const override;
  std::unique_ptr<Generator> make_generator(std::string_view name, Options& options) const;

 private:
  /// The descriptor of a plugin, or an error naming where `options` come from.
  const PluginDescriptor& descriptor(PluginKind kind, std::string_view name, const Options& options) const;
  /// The index in plugins_ of a plugin, loading what it takes to find it; plugins_.size() if no
  /// library declares it. The caller holds mutex_.
  std::size_t find(PluginKind kind, std::string_view name) const;
  void load(const std::filesystem::path& file) const;
  void load_all() const;
  /// The index in descriptors_ (and plugins_, libraries_) of a loaded plugin's descriptor; the
  /// caller holds mutex_.
  std::size_t slot_of(const PluginDescriptor& d) const;
  std::shared_ptr<const boost::dll::shared_library> library_of(const PluginDescriptor& d) const;
  std::filesystem::path file_of(const PluginDescriptor& d) const;

  std::vector<std::filesystem::path> folders_;
  // Loaded on demand, under the mutex: the registry is used through const references.
  mutable std::mutex mutex_;
  mutable std::vector<std::filesystem::path> unloaded_;  ///< in folder order, then by name
  mutable std::vector<std::shared_ptr<const boost::dll::shared_library>> libraries_;  ///< one per descriptor
  mutable std::vector<const PluginDescriptor*> descriptors_;
  mutable std::vector<PluginInfo> plugins_;
  mutable std::vector<std::string> problems_;
};

}  // namespace rag
