// The one description of a subgraph H that a property examines (built by
// engine/properties.cpp), read by every search of the analysis in one
// process and over the ranks: Tarjan and qualify (engine/fair_scc,
// engine/lasso), the OWCTY fixpoint (engine/owcty_fixpoint.hpp, whose
// walks are engine/owcty and dist/owcty), the stems (engine/lasso,
// dist/stem) and dist/analysis. Also the paths and cycle targets the
// lasso searches share. Internal to the analysis (engine/analysis.hpp is
// its interface).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// A subgraph of the state graph: the states it keeps, the edges between
// them it keeps, where its SCCs are looked for and what a fair SCC of it
// needs besides the fairness condition.
struct Subgraph {
  // H's states (called from every worker; in dist/, by local id).
  std::function<bool(StateId)> keep_state;
  bool stable_edges_only = false;  // H's edges: the stable ones only
  // Where the SCCs are looked for: every kept state (sometimes-*), or only
  // the states reachable from state 0 inside H (always-*), which is also
  // where the stem of the lasso must stay.
  bool roots_everywhere = true;
  bool need_unstable = false;  // a fair SCC needs a non-stable edge inside (always-*)
  // Network symmetry (engine/quotient.hpp): per arc, its orbit under the
  // group, and the graph's edges carry elements in their arc fields. The
  // OWCTY fixpoint then takes one acceptance set per orbit (a sound
  // filter there, not a decision); null: one per arc.
  const std::vector<uint32_t>* arc_orbit = nullptr;
  Cancellation* cancel = &Cancellation::none();  // polled by every sequential walk over it

  // An edge of a kind H keeps (whatever its target).
  bool kind_kept(const Edge& e) const { return !stable_edges_only || e.stable(); }
  // An edge of H: of a kept kind, into a kept state.
  bool keeps(const Edge& e) const { return kind_kept(e) && keep_state(e.target); }
};

// The states a stem may go through: all (nullptr), or those kept.
using StemStates = const std::function<bool(StateId)>*;

// Where the stem of a lasso through a fair SCC of `h` may go: anywhere
// (sometimes-*: every explored state is reachable), or through H's states
// (always-*: the lasso must stay in H).
inline StemStates stem_states_of(const Subgraph& h) { return h.roots_everywhere ? nullptr : &h.keep_state; }

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
