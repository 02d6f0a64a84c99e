#pragma once
// Finding and loading plugins (Boost.DLL). A library stays loaded while the registry or any
// object made by its plugin lives, so objects may outlive the registry; errors a plugin throws
// reach the caller as rag::Error made by the host (see src/pipeline/plugin_boundary.hpp).
#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <memory>
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
  /// Loads every shared library found (recursively) in `folders`, earlier folders first; a
  /// later plugin of the same kind and name is ignored. Libraries that are not plugins of this
  /// ABI are remembered in problems(), not thrown: they matter only when asked for by name.
  explicit PluginRegistry(const std::vector<std::filesystem::path>& folders);

  /// Where plugins are looked for: `extra` (a pipeline's plugin_paths), the folders of the
  /// environment variable RAG_PLUGIN_PATH (':'-separated), then the plugin folder of the
  /// build tree (rag-plugins/ beside the program) or of the installation (../lib/rag/plugins).
  static std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& extra);

  const std::vector<PluginInfo>& plugins() const { return plugins_; }
  const std::vector<std::string>& problems() const { return problems_; }
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
  void load(const std::filesystem::path& file);
  std::shared_ptr<const boost::dll::shared_library> library_of(const PluginDescriptor& d) const;

  std::vector<std::filesystem::path> folders_;
  std::vector<std::shared_ptr<const boost::dll::shared_library>> libraries_;  ///< one per descriptor
  std::vector<const PluginDescriptor*> descriptors_;
  std::vector<PluginInfo> plugins_;
  std::vector<std::string> problems_;
};

}  // namespace rag
