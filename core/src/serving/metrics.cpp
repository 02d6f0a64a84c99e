#include "rag/metrics.hpp"

#include <sstream>

namespace rag {
namespace {

// A label value with backslashes, quotes and line ends escaped, as the format wants.
std::string label(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

void Metrics::Histogram::observe(double seconds) {
  std::size_t bucket = 0;
  while (bucket < kBounds.size() && seconds > kBounds[bucket]) ++bucket;
  ++buckets[bucket];
  ++count;
  sum += seconds;
}

void Metrics::count_request(std::string_view route, int status, std::optional<double> seconds) {
  const std::lock_guard lock(mutex_);
  ++requests_[{std::string(route), status}];
  if (seconds) request_seconds_[std::string(route)].observe(*seconds);
}

void Metrics::observe_stage(std::string_view stage, double seconds) {
  const std::lock_guard lock(mutex_);
  stage_seconds_[std::string(stage)].observe(seconds);
}

void Metrics::count_switch(std::string_view pipeline) {
  const std::lock_guard lock(mutex_);
  ++switches_[std::string(pipeline)];
}

std::string Metrics::prometheus_text() const {
  const std::lock_guard lock(mutex_);
  std::ostringstream out;
  out << "# HELP rag_requests_total Requests answered, by route and HTTP status.\n"
      << "# TYPE rag_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out << "rag_requests_total{route=\"" << label(key.first) << "\",status=\"" << key.second << "\"} " << n << "\n";
  const auto histograms = [&](const char* name, const char* help, const char* label_name,
                              const std::map<std::string, Histogram>& all) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
    for (const auto& [key, h] : all) {
      const std::string labels = std::string(label_name) + "=\"" + label(key) + "\"";
      unsigned long long cumulative = 0;
      for (std::size_t b = 0; b < h.buckets.size(); ++b) {
        cumulative += h.buckets[b];
        out << name << "_bucket{" << labels << ",le=\"";
        if (b < kBounds.size()) out << kBounds[b];
        else out << "+Inf";
        out << "\"} " << cumulative << "\n";
      }
      out << name << "_sum{" << labels << "} " << h.sum << "\n" << name << "_count{" << labels << "} " << h.count << "\n";
    }
  };
  histograms("rag_request_seconds", "Time to answer a request, by route.", "route", request_seconds_);
  histograms("rag_stage_seconds", "Time spent in a stage of answering: retrieve, context, generate.", "stage",
             stage_seconds_);
  out << "# HELP rag_requests_in_flight Requests being handled now.\n# TYPE rag_requests_in_flight gauge\n"
      << "rag_requests_in_flight " << in_flight_ << "\n";
  out << "# HELP rag_index_generation_switches_total Moves to a new index generation, by pipeline.\n"
      << "# TYPE rag_index_generation_switches_total counter\n";
  for (const auto& [pipeline, n] : switches_)
    out << "rag_index_generation_switches_total{pipeline=\"" << label(pipeline) << "\"} " << n << "\n";
  return out.str();
}

}  // namespace rag
