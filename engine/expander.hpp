// One worker's view of a state's successors as the store needs them: the
// per-worker expander every back-end (sequential, threaded, MPI) shares.
// It decodes a stored state, generates its steps through the System, drops
// the ones over a bound when pruning, and gives each remaining successor's
// canonical bytes and fingerprint with its label. Re-entrant: one per worker,
// all scratch inside.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "engine/system.hpp"
#include "hashing/canonical.hpp"

namespace ddsmc::engine {

enum class OnBound : uint8_t { Stop, Prune };

// One successor: valid during the callback only.
struct Candidate {
  EdgeLabel label;
  const hashing::CanonicalForm* form = nullptr;  // canonical bytes and fingerprint
  const hashing::GlobalState* state = nullptr;   // the successor (its labels are those of its class)
  bool violating = false;                        // over a bound (only under OnBound::Stop)
};

class Expander {
 public:
  Expander(const System& system, OnBound on_bound);
  void set_cancellation(Cancellation* c) { gen_->set_cancellation(c); }
  // The successors of the state stored as `bytes`, in the generator's order.
  void expand(std::string_view bytes, FunctionRef<void(const Candidate&)> out);
  // Canonical bytes and fingerprint of a state given whole (the initial one).
  const hashing::CanonicalForm& canonical(const hashing::GlobalState& s);
  hashing::CanonicalStats stats() const;
  uint64_t pruned() const { return pruned_; }

 private:
  const System& system_;
  OnBound on_bound_;
  std::unique_ptr<Generator> gen_;
  hashing::Canonicalizer canon_;
  hashing::SegmentedEncoding base_;  // the state being expanded (no fresh constants: patched encodings)
  hashing::GlobalState current_;
  hashing::CanonicalForm form_;
  uint64_t plain_ = 0, pruned_ = 0;
};

}  // namespace ddsmc::engine
