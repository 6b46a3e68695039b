#include "engine/bfs_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace ddsmc::engine {

std::vector<StateId> bfs_tree_path(const StateGraph& g, StateId target, StateId target_parent, Cancellation& cancel) {
  if (target >= g.num_states()) throw std::out_of_range("bfs_tree_path: no such state");
  // parent[t] for t <= target: the least source with an edge to t. A
  // state's parent has a smaller id, so sources past target do not matter.
  std::vector<StateId> parent(size_t{target} + 1, kNoState);
  const StateId sources = std::min<StateId>(target, g.num_states());
  for (StateId s = 0; s < sources; ++s) {
    cancel.poll();
    if (!g.expanded(s)) continue;
    for (const Edge& e : g.edges(s))
      if (e.target <= target && e.target != 0 && parent[e.target] == kNoState) parent[e.target] = s;
  }
  if (target_parent != kNoState) parent[target] = target_parent;
  std::vector<StateId> path{target};
  for (StateId s = target; s != 0;) {
    s = parent[s];
    if (s == kNoState || s >= path.back()) throw std::logic_error("bfs_tree_path: a state without a BFS parent");
    path.push_back(s);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace ddsmc::engine
