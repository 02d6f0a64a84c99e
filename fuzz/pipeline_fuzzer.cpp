// libFuzzer target: the pipeline loader on arbitrary YAML, then every plugin's options as the
// pipeline gives them. Invariant: a pipeline loads or is refused with rag::Error (a message for
// the user); no other exception escapes, and a loaded pipeline can be hashed and consulted.
#include "fuzz_check.hpp"
#include "bm25_retriever.hpp"
#include "markdown_chunker.hpp"
#include "python_chunker.hpp"
#include "rag/pipeline.hpp"
#include "text_chunker.hpp"

namespace {

// Builds a plugin from options the fuzzer wrote: it must accept them or throw rag::Error.
template <class Plugin>
void construct(const YAML::Node& node, const std::string& where) {
  try {
    rag::Options options(node, where);
    Plugin plugin(options);
  } catch (const rag::Error&) {
    // a refusal with a message is the expected outcome of bad options
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rag::fuzz::ScratchFile scratch(".yaml");
  const auto& path = scratch.write({reinterpret_cast<const char*>(data), size});
  rag::Pipeline pipeline;
  try {
    pipeline = rag::Pipeline::load(path);
  } catch (const rag::Error& e) {
    FUZZ_CHECK(std::string_view(e.what()).find(path.string()) == 0, std::string("message does not name the file: ") + e.what());
    return 0;
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("Pipeline::load let a foreign exception through: ") + e.what());
  }
  try {
    FUZZ_CHECK(!pipeline.chunkers.empty(), "a loaded pipeline has no chunkers");
    FUZZ_CHECK(!pipeline.content_hash().empty(), "empty content hash");
    pipeline.chunkers_for("pkg/module.py");
    for (const auto& rule : pipeline.chunkers) {
      if (rule.plugin == "python") construct<rag::PythonChunker>(rule.options, rule.where);
      if (rule.plugin == "markdown") construct<rag::MarkdownChunker>(rule.options, rule.where);
      if (rule.plugin == "text") construct<rag::TextChunker>(rule.options, rule.where);
    }
    if (pipeline.retriever.plugin == "bm25") construct<rag::Bm25Retriever>(pipeline.retriever.options, pipeline.retriever.where);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("a loaded pipeline threw: ") + e.what());
  }
  // An override on top: applied and checked, or refused with a message.
  try {
    rag::Pipeline::load(path, {"chunkers[*].options.max_chunk_size=100"});
  } catch (const rag::Error&) {
    // e.g. a chunker rule whose options are not a mapping
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("an override let a foreign exception through: ") + e.what());
  }
  return 0;
}
