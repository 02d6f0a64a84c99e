#pragma once
// What the throwing test plugins share: the options that choose where they throw and what.
//   fail_at: the entry point that throws ("constructor", or one of the kind's methods; "none")
//   exception: rag (a rag::Error), local (a type of the plugin's own, hidden in its library, as
//              an exception made in a plugin is), other (not a std::exception: an int)
#include <stdexcept>
#include <string>
#include <vector>

#include "rag/error.hpp"
#include "rag/options.hpp"

namespace throwing {

// Hidden in the plugin, with its destructor and type information there alone.
struct LocalFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
  ~LocalFailure() override = default;
};

class Failure {
 public:
  Failure(rag::Options& options, std::vector<std::string> entry_points) {
    entry_points.insert(entry_points.begin(), {"none", "constructor"});
    at_ = options.get_choice("fail_at", "none", entry_points);
    exception_ = options.get_choice("exception", "rag", {"rag", "local", "other"});
    options.finish();
    maybe_throw("constructor");
  }

  /// Throws when `entry_point` is the one chosen.
  void maybe_throw(const std::string& entry_point) const {
    if (entry_point != at_) return;
    const std::string message = "boom in " + entry_point;
    if (exception_ == "rag") throw rag::Error(message);
    if (exception_ == "local") throw LocalFailure(message);
    throw 42;
  }

 private:
  std::string at_;
  std::string exception_;
};

}  // namespace throwing
