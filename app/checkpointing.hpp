// `--checkpoint DIR`, `--checkpoint-every DURATION` and `--resume DIR` of
// `ddsmc check` (docs/engine.md §14): when to write a checkpoint, the
// processes' agreement on it (engine::Processes: the ranks under MPI), what
// it must match to be resumed, and the messages.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint.hpp"
#include "engine/backend.hpp"
#include "engine/checkpoint_lock.hpp"

namespace ddsmc::app {

// "90", "90s", "15m", "2h" (a number of seconds, minutes or hours; 0: at
// every chance); nullopt if not a duration.
std::optional<double> parse_duration(const std::string& text);

class Checkpointing {
 public:
  // `identity`: what must be the same to resume (check_identity()).
  // `processes`: the check's (one, or the MPI ranks); every call below but
  // due() is collective over them.
  Checkpointing(std::optional<std::string> dir, std::optional<double> every_seconds, const std::string& identity,
                const engine::Processes& processes);
  bool enabled() const { return dir_.has_value(); }
  // Takes the checkpoint directory's lock for the rest of the run (rank 0
  // under MPI; engine/checkpoint_lock.hpp), creating the directory: false,
  // with the message printed, when another check holds it or the
  // directory cannot be made. Collective under MPI.
  bool lock();

  // The exploration's hooks (engine::ExploreOptions::checkpoint_due and
  // ::checkpoint): periodic checkpoints between slices.
  bool due() const;
  // A periodic checkpoint: writes every rank's part, then (all of them
  // whole) the manifest; prints where it went, or why it could not (an
  // error once, not at every slice; the check goes on).
  void write(const engine::ExplorePoint& p);
  // After the exploration: a checkpoint when it was stopped by a signal or
  // memory (something a resume can go on from). `graph` is this process's
  // graph or this rank's shard (`gids` its global ids).
  void after_exploration(const engine::ExploreResult& res, const engine::StateGraph& graph,
                         const std::vector<engine::StateId>* gids);
  // When a signal stopped the analysis of a whole graph: a checkpoint of
  // it and of the verdicts `decided` before the stop (rank 0's count),
  // from which a resume analyses only the other properties.
  void after_analysis(const engine::ExploreResult& res, const engine::StateGraph& graph,
                      const std::vector<engine::StateId>* gids, const std::vector<engine::Verdict>& decided);

  // Whether dir holds a checkpoint of this check at this rank count (its
  // manifest only; restore() reads the rest): false with the message
  // printed otherwise.
  bool check_manifest(const std::string& dir) const;

  // Restores this process's graph (this rank's shard and its global ids)
  // from dir for this check: the manifest, or nullopt (message printed,
  // exit 2) when it cannot be read or belongs to another check.
  std::optional<engine::CheckpointMeta> restore(const std::string& dir, const engine::System& system,
                                                engine::StateGraph& graph, std::vector<engine::StateId>& gids) const;

 private:
  // Whether the checkpoint was written (every rank agrees); `at_stop`: the
  // one a stop leaves (its failure is always reported).
  bool write_checkpoint(const engine::ExplorePoint& p, const std::vector<engine::Verdict>& decided, bool at_stop);
  void report_failure(int k, const std::string& error, bool at_stop);
  // The checkpoint a stop leaves, then the hint to resume from it (or from
  // an earlier one of this run), when there is one.
  void write_point(const engine::ExploreResult& res, const engine::StateGraph& graph,
                   const std::vector<engine::StateId>* gids, uint64_t next,
                   const std::vector<engine::Verdict>& decided = {});
  // Collective: the first rank whose `error` is not empty, or -1.
  int first_failure(const std::string& error) const;
  int rank() const;
  // "ddsmc: WHAT DIR: [rank K: ]ERROR TAIL"
  void print_failure(int k, const char* what, const std::string& dir, const std::string& error,
                     const char* tail) const;
  // Collective: whether every rank succeeded; the first failing rank
  // prints its message (with "rank K: " when it is not rank 0).
  bool agree(const std::string& error, const char* what, const std::string& dir) const;
  uint64_t new_generation() const;
  // The manifest in dir, if it is this check's at this rank count (throws
  // CheckpointError).
  engine::CheckpointMeta matching_manifest(const std::string& dir) const;

  std::optional<std::string> dir_;
  engine::CheckpointLock lock_;
  std::optional<double> every_;
  std::string identity_;  // hex of a 128-bit hash
  const engine::Processes& processes_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string last_error_;                 // the last write error this rank printed
  std::optional<uint64_t> written_states_;  // the last checkpoint this run wrote (its states)
};

}  // namespace ddsmc::app
