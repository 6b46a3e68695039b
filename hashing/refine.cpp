#include "hashing/refine.hpp"

#include <algorithm>
#include <numeric>

namespace ddsmc::hashing::detail {

void FactTable::build(const GlobalState& s, const StateLayout& layout, uint32_t num_fresh) {
  num_fixed = layout.num_fixed;
  k = num_fresh;
  max_arity = 0;
  words.clear();
  off.assign(1, 0);
  auto add_runs = [&](const std::vector<Word>& run_words, Word location, uint32_t extra) {
    for (size_t i = 0; i < run_words.size();) {
      const Word* f = &run_words[i];
      const uint32_t n = layout.fact_words(f[0]);
      i += n + extra;
      if (std::none_of(f + 1, f + n, [&](Word c) { return c >= num_fixed; })) continue;
      words.push_back(location);
      words.push_back(f[0]);
      words.push_back(extra ? f[n] : 1);
      words.insert(words.end(), f + 1, f + n);
      off.push_back(static_cast<uint32_t>(words.size()));
      max_arity = std::max(max_arity, n - 1);
    }
  };
  for (size_t i = 0; i < s.dbs.size(); ++i) add_runs(s.dbs[i], static_cast<Word>(i), 0);
  for (size_t j = 0; j < s.channels.size(); ++j)
    add_runs(s.channels[j], static_cast<Word>(layout.num_nodes + j), 1);

  // Occurrence lists in CSR form: count, prefix sums, fill.
  occ_start.assign(k + 1, 0);
  for (uint32_t f = 0; f < num_facts(); ++f)
    for (uint32_t i = off[f] + 3; i < off[f + 1]; ++i)
      if (words[i] >= num_fixed) ++occ_start[words[i] - num_fixed + 1];
  std::partial_sum(occ_start.begin(), occ_start.end(), occ_start.begin());
  occ.resize(occ_start[k]);
  std::vector<uint32_t>& fill = fill_;
  fill.assign(occ_start.begin(), occ_start.end() - 1);
  for (uint32_t f = 0; f < num_facts(); ++f)
    for (uint32_t i = off[f] + 3; i < off[f + 1]; ++i)
      if (words[i] >= num_fixed) occ[fill[words[i] - num_fixed]++] = Occ{f, i - off[f] - 3};
}

uint32_t Refiner::refine(const FactTable& t, std::vector<uint32_t>& col) {
  const uint32_t nfacts = t.num_facts();
  const uint32_t k = t.k;
  const uint64_t positions = t.max_arity + 1;
  uint32_t cells = 0;
  {  // cells of the input colouring
    next_.assign(k, 0);
    for (uint32_t x = 0; x < k; ++x) next_[col[x]] = 1;
    for (uint32_t c : next_) cells += c;
  }
  desc_.resize(t.words.size());
  forder_.resize(nfacts);
  fact_col_.resize(nfacts);
  sig_.resize(t.occ.size());
  xorder_.resize(k);
  next_.resize(k);
  auto desc_less = [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(desc_.begin() + t.off[a], desc_.begin() + t.off[a + 1],
                                        desc_.begin() + t.off[b], desc_.begin() + t.off[b + 1]);
  };
  auto sig_begin = [&](uint32_t x) { return sig_.begin() + t.occ_start[x]; };
  auto sig_end = [&](uint32_t x) { return sig_.begin() + t.occ_start[x + 1]; };
  auto x_less = [&](uint32_t a, uint32_t b) {
    if (col[a] != col[b]) return col[a] < col[b];
    return std::lexicographical_compare(sig_begin(a), sig_end(a), sig_begin(b), sig_end(b));
  };
  for (;;) {
    // 1. Fact colours: rank of the fact with its fresh constants replaced by
    //    their colours (num_fixed + colour keeps them apart from fixed ids).
    for (size_t i = 0; i < t.words.size(); ++i) desc_[i] = t.words[i];
    for (uint32_t f = 0; f < nfacts; ++f)
      for (uint32_t i = t.off[f] + 3; i < t.off[f + 1]; ++i)
        if (desc_[i] >= t.num_fixed) desc_[i] = t.num_fixed + col[desc_[i] - t.num_fixed];
    std::iota(forder_.begin(), forder_.end(), 0u);
    std::sort(forder_.begin(), forder_.end(), desc_less);
    for (uint32_t r = 0; r < nfacts; ++r)
      fact_col_[forder_[r]] = (r > 0 && !desc_less(forder_[r - 1], forder_[r])) ? fact_col_[forder_[r - 1]] : r;
    // 2. Constant signatures: old colour, then the sorted multiset of
    //    (fact colour, position) over its occurrences.
    for (uint32_t x = 0; x < k; ++x) {
      for (uint32_t o = t.occ_start[x]; o < t.occ_start[x + 1]; ++o)
        sig_[o] = fact_col_[t.occ[o].fact] * positions + t.occ[o].pos;
      std::sort(sig_begin(x), sig_end(x));
    }
    // 3. New colours: cell start ranks in signature order. The old colour
    //    sorts first, so the new partition refines the old one.
    std::iota(xorder_.begin(), xorder_.end(), 0u);
    std::sort(xorder_.begin(), xorder_.end(), x_less);
    uint32_t new_cells = 0;
    for (uint32_t r = 0; r < k; ++r) {
      const bool same = r > 0 && !x_less(xorder_[r - 1], xorder_[r]);
      next_[xorder_[r]] = same ? next_[xorder_[r - 1]] : r;
      new_cells += !same;
    }
    // The fact colours were computed from `col`, so on a stable exit they
    // describe the returned colouring.
    if (new_cells == cells) return cells;
    cells = new_cells;
    col.swap(next_);
  }
}

}  // namespace ddsmc::hashing::detail
