// Exact comparison of two explored graphs, for the threads-vs-one-thread
// differential tests: the parallel engine must produce the very graph the
// one-thread run produces (same ids, bytes, labels and edges; the BFS tree
// is read from the edges).
#pragma once

#include <algorithm>
#include <string>

#include "engine/explore.hpp"

namespace ddsmc::test {

// "" when state `x` of `a` and state `y` of `b` are the same (bytes,
// expanded or not, edges, labels), else the difference in words. The ids
// may differ: a shard's local id against the global one.
// "" when state x of a and state y of b have the same labels.
inline std::string label_difference(const engine::StateGraph& a, engine::StateId x, const engine::StateGraph& b,
                                    engine::StateId y) {
  const std::string at = "state " + std::to_string(x) + ": ";
  for (uint32_t n = 0; n < a.num_nodes(); ++n)
    if (a.faulty(x, n) != b.faulty(y, n)) return at + "different fault label";
  for (uint32_t c = 0; c < a.num_arcs(); ++c)
    if (a.channel_empty(x, c) != b.channel_empty(y, c)) return at + "different channel label";
  return "";
}

inline std::string state_difference(const engine::StateGraph& a, engine::StateId x, const engine::StateGraph& b,
                                    engine::StateId y) {
  const std::string at = "state " + std::to_string(x) + ": ";
  if (x >= a.num_states() || y >= b.num_states()) return at + "in one graph only";
  if (a.bytes(x) != b.bytes(y)) return at + "different bytes";
  if (a.expanded(x) != b.expanded(y)) return at + "expanded in one graph only";
  auto ea = a.edges(x), eb = b.edges(y);
  if (!std::equal(ea.begin(), ea.end(), eb.begin(), eb.end())) return at + "different edges";
  return label_difference(a, x, b, y);
}

// "" when identical, else the first difference in words.
inline std::string graph_difference(const engine::StateGraph& a, const engine::StateGraph& b) {
  if (a.num_states() != b.num_states())
    return "states " + std::to_string(a.num_states()) + " vs " + std::to_string(b.num_states());
  if (a.num_edges() != b.num_edges())
    return "transitions " + std::to_string(a.num_edges()) + " vs " + std::to_string(b.num_edges());
  for (engine::StateId s = 0; s < a.num_states(); ++s)
    if (std::string d = state_difference(a, s, b, s); !d.empty()) return d;
  return "";
}

// The figures of two results: completeness, reason, violation, pruned
// count, and for complete ones the largest sizes (an incomplete run's
// depend on how far its last slice got).
inline std::string outcome_difference(const engine::ExploreResult& a, const engine::ExploreResult& b) {
  if (a.complete != b.complete || a.incomplete_reason != b.incomplete_reason)
    return "outcome '" + a.incomplete_reason + "' vs '" + b.incomplete_reason + "'";
  if (a.violating_state != b.violating_state || a.violating_parent != b.violating_parent)
    return "different violating state";
  if (a.violation.has_value() != b.violation.has_value() ||
      (a.violation && (a.violation->kind != b.violation->kind || a.violation->where != b.violation->where ||
                       a.violation->value != b.violation->value)))
    return "different violation";
  if (a.pruned_states != b.pruned_states) return "different pruned count";
  if (a.complete && !(a.sizes == b.sizes)) return "different largest sizes";
  return "";
}

// The same for whole results: the figures, then the graphs.
inline std::string result_difference(const engine::ExploreResult& a, const engine::ExploreResult& b) {
  if (std::string d = outcome_difference(a, b); !d.empty()) return d;
  return graph_difference(a.graph, b.graph);
}

}  // namespace ddsmc::test
