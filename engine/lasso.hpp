// The witness of a fair SCC (docs/engine.md §10): whether an SCC qualifies,
// and the lasso through it, by level searches whose choices depend on state
// ids only (dist/level_path.hpp follows the same rule over the ranks).
// Internal to the analysis.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/cycle_targets.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

using StatePredicate = std::function<bool(StateId)>;

// Hands a state of an SCC (`in(t)`: t is in it) and its internal kept edges
// to `targets`, in key order (engine/cycle_targets.hpp).
template <class In>
void collect_targets(const StateGraph& g, const Subgraph& sub, StateId s, In&& in, TargetCollector& targets) {
  for (const Edge& e : g.edges(s))
    if (sub.kind_kept(e) && in(e.target)) targets.edge(s, e);
  targets.state(s, [&](uint32_t arc) { return g.channel_empty(s, arc); });
}

// Checks an SCC of the subgraph (members in any order) and returns the
// targets a witness cycle must visit (engine/cycle_targets.hpp), or nullopt
// when it does not qualify. `in_scc`: all zero, per state (left so).
std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness);

// The stem: a shortest path from state 0 through `stem_states` (all:
// nullptr) to a goal state, by levels: a state's parent is the least state
// of the level before with an edge to it, and the path ends at the least
// goal state of the first level that has one (the rule dist/level_path.hpp
// follows over the ranks). `buffer`: an array for the search to use and
// hand back. No such path: std::logic_error.
Path stem_path(const StateGraph& g, StemStates stem_states, const StatePredicate& goal, Cancellation& cancel,
               std::vector<LocalIndex>& buffer);

// b starts where a ends: a followed by b.
inline void append(Path& a, const Path& b) {
  a.states.insert(a.states.end(), b.states.begin() + 1, b.states.end());
  a.edges.insert(a.edges.end(), b.edges.begin(), b.edges.end());
}

// The cycle's order, written once for one process and the ranks: from
// `entry` through every target state (ascending), then to the source of
// every target edge and across it (ascending), then back to the entry;
// `leg(from, to)` is the path between two states of the SCC. The targets
// hold an edge, so the cycle has one.
template <class Leg>
Path cycle_through(const CycleTargets& targets, StateId entry, Leg&& leg) {
  Path cycle{{entry}, {}};
  auto go_to = [&](StateId to) { append(cycle, leg(cycle.states.back(), to)); };
  for (StateId s : targets.states) go_to(s);
  for (const auto& [src, e] : targets.edges) {
    go_to(src);
    cycle.states.push_back(e.target);
    cycle.edges.push_back(e);
  }
  go_to(entry);
  return cycle;
}

// A cycle from `entry` (a state of the SCC `in_scc`) through every target
// state (ascending), then to the source of every target edge and across it
// (ascending), then back to the entry, each leg a search by levels inside
// the SCC along H's edges.
Path build_cycle(const StateGraph& g, const Subgraph& sub, const StatePredicate& in_scc, const CycleTargets& targets,
                 StateId entry, std::vector<LocalIndex> buffer);

// The stem, then the cycle from where the stem ends.
Lasso join_lasso(const Path& stem, const Path& cycle);

// A lasso: the stem from the initial state to the SCC, then the cycle
// through every target, back to where it entered. `buffer`: an array for
// the path searches to reuse.
Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const StatePredicate& in_scc, const CycleTargets& targets,
                  StemStates stem_states, std::vector<LocalIndex> buffer);

}  // namespace ddsmc::engine
