// What the analysis's searches share (engine/fair_scc, engine/lasso): the
// subgraph a property defines, and the targets a witness cycle must visit.
// Internal to the analysis (engine/analysis.hpp is its interface).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// A subgraph of the state graph: the states it keeps and the edges between
// them it keeps.
struct Subgraph {
  std::function<bool(StateId)> keep_state;
  bool stable_edges_only = false;
  Cancellation* cancel = &Cancellation::none();  // polled by every walk over it
  bool keeps(const Edge& e) const { return (!stable_edges_only || e.stable()) && keep_state(e.target); }
};

// The states a stem may go through: all (nullptr), or those kept.
using StemStates = const std::function<bool(StateId)>*;

// A path as (states, edges); states[0] is where it starts, edges[i] leads
// from states[i] to states[i + 1].
struct Path {
  std::vector<StateId> states;
  std::vector<Edge> edges;
};

// What a fair cycle through an SCC has to visit: for every arc, a state with
// that channel empty or an edge serving it; maybe one non-stable edge.
struct CycleTargets {
  std::vector<StateId> states;
  std::vector<std::pair<StateId, Edge>> edges;
};

}  // namespace ddsmc::engine
