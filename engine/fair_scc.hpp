// Whether a subgraph has a fair SCC, and its lasso (docs/engine.md §10):
// the OWCTY fixpoint in parallel, then the one Tarjan inside what survives;
// or one sequential Tarjan over the whole subgraph (the tests' oracle).
// Internal to the analysis.
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

// A fair SCC and what a witness cycle through it must visit.
struct FairScc {
  std::vector<StateId> members;  // in the order Tarjan popped them
  CycleTargets targets;
  std::vector<LocalIndex> buffer;  // the finder's per-state array, for the path searches to reuse
};

// The first maximal SCC of the subgraph that qualifies, by one Tarjan from
// every kept state in id order (sub.roots_everywhere) or from state 0.
std::optional<FairScc> first_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f);

// The lasso of a fair SCC of the subgraph, if it has one. Sequentially: one
// Tarjan over the subgraph (roots as sub says). In parallel: the OWCTY
// fixpoint Z first; Z is empty iff there is no fair SCC, and otherwise a
// source SCC of Z is one (docs/engine.md §10), so Tarjan runs over Z only,
// from every state of it. The stem goes as stem_states_of(sub) says, in
// both cases.
std::optional<Lasso> find_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f, bool parallel,
                                   AnalysisStats& stats);

}  // namespace ddsmc::engine
