#pragma once
// The one exception type that crosses plugin boundaries. Its message is meant for the user:
// it says what was wrong and, where it can, what to do.
#include <boost/config.hpp>

#include <stdexcept>
#include <string>

namespace rag {

class BOOST_SYMBOL_VISIBLE Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rag
