// `ddsmc check` as one rank of an MPI job (docs/dist.md): started when the
// process was launched by mpirun or srun, else the check runs as one
// process. Rank 0 prints and writes every file; all ranks agree on
// whether to go on. After the exploration rank 0 leads: the others serve
// its commands (each analysis, a bound's path, collective over the ranks)
// and the encodings of the states its traces pass through, and every rank
// exits with rank 0's code.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dist/mpi_context.hpp"
#include "dist/shard.hpp"

namespace ddsmc::app {

class Ranks {
 public:
  // nullptr when the process was not launched by an MPI launcher.
  static std::unique_ptr<Ranks> start_if_launched();
  // Rank 0 ends the run with exit code 3 if it explored and has not ended
  // it (an exception unwinding), so that no rank is left waiting.
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const { return mpi_.rank(); }
  int size() const { return mpi_.size(); }
  bool root() const { return mpi_.is_root(); }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  // The ranks started on this machine (they share its memory).
  int ranks_on_node() const { return on_node_; }

  // Collective: the largest of the ranks' codes (0: all may go on).
  int worst(int code) const;
  // Collective: every rank's value, by rank.
  std::vector<uint64_t> all(uint64_t value) const;

  // Rank 0: the canonical encodings of these states, from the shards that
  // own them (this rank's is `mine`), while the others serve().
  std::unordered_map<engine::StateId, std::string> fetch(const std::vector<engine::StateId>& ids,
                                                         const dist::Shard& mine) const;
  // Collective steps after the exploration (the distributed analysis):
  // rank 0 calls command() and then runs the step; the others run it when
  // serve() receives the command. `args` say what to run.
  using OnCommand = std::function<void(const std::vector<uint32_t>& args)>;
  void command(const std::vector<uint32_t>& args) const;
  // The other ranks: answer rank 0's fetches and commands (on_command runs
  // the step; what it throws is rank 0's to report), sleeping in between,
  // until rank 0 finishes; returns its exit code.
  int serve(const dist::Shard& shard, const OnCommand& on_command) const;
  // Rank 0, once the exploration is over: the others now serve() until
  // finish().
  void explored() { explored_ = true; }
  // Rank 0: ends the run on every rank with this exit code; returns it.
  int finish(int code);

 private:
  Ranks();
  dist::MpiContext mpi_;
  int on_node_ = 1;
  bool explored_ = false, finished_ = false;
};

}  // namespace ddsmc::app
