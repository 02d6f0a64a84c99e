#include "plugin_boundary.hpp"

#include <exception>
#include <utility>

namespace rag::plugin_boundary {
namespace {

// What every wrapper keeps. Members are destroyed in reverse order: the plugin's object first,
// then (perhaps) its library.
template <class Interface>
class Held {
 public:
  Held(std::unique_ptr<Interface> object, Library library, std::string plugin)
      : library_(std::move(library)), plugin_(std::move(plugin)), object_(std::move(object)) {}


 protected:
  template <class Call>
  auto call(const char* entry_point, Call&& f) const -> decltype(f()) {
    return guarded([&] { return "the " + plugin_ + " plugin failed in " + entry_point; }, std::forward<Call>(f));
  }

  Library library_;
  std::string plugin_;
  std::unique_ptr<Interface> object_;
};

class HeldChunker final : public Chunker, Held<Chunker> {
 public:
  using Held::Held;
  std::vector<ChunkSpan> chunk(const SourceFile& file) const override {
    return call("chunk", [&] { return object_->chunk(file); });
  }
};

class HeldRetriever final : public Retriever, Held<Retriever> {
 public:
  using Held::Held;
  void build(const SegmentChunks& chunks, const std::filesystem::path& dir) override {
    call("build", [&] { object_->build(chunks, dir); });
  }
  bool updatable() const override {
    return call("updatable", [&] { return object_->updatable(); });
  }
  bool skips_removed() const override {
    return call("skips_removed", [&] { return object_->skips_removed(); });
  }
  void merge(const SegmentList& sources, const SegmentChunks& merged, const std::filesystem::path& dir) override {
    call("merge", [&] { object_->merge(sources, merged, dir); });
  }
  void open(const SegmentList& segments) override {
    call("open", [&] { object_->open(segments); });
  }
  std::vector<Hit> search(std::string_view query, std::size_t k) const override {
    return call("search", [&] { return object_->search(query, k); });
  }
};

class HeldGenerator final : public Generator, Held<Generator> {
 public:
  using Held::Held;
  std::string generate(const GenerationRequest& request) override {
    if (!request.on_text) return call("generate", [&] { return object_->generate(request); });
    // The host's callback may throw (a reader that went away): its exception is kept here and the
    // plugin sees one of ours, so that whatever the plugin catches or rethrows, the host gets its
    // own exception back.
    std::exception_ptr host_failure;
    GenerationRequest streamed = request;
    streamed.on_text = [&](std::string_view piece) {
      if (host_failure) throw Error("the reader of the answer stopped");
      try {
        request.on_text(piece);
      } catch (...) {
        host_failure = std::current_exception();
        throw Error("the reader of the answer stopped");
      }
    };
    std::string text;
    try {
      text = call("generate", [&] { return object_->generate(streamed); });
    } catch (...) {
      if (host_failure) std::rethrow_exception(host_failure);
      throw;
    }
    if (host_failure) std::rethrow_exception(host_failure);
    return text;
  }
  std::string describe() const override {
    return call("describe", [&] { return object_->describe(); });
  }
  // Called from threads that cannot report a failure (a request's watch, the stopping server):
  // a cancel that fails leaves the answer to its own timeout.
  void cancel() override {
    try {
      object_->cancel();
    } catch (...) {
    }
  }
};

}  // namespace

std::unique_ptr<Chunker> hold(std::unique_ptr<Chunker> object, Library library, std::string plugin) {
  return std::make_unique<HeldChunker>(std::move(object), std::move(library), std::move(plugin));
}

std::unique_ptr<Retriever> hold(std::unique_ptr<Retriever> object, Library library, std::string plugin) {
  return std::make_unique<HeldRetriever>(std::move(object), std::move(library), std::move(plugin));
}

std::unique_ptr<Generator> hold(std::unique_ptr<Generator> object, Library library, std::string plugin) {
  return std::make_unique<HeldGenerator>(std::move(object), std::move(library), std::move(plugin));
}

}  // namespace rag::plugin_boundary
