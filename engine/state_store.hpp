// The store of explored states (docs/engine.md §8): every state's canonical
// encoding tree-compressed in a hashing::TreeStore, and the visited set as
// an array from a state's root id to its reference. A root id names exactly
// one encoding (TreeStore's injectivity), so finding a state is one array
// read and claiming a new one one compare-and-swap: no hash, no probe and no
// byte compare beyond the ones the tree's own interning does.
//
// The references are the back-end's: committed state ids, or the
// provisional references of a BFS slice (engine/slice.hpp). Ref values
// kNoRef (none) and kPending (being claimed) are reserved.
//
// Thread safety: find_or_claim, find, bind and the tree's interns are safe
// from any number of threads at once; grow, reserve and the destructor need
// every other thread out (between rounds). TreeStoreFull from an intern
// asks for grow().
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/redo.hpp"
#include "hashing/spin_wait.hpp"
#include "hashing/tree_store.hpp"

namespace ddsmc::engine {

// The references a slice gives states (32-bit, one process's): a committed
// state's local id, or kProvisional | the index of a new state of the
// running slice (engine/slice.hpp). So a process (a rank) holds at most
// kMaxLocalStates states, which the slice's commit and a checkpoint's
// load enforce; the ids of a graph over many ranks are 64-bit (StateId).
inline constexpr uint32_t kProvisional = 0x80000000u;
inline constexpr uint64_t kMaxLocalStates = kProvisional - 2;

class StateStore {
 public:
  static constexpr uint32_t kNoRef = 0xffffffffu;
  static constexpr uint32_t kPending = 0xfffffffeu;

  // For states of the layout; the tree's tables start with room for about
  // `initial` nodes and leaves (they grow).
  explicit StateStore(const hashing::StateLayout& layout, size_t initial = size_t{1} << 12);
  // The tree's leaf positions for the layout's parts: each node's DB next
  // to its outgoing channels (the parts one step changes, but for the
  // channel it consumes), when the layout says where arcs leave from.
  static std::vector<uint32_t> leaf_positions(const hashing::StateLayout& layout);

  hashing::TreeStore& tree() { return tree_; }
  const hashing::TreeStore& tree() const { return tree_; }

  struct Claim {
    uint32_t ref;
    bool inserted;
  };
  // The reference of the state with this root, or, if it has none yet, the
  // one make() returns (called once, by the claiming thread; other threads
  // asking for the root meanwhile wait for it). If make() throws, the claim
  // is withdrawn and the exception passes on.
  template <class Make>
  Claim find_or_claim(uint32_t root, Make&& make);
  // The reference of the state with this root, or kNoRef (no thread
  // claiming meanwhile).
  uint32_t find(uint32_t root) const {
    if (!exploring_) throw std::logic_error("StateStore: the visited set was dropped (end_exploration)");
    return refs_.get_or_unset(root);
  }
  // Sets the reference of a root already claimed or bound (renumbering).
  void bind(uint32_t root, uint32_t ref) { slot(root).store(ref, std::memory_order_release); }

  // Resuming a checkpoint (docs/engine.md §14): load() reads the tree as
  // TreeStore::save wrote it into this store, which holds nothing yet
  // (std::runtime_error on a bad count or length), and covers its roots;
  // then bind_loaded() gives each state's root its reference: the visited
  // set rebuilt from the roots alone (no state hashed, decoded or
  // interned), false if the root has one already (two states with one
  // encoding) or is not one the store can hold. No other thread inside.
  template <class In>
  void load(In& in) {
    tree_.load(in);
    cover();
  }
  bool bind_loaded(uint32_t root, uint32_t ref);

  // Growth (no other thread inside): after TreeStoreFull, and ahead of a
  // round that will add about this many nodes and leaves.
  void grow();
  void reserve(size_t more_nodes, size_t more_leaves);
  // The exploration is over: frees the visited set and the tree's
  // hash-consing index (about 12 of the store's bytes per state), keeping
  // what reads states back. find_or_claim, find and bind then throw
  // std::logic_error; an intern throws TreeStoreFull and grow() rebuilds
  // the tree's index. No other thread inside.
  void end_exploration();
  bool exploring() const { return exploring_; }
  // Bytes the slot arrays grow() or reserve() would add to what they hold
  // (0: none; the old arrays are freed before the new ones are made).
  size_t bytes_to_grow() const;
  size_t bytes_to_reserve(size_t more_nodes, size_t more_leaves) const;

  size_t memory_bytes() const { return tree_.memory_bytes() + refs_.memory_bytes(); }

 private:
  std::atomic_ref<uint32_t> slot(uint32_t root) {
    if (root >= refs_.covered())
      throw std::logic_error(exploring_ ? "StateStore: root id beyond the covered range"
                                        : "StateStore: the visited set was dropped (end_exploration)");
    return std::atomic_ref<uint32_t>(refs_.slot(root));
  }
  void cover() {
    if (exploring_) refs_.cover(tree_.root_id_bound());
  }

  hashing::TreeStore tree_;
  hashing::tree_detail::SegmentedArray<uint32_t, 19> refs_{kNoRef};  // root id -> reference (2 MiB segments)
  bool exploring_ = true;
};

// Sequential interning: runs intern() (which interns into the store's
// tree) again after each TreeStoreFull, calling grow() (which grows the
// store, maybe checking memory first) in between (engine/redo.hpp's loop);
// returns its root.
template <class Intern, class Grow>
uint32_t intern_growing(Intern&& intern, Grow&& grow) {
  uint32_t root = 0;
  redo_when_full([&] { root = intern(); }, [] {}, grow);
  return root;
}

template <class Make>
StateStore::Claim StateStore::find_or_claim(uint32_t root, Make&& make) {
  std::atomic_ref<uint32_t> s = slot(root);
  uint32_t v = s.load(std::memory_order_acquire);
  for (;;) {
    if (v == kNoRef) {
      if (!s.compare_exchange_strong(v, kPending, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      uint32_t ref;
      try {
        ref = make();
      } catch (...) {
        s.store(kNoRef, std::memory_order_release);
        throw;
      }
      s.store(ref, std::memory_order_release);
      return {ref, true};
    }
    if (v != kPending) return {v, false};
    // The claimer publishes right after make() (or withdraws: kNoRef).
    v = hashing::wait_published(s, [](uint32_t x) { return x != kPending; });
  }
}

}  // namespace ddsmc::engine
