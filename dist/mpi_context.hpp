// MPI start-up and shut-down for the one ddsmc binary: it runs as a single
// process when not launched by mpirun, and as one rank of many when it is.
#pragma once

namespace ddsmc::dist {

class MpiContext {
 public:
  MpiContext(int* argc, char*** argv);  // MPI_Init_thread (funneled)
  ~MpiContext();                        // MPI_Finalize
  MpiContext(const MpiContext&) = delete;
  MpiContext& operator=(const MpiContext&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// True when this process was started by an MPI launcher (mpirun, srun).
bool launched_under_mpi();

}  // namespace ddsmc::dist
