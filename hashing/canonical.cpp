// Canonical forms (SPEC section 3). Every path picks a bijection of the fresh
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

// Renames s onto compact ids (fresh[i] -> num_fixed + i) unless it already
// uses them; the map is monotone, so the order of facts is kept.
const GlobalState& compact(const GlobalState& s, const StateLayout& layout, const std::vector<Word>& fresh,
                           std::vector<Word>& map, GlobalState& local) {
  const uint32_t nf = layout.num_fixed;
  if (fresh.back() - nf + 1 == fresh.size()) return s;
  map.assign(fresh.back() - nf + 1, kUnmapped);
  for (size_t i = 0; i < fresh.size(); ++i) map[fresh[i] - nf] = nf + static_cast<Word>(i);
  rename(s, layout, map, local);
  return local;
}

// out.renaming over the original ids, from canonical ranks of compact ids.
void fill_renaming(const std::vector<Word>& fresh, const std::vector<uint32_t>& rank, uint32_t nf,
                   std::vector<Word>& renaming) {
  renaming.assign(fresh.back() - nf + 1, kUnmapped);
  for (size_t i = 0; i < fresh.size(); ++i) renaming[fresh[i] - nf] = nf + rank[i];
}

}  // namespace

namespace detail {
// Buffers reused between calls and the state of one search.
struct CanonicalScratch {
  std::vector<Word> fresh, map;
  GlobalState local;  // the input on compact fresh ids, when it is not already
  const GlobalState* src = nullptr;
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
    w.map.resize(k);
    for (uint32_t x = 0; x < k; ++x) w.map[x] = layout.num_fixed + col[x];
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
  if (!rename_canonically(s, out, true)) {
    out.state = s;
    encode(s, layout_, out.bytes);
  }
  out.fingerprint = fingerprint(out.bytes);
}

const GlobalState& Canonicalizer::canonical_state(const GlobalState& s, CanonicalForm& out) {
  return rename_canonically(s, out, false) ? out.state : s;
}

bool Canonicalizer::rename_canonically(const GlobalState& s, CanonicalForm& out, bool want_bytes) {
  Scratch& w = *scratch_;
  const uint32_t nf = layout_.num_fixed;
  ++stats_.calls;
  fresh_constants(s, layout_, w.fresh);
  if (w.fresh.empty()) {
    ++stats_.fast_path;
    out.renaming.clear();
    return false;
  }
  const uint32_t k = static_cast<uint32_t>(w.fresh.size());
  w.src = &compact(s, layout_, w.fresh, w.map, w.local);
  w.table.build(*w.src, layout_, k);
  if (w.levels.size() < k + 1) w.levels.resize(k + 1);
  std::vector<uint32_t>& root = w.levels[0];
  root.assign(k, 0);
  bool have_state = false;
  if (w.refiner.refine(w.table, root) == k) {
    ++stats_.refined;
    w.rank = root;
  } else {
    w.have_best = false;
    w.leaves = 0;
    w.work_limit = w.refiner.work() + kMaxWork;
    w.twin_finder.classes(w.table, w.twin);
    if (search(w, layout_, 0)) {
      ++stats_.individualized;
      std::swap(out.state, w.best);
      std::swap(out.bytes, w.best_bytes);
      have_state = true;
    } else {
      ++stats_.nauty;
      // levels[0] still holds the stable root colouring.
      w.refiner.fact_colours(w.table, root, w.fact_col);
      w.nauty.order(w.table, root, w.fact_col, w.rank);
    }
  }
  if (!have_state) {
    w.map.resize(k);
    for (uint32_t x = 0; x < k; ++x) w.map[x] = nf + w.rank[x];
    rename(*w.src, layout_, w.map, out.state);
    if (want_bytes) encode(out.state, layout_, out.bytes);
  }
  fill_renaming(w.fresh, w.rank, nf, out.renaming);
  return true;
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
  GlobalState local, cand;
  const GlobalState& src = compact(s, layout, fresh, map, local);
  std::vector<uint32_t> perm(fresh.size()), best_perm;
  std::iota(perm.begin(), perm.end(), 0u);
  std::string bytes;
  map.resize(fresh.size());
  do {
    for (size_t x = 0; x < perm.size(); ++x) map[x] = nf + perm[x];
    rename(src, layout, map, cand);
    encode(cand, layout, bytes);
    if (best_perm.empty() || bytes < out.bytes) {
      out.bytes = bytes;
      out.state = cand;
      best_perm = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  fill_renaming(fresh, best_perm, nf, out.renaming);
  out.fingerprint = fingerprint(out.bytes);
  return out;
}

}  // namespace ddsmc::hashing
