// One slice of the breadth-first exploration's queue (docs/engine.md §9): a
// BFS level, or its first states when the level is wide. Its frontier is
// expanded by any number of workers at once, and its outcome is exactly the
// sequential BFS's. ("Level" below means the slice.)
//
// While the level runs, a state first found in it is *provisional*: the
// visited set (the graph's StateStore) maps its root to a provisional
// reference (kProvisional | index), and
// it records the least discovery key (parent id << 32 | ordinal of the step
// in the parent's generation) of the steps that reach it. Sequential BFS
// numbers new states in exactly that order (parents in id order, steps in
// generation order), so finish() sorts them by key and gives them the ids
// the sequential BFS would have given: ids, parents, edges, the states found
// before a max-states or bound cut-off, and so every count, verdict and
// trace, are the same at every thread count.
//
// A max-states cut-off inside one expansion: `room` is how many new states
// the level may add. Once the steps of one source have claimed room + 1 new
// states, at least room + 1 states have discovery keys no larger than the
// last of those steps, so the cut-off falls at or before it: the rest of
// the source's steps (and its edges, which a cut-off drops) cannot matter,
// and its expansion ends there (ExpansionCut). The states kept, their keys
// and every source before the halted one are as without it, so the result
// is unchanged; only the work and the memory of a huge fan-out are bounded
// (a state with a million successors under --max-states 3000).
#pragma once

#include <tbb/concurrent_vector.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "engine/expander.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

inline constexpr uint32_t kProvisional = 0x80000000u;  // ids of committed states stay below it

// Lowers a state's least discovery key to `key` if that is smaller; from
// any number of threads at once (the distributed BFS uses it too).
inline void lower_discovery_key(uint64_t& least, uint64_t key) {
  std::atomic_ref<uint64_t> ref(least);
  uint64_t seen = ref.load(std::memory_order_relaxed);
  while (key < seen && !ref.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
  }
}

// A source's edges [b, e) as its row stores them: sorted by (target,
// label) without repeats, in place; returns how many remain.
template <class It>
uint32_t make_row(It b, It e) {
  std::sort(b, e, [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
  return static_cast<uint32_t>(std::unique(b, e) - b);
}

class Level {
 public:
  // The frontier is [first, end) of g; g's store maps every state of g.
  // At most `room` new states are kept (the max-states cut-off; no limit:
  // the largest uint64_t).
  Level(const System& system, StateGraph& g, StateId first, StateId end, uint64_t room)
      : system_(system), graph_(g), store_(g.store()), first_(first), room_(room), spans_(end - first) {}

  StateId first() const { return first_; }
  StateId end() const { return first_ + static_cast<StateId>(spans_.size()); }

  // The edges of one worker, contiguous per source.
  struct Edges {
    std::vector<Edge> edges;  // target: a committed id, or kProvisional | index
  };
  // Expands `source` with `expander`, inserting its successors and
  // appending its edges to `out`; ends early once its steps claimed more
  // than `room` new states (see above). Safe from several workers at once
  // (distinct sources). Throws hashing::TreeStoreFull: the round is then
  // redone after the store grew (engine/explore.cpp).
  void expand(StateId source, Expander& expander, Edges& out, uint32_t worker);
  // After TreeStoreFull interrupted the round [lo, hi) and the workers'
  // buffers were cut back to where the round began: its sources are no
  // longer expanded. The states the round found stay (claimed in the
  // store), so the caller must expand every one of [lo, hi) again before
  // the level stops or finishes.
  void forget(StateId lo, StateId hi) {
    std::fill(spans_.begin() + (lo - first_), spans_.begin() + (hi - first_), Span{});
  }
  // New states so far, and whether one of them is over a bound.
  size_t new_states() const { return new_.size(); }
  bool found_violation() const { return violation_.load(std::memory_order_relaxed); }

  struct Cut {
    std::optional<StateId> halted;  // the state whose expansion the cut-off interrupts
    bool max_states = false;        // else: a bound
  };
  struct Outcome {
    uint64_t transitions = 0;  // edges recorded
    uint64_t pruned = 0;       // successors pruned (on_bound=prune) by the sources whose edges are recorded
    std::optional<StateId> violating;
    StateId violating_parent = kNoState;  // the source it halts
    bool max_states = false;
    bool halted() const { return violating || max_states; }
  };
  // Commits the level to the graph and the store: new states in sequential
  // BFS order (at most `room` of them, the max-states cut-off) and the edges
  // of the frontier (none from the state a cut-off interrupts, nor after
  // it). `workers` are the per-worker edge buffers.
  Outcome finish(std::vector<Edges*>& workers, uint64_t room, bool stop_at_violation);

 private:
  // 32 bytes while the graph's labels fit in one word (64 nodes and arcs).
  struct NewState {
    uint32_t root = 0;  // in the store
    bool violating = false;
    uint64_t key = 0;   // least discovery key; lowered to a min with atomic_ref
    uint64_t label = 0; // StateGraph::labels_of, if one word
    std::unique_ptr<uint64_t[]> more_labels;  // else all of them
    const uint64_t* labels() const { return more_labels ? more_labels.get() : &label; }
  };
  struct Span {  // the edges of one source in one worker's buffer
    uint32_t worker = 0;
    size_t begin = 0, end = 0;
    uint64_t pruned = 0;  // successors the expander pruned
    bool expanded = false;
  };
  // expand()'s steps, numbered from `ordinal` on; throws ExpansionCut once
  // `claimed` passes room_.
  void expand_steps(StateId source, Expander& expander, Edges& out, uint32_t& ordinal, uint64_t& claimed);
  // The indices of new_ in sequential BFS order (by least discovery key).
  std::vector<uint32_t> bfs_order() const;

  const System& system_;
  StateGraph& graph_;
  StateStore& store_;
  StateId first_;
  uint64_t room_;
  std::vector<Span> spans_;  // per source of the frontier
  tbb::concurrent_vector<NewState> new_;
  std::atomic<bool> violation_{false};
};

}  // namespace ddsmc::engine
