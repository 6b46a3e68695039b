// The canonical form of a global state under renaming of fresh constants
// (docs/reference.md §3.7). Design rule: the canonical form is always the input with
// its fresh constants renamed to num_fixed, num_fixed+1, ..., re-sorted and
// encoded. A weak canonicalizer can therefore only lose reduction (two
// isomorphic states get different forms), never merge two states that are
// not isomorphic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashing/fingerprint.hpp"
#include "hashing/state.hpp"

namespace ddsmc::hashing {

inline constexpr Word kUnmapped = 0xffffffffu;

struct CanonicalForm {
  std::string bytes;  // encode(rename(state, renaming))
  Fingerprint fingerprint;
  // renaming[c - num_fixed] = canonical id of fresh constant c, or kUnmapped
  // for ids that do not occur. Empty when the state has no fresh constants.
  std::vector<Word> renaming;
  GlobalState state;  // the renamed state itself
};

struct CanonicalStats {
  uint64_t calls = 0;
  uint64_t fast_path = 0;       // no fresh constants: nothing to do
  uint64_t refined = 0;         // colour refinement made every fresh constant distinct
  uint64_t individualized = 0;  // ties broken by individualisation search
  uint64_t nauty = 0;           // ties handed to nauty
  // Of those refined or handed to nauty: already in canonical order, so the
  // input itself is its canonical form (nothing renamed or copied).
  uint64_t identity = 0;
  CanonicalStats& operator+=(const CanonicalStats& o) {
    calls += o.calls;
    fast_path += o.fast_path;
    refined += o.refined;
    individualized += o.individualized;
    nauty += o.nauty;
    identity += o.identity;
    return *this;
  }
};

// Per-worker: holds scratch buffers, so one instance per thread.
class Canonicalizer {
 public:
  explicit Canonicalizer(const StateLayout& layout);
  ~Canonicalizer();
  Canonicalizer(const Canonicalizer&) = delete;
  Canonicalizer& operator=(const Canonicalizer&) = delete;

  void canonicalize(const GlobalState& s, CanonicalForm& out);
  // The canonical state alone, for a caller that encodes it its own way
  // (the explorer's segmented encoding): `s` itself when it is its own
  // canonical form (nothing is copied): when it has no fresh constants
  // (out.renaming is cleared) or they are num_fixed.. in canonical order
  // already (out.renaming is the identity), else out.state with
  // out.renaming. out.bytes and out.fingerprint are not kept up to date.
  const GlobalState& canonical_state(const GlobalState& s, CanonicalForm& out);
  const CanonicalStats& stats() const { return stats_; }

 private:
  struct Scratch;
  // The canonical form of s: &s when s is its own (touching nothing but
  // out.renaming), else &out.state, renamed (with out.bytes when
  // `want_bytes`, or when the search encoded it anyway).
  const GlobalState* canonical_of(const GlobalState& s, CanonicalForm& out, bool want_bytes);
  bool order_constants(CanonicalForm& out);
  const StateLayout& layout_;
  CanonicalStats stats_;
  Scratch* scratch_;
};

// Reference implementation for the tests: the least
// encoding over every permutation of the fresh constants. Exponential.
CanonicalForm canonicalize_brute_force(const GlobalState& s, const StateLayout& layout);

}  // namespace ddsmc::hashing
