// One worker's view of a state's successors as the store needs them: the
// per-worker expander every back-end (sequential, threaded, MPI) shares.
// It reads a stored state back from the tree store, generates its steps
// through the System, drops the ones over a bound when pruning, and interns
// each remaining successor's canonical encoding, giving its root id with
// its label. Without fresh constants a successor is interned from the
// expanded state's tree, only the parts the step changed being encoded and
// looked up. With them, a successor's canonical form is interned the same
// way, from the parts in which it differs from the expanded state (which
// is canonical); and a successor equal to the one before it (an input
// class the step did not tell apart) reuses its canonical form instead of
// computing it again. Under network symmetry every successor's canonical
// form is taken under the group too, and its label's arc carries the group
// element (engine/system.hpp, quotient_arc). Re-entrant: one per worker, all scratch inside; the store is
// shared (its interns are thread-safe and may throw TreeStoreFull).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/system.hpp"
#include "hashing/canonical.hpp"
#include "hashing/tree_store.hpp"

namespace ddsmc::engine {

enum class OnBound : uint8_t { Stop, Prune };

// Thrown by a successor callback to end the expansion there (a max-states
// cut-off inside one expansion: engine/slice.hpp). The expander stays
// usable; the callback's caller catches it.
struct ExpansionCut {};

// One successor: valid during the callback only.
struct Candidate {
  EdgeLabel label;
  uint32_t root = 0;                             // of its canonical encoding in the store
  const hashing::GlobalState* state = nullptr;   // the successor (its labels are those of its class)
  bool violating = false;                        // over a bound (only under OnBound::Stop)
  // expand_split() only: the successor's placement key
  // (engine/placement.hpp),
  // and whether it is interned here (`root` set); when not, either its
  // canonical encoding whole (`encoding`), or the parts in which it differs
  // from `base`, the expanded state's encoding (`changed`, by increasing
  // part; `encoding` null). `base` is set whenever the model is plain (no
  // fresh constants).
  bool here = true;
  uint64_t place = 0;
  const hashing::SegmentedEncoding* encoding = nullptr;
  const hashing::SegmentedEncoding* base = nullptr;
  std::span<const hashing::TreeStore::Part> changed{};
};

class Expander {
 public:
  Expander(const System& system, OnBound on_bound, hashing::TreeStore& store);
  void set_cancellation(Cancellation* c) {
    cancel_ = c;
    gen_->set_cancellation(c);
  }
  // Takes a new generator from the system (which now evaluates steps
  // another way, with the same successors in the same order), keeping the
  // cancellation. Not while expanding.
  void renew_generator() {
    skipped_before_ += gen_->skipped();
    gen_ = system_.generator();
    if (cancel_) gen_->set_cancellation(cancel_);
    gen_->set_skip_violating(on_bound_ == OnBound::Prune);
  }
  // The successors of the state of root `root`, in the generator's order.
  void expand(uint32_t root, FunctionRef<void(const Candidate&)> out);
  // The same when only some successors are interned here, those whose
  // placement key over the parts `in_key` marks (engine/placement.hpp)
  // here(key) accepts (the distributed engine: the states this rank owns);
  // the others come with their canonical encoding instead (whole, or as
  // the parts a step changed), to be interned elsewhere. Under network
  // symmetry every successor comes whole, placed by its form under the
  // group. The key is found
  // from the parts a step changed, as the interning is.
  void expand_split(uint32_t root, std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here,
                    FunctionRef<void(const Candidate&)> out);
  // Interns the canonical form of a state given whole (the initial one, a
  // successor with fresh constants); returns its root.
  uint32_t intern(const hashing::GlobalState& s);
  // The canonical encoding of a state given whole, not interned (valid
  // until the next call).
  const hashing::SegmentedEncoding& canonical_encoding(const hashing::GlobalState& s);
  hashing::CanonicalStats stats() const;
  // The largest sizes of the successors met, those over a bound left out
  // (hashing::StateSizes; the caller notes the initial state).
  const hashing::StateSizes& sizes() const { return sizes_; }
  void note_sizes(const hashing::GlobalState& s) { sizes_.note(s, system_.layout(), size_scratch_); }
  // Successors dropped by on_bound == Prune: here, or by the generator
  // before it built them.
  uint64_t pruned() const { return pruned_ + skipped_before_ + gen_->skipped(); }

 private:
  const System& system_;
  OnBound on_bound_;
  hashing::TreeStore& store_;
  std::unique_ptr<Generator> gen_;
  hashing::Canonicalizer canon_;
  // Under network symmetry (System::symmetry): the canonical form under the
  // group and renaming, for every state; and the successor's edge carries
  // the element that took it there (quotient_arc).
  std::unique_ptr<hashing::SymmetricCanonicalizer> sym_;
  // generate() under the group: the successors not pruned, each as its
  // canonical form under the group with its label's arc carrying the element.
  void generate_symmetric(FunctionRef<void(const EdgeLabel&, const hashing::GlobalState&, const StepInfo&)> out);
  void expand_symmetric(FunctionRef<void(const Candidate&)> out);
  // expand_split(): c's state (its canonical form) encoded whole into
  // succ_enc_, placed, and interned here or handed on as that encoding.
  void place_whole(Candidate& c, std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here);
  void expand_split_symmetric(std::span<const uint8_t> in_key, FunctionRef<bool(uint64_t)> here,
                              FunctionRef<void(const Candidate&)> out);
  // The canonical form of a state given whole, under the group if any.
  const hashing::GlobalState& canonical_of(const hashing::GlobalState& s);
  hashing::SegmentedEncoding enc_;  // the state being expanded, then scratch
  hashing::SegmentedEncoding succ_enc_;  // expand_split(): a successor's
  hashing::SegmentedEncoding base_enc_;  // expand_split(): the expanded state's
  std::vector<uint64_t> base_keys_;      // its part keys (0 for a part not in the key)
  std::vector<uint32_t> base_;      // the expanded state's tree
  std::vector<uint32_t> decoded_;   // per part: the leaf current_ holds decoded, or kUnknown
  std::vector<char> part_bytes_;     // the changed parts' encodings, one after the other
  std::vector<hashing::TreeStore::Part> parts_;
  hashing::GlobalState current_;
  hashing::CanonicalForm form_;
  const hashing::GlobalState* canonical_ = nullptr;  // what intern() interned: its argument or form_.state
  uint64_t plain_ = 0, pruned_ = 0, repeated_ = 0;
  Cancellation* cancel_ = nullptr;
  uint64_t skipped_before_ = 0;  // by the generators renew_generator() dropped
  hashing::StateSizes sizes_;
  std::vector<hashing::Word> size_scratch_;
  // Encodes the parts of succ listed in `changed` (ascending, repeats
  // allowed) into part_bytes_, listed in parts_.
  void encode_changed(const hashing::GlobalState& succ, const std::vector<uint32_t>& changed);
  // Reads the state of `root` into base_ and current_.
  void load(uint32_t root);
  // Interns the canonical form c of a successor of the state loaded, whose
  // step changed `changed` (ascending; null: unknown): the parts in which c
  // equals the loaded state are taken from its tree (base_), only the
  // others are encoded and looked up. When c is current_ itself (the
  // successor was its own canonical form) that is the changed parts alone.
  uint32_t intern_against_source(const hashing::GlobalState& c, const std::vector<uint32_t>* changed);
  // With fresh constants (where a successor costs a canonical form), a
  // successor equal to the previous one of the same source (the same label
  // and the same words in the same changed parts: a step whose input
  // class made no difference) takes its root and state again.
  struct Previous {
    bool valid = false;
    EdgeLabel label;
    uint32_t root = 0;                            // if interned here
    bool here = true;                             // expand_split()
    uint64_t place = 0;                           // expand_split()
    const hashing::GlobalState* state = nullptr;  // null: the successor itself
    std::vector<uint32_t> parts;
    std::vector<std::vector<hashing::Word>> words;  // per changed part
  } previous_;
  bool repeats_previous(const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info) const;
  void remember(const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo& info, uint32_t root,
                const hashing::GlobalState* state);
  std::vector<uint32_t> differing_;  // intern_against_source()'s parts
  // gen_->successors(current_, sink), which edits current_ in place; if it
  // throws, current_ may be left edited, and every part is marked to be
  // decoded again by the next load(). Notes the sizes of every successor
  // within the bounds (of the parts its step changed).
  void generate(Generator::Sink sink);
};

}  // namespace ddsmc::engine
