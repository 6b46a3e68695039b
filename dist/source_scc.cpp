#include "dist/source_scc.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "dist/handles.hpp"
#include "dist/level_path.hpp"
#include "dist/mailbox.hpp"
#include "dist/mpi_types.hpp"
#include "dist/reverse_edges.hpp"
#include "engine/cycle_targets.hpp"
#include "engine/lasso.hpp"
#include "engine/source_scc.hpp"

namespace ddsmc::dist {
namespace {

using engine::Edge;
using engine::kInB;
using engine::kInC;
using engine::kInF;
using engine::StateId;

// engine/source_scc.hpp's walk over the ranks.
class DistWalk {
 public:
  DistWalk(const Shard& shard, const engine::Subgraph& h, std::vector<uint8_t>& flags, engine::Cancellation& cancel,
           MPI_Comm comm)
      : shard_(shard), h_(h), flags_(flags), cancel_(cancel), comm_(comm), handles_(handles_of(comm)) {
    build_reverse();
  }
  StateId gid(StateId s) const { return shard_.gids()[s]; }
  std::optional<StateId> local_of(StateId gid) const { return shard_.local(gid); }
  StateId min_over_all(StateId x) const { return min_over_ranks(x, comm_); }
  bool any_over_all(bool x) const { return any_over_ranks(x, comm_); }
  template <class Work>
  void local(Work&& work) const {
    agree_on_stop(comm_, stop_of(work));
  }
  engine::Cancellation& cancel() const { return cancel_; }

  // B by a backward closure from p inside C, then F by a forward one inside B.
  void split(std::optional<StateId> p) {
    close(p, true, kInC, kInB);
    close(p, false, kInB, kInF);
  }

 private:
  // Marks `mark` on the seed (a state of `within`) and on every state of
  // `within` it reaches (backward: that reaches it) along H's edges.
  void close(std::optional<StateId> seed, bool backward, uint8_t within, uint8_t mark) {
    std::vector<StateId> queue;
    auto visit = [&](StateId t) {
      if ((flags_[t] & within) && !(flags_[t] & mark)) {
        flags_[t] |= mark;
        queue.push_back(t);
      }
    };
    auto arrive = [&](StateId t, const Mailbox::Word*) { visit(t); };
    auto reach = [&](StateId handle) {
      const Mailbox::Word msg[1] = {handle};
      to_owner(box_, handles_, msg, arrive);
    };
    if (seed) visit(*seed);
    size_t i = 0;
    supersteps(
        box_,
        [&] {
          for (; i < queue.size() && !box_.full(); ++i) {
            cancel_.poll();
            const StateId v = queue[i];
            if (backward) {
              reverse_.for_each_source(v, reach);
            } else {
              for (const Edge& e : shard_.graph().edges(v))
                if (h_.kind_kept(e)) reach(e.target);
            }
          }
          return i < queue.size();
        },
        [&](const Mailbox::Word* m) { arrive(handles_.local(m[0]), m); });
  }

  // H[Z]'s edges into this rank's states, reversed (dist/reverse_edges.hpp):
  // each pass hands every edge of H inside Z to its target's owner.
  void build_reverse() {
    z_edges_to_targets([&](StateId t, StateId) { reverse_.count(t); });
    local([&] { reverse_.end_counting(); });
    z_edges_to_targets([&](StateId t, StateId source) { reverse_.add(t, source); });
  }

  // At its target's owner, f(local target, source handle) for every edge of
  // H whose source is in Z and whose target is in Z.
  template <class F>
  void z_edges_to_targets(F&& f) {
    Mailbox box(comm_, 2);
    auto arrive = [&](StateId local_target, const Mailbox::Word* m) {
      if (flags_[local_target] & kInC) f(local_target, m[1]);
    };
    StateId s = 0;
    supersteps(
        box,
        [&] {
          for (; s < flags_.size() && !box.full(); ++s) {
            if (!(flags_[s] & kInC)) continue;
            cancel_.poll();
            for (const Edge& e : shard_.graph().edges(s)) {
              if (!h_.kind_kept(e)) continue;
              const Mailbox::Word msg[2] = {e.target, handles_.of(s)};
              to_owner(box, handles_, msg, arrive);
            }
          }
          return s < flags_.size();
        },
        [&](const Mailbox::Word* m) { arrive(handles_.local(m[0]), m); });
  }

  const Shard& shard_;
  const engine::Subgraph& h_;
  std::vector<uint8_t>& flags_;
  engine::Cancellation& cancel_;
  MPI_Comm comm_;
  Handles handles_;
  Mailbox box_{comm_, 1};
  ReverseEdges reverse_{flags_.size()};  // sources by handle
};

// The cycle targets of the SCC kInF marks: each rank collects its states
// and the internal edges into them (whose sources' owners send them as
// (target handle, source gid, label)), then the collectors are merged.
std::optional<engine::CycleTargets> targets_over_ranks(const Shard& shard, const engine::Subgraph& h,
                                                       engine::Fairness f, const std::vector<uint8_t>& flags,
                                                       engine::Cancellation& cancel, MPI_Comm comm) {
  const engine::StateGraph& g = shard.graph();
  const Handles handles = handles_of(comm);
  const std::vector<StateId>& gids = shard.gids();
  engine::TargetCollector mine(g.num_arcs(), f, h.need_unstable);
  // m: (target handle, source gid, label)
  auto edge_into = [&](StateId local_target, const Mailbox::Word* m) {
    if (!(flags[local_target] & kInF)) return;
    Edge e;
    e.target = gids[local_target];
    e.label = static_cast<uint32_t>(m[2]);
    mine.edge(m[1], e);
  };
  Mailbox box(comm, 3);
  StateId s = 0;
  supersteps(
      box,
      [&] {
        for (; s < flags.size() && !box.full(); ++s) {
          if (!(flags[s] & kInF)) continue;
          cancel.poll();
          for (const Edge& e : g.edges(s)) {
            if (!h.kind_kept(e)) continue;
            const Mailbox::Word msg[3] = {e.target, gids[s], e.label};
            to_owner(box, handles, msg, edge_into);
          }
          mine.state(gids[s], [&](uint32_t arc) { return g.channel_empty(s, arc); });
        }
        return s < flags.size();
      },
      [&](const Mailbox::Word* m) { edge_into(handles.local(m[0]), m); });
  const std::vector<uint64_t> words = mine.words();
  std::vector<uint64_t> all(words.size() * handles.ranks);
  MPI_Allgather(words.data(), static_cast<int>(words.size()), MPI_UINT64_T, all.data(),
                static_cast<int>(words.size()), MPI_UINT64_T, comm);
  engine::TargetCollector merged(g.num_arcs(), f, h.need_unstable), other = merged;
  for (uint32_t r = 0; r < handles.ranks; ++r) {
    other.from_words(all.data() + r * words.size());
    merged.merge(other);
  }
  return merged.targets();
}

}  // namespace

engine::Lasso lasso_in_z(const Shard& shard, const engine::Subgraph& h, engine::Fairness f,
                         std::vector<uint8_t>& flags, engine::Cancellation& cancel, MPI_Comm comm) {
  {
    DistWalk walk(shard, h, flags, cancel, comm);
    engine::find_source_scc(walk, flags);
  }
  const auto targets = targets_over_ranks(shard, h, f, flags, cancel, comm);
  if (!targets) throw std::logic_error("analysis: a source SCC of the OWCTY fixpoint does not qualify");
  auto in_f = [&](StateId local) { return (flags[local] & kInF) != 0; };
  LevelSearch stem{shard.initial(), {}, {}, in_f};
  if (const engine::StemStates keep = engine::stem_states_of(h)) stem.enter = *keep;
  const engine::Path to_scc = level_path(shard, stem, cancel, comm);
  auto kind = [&](const Edge& e) { return h.kind_kept(e); };
  const engine::Path cycle =
      engine::cycle_through(*targets, to_scc.states.back(), [&](StateId from, StateId to) {
        const auto to_local = shard.local(to);
        LevelSearch leg{from, in_f, kind, [&](StateId local) { return to_local && local == *to_local; }};
        return level_path(shard, leg, cancel, comm);
      });
  return engine::join_lasso(to_scc, cycle);
}

}  // namespace ddsmc::dist
