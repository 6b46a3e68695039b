// Canonical forms (docs/reference.md §3.7). Every path picks a bijection of the fresh
// constants onto num_fixed.. and returns the input renamed by it, so a weak
// choice can only lose reduction. The choice is a function of the
// isomorphism class: refinement colours are invariant, the search explores
// a whole invariant tree (or gives up on every member of the class alike)
// and nauty's labelling is canonical.
#include "hashing/canonical.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "hashing/nauty_backend.hpp"
#include "hashing/refine.hpp"
#include "hashing/twins.hpp"

namespace ddsmc::hashing {

namespace {

// Search trees with more leaves, or more refinement work, go to nauty. Both
// counts are properties of the class, so the decision is too.
constexpr uint32_t kMaxLeaves = 64;
constexpr uint64_t kMaxWork = 2048;

// The renaming over the original ids (map[c - num_fixed]), from canonical
// ranks of the compact ids (fresh[x] is constant x).
void ranks_to_map(const std::vector<Word>& fresh, const std::vector<uint32_t>& rank, uint32_t nf,
                  std::vector<Word>& map) {
  map.assign(fresh.back() - nf + 1, kUnmapped);
  for (size_t i = 0; i < fresh.size(); ++i) map[fresh[i] - nf] = nf + rank[i];
}

// True when the ranks map every fresh constant onto itself: the state
// already uses num_fixed.. in its canonical order.
bool is_identity(const std::vector<Word>& fresh, const std::vector<uint32_t>& rank, uint32_t nf) {
  for (size_t i = 0; i < fresh.size(); ++i)
    if (fresh[i] != nf + rank[i]) return false;
  return true;
}

}  // namespace

namespace detail {
// Buffers reused between calls and the state of one search.
struct CanonicalScratch {
  std::vector<Word> fresh, map;
  const GlobalState* src = nullptr;  // the input
  FactTable table;
  Refiner refiner;
  TwinFinder twin_finder;
  NautyBackend nauty;
  std::vector<std::vector<uint32_t>> levels;  // colouring per search depth
  std::vector<uint32_t> twin, cell_size, rank, fact_col;
  GlobalState cand, best;
  std::string cand_bytes, best_bytes;
  bool have_best = false;
  uint32_t leaves = 0;
  uint64_t work_limit = 0;
};
}  // namespace detail

struct Canonicalizer::Scratch : detail::CanonicalScratch {};

Canonicalizer::Canonicalizer(const StateLayout& layout) : layout_(layout), scratch_(new Scratch) {}
Canonicalizer::~Canonicalizer() { delete scratch_; }

namespace {

// Individualisation-refinement search below levels[depth]: false once over
// budget. Keeps the least encoding as `best`.
bool search(detail::CanonicalScratch& w, const StateLayout& layout, size_t depth) {
  const uint32_t k = w.table.k;
  std::vector<uint32_t>& col = w.levels[depth];
  const uint32_t cells = w.refiner.refine(w.table, col);
  if (w.refiner.work() > w.work_limit) return false;
  if (cells == k) {
    if (++w.leaves > kMaxLeaves) return false;
    ranks_to_map(w.fresh, col, layout.num_fixed, w.map);
    rename(*w.src, layout, w.map, w.cand);
    encode(w.cand, layout, w.cand_bytes);
    if (!w.have_best || w.cand_bytes < w.best_bytes) {
      std::swap(w.cand, w.best);
      std::swap(w.cand_bytes, w.best_bytes);
      w.rank = col;
      w.have_best = true;
    }
    return true;
  }
  // Target: the first of the smallest non-trivial cells.
  w.cell_size.assign(k, 0);
  for (uint32_t x = 0; x < k; ++x) ++w.cell_size[col[x]];
  uint32_t target = k;
  for (uint32_t c = 0; c < k; ++c)
    if (w.cell_size[c] > 1 && (target == k || w.cell_size[c] < w.cell_size[target])) target = c;
  // One child per twin class in the cell (twins give the same subtree): the
  // class is individualised whole, the rest of the cell follows it.
  std::vector<uint32_t>& next = w.levels[depth + 1];
  for (uint32_t rep = 0; rep < k; ++rep) {
    if (col[rep] != target || w.twin[rep] != rep) continue;
    next = col;
    uint32_t next_rank = target;
    for (uint32_t y = 0; y < k; ++y)
      if (w.twin[y] == rep) next[y] = next_rank++;
    for (uint32_t y = 0; y < k; ++y)
      if (col[y] == target && w.twin[y] != rep) next[y] = next_rank;
    if (!search(w, layout, depth + 1)) return false;
  }
  return true;
}

}  // namespace

void Canonicalizer::canonicalize(const GlobalState& s, CanonicalForm& out) {
  if (canonical_of(s, out, true) == &s) {
    out.state = s;
    encode(s, layout_, out.bytes);
  }
  out.fingerprint = fingerprint(out.bytes);
}

const GlobalState& Canonicalizer::canonical_state(const GlobalState& s, CanonicalForm& out) {
  return *canonical_of(s, out, false);
}

// Sets w.rank to the canonical order of the compact constants, or leaves
// the canonical state itself in out.state (and out.bytes) when the
// individualisation search found it; true in that case.
bool Canonicalizer::order_constants(CanonicalForm& out) {
  Scratch& w = *scratch_;
  const uint32_t k = w.table.k;
  if (w.levels.size() < k + 1) w.levels.resize(k + 1);
  std::vector<uint32_t>& root = w.levels[0];
  root.assign(k, 0);
  if (w.refiner.refine(w.table, root) == k) {
    ++stats_.refined;
    w.rank = root;
    return false;
  }
  w.have_best = false;
  w.leaves = 0;
  w.work_limit = w.refiner.work() + kMaxWork;
  w.twin_finder.classes(w.table, w.twin);
  if (search(w, layout_, 0)) {
    ++stats_.individualized;
    std::swap(out.state, w.best);
    std::swap(out.bytes, w.best_bytes);
    return true;
  }
  ++stats_.nauty;
  // levels[0] still holds the stable root colouring.
  w.refiner.fact_colours(w.table, root, w.fact_col);
  w.nauty.order(w.table, root, w.fact_col, w.rank);
  return false;
}

const GlobalState* Canonicalizer::canonical_of(const GlobalState& s, CanonicalForm& out, bool want_bytes) {
  Scratch& w = *scratch_;
  const uint32_t nf = layout_.num_fixed;
  ++stats_.calls;
  w.table.build(s, layout_, w.fresh);
  if (w.fresh.empty()) {
    ++stats_.fast_path;
    out.renaming.clear();
    return &s;
  }
  w.src = &s;
  const bool have_state = order_constants(out);
  ranks_to_map(w.fresh, w.rank, nf, out.renaming);
  if (have_state) return &out.state;
  if (is_identity(w.fresh, w.rank, nf)) {
    ++stats_.identity;
    return &s;
  }
  rename(s, layout_, out.renaming, out.state);
  if (want_bytes) encode(out.state, layout_, out.bytes);
  return &out.state;
}

CanonicalForm canonicalize_brute_force(const GlobalState& s, const StateLayout& layout) {
  CanonicalForm out;
  std::vector<Word> fresh = fresh_constants(s, layout);
  if (fresh.empty()) {
    out.state = s;
    out.bytes = encode(s, layout);
    out.fingerprint = fingerprint(out.bytes);
    return out;
  }
  const uint32_t nf = layout.num_fixed;
  std::vector<Word> map;
  GlobalState cand;
  std::vector<uint32_t> perm(fresh.size()), best_perm;
  std::iota(perm.begin(), perm.end(), 0u);
  std::string bytes;
  do {
    ranks_to_map(fresh, perm, nf, map);
    rename(s, layout, map, cand);
    encode(cand, layout, bytes);
    if (best_perm.empty() || bytes < out.bytes) {
      out.bytes = bytes;
      out.state = cand;
      best_perm = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  ranks_to_map(fresh, best_perm, nf, out.renaming);
  out.fingerprint = fingerprint(out.bytes);
  return out;
}

}  // namespace ddsmc::hashing
