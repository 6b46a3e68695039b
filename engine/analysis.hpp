// The convergence analysis of SPEC section 4, written once over the
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

struct Verdict {
  Property property = Property::SometimesTotal;
  std::optional<bool> holds;    // nullopt: not decided (incomplete exploration)
  std::optional<Lasso> lasso;   // witness (sometimes-*) or counterexample (always-*)
  std::optional<uint32_t> node; // always-partial counterexample: the node never faulty in it
};

// `complete` says whether the graph is the whole reachable state space. On an
// incomplete graph a witness or counterexample found is still genuine (it
// uses only explored edges); otherwise the verdict is left undecided.
// `cancel` is polled in every walk over the graph; a stop throws Cancelled
// (and an allocation failure std::bad_alloc) with no verdict.
Verdict analyze(const StateGraph& g, Property p, Fairness f, bool complete,
                Cancellation& cancel = Cancellation::none());

}  // namespace ddsmc::engine
