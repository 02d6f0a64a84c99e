#include "rag/cross_validation.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "rag/error.hpp"

namespace rag {
namespace {

// Union-find over question indices.
std::size_t root(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::vector<std::size_t> assign_folds(const std::vector<Question>& questions, std::size_t folds, std::uint64_t seed) {
  // Questions that name a common file are joined into one group.
  std::vector<std::size_t> parent(questions.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::map<std::string, std::size_t> first_with_file;
  for (std::size_t q = 0; q < questions.size(); ++q)
    for (const SourceSpan& s : questions[q].sources) {
      const auto [it, added] = first_with_file.emplace(s.file_path, q);
      if (!added) parent[root(parent, q)] = root(parent, it->second);
    }
  std::map<std::size_t, std::vector<std::size_t>> by_root;
  for (std::size_t q = 0; q < questions.size(); ++q) by_root[root(parent, q)].push_back(q);
  std::vector<std::vector<std::size_t>> groups;
  for (auto& [r, members] : by_root) groups.push_back(std::move(members));
  if (groups.size() < folds)
    throw Error("cannot make " + std::to_string(folds) + " folds of " + std::to_string(groups.size()) +
                " groups of questions (questions about a common file stay together); use fewer folds or more questions");
  std::mt19937_64 random(seed);
  std::shuffle(groups.begin(), groups.end(), random);
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::vector<std::size_t> fold(questions.size()), size(folds, 0);
  for (const auto& group : groups) {
    const std::size_t f = static_cast<std::size_t>(std::min_element(size.begin(), size.end()) - size.begin());
    for (const std::size_t q : group) fold[q] = f;
    size[f] += group.size();
  }
  return fold;
}

CrossValidation cross_validate(const TuningData& data) {
  const std::size_t configurations = data.score.size(), datasets = data.fold.size();
  // The mean score of configuration c over dataset d's questions whose fold passes `keep`.
  const auto mean = [&](std::size_t c, std::size_t d, auto keep) {
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t q = 0; q < data.fold[d].size(); ++q)
      if (keep(data.fold[d][q])) sum += data.score[c][d][q], ++n;
    return n ? sum / static_cast<double>(n) : 0.0;
  };
  const auto best = [&](auto keep) {
    std::size_t chosen = 0;
    double chosen_value = -1;
    for (std::size_t c = 0; c < configurations; ++c) {
      double value = 0;
      for (std::size_t d = 0; d < datasets; ++d) value += mean(c, d, keep) / static_cast<double>(datasets);
      if (value > chosen_value) chosen = c, chosen_value = value;
    }
    return chosen;
  };
  CrossValidation out;
  out.held_out.assign(datasets, std::vector<double>(data.folds, 0.0));
  out.question_score.resize(datasets);
  for (std::size_t d = 0; d < datasets; ++d) out.question_score[d].resize(data.fold[d].size());
  for (std::size_t f = 0; f < data.folds; ++f) {
    const std::size_t c = best([f](std::size_t fold) { return fold != f; });
    out.chosen.push_back(c);
    for (std::size_t d = 0; d < datasets; ++d) {
      out.held_out[d][f] = mean(c, d, [f](std::size_t fold) { return fold == f; });
      for (std::size_t q = 0; q < data.fold[d].size(); ++q)
        if (data.fold[d][q] == f) out.question_score[d][q] = data.score[c][d][q];
    }
  }
  out.chosen_on_all = best([](std::size_t) { return true; });
  return out;
}

}  // namespace rag
