// `ddsmc check` as one rank of an MPI job (docs/dist.md): the processes of
// engine/backend.hpp when the process was launched by mpirun or srun
// (dist/launch.hpp; else the check runs as one process). Rank 0 prints
// and writes every file; all ranks agree on whether to go on. After the
// exploration rank 0 leads (dist/mpi_backend.hpp): the others serve its
// commands (each analysis, a bound's path, a checkpoint; collective over
// the ranks) and the encodings of the states its traces pass through, and
// every rank exits with rank 0's code.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dist/mpi_context.hpp"
#include "dist/shard.hpp"
#include "engine/backend.hpp"

namespace ddsmc::dist {

class Ranks final : public engine::Processes {
 public:
  // `unwound_code`: the exit code every rank gets when rank 0 leaves the
  // check by an exception.
  explicit Ranks(int unwound_code);
  // Rank 0 ends the run with the unwound code if it explored and has not
  // ended it (an exception unwinding), so that no rank is left waiting.
  ~Ranks() override;
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int on_node() const override { return on_node_; }
  int worst(int code) const override;
  std::vector<uint64_t> all(uint64_t value) const override;
  uint64_t from_root(uint64_t value) const override;
  std::optional<std::string> disagreement(const std::optional<std::string>& identity) const override;
  std::unique_ptr<engine::Backend> backend(engine::Fairness fairness, engine::Cancellation& cancel,
                                           engine::AnalysisCheckpoint checkpoint) override;

  // Rank 0: the canonical encodings of these states, from the shards that
  // own them (this rank's is `mine`), while the others serve().
  std::unordered_map<engine::StateId, std::string> fetch(const std::vector<engine::StateId>& ids,
                                                         const Shard& mine) const;
  // Collective steps after the exploration (the distributed analysis):
  // rank 0 calls command() and then runs the step; the others run it when
  // serve() receives the command. `args` say what to run.
  using OnCommand = std::function<void(const std::vector<uint64_t>& args)>;
  void command(const std::vector<uint64_t>& args) const;
  // The other ranks: answer rank 0's fetches and commands (on_command runs
  // the step; what it throws is rank 0's to report), sleeping in between,
  // until rank 0 finishes; returns its exit code.
  int serve(const Shard& shard, const OnCommand& on_command) const;
  // Rank 0, once the exploration is over: the others now serve() until
  // finish().
  void explored() { explored_ = true; }
  // Rank 0: ends the run on every rank with this exit code; returns it.
  int finish(int code);

 private:
  MpiContext mpi_;
  int on_node_ = 1;
  int unwound_code_;
  bool explored_ = false, finished_ = false;
};

}  // namespace ddsmc::dist
