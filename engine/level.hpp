// The single process's two policies of the BFS slice kernel
// (engine/slice.hpp, docs/engine.md §9): every successor is interned and
// claimed here (LocalRouter), and the new states are numbered by their
// least discovery key (KeyOrder), which is the sequential BFS's order.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/slice.hpp"

namespace ddsmc::engine {

// One worker's router: the expander interns every successor, the slice
// claims it here, and the edge points at its reference at once.
struct LocalRouter {
  Expander& expander;
  Slice& slice;
  const System& system;
  const StateGraph& graph;

  template <class F>
  void successors(uint32_t root, F&& each) {
    expander.expand(root, each);
  }
  Routed route(const Candidate& c, StateId /*source*/, uint64_t key) {
    const StateStore::Claim r =
        slice.claim(c.root, c.violating, key, [&](uint64_t* out) { graph.labels_of(*c.state, system, out); });
    return {(r.ref & kProvisional) ? provisional_target(r.ref) : StateId{r.ref}, r.inserted};
  }
};

// Numbers a slice's new states by least discovery key, from the graph's
// end on; the first `room` are kept (the --max-states cut-off: the first
// one past it halts its discoverer), and under on_bound=stop the first one
// over a bound is kept and halts its discoverer.
class KeyOrder {
 public:
  KeyOrder(const StateGraph& g, bool stop_at_violation) : graph_(g), stop_at_violation_(stop_at_violation) {}
  Numbered number(Slice& slice);
  StateId committed(Slice& slice, const Numbered& n) const {
    return n.cut.halted != kNoState ? n.cut.halted : slice.end();
  }

 private:
  // The indices of the new states in sequential BFS order (by least key).
  static std::vector<uint32_t> bfs_order(Slice& slice);

  const StateGraph& graph_;
  bool stop_at_violation_;
};

}  // namespace ddsmc::engine
