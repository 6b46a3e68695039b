// main() of dist_mpi_tests: the tests run on every rank of MPI_COMM_WORLD in
// the same order (they call collectives), under mpirun or as a singleton.
#include <gtest/gtest.h>

#include "dist/mpi_context.hpp"

int main(int argc, char** argv) {
  ddsmc::dist::MpiContext mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (!mpi.is_root()) {
    // One rank's report is enough; failures still set this rank's exit code.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  return RUN_ALL_TESTS();
}
