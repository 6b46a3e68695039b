// The collective steps of a distributed check after its exploration
// (docs/dist.md, "The distributed analysis"), as `ddsmc check` runs them:
// rank 0 sends each as a command, then runs it with the others, which run
// it when their serve() loop receives the command (serve_one()).
#pragma once

#include <vector>

#include "app/checkpointing.hpp"
#include "app/ranks.hpp"
#include "dist/analysis.hpp"
#include "dist/directory.hpp"
#include "engine/analysis.hpp"
#include "engine/cancel.hpp"

namespace ddsmc::app {

class DistSteps {
 public:
  DistSteps(const Ranks& ranks, const dist::Shard& shard, const dist::Directory* dir,
            const hashing::StateLayout& layout, engine::Fairness fairness, engine::Cancellation& cancel,
            Checkpointing& checkpoints, const engine::ExploreResult& explored)
      : ranks_(ranks), shard_(shard), dir_(dir), layout_(layout), fairness_(fairness), cancel_(cancel),
        checkpoints_(checkpoints), explored_(explored) {}

  engine::Verdict analyze(engine::Property p, bool complete) const {
    if (ranks_.root()) ranks_.command({kAnalyze, static_cast<uint32_t>(p), complete});
    return dist::analyze(shard_, directory(), layout_, p, fairness_, complete, cancel_, ranks_.comm());
  }
  std::vector<engine::StateId> bound_path(engine::StateId target, engine::StateId parent) const {
    if (ranks_.root()) ranks_.command({kBoundPath, target, parent});
    return dist::bfs_tree_path(shard_, directory(), target, parent, cancel_, ranks_.comm());
  }
  // `decided`: rank 0's verdicts (it alone writes the manifest).
  void checkpoint_analysis(const std::vector<engine::Verdict>& decided = {}) const {
    if (ranks_.root()) ranks_.command({kCheckpoint});
    checkpoints_.after_analysis(explored_, shard_.graph(), &shard_.gids(), decided);
  }
  void serve_one(const std::vector<uint32_t>& a) const {
    if (a.size() == 3 && a[0] == kAnalyze) analyze(static_cast<engine::Property>(a[1]), a[2] != 0);
    if (a.size() == 3 && a[0] == kBoundPath) bound_path(a[1], a[2]);
    if (a.size() == 1 && a[0] == kCheckpoint) checkpoint_analysis();
  }

 private:
  enum : uint32_t { kAnalyze = 1, kBoundPath = 2, kCheckpoint = 3 };
  // (no directory: building it ran out of memory on some rank, and every rank knows)
  const dist::Directory& directory() const {
    if (!dir_) throw engine::Cancelled(engine::StopReason::OutOfMemory);
    return *dir_;
  }
  const Ranks& ranks_;
  const dist::Shard& shard_;
  const dist::Directory* dir_;
  const hashing::StateLayout& layout_;
  engine::Fairness fairness_;
  engine::Cancellation& cancel_;
  Checkpointing& checkpoints_;
  const engine::ExploreResult& explored_;
};

}  // namespace ddsmc::app
