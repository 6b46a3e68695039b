// `check --dot FILE`: the explored state graph in Graphviz's DOT language,
// for small models (issue 24; docs/charts.md, "The state graph"). The graph
// is the one the check explored: states up to renaming of fresh constants,
// and under network symmetry one state per orbit (a representative).
//   - A state is labelled with its id, every node's non-empty DB and every
//     non-empty channel (fresh constants as #1, #2, ... in the state's
//     canonical numbering). The initial state has a double border; a state
//     the exploration did not expand (a bound, --max-states) is dotted.
//   - An edge is labelled with the channel it serves (in its source's
//     frame under symmetry), or `idle`. Stable edges (no DB change) are
//     green, the others grey.
//   - Every maximal SCC of the graph that is fair under the check's
//     fairness is a dashed cluster, "fair SCC k"; within them, the states
//     of a fair SCC of the stable edges alone (where a run can converge)
//     are filled green, the others orange. Fairness is judged as the
//     analysis judges it (engine::fair_sccs: by the lift under symmetry).
//     These are the graph's own SCCs, not those of a property's subgraph
//     (which also filters faulty states).
// Above `max_states` the graph is not drawn: the file holds a one-node
// graph that says why, and the caller says so on stderr.
#pragma once

#include <cstdint>
#include <string>

#include "engine/analysis.hpp"
#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/state_graph.hpp"
#include "hashing/symmetry.hpp"

namespace ddsmc::app {

inline constexpr uint64_t kDotMaxStates = 2000;  // the default of --dot-max-states

struct DotInput {
  const engine::CompiledModel& cm;
  const engine::StateGraph& graph;
  const hashing::SymmetryGroup& group;  // the trivial group without symmetry
  engine::Fairness fairness = engine::Fairness::Channel;
  std::string title;  // the graph's caption: model, network, figures
};

// The DOT text; `cancel` is polled by the SCC search.
std::string dot_graph(const DotInput& in, engine::Cancellation& cancel);

// The one-node graph written instead of one with more than max_states states.
std::string dot_refusal(uint64_t states, uint64_t max_states);

}  // namespace ddsmc::app
