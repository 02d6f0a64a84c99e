#pragma once
// What a service counts about itself, written in Prometheus' text format for `GET /metrics`:
// requests by route and status, latency histograms by route and by stage, requests in flight and
// index generation switches. Thread-safe.
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rag {

class Metrics {
 public:
  /// A request finished: its route ("/api/search"), HTTP status and duration; none for one the
  /// HTTP layer refused before it was handled (a malformed request line, an address too long),
  /// which is counted but not timed.
  void count_request(std::string_view route, int status, std::optional<double> seconds);
  /// A stage of answering ("retrieve", "context", "generate") took `seconds`.
  void observe_stage(std::string_view stage, double seconds);
  /// A served pipeline moved to a new index generation.
  void count_switch(std::string_view pipeline);
  /// Requests being handled now: +1 when one starts, -1 when it ends.
  void add_in_flight(int delta) { in_flight_ += delta; }
  int in_flight() const { return in_flight_; }

  /// Everything, in the Prometheus text exposition format (version 0.0.4).
  std::string prometheus_text() const;

 private:
  /// Upper bounds of the histogram buckets, in seconds; the last bucket is +Inf.
  static constexpr std::array<double, 14> kBounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                     0.1,    0.25,  0.5,    1,     2.5,  5,    10};
  struct Histogram {
    std::array<unsigned long long, kBounds.size() + 1> buckets{};
    unsigned long long count = 0;
    double sum = 0;
    void observe(double seconds);
  };

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, unsigned long long> requests_;
  std::map<std::string, Histogram> request_seconds_;
  std::map<std::string, Histogram> stage_seconds_;
  std::map<std::string, unsigned long long> switches_;
  std::atomic<int> in_flight_{0};
};

}  // namespace rag
