// A generator that throws where its options say (see throwing.hpp); "stream" throws after a
// first piece of the answer went to the host's streaming callback. Otherwise it cites [1].
#include "rag/plugin.hpp"
#include "throwing.hpp"

namespace {

class ThrowingGenerator final : public rag::Generator {
 public:
  explicit ThrowingGenerator(rag::Options& options) : failure_(options, {"generate", "stream", "describe"}) {}
  std::string generate(const rag::GenerationRequest& request) override {
    failure_.maybe_throw("generate");
    if (request.on_text) request.on_text("The answer ");
    failure_.maybe_throw("stream");
    if (request.on_text) request.on_text("is in [1].");
    return "The answer is in [1].";
  }
  std::string describe() const override {
    failure_.maybe_throw("describe");
    return "throwing_generator";
  }

 private:
  throwing::Failure failure_;
};

}  // namespace

RAG_PLUGIN_CLASS(ThrowingGenerator, "throwing_generator", "0.0.1", "a test generator that throws on request")
