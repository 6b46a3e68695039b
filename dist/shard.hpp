// One rank's part of the graph of a distributed exploration
// (dist/explore.hpp): the states it owns by local id, which ascends with
// the global id, their encodings (in the shard's own store), labels and
// edges, whose targets are handles (dist/handles.hpp); and the exploration's figures over
// the ranks (the report's; engine/backend.hpp). The initial state's global
// id is `initial()`: 0, or the test-only id base (dist/id_base.hpp) the
// exploration numbered from.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::dist {

class Shard {
 public:
  Shard(engine::StateGraph graph, std::vector<engine::StateId> gids, engine::StateId initial = 0)
      : graph_(std::move(graph)), gids_(std::move(gids)), initial_(initial) {}
  const engine::StateGraph& graph() const { return graph_; }
  engine::StateGraph& graph() { return graph_; }
  const std::vector<engine::StateId>& gids() const { return gids_; }
  std::vector<engine::StateId>& gids() { return gids_; }
  engine::StateId initial() const { return initial_; }
  const engine::RankFigures& figures() const { return figures_; }
  engine::RankFigures& figures() { return figures_; }
  // Drops the visited set and the tree's index (only reading back is left),
  // and sends the last edge rows to disk when they go there.
  void end_exploration() { graph_.end_exploration(); }
  // The local id of global state `gid`, if this rank owns it.
  std::optional<engine::StateId> local(engine::StateId gid) const {
    auto it = std::lower_bound(gids_.begin(), gids_.end(), gid);
    if (it == gids_.end() || *it != gid) return std::nullopt;
    return static_cast<engine::StateId>(it - gids_.begin());
  }
  // Its canonical encoding, if this rank owns it.
  std::optional<std::string> bytes(engine::StateId gid) const {
    auto l = local(gid);
    if (!l) return std::nullopt;
    return graph_.bytes(*l);
  }

 private:
  engine::StateGraph graph_;
  std::vector<engine::StateId> gids_;
  engine::StateId initial_ = 0;  // the initial state's global id
  engine::RankFigures figures_;  // set by dist::explore
};

}  // namespace ddsmc::dist
