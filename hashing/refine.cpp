#include "hashing/refine.hpp"

#include <algorithm>
#include <numeric>

namespace ddsmc::hashing::detail {

// Writes at words[used_] and off[num_facts() + 1]; build() made room for
// every fact of the state.
void FactTable::add_runs(const std::vector<Word>& run_words, Word location, uint32_t extra,
                         const StateLayout& layout, std::vector<Word>& fresh) {
  Word* out = words.data();
  uint32_t used = used_;  // a local: the Word stores below could alias the member
  const uint32_t nf = num_fixed;
  for (size_t i = 0; i < run_words.size();) {
    const Word* f = &run_words[i];
    const uint32_t n = layout.fact_words(f[0]);
    i += n + extra;
    bool any = false;
    for (uint32_t j = 1; j < n; ++j) {
      const Word c = f[j];
      if (c < nf) continue;
      any = true;
      if (c - nf >= seen_.size()) seen_.resize(2 * (c - nf) + 16, 0);
      if (seen_[c - nf] != pass_) {
        seen_[c - nf] = pass_;
        fresh.push_back(c);
      }
    }
    if (!any) continue;
    Word* w = out + used;
    w[0] = location;
    w[1] = f[0];
    w[2] = extra ? f[n] : 1;
    for (uint32_t j = 1; j < n; ++j) w[2 + j] = f[j];
    used += n + 2;
    off.push_back(used);
    max_arity = std::max(max_arity, n - 1);
  }
  used_ = used;
}

void FactTable::compact_ids(const std::vector<Word>& fresh) {
  if (fresh.back() - num_fixed + 1 == k) return;  // already num_fixed .. num_fixed+k-1
  if (index_.size() < seen_.size()) index_.resize(seen_.size());
  for (uint32_t x = 0; x < k; ++x) index_[fresh[x] - num_fixed] = x;
  for (uint32_t f = 0; f < num_facts(); ++f)
    for (uint32_t i = off[f] + 3; i < off[f + 1]; ++i)
      if (words[i] >= num_fixed) words[i] = num_fixed + index_[words[i] - num_fixed];
}

void FactTable::fill_occurrences() {
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

void FactTable::build(const GlobalState& s, const StateLayout& layout, std::vector<Word>& fresh) {
  num_fixed = layout.num_fixed;
  max_arity = 0;
  // A fact of n words (a channel entry of n + 1) with a fresh argument has
  // n >= 2 and takes n + 2 words here: at most twice its own.
  size_t bound = 0;
  for (const auto& db : s.dbs) bound += db.size();
  for (const auto& ch : s.channels) bound += ch.size();
  if (words.size() < 2 * bound) words.resize(2 * bound);
  used_ = 0;
  off.assign(1, 0);
  fresh.clear();
  if (++pass_ == 0) {  // the pass counter wrapped: forget every old mark
    std::fill(seen_.begin(), seen_.end(), 0);
    pass_ = 1;
  }
  for (size_t i = 0; i < s.dbs.size(); ++i) add_runs(s.dbs[i], static_cast<Word>(i), 0, layout, fresh);
  for (size_t j = 0; j < s.channels.size(); ++j)
    add_runs(s.channels[j], static_cast<Word>(layout.num_nodes + j), 1, layout, fresh);
  k = static_cast<uint32_t>(fresh.size());
  if (k == 0) {
    occ_start.assign(1, 0);
    occ.clear();
    return;
  }
  std::sort(fresh.begin(), fresh.end());
  compact_ids(fresh);
  fill_occurrences();
}

namespace {
inline uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

uint32_t Refiner::refine(const FactTable& t, std::vector<uint32_t>& col) {
  const uint32_t nfacts = t.num_facts();
  const uint32_t k = t.k;
  uint32_t cells = 0;
  seen_.assign(k, 0);
  for (uint32_t x = 0; x < k; ++x) cells += !seen_[col[x]]++;
  fact_hash_.resize(nfacts);
  keys_.resize(k);
  for (;;) {
    work_ += nfacts + k;
    for (uint32_t f = 0; f < nfacts; ++f) {
      uint64_t h = 0x9e3779b97f4a7c15ull;
      for (uint32_t i = t.off[f]; i < t.off[f + 1]; ++i) {
        const Word w = t.words[i];
        // Fresh arguments hash as their colours, kept apart from fixed ids.
        const uint64_t v = (i >= t.off[f] + 3 && w >= t.num_fixed) ? (uint64_t{1} << 32) + col[w - t.num_fixed] : w;
        h = mix(h ^ v);
      }
      fact_hash_[f] = h;
    }
    for (uint32_t x = 0; x < k; ++x) {
      uint64_t acc = 0;  // a sum: the order of occurrences does not matter
      for (uint32_t o = t.occ_start[x]; o < t.occ_start[x + 1]; ++o)
        acc += mix(fact_hash_[t.occ[o].fact] + t.occ[o].pos);
      keys_[x] = Key{col[x], mix(acc), x};
    }
    // The old colour sorts first, so the new partition refines the old one.
    std::sort(keys_.begin(), keys_.end(),
              [](const Key& a, const Key& b) { return a.col != b.col ? a.col < b.col : a.sig < b.sig; });
    uint32_t new_cells = 0, start = 0;
    for (uint32_t r = 0; r < k; ++r) {
      if (r == 0 || keys_[r].col != keys_[r - 1].col || keys_[r].sig != keys_[r - 1].sig) start = r, ++new_cells;
      col[keys_[r].x] = start;
    }
    // Nothing split: col is unchanged. All cells single: col is discrete,
    // which no further round can split (nor reorder: the old colour sorts
    // first), so the round that would find it stable is saved.
    if (new_cells == cells || new_cells == k) return new_cells;
    cells = new_cells;
  }
}

void Refiner::fact_colours(const FactTable& t, const std::vector<uint32_t>& col, std::vector<uint32_t>& out) {
  const uint32_t nfacts = t.num_facts();
  desc_.assign(t.words.begin(), t.words.begin() + t.off.back());
  for (uint32_t f = 0; f < nfacts; ++f)
    for (uint32_t i = t.off[f] + 3; i < t.off[f + 1]; ++i)
      if (desc_[i] >= t.num_fixed) desc_[i] = t.num_fixed + col[desc_[i] - t.num_fixed];
  auto less = [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(desc_.begin() + t.off[a], desc_.begin() + t.off[a + 1],
                                        desc_.begin() + t.off[b], desc_.begin() + t.off[b + 1]);
  };
  forder_.resize(nfacts);
  std::iota(forder_.begin(), forder_.end(), 0u);
  std::sort(forder_.begin(), forder_.end(), less);
  out.resize(nfacts);
  for (uint32_t r = 0; r < nfacts; ++r)
    out[forder_[r]] = (r > 0 && !less(forder_[r - 1], forder_[r])) ? out[forder_[r - 1]] : r;
}

}  // namespace ddsmc::hashing::detail
