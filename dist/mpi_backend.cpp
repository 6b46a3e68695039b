#include "dist/mpi_backend.hpp"

#include "dist/analysis.hpp"
#include "dist/explore.hpp"
#include "dist/gather.hpp"
#include "dist/id_base.hpp"
#include "dist/mailbox.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/quotient_lasso.hpp"

namespace ddsmc::dist {

const engine::ExploreResult& MpiBackend::explore(const engine::System& system, const engine::ExploreOptions& opts,
                                                 std::optional<engine::Restored> restored) {
  layout_ = &system.layout();
  system_ = &system;
  base_ = id_base_from_environment(ranks_.size());
  if (!restored) {
    res_.emplace(dist::explore(system, opts, ranks_.comm(), shard_, nullptr, base_));
  } else {
    const engine::CheckpointMeta& m = restored->meta;
    const Resumed at{m.pruned_states,
                     {m.canonical[0], m.canonical[1], m.canonical[2], m.canonical[3], m.canonical[4]},
                     {m.sizes[0], m.sizes[1], m.sizes[2]},
                     m.seconds};
    shard_ = std::make_unique<Shard>(std::move(restored->graph), std::move(restored->gids));
    res_.emplace(dist::explore(system, opts, ranks_.comm(), shard_, &at, base_));
  }
  res_->violating_state = ordinary(res_->violating_state);
  res_->violating_parent = ordinary(res_->violating_parent);
  if (base_)
    for (engine::StateId gid : shard_->gids()) ordinary_gids_.push_back(ordinary(gid));
  figures_ = shard_->figures();
  return *res_;
}

void MpiBackend::end_exploration(uint64_t peak_rss) {
  figures_.rank_peak_rss = ranks_.all(peak_rss);
  shard_->end_exploration();
}

int MpiBackend::lead(const std::function<int()>& lead) {
  if (!ranks_.root()) return ranks_.serve(*shard_, [&](const std::vector<uint64_t>& args) { serve_one(args); });
  ranks_.explored();
  return ranks_.finish(lead());
}

const engine::StateGraph& MpiBackend::gathered() {
  if (!gathered_) {
    ranks_.command({kGather});
    gathered_ = gather_graph(*shard_, *system_, base_, ranks_.comm());
  }
  return *gathered_;
}

engine::Verdict MpiBackend::analyze(engine::Property p, bool complete) {
  if (symmetric()) return engine::analyze_symmetric(*system_, gathered(), p, fairness_, complete, cancel_);
  if (ranks_.root()) ranks_.command({kAnalyze, static_cast<uint64_t>(p), complete});
  engine::Verdict v = dist::analyze(*shard_, p, fairness_, complete, cancel_, ranks_.comm());
  if (v.lasso) {
    for (engine::StateId& s : v.lasso->states) s = ordinary(s);
    for (engine::Edge& e : v.lasso->edges) e.target = ordinary(e.target);
  }
  return v;
}

std::vector<engine::StateId> MpiBackend::bound_path(engine::StateId target, engine::StateId target_parent) {
  if (symmetric()) return engine::bfs_tree_path(gathered(), target, target_parent, cancel_);
  if (ranks_.root()) ranks_.command({kBoundPath, target, target_parent});
  std::vector<engine::StateId> path =
      dist::bfs_tree_path(*shard_, based(target), based(target_parent), cancel_, ranks_.comm());
  for (engine::StateId& s : path) s = ordinary(s);
  return path;
}

engine::StateBytes MpiBackend::encodings(const std::vector<engine::StateId>& ids) {
  if (symmetric()) return [&g = gathered()](engine::StateId s) { return g.bytes(s); };
  std::vector<engine::StateId> gids;
  gids.reserve(ids.size());
  for (engine::StateId id : ids) gids.push_back(based(id));
  return [bytes = ranks_.fetch(gids, *shard_), base = base_](engine::StateId s) { return bytes.at(s + base); };
}

std::optional<engine::ConcreteLasso> MpiBackend::concrete_path(const std::vector<engine::StateId>& path) {
  if (!symmetric()) return std::nullopt;
  return engine::concrete_path(*system_, gathered(), path, cancel_).value_or(engine::ConcreteLasso{});
}

void MpiBackend::checkpoint_analysis(const std::vector<engine::Verdict>& decided) {
  if (ranks_.root()) ranks_.command({kCheckpoint});
  checkpoint_(*res_, shard_->graph(), gids(), decided);
}

void MpiBackend::serve_one(const std::vector<uint64_t>& a) {
  if (a.size() == 3 && a[0] == kAnalyze) analyze(static_cast<engine::Property>(a[1]), a[2] != 0);
  if (a.size() == 3 && a[0] == kBoundPath) bound_path(a[1], a[2]);
  if (a.size() == 1 && a[0] == kCheckpoint) checkpoint_analysis({});
  if (a.size() == 1 && a[0] == kGather) gather_graph(*shard_, *system_, base_, ranks_.comm());
}

}  // namespace ddsmc::dist
