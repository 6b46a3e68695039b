#include "engine/local_backend.hpp"

#include "engine/bfs_tree.hpp"
#include "engine/quotient_lasso.hpp"

namespace ddsmc::engine {

std::unique_ptr<Backend> LocalProcesses::backend(Fairness fairness, Cancellation& cancel,
                                                 AnalysisCheckpoint checkpoint) {
  return std::make_unique<LocalBackend>(fairness, cancel, std::move(checkpoint));
}

const ExploreResult& LocalBackend::explore(const System& system, const ExploreOptions& opts,
                                           std::optional<Restored> restored) {
  system_ = &system;
  if (!restored) return res_.emplace(engine::explore(system, opts));
  const CheckpointMeta& m = restored->meta;
  ExploreResult& res = res_.emplace(system.layout());
  res.graph = std::move(restored->graph);
  res.pruned_states = m.pruned_states;
  res.canonical = {m.canonical[0], m.canonical[1], m.canonical[2], m.canonical[3], m.canonical[4]};
  res.sizes = {m.sizes[0], m.sizes[1], m.sizes[2]};
  res.seconds = m.seconds;
  explore_from(system, opts, res, static_cast<StateId>(m.next));
  return res;
}

Verdict LocalBackend::analyze(Property p, bool complete) {
  if (system_ && system_->symmetry()) return analyze_symmetric(*system_, res_->graph, p, fairness_, complete, cancel_);
  return engine::analyze(res_->graph, p, fairness_, complete, cancel_);
}

std::vector<StateId> LocalBackend::bound_path(StateId target, StateId target_parent) {
  return bfs_tree_path(res_->graph, target, target_parent, cancel_);
}

StateBytes LocalBackend::encodings(const std::vector<StateId>&) {
  return [&g = res_->graph](StateId s) { return g.bytes(s); };
}

std::optional<ConcreteLasso> LocalBackend::concrete_path(const std::vector<StateId>& path) {
  if (!system_ || !system_->symmetry()) return std::nullopt;
  return engine::concrete_path(*system_, res_->graph, path, cancel_).value_or(ConcreteLasso{});
}

void LocalBackend::checkpoint_analysis(const std::vector<Verdict>& decided) {
  checkpoint_(*res_, res_->graph, nullptr, decided);
}

}  // namespace ddsmc::engine
