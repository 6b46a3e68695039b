// The check in one process (engine/backend.hpp): engine::explore or
// explore_from over this process's StateGraph, engine::analyze and
// engine::bfs_tree_path on it, its states read back from it. Its
// collectives are plain calls over one process.
#pragma once

#include "engine/backend.hpp"

namespace ddsmc::engine {

class LocalProcesses final : public Processes {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int on_node() const override { return 1; }
  int worst(int code) const override { return code; }
  std::vector<uint64_t> all(uint64_t value) const override { return {value}; }
  uint64_t from_root(uint64_t value) const override { return value; }
  std::optional<std::string> disagreement(const std::optional<std::string>&) const override { return std::nullopt; }
  std::unique_ptr<Backend> backend(Fairness fairness, Cancellation& cancel, AnalysisCheckpoint checkpoint) override;
};

class LocalBackend final : public Backend {
 public:
  LocalBackend(Fairness fairness, Cancellation& cancel, AnalysisCheckpoint checkpoint)
      : fairness_(fairness), cancel_(cancel), checkpoint_(std::move(checkpoint)) {}
  const ExploreResult& explore(const System& system, const ExploreOptions& opts,
                               std::optional<Restored> restored) override;
  const StateGraph& graph() const override { return res_->graph; }
  const std::vector<StateId>* gids() const override { return nullptr; }
  void end_exploration(uint64_t) override { res_->graph.end_exploration(); }
  int lead(const std::function<int()>& lead) override { return lead(); }
  Verdict analyze(Property p, bool complete) override;
  std::vector<StateId> bound_path(StateId target, StateId target_parent) override;
  StateBytes encodings(const std::vector<StateId>& ids) override;
  std::optional<ConcreteLasso> concrete_path(const std::vector<StateId>& path) override;
  void checkpoint_analysis(const std::vector<Verdict>& decided) override;
  // One process: the report reads its own figures (RankFigures).
  RankFigures figures() const override { return {}; }

 private:
  Fairness fairness_;
  Cancellation& cancel_;
  AnalysisCheckpoint checkpoint_;
  std::optional<ExploreResult> res_;
  const System* system_ = nullptr;  // explore()'s: under network symmetry the analysis needs it
};

}  // namespace ddsmc::engine
