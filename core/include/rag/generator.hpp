#pragma once
// The interface a generator plugin implements: an answer to a question from numbered evidence.
// The host assembles the request (rag/context.hpp); a generator only writes the answer.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/config.hpp>

namespace rag {

/// A numbered passage of retrieved text: one chunk, or overlapping and adjacent chunks of one
/// file merged into one span. Answers cite it as [number].
struct Evidence {
  int number = 0;
  std::string file_path;
  /// The file as a person names it: its path below the corpus root ("vllm/config/cache.py",
  /// ChunkView::relative_path), or file_path for a file the chunk store does not hold.
  std::string place;
  std::size_t first_char = 0;  ///< code points, end exclusive
  std::size_t last_char = 0;
  std::size_t first_line = 0;  ///< the lines of its first and last character, 1-based
  std::size_t last_line = 0;
  std::string kind;     ///< the chunker that made it: "python", "markdown", "text", ...
  std::string section;  ///< header path or qualified name, see Chunk::section
  std::string text;
  /// Markdown and plain text: the text begins inside a fenced code block of its file (its first
  /// fence line closes the block), as a passage cut from the middle of a file may.
  bool starts_in_code = false;
  double score = 0;      ///< the best retrieval score of its chunks
  std::size_t rank = 0;  ///< the best 1-based retrieval rank of its chunks
};

/// One message of a chat prompt.
struct ChatMessage {
  std::string role;  ///< "system" or "user"
  std::string content;
};

/// Everything a generator may use to answer one question.
struct GenerationRequest {
  std::string question;
  /// The question as retrieval read it: in English, when it was asked in another language and
  /// the pipeline translates questions (rag/translation.hpp); else the question itself. The
  /// sources are matched against its words.
  std::string query;
  /// The question's language, ISO 639-1 ("en", "fr", ...); the prompt asks for an answer in it.
  std::string language = "en";
  /// Numbered sources, best first, within the context budget.
  std::vector<Evidence> evidence;
  /// The whole Markdown section or Python definition around top sources; `number` is the
  /// number of the source it encloses.
  std::vector<Evidence> parents;
  /// The prompt, rendered from the pipeline's template (system message, then user message).
  std::vector<ChatMessage> messages;
  /// Optional: a streaming generator calls it with each piece of the answer as it arrives.
  std::function<void(std::string_view)> on_text;
};

class BOOST_SYMBOL_VISIBLE Generator {
 public:
  virtual ~Generator() = default;
  /// The answer, citing evidence as [1], [2]; empty when the evidence holds nothing that answers
  /// the question (the host then says so in the question's language). Throws rag::Error on
  /// failure (server not reachable, model missing, ...) with what to do about it.
  virtual std::string generate(const GenerationRequest& request) = 0;
  /// What writes the answers, for reports: "ollama qwen3:0.6b at http://127.0.0.1:11434".
  virtual std::string describe() const = 0;
  /// Asks a generate() under way on another thread to stop as soon as it can, a model server
  /// that has not answered yet included; that generate() then throws rag::Error. Thread-safe;
  /// does nothing when no generate() runs, and the next one runs as usual. `rag serve` calls it
  /// when the client has gone, the request's time is up or the server is stopping, maybe
  /// several times for one generate(). It must neither throw nor block. By default nothing: a
  /// generator that answers at once has nothing to stop.
  virtual void cancel() {}
};

}  // namespace rag
