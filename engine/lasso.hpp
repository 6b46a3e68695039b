// The witness of a fair SCC (docs/engine.md §10): whether an SCC qualifies,
// and the lasso through it. Internal to the analysis.
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

// Checks the SCC and returns the targets a witness cycle must visit, or
// nullopt when the SCC does not qualify. `in_scc`: all zero, per state (left
// so).
std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness, bool need_unstable);

// A lasso: the stem from the initial state to the SCC, then a cycle through
// every target, back to where it entered. `in_scc`: all zero, per state;
// `buffer`: an array for the path searches to reuse.
Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                  const CycleTargets& targets, StemStates stem_states, std::vector<char>& in_scc,
                  std::vector<StateId> buffer);

}  // namespace ddsmc::engine
