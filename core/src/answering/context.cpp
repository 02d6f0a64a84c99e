#include "rag/context.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "rag/error.hpp"
#include "rag/file_io.hpp"
#include "rag/language.hpp"
#include "rag/source_file.hpp"
#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {

const char* const kDefaultSystemPrompt =
    "You answer questions about a software project using only the numbered sources you are given.\n"
    "Answer in {language}, succinctly: two or three sentences, or a short list or command when that is clearer.\n"
    "Keep names, options and commands exactly as the sources write them, and cite the sources you use by their "
    "numbers, like [1].\n"
    "If the sources do not contain the answer, say so instead of guessing.";

const char* const kDefaultUserPrompt = "Sources:\n\n{sources}{parents}Question: {question}";

namespace {

constexpr std::string_view kPlaceholders[] = {"question", "language", "sources", "parents"};
// Code points a source ending in ':' may grow by to take the code, table or list it announces
// (a table of a few rows, a short list; 600 and 1,000 answer alike, 1,500 leaves out more sources).
constexpr std::size_t kMaxAnnounced = 600;

// Source files read while assembling one request, each checked against the chunks that came
// from it: a file edited since indexing would give wrong text, so it is not used.
class SourceFiles {
 public:
  /// Files named as results name them are read below `base`.
  explicit SourceFiles(const std::filesystem::path& base) : base_(base) {}

  const SourceFile* get(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) it = files_.emplace(path, load(path)).first;
    return it->second.get();
  }
  // The file of `chunk` when its text is still what the chunk holds.
  const SourceFile* matching(const ChunkView& chunk) {
    const SourceFile* file = get(std::string(chunk.file_path));
    if (file == nullptr || chunk.last_byte > file->text().size() ||
        file->slice({chunk.first_byte, chunk.last_byte}) != chunk.text)
      return nullptr;
    return file;
  }

 private:
  std::unique_ptr<SourceFile> load(const std::string& path) const {
    try {
      return std::make_unique<SourceFile>(path, path, read_file(base_ / path));
    } catch (const Error&) {
      return nullptr;  // unreadable or not UTF-8: callers fall back to the chunk store
    }
  }
  std::filesystem::path base_;
  std::map<std::string, std::unique_ptr<SourceFile>> files_;
};

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

std::size_t char_count(const std::string& text) { return utf8::count_code_points(text); }

// The first `chars` code points of `text`, cut back to a line end when one lies in the second half.
std::string cut_to(const std::string& text, std::size_t chars) {
  std::size_t bytes = utf8::prefix_bytes(text, chars);
  const std::size_t line_end = text.rfind('\n', bytes);
  if (bytes < text.size() && line_end != std::string::npos && line_end >= bytes / 2) bytes = line_end;
  return text.substr(0, bytes);
}

// Merges `next` into `into`, both of one file, `next` starting at or after `into`. The text is
// the file's slice when `file` is given, else what the two chunks hold (they overlap or touch).
void merge_into(Chunk& into, const Chunk& next, const SourceFile* file) {
  const std::size_t first_byte = std::min(into.first_byte, next.first_byte);
  const std::size_t last_byte = std::max(into.last_byte, next.last_byte);
  if (file != nullptr) {
    into.text = std::string(file->slice({first_byte, last_byte}));
  } else if (next.last_byte > into.last_byte) {
    into.text += next.text.substr(into.last_byte - next.first_byte);
  }
  into.first_char = std::min(into.first_char, next.first_char);
  into.last_char = std::max(into.last_char, next.last_char);
  into.first_byte = first_byte;
  into.last_byte = last_byte;
  into.first_line = std::min(into.first_line, next.first_line);
  into.last_line = std::max(into.last_line, next.last_line);
}

// The text of consecutive chunks of one file: the file's slice when it matches them all, else
// their texts joined, overlaps removed and gaps marked by a line break.
std::string join_chunks(const std::vector<ChunkView>& run, SourceFiles& files) {
  const SourceFile* file = files.matching(run.front());
  for (const ChunkView& c : run)
    if (file != nullptr && files.matching(c) != file) file = nullptr;
  if (file != nullptr) return std::string(file->slice({run.front().first_byte, run.back().last_byte}));
  std::string text(run.front().text);
  std::size_t end = run.front().last_byte;
  for (std::size_t i = 1; i < run.size(); ++i) {
    const ChunkView& c = run[i];
    if (c.last_byte <= end) continue;
    if (c.first_byte >= end) {
      if (c.first_byte > end) text += '\n';
      text += c.text;
    } else {
      text += c.text.substr(end - c.first_byte);
    }
    end = c.last_byte;
  }
  return text;
}

// Whether byte `at` of Markdown `text` lies inside a fenced code block: an odd number of fence
// lines (``` or ~~~, indented or not, as admonitions indent them) before it.
bool inside_fence(std::string_view text, std::size_t at) {
  bool inside = false;
  for (std::size_t line = 0; line < at;) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    // A fence counts when its marker starts before `at`.
    if (text.find_first_not_of(" \t", line) < at && is_fence_line(text.substr(line, end - line))) inside = !inside;
    if (end == text.size()) break;
    line = end + 1;
  }
  return inside;
}

// A passage of prose that ends announcing something ("Start the server with:", "vLLM provides three
// backends:") says nothing without it: it takes the code block, table or list that follows in its
// file, when the file still matches it, as a merge takes an adjacent source (chunkers often cut
// there: 12% of the docs questions' top-5 sources end in ':').
void take_announced(Chunk& chunk, SourceFiles& files) {
  const std::size_t kept = chunk.text.find_last_not_of(" \t\r\n");
  if (kept == std::string::npos || chunk.text[kept] != ':') return;
  const SourceFile* file = files.matching(chunk.view());
  const std::size_t colon = chunk.first_byte + kept;
  if (file == nullptr || inside_fence(file->text(), colon)) return;
  const std::size_t end = announced_block_end(file->text(), colon, kMaxAnnounced);
  if (end <= chunk.last_byte) return;
  chunk.text = std::string(file->slice({chunk.first_byte, end}));
  chunk.last_byte = end;
  chunk.last_char = file->char_offset(end);
  chunk.last_line = file->line_of(end - 1);
}

std::string describe_source(const Evidence& e) {
  std::string head = "[" + std::to_string(e.number) + "] " + e.file_path;
  if (!e.section.empty()) head += " (" + e.section + ")";
  return head + "\n" + e.text + "\n\n";
}

// The separator of a section's levels: Markdown header paths and Python qualified names.
std::string_view level_separator(const std::string& kind) {
  if (kind == "markdown") return " > ";
  if (kind == "python") return ".";
  return "";
}

// Adds to `request` the parents of its best sources (config.parent_sources of them): for each, the
// smallest enclosing section or definition that is more than the source itself, built from the
// run of chunks of the file that belong to it, within config.parent_budget.
void add_parents(GenerationRequest& request, const ContextConfig& config, const ChunkSource& chunks, SourceFiles& files) {
  std::size_t parent_used = 0;
  for (std::size_t i = 0; i < request.evidence.size() && i < config.parent_sources; ++i) {
    const Evidence& e = request.evidence[i];
    const std::string_view separator = level_separator(e.kind);
    if (separator.empty()) continue;
    const std::vector<std::uint32_t> file_chunks = chunks.chunks_of(e.file_path);
    std::string level = e.section;
    while (!level.empty() && !file_chunks.empty()) {
      const auto belongs = [&](const ChunkView& c) {
        return c.section == level || (c.section.size() > level.size() + separator.size() &&
                                      c.section.compare(0, level.size(), level) == 0 &&
                                      c.section.compare(level.size(), separator.size(), separator) == 0);
      };
      // The run of consecutive chunks that belong to `level` and reach into the source.
      std::vector<ChunkView> run;
      bool reaches = false;
      for (const std::uint32_t id : file_chunks) {
        const ChunkView c = chunks.chunk(id);
        if (c.kind != e.kind) continue;  // another chunking of the same file
        if (!belongs(c)) {
          if (reaches) break;
          run.clear();
          continue;
        }
        run.push_back(c);
        reaches = reaches || (c.first_char < e.last_char && c.last_char > e.first_char);
      }
      if (!reaches || run.empty()) break;
      const std::size_t first = run.front().first_char;
      const ChunkView& last_chunk = *std::max_element(run.begin(), run.end(), [](const ChunkView& a, const ChunkView& b) {
        return a.last_char < b.last_char;
      });
      const std::size_t last = last_chunk.last_char;
      if (first >= e.first_char && last <= e.last_char) {
        const std::size_t cut = level.rfind(separator);
        level = cut == std::string::npos ? "" : level.substr(0, cut);
        continue;
      }
      const bool known = std::any_of(request.parents.begin(), request.parents.end(), [&](const Evidence& p) {
        return p.file_path == e.file_path && p.first_char <= first && p.last_char >= last;
      });
      if (known || parent_used + (last - first) > config.parent_budget) break;
      Evidence parent;
      parent.number = e.number;
      parent.file_path = e.file_path;
      parent.place = e.place;
      parent.first_char = first;
      parent.last_char = last;
      parent.first_line = run.front().first_line;
      parent.last_line = last_chunk.last_line;
      parent.kind = e.kind;
      parent.section = level;
      parent.text = join_chunks(run, files);
      parent.score = e.score;
      parent.rank = e.rank;
      parent_used += last - first;
      request.parents.push_back(std::move(parent));
      break;
    }
  }

}

// Renders `request`'s prompt from the pipeline's templates: its sources, then its parents.
void add_prompt(GenerationRequest& request, const ContextConfig& config) {
  std::string sources;
  for (const auto& e : request.evidence) sources += describe_source(e);
  std::string parents;
  if (!request.parents.empty()) {
    parents = "Surrounding context of the best sources (the whole section or definition each belongs to):\n\n";
    for (const auto& p : request.parents) parents += describe_source(p);
  }
  const std::vector<std::pair<std::string_view, std::string>> values = {
      {"question", request.question},
      {"language", std::string(language_name(request.language))},
      {"sources", std::move(sources)},
      {"parents", std::move(parents)}};
  request.messages.push_back({"system", render_template(config.system_prompt, values)});
  request.messages.push_back({"user", render_template(config.user_prompt, values)});
}

}  // namespace

ContextConfig ContextConfig::from_options(Options& options) {
  ContextConfig c;
  c.budget = static_cast<std::size_t>(options.get_integer("budget", static_cast<long long>(c.budget), 100, 1'000'000));
  c.merge = options.get<bool>("merge", c.merge);
  Options parents = options.child("parents");
  c.parent_sources =
      static_cast<std::size_t>(parents.get_integer("sources", static_cast<long long>(c.parent_sources), 0, 100));
  c.parent_budget = static_cast<std::size_t>(
      parents.get_integer("budget", static_cast<long long>(c.parent_budget), 100, 1'000'000));
  parents.finish();
  c.min_support = options.get_number("min_support", c.min_support, 0.0, 1.0);
  c.score_knee = options.get_number("score_knee", c.score_knee, 0.0, 1.0);
  c.support_weight_cap = options.get_number("support_weight_cap", c.support_weight_cap, 0.0, 1000.0);
  Options prompt = options.child("prompt");
  c.system_prompt = prompt.get<std::string>("system", c.system_prompt);
  c.user_prompt = prompt.get<std::string>("user", c.user_prompt);
  std::vector<std::pair<std::string_view, std::string>> dummy;
  for (const std::string_view name : kPlaceholders) dummy.emplace_back(name, "");
  for (const auto& [key, text] : {std::pair{"system", &c.system_prompt}, std::pair{"user", &c.user_prompt}}) {
    try {
      render_template(*text, dummy);
    } catch (const Error& e) {
      prompt.fail(key, e.what());
    }
  }
  if (c.user_prompt.find("{question}") == std::string::npos && c.system_prompt.find("{question}") == std::string::npos)
    prompt.fail("user", "never mentions {question}, so the model would not see the question");
  prompt.finish();
  options.finish();
  return c;
}

ContextAssembler::ContextAssembler(ContextConfig config, const ChunkSource& chunks, std::filesystem::path base)
    : config_(std::move(config)), chunks_(chunks), base_(std::move(base)) {}

GenerationRequest ContextAssembler::assemble(const std::string& question, const std::vector<Hit>& hits) const {
  std::vector<Passage> passages;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (hits[i].chunk >= chunks_.id_limit())
      throw Error("a retrieval hit names chunk " + std::to_string(hits[i].chunk) + " but the index has " +
                  std::to_string(chunks_.id_limit()) + " chunk ids");
    passages.push_back({owned(chunks_.chunk(hits[i].chunk)), hits[i].score, i + 1});
  }
  return assemble(question, std::move(passages));
}

GenerationRequest ContextAssembler::assemble(const std::string& question, const std::vector<SourceSpan>& spans) const {
  std::vector<Passage> passages;
  SourceFiles files(base_);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const SourceSpan& span = spans[i];
    Passage p{{}, 0, i + 1};
    bool found = false;
    const std::vector<std::uint32_t> of_file = chunks_.chunks_of(span.file_path);
    for (const std::uint32_t id : of_file)
      if (const ChunkView c = chunks_.chunk(id); c.first_char == span.first && c.last_char == span.last) {
        p.chunk = owned(c);
        found = true;
        break;
      }
    if (!found) {
      const SourceFile* file = files.get(span.file_path);
      if (file == nullptr)
        throw Error(span.file_path + ": cannot read this source (not a chunk of the index, and the file is missing or "
                    "not UTF-8); run from the folder the results were made in");
      const std::size_t length = file->char_offset(file->text().size());
      if (span.last > length)
        throw Error(span.file_path + ": the source [" + std::to_string(span.first) + ", " + std::to_string(span.last) +
                    ") ends past the end of the file (" + std::to_string(length) + " characters)");
      const std::size_t first_byte = file->byte_offset(span.first);
      const std::size_t last_byte = file->byte_offset(span.last);
      p.chunk.file_path = span.file_path;
      p.chunk.first_char = file->char_offset(first_byte);
      p.chunk.last_char = file->char_offset(last_byte);
      p.chunk.first_byte = first_byte;
      p.chunk.last_byte = last_byte;
      p.chunk.first_line = file->line_of(first_byte);
      p.chunk.last_line = last_byte > first_byte ? file->line_of(last_byte - 1) : p.chunk.first_line;
      p.chunk.text = std::string(file->slice({first_byte, last_byte}));
      // The kind decides how a generator reads the text: take that of a chunk of the same file.
      if (!of_file.empty()) p.chunk.kind = chunks_.chunk(of_file.front()).kind;
    }
    passages.push_back(std::move(p));
  }
  return assemble(question, std::move(passages));
}

GenerationRequest ContextAssembler::assemble(const std::string& question, std::vector<Passage> passages) const {
  SourceFiles files(base_);

  // Merge spans of one file, walking each file's passages in file order.
  std::vector<Passage> merged;
  if (config_.merge) {
    std::vector<std::string_view> order;  // files by their best rank
    std::map<std::string_view, std::vector<Passage*>> of_file;
    for (auto& p : passages) {
      auto& list = of_file[p.chunk.file_path];
      if (list.empty()) order.push_back(p.chunk.file_path);
      list.push_back(&p);
    }
    for (const auto file_path : order) {
      auto& list = of_file[file_path];
      std::sort(list.begin(), list.end(), [](const Passage* a, const Passage* b) {
        return a->chunk.first_byte != b->chunk.first_byte ? a->chunk.first_byte < b->chunk.first_byte
                                                          : a->chunk.last_byte > b->chunk.last_byte;
      });
      Passage current = *list.front();
      for (std::size_t i = 1; i < list.size(); ++i) {
        const Passage& next = *list[i];
        const SourceFile* file = nullptr;
        bool join = next.chunk.first_byte <= current.chunk.last_byte;
        if (!join) {
          // Adjacent when only whitespace lies between, which only the file can tell.
          file = files.matching(next.chunk.view());
          join = file != nullptr && files.matching(current.chunk.view()) == file &&
                 is_blank(file->slice({current.chunk.last_byte, next.chunk.first_byte}));
        }
        if (!join) {
          merged.push_back(std::move(current));
          current = next;
          continue;
        }
        // The merged source is named like its best-ranked part that has a name, and takes a
        // chunker's own kind over the plain `text` one (a Markdown file chunked both ways).
        if (!next.chunk.section.empty() && (next.rank < current.rank || current.chunk.section.empty()))
          current.chunk.section = next.chunk.section;
        if (current.chunk.kind == "text" && !next.chunk.kind.empty()) current.chunk.kind = next.chunk.kind;
        merge_into(current.chunk, next.chunk, file);
        current.score = std::max(current.score, next.score);
        current.rank = std::min(current.rank, next.rank);
      }
      merged.push_back(std::move(current));
    }
  } else {
    merged = std::move(passages);
  }
  std::stable_sort(merged.begin(), merged.end(), [](const Passage& a, const Passage& b) { return a.rank < b.rank; });

  GenerationRequest request;
  request.question = question;
  request.query = question;
  request.language = std::string(detect_language(question));

  std::size_t used = 0;
  for (auto& p : merged) {
    if (p.chunk.kind == "markdown" || p.chunk.kind == "text") take_announced(p.chunk, files);
    std::size_t size = char_count(p.chunk.text);
    if (used + size > config_.budget) {
      if (!request.evidence.empty()) continue;  // a later, shorter source may still fit
      p.chunk.text = cut_to(p.chunk.text, config_.budget);
      size = char_count(p.chunk.text);
      p.chunk.last_char = p.chunk.first_char + size;
      // The line of the last character kept: line breaks before it move the first line down.
      const std::string_view kept(p.chunk.text.data(), p.chunk.text.empty() ? 0 : p.chunk.text.size() - 1);
      p.chunk.last_line = p.chunk.first_line + static_cast<std::size_t>(std::count(kept.begin(), kept.end(), '\n'));
    }
    used += size;
    Evidence e;
    e.number = static_cast<int>(request.evidence.size() + 1);
    e.file_path = p.chunk.file_path;
    // As the store names the file below its corpus root; a file it lacks, as results name it.
    const std::vector<std::uint32_t> of_file = chunks_.chunks_of(e.file_path);
    e.place = of_file.empty() ? e.file_path : std::string(chunks_.chunk(of_file.front()).relative_path);
    e.first_char = p.chunk.first_char;
    e.last_char = p.chunk.last_char;
    e.first_line = p.chunk.first_line;
    e.last_line = p.chunk.last_line;
    e.kind = p.chunk.kind;
    e.section = p.chunk.section;
    if (e.kind == "markdown" || e.kind == "text")
      if (const SourceFile* file = files.matching(p.chunk.view())) e.starts_in_code = inside_fence(file->text(), p.chunk.first_byte);
    e.text = std::move(p.chunk.text);
    e.score = p.score;
    e.rank = p.rank;
    request.evidence.push_back(std::move(e));
  }

  add_parents(request, config_, chunks_, files);
  add_prompt(request, config_);
  return request;
}

std::string render_template(std::string_view text,
                            const std::vector<std::pair<std::string_view, std::string>>& values) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') throw Error("a lone '}' (write }} for a brace)");
    if (c != '{') {
      out += c;
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) throw Error("a '{' is never closed (write {{ for a brace)");
    const std::string_view name = text.substr(i + 1, close - i - 1);
    const auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == name; });
    if (it == values.end()) {
      std::string known;
      for (const auto& v : values) known += (known.empty() ? "{" : ", {") + std::string(v.first) + "}";
      throw Error("unknown placeholder {" + std::string(name) + "} (known: " + known + ")");
    }
    out += it->second;
    i = close;
  }
  return out;
}

std::vector<int> cited_numbers(std::string_view answer, std::size_t sources) {
  std::vector<int> out;
  // Read in the prose only: "[1, 32, 4]" in quoted code or a log line is a list, not citations.
  const auto read = [&](std::string_view prose) {
    for (std::size_t open = prose.find('['); open != std::string_view::npos; open = prose.find('[', open + 1)) {
      const std::size_t close = prose.find(']', open);
      if (close == std::string_view::npos) break;
      const std::string_view inside = prose.substr(open + 1, close - open - 1);
      if (inside.empty() || inside.find_first_not_of("0123456789, ") != std::string_view::npos) continue;
      std::vector<int> group;
      int number = 0;
      bool digits = false;
      for (std::size_t k = 0; k <= inside.size(); ++k) {
        if (k < inside.size() && inside[k] >= '0' && inside[k] <= '9') {
          if (number < 100000) number = number * 10 + (inside[k] - '0');
          digits = true;
        } else {
          if (digits) group.push_back(number);
          number = 0;
          digits = false;
        }
      }
      // A list of which any number is no source's is the quoted text's ("ranks [1, 32, 64]").
      if (std::any_of(group.begin(), group.end(), [&](int n) { return n < 1 || static_cast<std::size_t>(n) > sources; }))
        continue;
      for (const int n : group)
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  };
  // A fence is closed by one of its own character at least as long (CommonMark): a "~~~" line
  // inside a "```" block is code.
  std::string_view fence;  // the open fence's run of ` or ~, empty outside code
  for (std::size_t begin = 0; begin < answer.size();) {
    const std::size_t end = std::min(answer.find('\n', begin), answer.size());
    const std::string_view line = answer.substr(begin, end - begin);
    begin = end + 1;
    if (is_fence_line(line)) {
      const std::string_view marks = line.substr(line.find_first_not_of(" \t"));
      const std::string_view run = marks.substr(0, marks.find_first_not_of(marks.front()));
      if (fence.empty()) fence = run;
      else if (run.front() == fence.front() && run.size() >= fence.size()) fence = {};
      continue;
    }
    if (!fence.empty()) continue;
    // Inline code spans (`...`) left out; an unclosed backtick quotes nothing.
    std::size_t at = 0;
    for (std::size_t tick = line.find('`'); tick != std::string_view::npos; tick = line.find('`', at)) {
      const std::size_t close = line.find('`', tick + 1);
      if (close == std::string_view::npos) break;
      read(line.substr(at, tick - at));
      at = close + 1;
    }
    read(line.substr(at));
  }
  return out;
}

}  // namespace rag
