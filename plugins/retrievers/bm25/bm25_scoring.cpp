#include "bm25_scoring.hpp"

#include <cmath>

namespace rag {

Bm25Parameters Bm25Parameters::from_options(Options& options) {
  Bm25Parameters p;
  const std::string variant = options.get_choice("variant", "lucene", {"robertson", "lucene", "bm25l", "bm25plus"});
  p.variant = variant == "robertson" ? Bm25Variant::robertson
              : variant == "lucene"  ? Bm25Variant::lucene
              : variant == "bm25l"   ? Bm25Variant::bm25l
                                     : Bm25Variant::bm25plus;
  p.k1 = options.get_number("k1", p.k1, 0.0, 100.0);
  p.b = options.get_number("b", p.b, 0.0, 1.0);
  p.delta = options.get_number("delta", p.variant == Bm25Variant::bm25plus ? 1.0 : 0.5, 0.0, 100.0);
  return p;
}

double bm25_idf(const Bm25Parameters& p, double n, double df) {
  switch (p.variant) {
    case Bm25Variant::robertson: return std::log((n - df + 0.5) / (df + 0.5));
    case Bm25Variant::lucene: return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    case Bm25Variant::bm25l: return std::log((n + 1.0) / (df + 0.5));
    case Bm25Variant::bm25plus: return std::log((n + 1.0) / df);
  }
  return 0.0;
}

}  // namespace rag
