// The breadth-first tree of an explored graph, read back from its edges
// (docs/engine.md §9): the graph keeps no parent links. A state's BFS parent
// is the state whose expansion found it first, and sources are expanded in
// id order with every edge recorded, so it is the least source with an edge
// to the state. The one exception is a source a cut-off halted (its edges
// are not recorded): the exploration reports the parent of the state it
// halted on (ExploreResult::violating_parent).
#pragma once

#include <vector>

#include "engine/cancel.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// The states from the initial state (0) to `target` along the BFS tree: a
// shortest path. `target_parent`: target's parent when it is known (a halted
// source, or kNoState for state 0), else kNoState to look it up too. One
// pass over the edges of the states below target, 4 bytes per such state;
// `cancel` is polled once per state.
std::vector<StateId> bfs_tree_path(const StateGraph& g, StateId target, StateId target_parent,
                                   Cancellation& cancel = Cancellation::none());

}  // namespace ddsmc::engine
