// Whether a subgraph H of the state graph has a fair SCC, decided by
// OWCTY-style elimination (docs/engine.md §10): parallel sweeps and
// level-synchronous BFS passes over the states and their forward edges, no
// depth-first search and no reverse graph. What survives the fixpoint is a
// set Z of states, empty iff H has no fair SCC; a fair SCC is then looked
// for inside Z only (analysis.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/analysis.hpp"  // Fairness
#include "engine/cancel.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// The subgraph H and the acceptance condition of its fair SCCs, as
// analysis.cpp's Subgraph and qualify() define them.
struct FairSccQuery {
  std::function<bool(StateId)> keep_state;  // H's states (called from every worker)
  bool stable_edges_only = false;           // H's edges: the stable ones only
  // Where the SCCs are looked for: every kept state (sometimes-*), or only
  // the states reachable from state 0 inside H (always-*).
  bool roots_everywhere = true;
  Fairness fairness = Fairness::Channel;
  bool need_unstable = false;  // the SCC needs a non-stable edge (always-*)
};

// Per-state flags of the result.
inline constexpr uint8_t kInSubgraph = 1;  // keep_state(s)
inline constexpr uint8_t kSurvives = 2;    // s is in the fixpoint Z

struct OwctyResult {
  std::vector<uint8_t> flags;  // per state: kInSubgraph, kSurvives (other bits: scratch)
  uint64_t survivors = 0;      // |Z|
  uint64_t initial = 0;        // |Z| at the start: the kept (and, for always-*, reachable) states
  uint32_t rounds = 0;         // rounds over the acceptance sets (0 when there are none)
  uint32_t passes = 0;         // parallel loops run, every sweep, BFS level and elimination round
};

// The fixpoint, on the caller's task arena (engine::parallel_for). Polls
// `cancel` before every pass and a copy of it per chunk of every pass;
// throws Cancelled or std::bad_alloc with no result. Scratch: the result's
// byte of flags per state and a 32-bit in-degree counter per state (5
// bytes per state), plus lists of state ids, short in practice (the list
// of Z's states once Z holds less than 1/16 of them, and the levels of a
// propagation once they are short; docs/engine.md §10).
OwctyResult owcty(const StateGraph& g, const FairSccQuery& q, Cancellation& cancel);

}  // namespace ddsmc::engine
