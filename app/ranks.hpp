// `ddsmc check` as one rank of an MPI job (docs/dist.md): started when the
// process was launched by mpirun or srun, else the check runs as one
// process. Rank 0 prints and writes every file; all ranks agree on
// whether to go on, and every rank exits with rank 0's code.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "dist/mpi_context.hpp"

namespace ddsmc::app {

class Ranks {
 public:
  // nullptr when the process was not launched by an MPI launcher.
  static std::unique_ptr<Ranks> start_if_launched();

  int rank() const { return mpi_.rank(); }
  int size() const { return mpi_.size(); }
  bool root() const { return mpi_.is_root(); }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  // The ranks started on this machine (they share its memory).
  int ranks_on_node() const { return on_node_; }

  // Collective: the largest of the ranks' codes (0: all may go on).
  int worst(int code) const;
  // Collective, at the end: rank 0's exit code on every rank. The other
  // ranks wait for it sleeping, not spinning, so that rank 0's analysis
  // has the cores.
  int exit_code(int code) const;

 private:
  Ranks();
  dist::MpiContext mpi_;
  int on_node_ = 1;
};

}  // namespace ddsmc::app
