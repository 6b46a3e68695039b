#include "dist/analysis.hpp"

#include <utility>

#include "dist/handles.hpp"
#include "dist/level_path.hpp"
#include "dist/mailbox.hpp"
#include "dist/owcty.hpp"
#include "dist/source_scc.hpp"
#include "engine/properties.hpp"
#include "engine/source_scc.hpp"

namespace ddsmc::dist {
namespace {

using engine::StateId;

class Analysis {
 public:
  Analysis(const Shard& shard, engine::Fairness f, engine::Cancellation& cancel, MPI_Comm comm)
      : shard_(shard), f_(f), cancel_(cancel), comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
  }

  // True (on every rank) when H has a fair SCC; its lasso goes to `lasso` on rank 0.
  bool find_fair_scc(const engine::Subgraph& h, engine::AnalysisStats& stats, std::optional<engine::Lasso>& lasso) {
    ++stats.subgraphs;
    engine::OwctyResult z = owcty(shard_, h, f_, cancel_, comm_);
    if (!engine::take_fixpoint(z, stats)) return false;
    engine::Lasso found = lasso_in_z(shard_, h, f_, z.flags, cancel_, comm_);
    if (rank_ == 0) lasso = std::move(found);
    return true;
  }

  std::vector<char> ever_faulty_nodes() {
    const engine::StateGraph& g = shard_.graph();
    std::vector<int> seen(g.num_nodes(), 0);
    const engine::StopReason stop = stop_of([&] {
      for (StateId s = 0; s < g.num_states(); ++s) {
        if ((s & 1023) == 0) cancel_.poll();
        if (g.any_faulty(s))
          for (uint32_t n = 0; n < g.num_nodes(); ++n) seen[n] |= g.faulty(s, n);
      }
    });
    agree_on_stop(comm_, stop);
    MPI_Allreduce(MPI_IN_PLACE, seen.data(), static_cast<int>(seen.size()), MPI_INT, MPI_MAX, comm_);
    return std::vector<char>(seen.begin(), seen.end());
  }

 private:
  const Shard& shard_;
  engine::Fairness f_;
  engine::Cancellation& cancel_;
  MPI_Comm comm_;
  int rank_ = 0;
};

// At one rank the shard is the whole graph and its handles are its local
// ids (dist/handles.hpp): the one process's analysis runs on it, on the
// rank's workers, and its lasso's ids become global.
engine::Verdict analyze_alone(const Shard& shard, engine::Property p, engine::Fairness f, bool complete,
                              engine::Cancellation& cancel) {
  engine::Verdict v = engine::analyze(shard.graph(), p, f, complete, cancel);
  if (v.lasso) {
    for (StateId& s : v.lasso->states) s = shard.gids()[s];
    for (engine::Edge& e : v.lasso->edges) e.target = shard.gids()[e.target];
  }
  return v;
}

}  // namespace

engine::Verdict analyze(const Shard& shard, engine::Property p, engine::Fairness f, bool complete,
                        engine::Cancellation& cancel, MPI_Comm comm) {
  if (handles_of(comm).ranks == 1) return analyze_alone(shard, p, f, complete, cancel);
  Analysis a(shard, f, cancel, comm);
  auto ever_faulty = [&] { return a.ever_faulty_nodes(); };
  auto find = [&](const engine::Subgraph& h, engine::AnalysisStats& stats, std::optional<engine::Lasso>& lasso) {
    return a.find_fair_scc(h, stats, lasso);
  };
  return engine::decide(shard.graph(), p, complete, cancel, ever_faulty, find);
}

std::vector<StateId> bfs_tree_path(const Shard& shard, StateId target, StateId target_parent,
                                   engine::Cancellation& cancel, MPI_Comm comm) {
  // The BFS tree's parent of a state is the least source with an edge to
  // it, which lies in the level before it: the stem rule's parent.
  const StateId goal = target_parent != engine::kNoState ? target_parent : target;
  const auto goal_local = shard.local(goal);
  const LevelSearch search{shard.initial(), {}, {}, [&](StateId s) { return goal_local && s == *goal_local; }};
  engine::Path p = level_path(shard, search, cancel, comm);
  if (goal != target) p.states.push_back(target);
  return p.states;
}

}  // namespace ddsmc::dist
