// How `ddsmc check` finds the processes it runs on (engine/backend.hpp):
// the ranks of an MPI job when mpirun or srun launched it (dist/ranks.hpp,
// their backend dist/mpi_backend.hpp), else this one process
// (engine/local_backend.hpp). No MPI in this header: the app includes it.
#pragma once

#include <memory>

#include "engine/backend.hpp"

namespace ddsmc::dist {

// `unwound_code`: the exit code every rank gets when rank 0 leaves the
// check by an exception.
std::unique_ptr<engine::Processes> start_processes(int unwound_code);

}  // namespace ddsmc::dist
