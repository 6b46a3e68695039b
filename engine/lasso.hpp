// The witness of a fair SCC (docs/engine.md §10): whether an SCC qualifies,
// and the lasso through it. Internal to the analysis.
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

// Checks the SCC (an internal kept edge; a non-stable one if
// sub.need_unstable; the fairness condition) and returns the targets a
// witness cycle must visit, or nullopt when the SCC does not qualify.
// `in_scc`: all zero, per state (left so).
std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness);

// The stem: a shortest path from state 0 through `stem_states` (all:
// nullptr) to a state with goal[s] set, by levels: a state's parent is the
// least state of the level before with an edge to it, and the path ends at
// the least goal state of the first level that has one (the rule
// dist/stem.hpp follows over the ranks). `buffer`: an array for the search
// to use and hand back. No such path: std::logic_error.
Path stem_path(const StateGraph& g, StemStates stem_states, const std::vector<char>& goal, Cancellation& cancel,
               std::vector<LocalIndex>& buffer);

// A cycle from `entry` (a member) through every target and back, inside the
// SCC, by FIFO searches. `in_scc`: all zero, per state (left so).
Path build_cycle(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                 const CycleTargets& targets, StateId entry, std::vector<char>& in_scc, std::vector<LocalIndex> buffer);

// The stem, then the cycle from where the stem ends.
Lasso join_lasso(const Path& stem, const Path& cycle);

// A lasso: the stem from the initial state to the SCC, then a cycle through
// every target, back to where it entered. `in_scc`: all zero, per state;
// `buffer`: an array for the path searches to reuse.
Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                  const CycleTargets& targets, StemStates stem_states, std::vector<char>& in_scc,
                  std::vector<LocalIndex> buffer);

}  // namespace ddsmc::engine
