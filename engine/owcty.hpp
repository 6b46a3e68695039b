// Whether a subgraph H of the state graph has a fair SCC, decided by the
// OWCTY elimination fixpoint (engine/owcty_fixpoint.hpp, docs/engine.md
// §10) in one process: parallel sweeps and level-synchronous BFS passes
// over the states and their forward edges, no depth-first search and no
// reverse graph. What survives the fixpoint is a set Z of states, empty iff
// H has a fair SCC; a fair SCC is then looked for inside Z only
// (engine/fair_scc.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/analysis.hpp"  // Fairness
#include "engine/cancel.hpp"
#include "engine/owcty_fixpoint.hpp"
#include "engine/source_scc.hpp"  // kInC
#include "engine/state_graph.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

struct OwctyResult {
  std::vector<uint8_t> flags;  // per state: kInSubgraph, kSurvives (other bits: scratch)
  uint64_t survivors = 0;      // |Z|
  uint64_t initial = 0;        // |Z| at the start: the kept (and, for always-*, reachable) states
  uint32_t rounds = 0;         // rounds over the acceptance sets (0 when there are none)
  uint32_t passes = 0;         // parallel loops run (every sweep, BFS level and elimination round);
                               // over the ranks (dist/owcty.hpp): supersteps
};

// The fixpoint for H under fairness `f`, on the caller's task arena
// (engine::parallel_for). Polls `cancel` before every pass and a copy of
// it per chunk of every pass; throws Cancelled or std::bad_alloc with no
// result. Scratch: the result's byte of flags per state and a 32-bit
// in-degree counter per state (5 bytes per state), plus lists of state
// ids, short in practice (the list of Z's states once Z holds less than
// 1/16 of them, and the levels of a propagation once they are short;
// docs/engine.md §10).
OwctyResult owcty(const StateGraph& g, const Subgraph& h, Fairness f, Cancellation& cancel);

// What both analyses (engine/fair_scc.cpp, dist/analysis.cpp) do with a
// fixpoint's result: its figures are added to `stats`; if Z is not empty,
// z.flags becomes the source-SCC search's start (kInC on Z's states,
// engine/source_scc.hpp) and the result is true.
inline bool take_fixpoint(OwctyResult& z, AnalysisStats& stats) {
  stats.rounds += z.rounds;
  stats.passes += z.passes;
  stats.survivors += z.survivors;
  if (z.survivors == 0) return false;
  for (uint8_t& x : z.flags) x = (x & kSurvives) ? kInC : 0;
  return true;
}

}  // namespace ddsmc::engine
