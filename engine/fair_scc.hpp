// Whether a subgraph has a fair SCC, and its lasso (docs/engine.md §10):
// the OWCTY fixpoint in parallel, then a source SCC of what survives
// (engine/source_scc.hpp's search, each of its turns one Tarjan over what
// is left); or one sequential Tarjan over the whole subgraph (the tests'
// oracle).
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

// Marks kInF (engine/source_scc.hpp) on the states of a source SCC of H[Z],
// the one engine/source_scc.hpp's search finds. `flags`: per state, kInC on
// Z's states (not empty) and nothing else on entry.
void mark_source_scc(const StateGraph& g, const Subgraph& h, std::vector<uint8_t>& flags);

// The lasso of a fair SCC of the subgraph, if it has one. Sequentially: one
// Tarjan over the subgraph (roots as sub says). In parallel: the OWCTY
// fixpoint Z first; Z is empty iff there is no fair SCC, and otherwise a
// source SCC of H[Z] is one (docs/engine.md §10): the one that
// engine/source_scc.hpp finds, the one the ranks find too. The stem goes as
// stem_states_of(sub) says, in both cases.
std::optional<Lasso> find_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f, bool parallel,
                                   AnalysisStats& stats);

}  // namespace ddsmc::engine
