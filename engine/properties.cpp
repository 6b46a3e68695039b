#include "engine/properties.hpp"

namespace ddsmc::engine {
namespace {

bool is_sometimes(Property p) { return p == Property::SometimesTotal || p == Property::SometimesPartial; }

// The property's subgraph; `node`: always-partial's node.
Subgraph subgraph_of(const StateGraph& g, Property p, std::optional<uint32_t> node, Cancellation& cancel) {
  Subgraph h;
  h.cancel = &cancel;
  h.stable_edges_only = is_sometimes(p);  // a converged suffix takes stable edges only
  h.roots_everywhere = is_sometimes(p);   // every explored state is reachable
  h.need_unstable = !is_sometimes(p);
  switch (p) {
    case Property::SometimesTotal:
    case Property::AlwaysTotal:
      h.keep_state = [&g](StateId s) { return !g.any_faulty(s); };
      break;
    case Property::SometimesPartial:
      h.keep_state = [&g](StateId s) { return !g.all_faulty(s); };
      break;
    case Property::AlwaysPartial:
      h.keep_state = [&g, n = *node](StateId s) { return !g.faulty(s, n); };
      break;
  }
  return h;
}

// The nodes whose subgraphs always-partial examines, in order: every node,
// except that the nodes never faulty give the same subgraph, examined for
// the first of them only. The other properties examine one subgraph.
std::vector<std::optional<uint32_t>> examined_nodes(const StateGraph& g, Property p, EverFaulty ever_faulty) {
  if (p != Property::AlwaysPartial) return {std::nullopt};
  const std::vector<char> ever = ever_faulty();
  std::vector<std::optional<uint32_t>> nodes;
  bool clean = false;
  for (uint32_t n = 0; n < g.num_nodes(); ++n)
    if (ever[n] || !clean) {
      clean |= !ever[n];
      nodes.push_back(n);
    }
  return nodes;
}

}  // namespace

Verdict decide(const StateGraph& g, Property p, bool complete, Cancellation& cancel, EverFaulty ever_faulty,
               FairSccSearch find) {
  Verdict v;
  v.property = p;
  bool found = false;
  for (const std::optional<uint32_t>& n : examined_nodes(g, p, ever_faulty))
    if (find(subgraph_of(g, p, n, cancel), v.stats, v.lasso)) {
      found = true;
      v.node = n;
      break;
    }
  // A fair SCC proves sometimes-* (a witness) and refutes always-* (a counterexample).
  if (found) v.holds = is_sometimes(p);
  else if (complete) v.holds = !is_sometimes(p);
  return v;
}

}  // namespace ddsmc::engine
