#include "index_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "rag/corpus.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/project.hpp"

namespace rag::index_folder {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::optional<json> try_manifest(const Pipeline& pipeline) {
  const fs::path file = pipeline.index_dir / kManifest;
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  try {
    return json::parse(read_file(file));
  } catch (const json::exception&) {
    return json();
  } catch (const Error&) {
    return json();  // unreadable
  }
}

std::string damaged(const Pipeline& pipeline) {
  return display_path(pipeline.index_dir / kManifest) + " is damaged; run `" + pipeline.command("index") +
         "` to rebuild it";
}

bool readable_again(const SegmentStore::File& file, const std::string& path) {
  if (file.digest != 0) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool any_readable_again(const Pipeline& pipeline, const std::vector<OpenSegment>& segments) {
  for (const OpenSegment& s : segments)
    for (const std::uint32_t f : s.live_files())
      if (const SegmentStore::File file = s.store->file(f);
          readable_again(file, (pipeline.corpus_dir / std::string(file.relative_path)).string()))
        return true;
  return false;
}

RetimedFiles retimed_files(const json& manifest) {
  RetimedFiles out;
  if (const auto it = manifest.find("retimed"); it != manifest.end() && it->is_object())
    for (const auto& [path, time] : it->items())
      if (time.is_number_integer()) out.emplace(path, time.get<std::int64_t>());
  return out;
}

std::int64_t indexed_time(const RetimedFiles& retimed, const SegmentStore::File& file) {
  const auto moved = retimed.find(file.relative_path);
  return moved != retimed.end() ? moved->second : file.changed;
}

std::string missing_or_resized(const Pipeline& pipeline, const json& manifest) {
  for (const auto& f : manifest.at("files")) {
    const std::string path = f.at("path").get<std::string>();
    if (path.find("..") != std::string::npos) return path + " is outside the index folder";
    std::error_code ec;
    const auto size = fs::file_size(pipeline.index_dir / path, ec);
    if (ec) return path + " is missing";
    if (size != f.at("size").get<std::uintmax_t>()) return path + " is not the size it was written with";
  }
  return {};
}

std::int64_t modified_time(const fs::path& file) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) return -1;
  return file_time(status.st_mtim.tv_sec, status.st_mtim.tv_nsec);
}

std::vector<json> rewritten_files(const Pipeline& pipeline, const json& manifest) {
  std::vector<json> out;
  for (const auto& f : manifest.at("files"))
    if (const auto recorded = f.find("modified"); recorded != f.end() && recorded->is_number_integer()) {
      if (modified_time(pipeline.index_dir / f.at("path").get<std::string>()) != recorded->get<std::int64_t>()) out.push_back(f);
    }
  return out;
}

std::optional<bool> listed_binary(const json& entry) {
  const auto binary = entry.find("binary");
  if (binary == entry.end() || !binary->is_boolean()) return std::nullopt;
  return binary->get<bool>();
}

void verify_listed_file(const Pipeline& pipeline, const json& entry) {
  verify_binary_file(pipeline.index_dir / entry.at("path").get<std::string>(), listed_binary(entry).value_or(false));
}

json read_manifest(const Pipeline& pipeline) {
  std::optional<json> manifest = try_manifest(pipeline);
  if (!manifest)
    throw Error("no index at " + display_path(pipeline.index_dir) + "; run `" + pipeline.command("index") + "` first");
  if (manifest->is_null() || !manifest->is_object()) throw Error(damaged(pipeline));
  return *manifest;
}

std::string string_at(const json& manifest, const char* pointer) {
  const json::json_pointer p(pointer);
  return manifest.contains(p) && manifest.at(p).is_string() ? manifest.at(p).get<std::string>() : std::string();
}

json indexed_plugins(const PipelineStages& stages) {
  json plugins = json::array();
  for (const StageReport& s : stages.report())
    if (s.stage.starts_with("retriever") || s.stage.starts_with("chunkers["))
      plugins.push_back({{"stage", s.stage}, {"plugin", s.plugin}, {"version", s.version}});
  return plugins;
}

std::string incompatibility(const json& manifest, const PipelineStages& stages) {
  const Pipeline& pipeline = stages.pipeline();
  const json::json_pointer format_at("/format");
  const int format =
      manifest.contains(format_at) && manifest.at(format_at).is_number_integer() ? manifest.at(format_at).get<int>() : -1;
  if (format != kIndexFormat)
    return "the index at " + display_path(pipeline.index_dir) + " has format " + std::to_string(format) +
           ", this rag reads format " + std::to_string(kIndexFormat);
  if (string_at(manifest, "/pipeline/hash") != pipeline.content_hash())
    return "the index at " + display_path(pipeline.index_dir) + " was built with another configuration of the pipeline";
  // A plugin's version says when what it makes changed (docs/writing-a-retriever.md); the same
  // configuration guarantees the same plugins in the same places.
  const json::json_pointer plugins_at("/plugins");
  const json built = manifest.contains(plugins_at) ? manifest.at(plugins_at) : json();
  const json now = indexed_plugins(stages);
  if (built != now) {
    const std::string at = "the index at " + display_path(pipeline.index_dir);
    if (!built.is_array() || built.size() != now.size()) return at + " does not record its plugins' versions (an older rag built it)";
    for (std::size_t i = 0; i < now.size(); ++i)
      if (built[i] != now[i])
        return at + " was built with " + built[i].value("plugin", "?") + " " + built[i].value("version", "?") + " (" +
               built[i].value("stage", "?") + "); this is " + now[i].value("plugin", "?") + " " +
               now[i].value("version", "?");
  }
  return "";
}

std::vector<std::uint32_t> OpenSegment::live_files() const {
  std::vector<std::uint32_t> live;
  for (std::uint32_t f = 0; f < store->file_count(); ++f)
    if (!file_removed(f)) live.push_back(f);
  return live;
}

void OpenSegment::remove_file(std::uint32_t f, bool count_kinds) {
  if (file_removed(f)) return;
  removed_files.resize(std::max(removed_files.size(), store->file_count() / 64 + 1), 0);
  removed_files[f / 64] |= std::uint64_t{1} << (f % 64);
  const SegmentStore::File file = store->file(f);
  if (file.chunk_count > 0) removed_chunks.resize(store->size() / 64 + 1, 0);
  for (std::uint32_t c = file.first_chunk; c < file.first_chunk + file.chunk_count; ++c) {
    removed_chunks[c / 64] |= std::uint64_t{1} << (c % 64);
    if (!count_kinds) continue;
    if (const auto kind = kinds.find(store->chunk(c).kind); kind != kinds.end() && kind->second > 0) --kind->second;
  }
  live_chunks -= file.chunk_count;
}

std::vector<OpenSegment> open_segments(const Pipeline& pipeline, const json& manifest) {
  std::vector<OpenSegment> segments;
  try {
    for (const json& s : manifest.at("segments")) {
      OpenSegment open;
      open.name = s.at("name").get<std::string>();
      if (open.name.find('/') != std::string::npos || open.name.rfind("seg-", 0) != 0) throw Error(damaged(pipeline));
      open.store = std::make_unique<SegmentStore>(pipeline.index_dir / open.name / kChunks);
      open.live_chunks = open.store->size();
      for (const auto& [kind, count] : s.at("kinds").items()) open.stored_kinds[kind] = count.get<std::size_t>();
      for (const auto& [kind, count] : s.at("live_kinds").items()) open.kinds[kind] = count.get<std::size_t>();
      if (s.contains("removed")) {
        open.removed_file = s.at("removed").get<std::string>();
        if (open.removed_file.rfind(open.name + "/removed-", 0) != 0 || open.removed_file.find("..") != std::string::npos)
          throw Error(damaged(pipeline));
        const BinaryReader removed(pipeline.index_dir / open.removed_file, "removed", kRemovedFormat);
        removed.verify();  // small, and read whole anyway
        const auto bits = removed.array<std::uint64_t>(0);
        if (bits.size() > open.store->file_count() / 64 + 1) removed.damaged("does not match its segment");
        for (std::uint32_t f = 0; f < open.store->file_count(); ++f)
          if (f / 64 < bits.size() && (bits[f / 64] >> (f % 64) & 1U)) open.remove_file(f, /*count_kinds=*/false);
      }
      // A segment named twice would count its chunks twice.
      if (std::any_of(segments.begin(), segments.end(), [&](const OpenSegment& o) { return o.name == open.name; }))
        throw Error(damaged(pipeline));
      segments.push_back(std::move(open));
    }
    // The segments' chunks add up to what the manifest counts: a list emptied or cut is damage.
    std::size_t live = 0;
    for (const OpenSegment& open : segments) live += open.live_chunks;
    if (live != manifest.at("chunks").get<std::size_t>()) throw Error(damaged(pipeline));
  } catch (const json::exception&) {
    throw Error(damaged(pipeline));
  }
  return segments;
}

std::vector<Segment> retriever_view(const Pipeline& pipeline, const std::vector<const OpenSegment*>& segments) {
  std::vector<Segment> view;
  std::uint32_t base = 0;
  for (const OpenSegment* s : segments) {
    view.push_back({pipeline.index_dir / s->name / kRetrieverDir, s->store.get(), base, s->removed_chunks});
    base += static_cast<std::uint32_t>(s->store->size());
  }
  return view;
}

}  // namespace rag::index_folder
