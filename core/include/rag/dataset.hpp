#pragma once
// Question datasets and results files, in the JSON shapes the school's grader reads.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace rag {

/// A span of a file: [first, last) in code points. `file_path` is compared verbatim.
struct SourceSpan {
  std::string file_path;
  std::size_t first = 0;
  std::size_t last = 0;
};

struct Question {
  std::string id;
  std::string text;
  std::vector<SourceSpan> sources;  ///< ground truth; empty in unanswered datasets
  std::string answer;               ///< reference answer; empty in unanswered datasets
};

/// A span as datasets, results and answers files write it: {file_path, first_character_index,
/// last_character_index}. Throws rag::Error naming `where` when a key is missing or of another
/// type, the path is empty or the span ends before it begins.
SourceSpan read_span(const nlohmann::ordered_json& span, const std::string& where);

/// Reads {"rag_questions": [...]} (or a bare list) of {question_id, question | question_str,
/// sources?, answer?}. Throws rag::Error naming the file and the question on malformed input,
/// a duplicate id, an empty question, or no question at all.
std::vector<Question> load_questions(const std::filesystem::path& file);
/// load_questions() for scoring: also throws when a question has no ground-truth sources.
std::vector<Question> load_answered_questions(const std::filesystem::path& file);

struct RetrievedSource {
  SourceSpan span;
  double score = 0;
  std::string file_type;
  std::string section;
  std::size_t first_line = 0;  ///< 1-based, 0 when unknown (read from a results file)
  std::size_t last_line = 0;
};

struct SearchResult {
  std::string question_id;
  std::string question;
  std::vector<RetrievedSource> sources;
  double search_time_ms = 0;
};

struct ResultsFile {
  std::vector<SearchResult> results;
  std::size_t k = 10;
  /// Sources longer than kMaxSourceChars that search_questions() cut to their first
  /// kMaxSourceChars code points, so that the grader accepts them (not written to the file).
  std::size_t sources_cut = 0;
  /// Questions whose search the retriever warned of (a remote shard left out: their recall is
  /// lower), and its warnings, each once (not written to the file).
  std::size_t warned_questions = 0;
  std::vector<std::string> warnings{};
};

/// The grader's limits on a results file.
inline constexpr std::size_t kMaxResultsK = 10;
inline constexpr std::size_t kMaxSourceChars = 2000;

/// Reads a search_dataset output; its sources' scores, file types and sections are left unread
/// (0 and empty): they are another retriever's, when read at all, on its own scale. Throws
/// rag::Error on anything the grader would reject. With
/// `document`, also its whole JSON, for the fields the grader leaves to others (answers): the file
/// is read once, as a pipe can be.
ResultsFile load_results(const std::filesystem::path& file, nlohmann::ordered_json* document = nullptr);
/// The JSON of a results file, with question_str and question both present.
nlohmann::ordered_json results_to_json(const ResultsFile& results);
/// Writes the JSON of results_to_json() atomically, a line per question.
void save_results(const std::filesystem::path& file, const ResultsFile& results);

}  // namespace rag
