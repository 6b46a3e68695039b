#include "dist/level_path.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "dist/handles.hpp"
#include "dist/mailbox.hpp"
#include "dist/mpi_types.hpp"

namespace ddsmc::dist {

using engine::Edge;
using engine::kNoState;
using engine::StateId;

engine::Path level_path(const Shard& shard, const LevelSearch& search, engine::Cancellation& cancel, MPI_Comm comm) {
  const engine::StateGraph& g = shard.graph();
  const Handles handles = handles_of(comm);
  const std::vector<StateId>& gids = shard.gids();
  auto take = [&](const Edge& e) { return !search.take || search.take(e); };
  engine::Path path;
  const StateId start = search.from;
  path.states.push_back(start);
  const auto start_local = shard.local(start);
  if (any_over_ranks(start_local && search.goal(*start_local), comm)) return path;
  // Per local state: its parent (a global id), kNoState while unseen;
  // fresh: seen in the level being built, where its parent may still get
  // smaller.
  std::vector<StateId> parent;
  std::vector<char> fresh;
  agree_on_stop(comm, stop_of([&] {
    parent.assign(g.num_states(), kNoState);
    fresh.assign(g.num_states(), 0);
  }));
  std::vector<StateId> level, next;
  if (start_local) {
    parent[*start_local] = start;
    level.push_back(*start_local);
  }
  auto offer = [&](StateId t, StateId from) {
    if (search.enter && !search.enter(t)) return;
    if (parent[t] == kNoState) {
      parent[t] = from;
      fresh[t] = 1;
      next.push_back(t);
    } else if (fresh[t] && from < parent[t]) {
      parent[t] = from;
    }
  };
  auto arrive = [&](StateId t, const Mailbox::Word* m) { offer(t, m[1]); };
  Mailbox box(comm, 2);
  StateId found = kNoState;
  for (;;) {
    // One level: every allowed edge out of it offers its source as its target's parent.
    next.clear();
    size_t i = 0;
    supersteps(
        box,
        [&] {
          for (; i < level.size() && !box.full(); ++i) {
            cancel.poll();
            const StateId from = gids[level[i]];
            for (const Edge& e : g.edges(level[i])) {
              if (!take(e)) continue;
              const Mailbox::Word msg[2] = {e.target, from};
              to_owner(box, handles, msg, arrive);
            }
          }
          return i < level.size();
        },
        [&](const Mailbox::Word* m) { arrive(handles.local(m[0]), m); });
    StateId goal = kNoState;
    for (StateId t : next) {
      fresh[t] = 0;
      if (search.goal(t)) goal = std::min(goal, gids[t]);
    }
    uint64_t counts[1] = {next.size()};
    MPI_Allreduce(MPI_IN_PLACE, counts, 1, MPI_UINT64_T, MPI_SUM, comm);
    found = min_over_ranks(goal, comm);
    if (found != kNoState) break;
    if (counts[0] == 0) throw std::logic_error("dist: no path to the goal by levels");
    level.swap(next);
  }
  // Back from the goal: each state's owner gives its parent and its own
  // handle, then the parent's owner the first allowed edge (in its row)
  // into the child.
  std::vector<StateId> back{found};
  std::vector<Edge> edges;
  for (StateId s = found; s != start;) {
    const auto ls = shard.local(s);
    std::array<StateId, 2> ph{kNoState, kNoState};  // s's parent, s's handle
    if (ls) ph = {parent[*ls], handles.of(*ls)};
    MPI_Allreduce(MPI_IN_PLACE, ph.data(), 2, mpi_type<StateId>(), MPI_MIN, comm);
    const StateId p = ph[0];
    if (p == kNoState) throw std::logic_error("dist: a path state without a parent");
    uint32_t label = 0xffffffffu;
    if (const auto lp = shard.local(p))
      for (const Edge& e : g.edges(*lp))
        if (e.target == ph[1] && take(e)) {
          label = e.label;
          break;
        }
    MPI_Allreduce(MPI_IN_PLACE, &label, 1, mpi_type<uint32_t>(), MPI_MIN, comm);
    Edge e;
    e.target = s;
    e.label = label;
    edges.push_back(e);
    back.push_back(p);
    s = p;
  }
  path.states.assign(back.rbegin(), back.rend());
  path.edges.assign(edges.rbegin(), edges.rend());
  return path;
}

}  // namespace ddsmc::dist
