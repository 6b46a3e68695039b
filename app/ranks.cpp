#include "app/ranks.hpp"

#include <chrono>
#include <thread>

namespace ddsmc::app {

std::unique_ptr<Ranks> Ranks::start_if_launched() {
  if (!dist::launched_under_mpi()) return nullptr;
  return std::unique_ptr<Ranks>(new Ranks());
}

Ranks::Ranks() : mpi_(nullptr, nullptr) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &on_node_);
  MPI_Comm_free(&node);
}

int Ranks::worst(int code) const {
  int out = code;
  MPI_Allreduce(&code, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

int Ranks::exit_code(int code) const {
  MPI_Request request;
  MPI_Ibcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return code;
    std::this_thread::sleep_for(std::chrono::milliseconds(root() ? 0 : 20));
  }
}

}  // namespace ddsmc::app
