// Checking the claim of a replayed trace (engine/d2c/replay.hpp): a bound trace
// ends at the first state over a bound; a witness or counterexample is a
// lasso whose labels meet the property's conditions (semantics.md §9.1).
// The labels are computed by the checker's own code: StateGraph::add_state
// (faulty nodes, empty channels), engine/bounds (bound measures) and
// ArcCoverage (the fairness of a cycle).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/d2c/replay.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// A run whose steps all replayed (and whose loop, if any, closes).
struct ReplayedRun {
  const std::vector<ReplayStep>& steps;
  std::optional<size_t> loop_start;
  // Vertex i is the state before step i, the last one the state after the
  // last step; only the labels matter (no bytes, no edges).
  StateGraph states;
  // Bound claims only: the first state over a bound, and which bound.
  std::optional<std::pair<StateId, BoundViolation>> first_over_bound;
  hashing::GlobalState last;  // the state after the last step
};

// Nullopt when the claim holds (then `verified` says what was checked, in
// words), otherwise which condition fails.
std::optional<std::string> check_claim(const CompiledModel& cm, const ReplayedRun& run, const TraceClaim& claim,
                                       std::string& verified);

}  // namespace ddsmc::engine
