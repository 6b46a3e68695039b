// The convergence analysis of docs/reference.md §4, written once over the
// StateGraph: fair SCCs of the subgraphs that each property defines, and a
// lasso (a path from the initial state and a cycle) proving each answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

enum class Property : uint8_t { SometimesTotal, SometimesPartial, AlwaysTotal, AlwaysPartial };
enum class Fairness : uint8_t { Channel, None };

const char* property_name(Property p);       // "sometimes-total"
const char* property_json_key(Property p);   // "sometimes_total"
inline constexpr Property kAllProperties[] = {Property::SometimesTotal, Property::SometimesPartial,
                                              Property::AlwaysTotal, Property::AlwaysPartial};

// A lasso: states[0] is the initial state, edges[i] leads from states[i] to
// states[i+1], and the last edge leads from states.back() back to
// states[loop_start].
struct Lasso {
  std::vector<StateId> states;
  std::vector<Edge> edges;
  size_t loop_start = 0;
};

// What the analysis did, summed over the subgraphs it examined (figures
// for benchmarks and tests; the sequential analysis leaves the OWCTY ones 0).
struct AnalysisStats {
  uint32_t subgraphs = 0;  // subgraphs H examined (always-partial: up to one per node)
  uint32_t rounds = 0;     // OWCTY rounds over the acceptance sets
  uint32_t passes = 0;     // OWCTY parallel loops (sweeps, BFS levels, elimination rounds)
  uint64_t survivors = 0;  // states left in Z at the fixpoint (where the lasso was looked for)
};

// A lasso given concretely (under network symmetry, where the graph's
// states are orbit representatives): states[i] is the encoding of the
// i-th state up to renaming (canonical under renaming alone), edges[i]
// leads from states[i] to states[i + 1] with the concrete arc it serves,
// and the last edge returns from states.back() to states[loop_start].
struct ConcreteLasso {
  std::vector<std::string> states;
  std::vector<Edge> edges;
  size_t loop_start = 0;
};

struct Verdict {
  Property property = Property::SometimesTotal;
  std::optional<bool> holds;    // nullopt: not decided (incomplete exploration)
  std::optional<Lasso> lasso;   // witness (sometimes-*) or counterexample (always-*)
  std::optional<uint32_t> node; // always-partial counterexample: the node never faulty in it
  AnalysisStats stats;
  std::optional<ConcreteLasso> concrete;  // instead of `lasso` under network symmetry
};

// `complete` says whether the graph is the whole reachable state space. On an
// incomplete graph a witness or counterexample found is still genuine (it
// uses only explored edges); otherwise the verdict is left undecided.
// `cancel` is polled in every walk over the graph; a stop throws Cancelled
// (and an allocation failure std::bad_alloc) with no verdict.
//
// The subgraphs each property examines and how their fair SCCs make the
// verdict are engine/properties.hpp's table, shared with dist::analyze.
// Parallel (docs/engine.md §10): for each subgraph, an OWCTY elimination
// fixpoint (engine/owcty.hpp) on the caller's task arena decides whether a
// fair SCC exists; only when one does, a sequential Tarjan inside the
// surviving states finds it and builds the lasso. A survivor set with no
// fair SCC in it is a bug: std::logic_error.
Verdict analyze(const StateGraph& g, Property p, Fairness f, bool complete,
                Cancellation& cancel = Cancellation::none());

// The same verdicts by one sequential Tarjan per subgraph over the whole of
// it (with early exit): the tests' oracle. Its lassos may differ from
// analyze()'s (another fair SCC, another path), its `holds` and `node` never.
Verdict analyze_sequential(const StateGraph& g, Property p, Fairness f, bool complete,
                           Cancellation& cancel = Cancellation::none());

}  // namespace ddsmc::engine
