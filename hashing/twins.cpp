#include "hashing/twins.hpp"

#include <algorithm>
#include <numeric>

namespace ddsmc::hashing::detail {

void TwinFinder::classes(const FactTable& t, std::vector<uint32_t>& cls) {
  const uint32_t k = t.k;
  const Word blank = t.num_fixed + k;  // no constant has this id
  // Signature of x: the facts containing x with x replaced by `blank`, as a
  // sorted multiset. Other constants keep their ids: twins see the same ones.
  sig_.clear();
  sig_start_.assign(1, 0);
  for (uint32_t x = 0; x < k; ++x) {
    const Word id = t.num_fixed + x;
    auto at = [&](uint32_t f, uint32_t i) {
      const Word w = t.words[t.off[f] + i];
      return i >= 3 && w == id ? blank : w;
    };
    auto fact_less = [&](uint32_t a, uint32_t b) {
      const uint32_t na = t.off[a + 1] - t.off[a], nb = t.off[b + 1] - t.off[b];
      for (uint32_t i = 0; i < na && i < nb; ++i)
        if (at(a, i) != at(b, i)) return at(a, i) < at(b, i);
      return na < nb;
    };
    occ_order_.clear();
    for (uint32_t o = t.occ_start[x]; o < t.occ_start[x + 1]; ++o) occ_order_.push_back(t.occ[o].fact);
    std::sort(occ_order_.begin(), occ_order_.end(), fact_less);
    for (uint32_t f : occ_order_)
      for (uint32_t i = 0; i < t.off[f + 1] - t.off[f]; ++i) sig_.push_back(at(f, i));
    sig_start_.push_back(static_cast<uint32_t>(sig_.size()));
  }
  // Equal signatures: twins. (A fact holding both x and y shows y in x's
  // signature and never in y's, so co-occurring constants never match.)
  auto sig_less = [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(sig_.begin() + sig_start_[a], sig_.begin() + sig_start_[a + 1],
                                        sig_.begin() + sig_start_[b], sig_.begin() + sig_start_[b + 1]);
  };
  xorder_.resize(k);
  std::iota(xorder_.begin(), xorder_.end(), 0u);
  std::stable_sort(xorder_.begin(), xorder_.end(), sig_less);  // stable: each class's least index first
  cls.resize(k);
  for (uint32_t r = 0; r < k; ++r) {
    const uint32_t x = xorder_[r];
    cls[x] = (r > 0 && !sig_less(xorder_[r - 1], x)) ? cls[xorder_[r - 1]] : x;
  }
}

}  // namespace ddsmc::hashing::detail
