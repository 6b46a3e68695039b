#include "dist/mpi_context.hpp"

#include <mpi.h>

#include <cstdlib>
#include <initializer_list>

namespace ddsmc::dist {

bool launched_under_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

MpiContext::MpiContext(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiContext::~MpiContext() { MPI_Finalize(); }

}  // namespace ddsmc::dist
