#include "dist/launch.hpp"

#include "dist/mpi_context.hpp"
#include "dist/ranks.hpp"
#include "engine/local_backend.hpp"

namespace ddsmc::dist {

std::unique_ptr<engine::Processes> start_processes(int unwound_code) {
  if (!launched_under_mpi()) return std::make_unique<engine::LocalProcesses>();
  return std::make_unique<Ranks>(unwound_code);
}

}  // namespace ddsmc::dist
