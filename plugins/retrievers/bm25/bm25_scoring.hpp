#pragma once
// The BM25 family of term weights, as in Kamphuis et al., "Which BM25 do you mean?" (ECIR 2020).
// score(q, d) = sum over query terms t of idf(t) * tf_weight(tf(t, d), |d|).
#include <string>

#include "rag/options.hpp"

namespace rag {

enum class Bm25Variant {
  robertson,  ///< idf = ln((N - df + .5) / (df + .5)) (negative for terms in most documents); tf weight with (k1 + 1)
  lucene,     ///< idf = ln(1 + (N - df + .5) / (df + .5)); tf weight without (k1 + 1) (Lucene 8+)
  bm25l,      ///< idf = ln((N + 1) / (df + .5)); c = tf / norm; (k1 + 1)(c + delta) / (k1 + c + delta)
  bm25plus,   ///< idf = ln((N + 1) / df); tf weight with (k1 + 1), plus delta
};

struct Bm25Parameters {
  Bm25Variant variant = Bm25Variant::lucene;
  double k1 = 1.2;
  double b = 0.75;
  double delta = 0.5;  ///< BM25L and BM25+ only

  /// Reads variant, k1, b and delta (default 0.5 for bm25l, 1.0 for bm25plus).
  static Bm25Parameters from_options(Options& options);
};

double bm25_idf(const Bm25Parameters& p, double documents, double document_frequency);
/// The tf weight of variant V; `norm` is 1 - b + b * |d| / avgdl. Inline: it runs once per
/// posting of a query, and a loop over postings can be made for one variant.
template <Bm25Variant V>
inline double bm25_tf_weight(const Bm25Parameters& p, double tf, double norm) {
  if constexpr (V == Bm25Variant::robertson) {
    return tf * (p.k1 + 1.0) / (tf + p.k1 * norm);
  } else if constexpr (V == Bm25Variant::lucene) {
    return tf / (tf + p.k1 * norm);
  } else if constexpr (V == Bm25Variant::bm25l) {
    const double c = tf / norm;
    return (p.k1 + 1.0) * (c + p.delta) / (p.k1 + c + p.delta);
  } else {
    return tf * (p.k1 + 1.0) / (tf + p.k1 * norm) + p.delta;
  }
}

inline double bm25_tf_weight(const Bm25Parameters& p, double tf, double norm) {
  switch (p.variant) {
    case Bm25Variant::robertson: return bm25_tf_weight<Bm25Variant::robertson>(p, tf, norm);
    case Bm25Variant::lucene: return bm25_tf_weight<Bm25Variant::lucene>(p, tf, norm);
    case Bm25Variant::bm25l: return bm25_tf_weight<Bm25Variant::bm25l>(p, tf, norm);
    case Bm25Variant::bm25plus: return bm25_tf_weight<Bm25Variant::bm25plus>(p, tf, norm);
  }
  return 0.0;
}

}  // namespace rag
