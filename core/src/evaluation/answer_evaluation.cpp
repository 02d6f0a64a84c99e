#include "rag/answer_evaluation.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "rag/analyzer.hpp"
#include "rag/error.hpp"

namespace rag {
namespace {

const Analyzer& word_analyzer() {
  static const Analyzer analyzer([] {
    AnalyzerConfig c;
    c.lowercase = true;
    c.split_identifiers = true;
    c.split_digits = false;  // "qwen2" is one word, as ROUGE's own tokenizer has it
    c.keep_compound = false;
    c.stemmer = "none";
    c.stopwords = "none";
    return c;
  }());
  return analyzer;
}

// `text` without citation markers: "[1]", "[2, 3]".
std::string without_citations(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      const std::size_t close = text.find(']', i);
      if (close != std::string_view::npos && close > i + 1 &&
          text.substr(i + 1, close - i - 1).find_first_not_of("0123456789, ") == std::string_view::npos) {
        out += ' ';
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

double f1(double precision, double recall) {
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

// Linear interpolation between the closest ranks, as numpy's default percentile.
double percentile(const std::vector<double>& sorted, double share) {
  const double position = share * static_cast<double>(sorted.size() - 1);
  const auto low = static_cast<std::size_t>(position);
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - static_cast<double>(low));
}

bool overlaps(const SourceSpan& a, const SourceSpan& b) {
  return a.file_path == b.file_path && a.first < b.last && b.first < a.last;
}

}  // namespace

std::vector<std::string> answer_words(std::string_view text) { return word_analyzer().analyze(without_citations(text)); }

double rouge_l_f1(const std::vector<std::string>& candidate, const std::vector<std::string>& reference) {
  if (candidate.empty() || reference.empty()) return candidate.empty() && reference.empty() ? 1.0 : 0.0;
  // Longest common subsequence, one row at a time.
  std::vector<std::size_t> previous(reference.size() + 1, 0), current(reference.size() + 1, 0);
  for (const auto& word : candidate) {
    for (std::size_t j = 0; j < reference.size(); ++j)
      current[j + 1] = word == reference[j] ? previous[j] + 1 : std::max(previous[j + 1], current[j]);
    std::swap(previous, current);
  }
  const auto lcs = static_cast<double>(previous.back());
  return f1(lcs / static_cast<double>(candidate.size()), lcs / static_cast<double>(reference.size()));
}

double token_f1(const std::vector<std::string>& candidate, const std::vector<std::string>& reference) {
  if (candidate.empty() || reference.empty()) return candidate.empty() && reference.empty() ? 1.0 : 0.0;
  std::unordered_map<std::string_view, long> counts;
  for (const auto& w : reference) ++counts[w];
  std::size_t shared = 0;
  for (const auto& w : candidate)
    if (auto it = counts.find(w); it != counts.end() && it->second > 0) {
      --it->second;
      ++shared;
    }
  const auto common = static_cast<double>(shared);
  return f1(common / static_cast<double>(candidate.size()), common / static_cast<double>(reference.size()));
}

Distribution describe_scores(std::vector<double> scores) {
  Distribution d;
  if (scores.empty()) return d;
  std::sort(scores.begin(), scores.end());
  d.mean = std::accumulate(scores.begin(), scores.end(), 0.0) / static_cast<double>(scores.size());
  d.min = scores.front();
  d.p25 = percentile(scores, 0.25);
  d.median = percentile(scores, 0.5);
  d.p75 = percentile(scores, 0.75);
  d.max = scores.back();
  for (const double s : scores) ++d.histogram[std::min<std::size_t>(static_cast<std::size_t>(std::max(s, 0.0) * 5), 4)];
  return d;
}

AnswerEvaluation evaluate_answers(const std::vector<Question>& dataset, const std::vector<AnsweredResult>& answers) {
  std::map<std::string, const Question*> by_id;
  for (const auto& q : dataset) {
    if (q.answer.empty()) throw Error("question " + q.id + " has no reference answer; pass an answered dataset");
    by_id[q.id] = &q;
  }
  std::map<std::string, const AnsweredResult*> answer_of;
  for (const auto& a : answers) {
    if (!by_id.count(a.result.question_id))
      throw Error("answer to question " + a.result.question_id + ", which is not in the dataset");
    answer_of[a.result.question_id] = &a;
  }
  AnswerEvaluation e;
  e.questions = dataset.size();
  std::vector<double> rouge, f1s;
  std::size_t citing = 0;
  for (const auto& q : dataset) {
    AnswerScore s{q.id, q.text, false, false, false, 0, 0, false};
    if (const auto it = answer_of.find(q.id); it != answer_of.end()) {
      const AnsweredResult& a = *it->second;
      const auto candidate = answer_words(a.record.answer);
      const auto reference = answer_words(q.answer);
      s.failed = !a.record.error.empty();
      s.answered = a.record.answered && !s.failed;
      s.declined = !a.record.answered && !s.failed;
      s.rouge_l = rouge_l_f1(candidate, reference);
      s.token_f1 = token_f1(candidate, reference);
      for (const auto& truth : q.sources)
        for (const auto& cited : a.record.cited) s.cites_truth = s.cites_truth || overlaps(truth, cited.span);
      ++(s.failed ? e.failed : s.answered ? e.answered : e.declined);
    }
    rouge.push_back(s.rouge_l);
    f1s.push_back(s.token_f1);
    citing += s.cites_truth;
    e.scores.push_back(std::move(s));
  }
  e.rouge_l = describe_scores(std::move(rouge));
  e.token_f1 = describe_scores(std::move(f1s));
  e.cites_truth = e.questions ? static_cast<double>(citing) / static_cast<double>(e.questions) : 0.0;
  return e;
}

}  // namespace rag
