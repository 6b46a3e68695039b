// The check over the ranks of an MPI job (engine/backend.hpp; docs/dist.md,
// "Rank 0 leads"): dist::explore leaves the graph in shards, and after it
// rank 0 leads: it sends each collective step (an analysis, the bound's
// path, the analysis's checkpoint) as a command and then runs it with the
// others, which run it when their serve() loop receives the command
// (serve_one()); the encodings of a trace's states come from the ranks that
// own them. Every rank ends with rank 0's exit code.
//
// Under network symmetry (System::symmetry) the exploration is the
// distributed one, and on rank 0's first need the quotient graph is
// gathered there (dist/gather.hpp); the analysis (engine/quotient_lasso's
// analyze_symmetric), the bound's path and the encodings then run on rank
// 0 alone, on that graph, in ordinary ids.
//
// With the test-only id base (DDSMC_TEST_ID_BASE, dist/id_base.hpp) the
// engine's global ids are the ordinary ids + the base; this class is the
// boundary where they become ordinary again: the result's violating state
// and parent, the verdicts' lassos, the bound's path and gids() lose the
// base, and the ids the app passes in (bound_path, encodings) get it.
// Without a base nothing is translated.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dist/ranks.hpp"
#include "dist/shard.hpp"
#include "engine/backend.hpp"

namespace ddsmc::dist {

class MpiBackend final : public engine::Backend {
 public:
  MpiBackend(Ranks& ranks, engine::Fairness fairness, engine::Cancellation& cancel,
             engine::AnalysisCheckpoint checkpoint)
      : ranks_(ranks), fairness_(fairness), cancel_(cancel), checkpoint_(std::move(checkpoint)) {}

  const engine::ExploreResult& explore(const engine::System& system, const engine::ExploreOptions& opts,
                                       std::optional<engine::Restored> restored) override;
  const engine::StateGraph& graph() const override { return shard_->graph(); }
  // (ordinary ids: the app checkpoints them)
  const std::vector<engine::StateId>* gids() const override { return base_ ? &ordinary_gids_ : &shard_->gids(); }
  void end_exploration(uint64_t peak_rss) override;
  int lead(const std::function<int()>& lead) override;

  engine::Verdict analyze(engine::Property p, bool complete) override;
  std::vector<engine::StateId> bound_path(engine::StateId target, engine::StateId target_parent) override;
  engine::StateBytes encodings(const std::vector<engine::StateId>& ids) override;
  // `decided`: rank 0's verdicts (it alone writes the manifest).
  void checkpoint_analysis(const std::vector<engine::Verdict>& decided) override;
  engine::RankFigures figures() const override { return figures_; }
  std::optional<engine::ConcreteLasso> concrete_path(const std::vector<engine::StateId>& path) override;

 private:
  enum : uint64_t { kAnalyze = 1, kBoundPath = 2, kCheckpoint = 3, kGather = 4 };
  // The other ranks: runs the step rank 0 commanded.
  void serve_one(const std::vector<uint64_t>& a);
  // An ordinary id as the engine's global id, and back (kNoState stays).
  engine::StateId based(engine::StateId id) const { return id == engine::kNoState ? id : id + base_; }
  engine::StateId ordinary(engine::StateId gid) const { return gid == engine::kNoState ? gid : gid - base_; }

  bool symmetric() const { return system_ && system_->symmetry(); }
  // Rank 0 under symmetry: the whole quotient graph, gathered at the first call.
  const engine::StateGraph& gathered();

  Ranks& ranks_;
  const engine::System* system_ = nullptr;
  std::optional<engine::StateGraph> gathered_;
  engine::Fairness fairness_;
  engine::Cancellation& cancel_;
  engine::AnalysisCheckpoint checkpoint_;
  const hashing::StateLayout* layout_ = nullptr;
  std::optional<engine::ExploreResult> res_;
  std::unique_ptr<Shard> shard_;
  engine::StateId base_ = 0;                    // the test-only id base (0: none)
  std::vector<engine::StateId> ordinary_gids_;  // with a base: the shard's gids without it
  engine::RankFigures figures_;
};

}  // namespace ddsmc::dist
