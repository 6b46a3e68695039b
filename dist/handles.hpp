// How a shard's edge rows name their targets (docs/dist.md, "Handles"): a
// state's handle is (its owner's local id) × R + (its owner's rank), so the
// owner and the local id of any target follow from the handle alone and no
// rank keeps anything per state of the whole space. Handles grow with the
// global ids (a rank owns about 1/R of any range of them), so rows delta-code them as
// cheaply. At one rank a handle is the local id, which is the global id:
// the single process's rows.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "engine/edge_store.hpp"

namespace ddsmc::dist {

struct Handles {
  uint32_t ranks = 1, me = 0;
  int owner(engine::StateId h) const { return static_cast<int>(h % ranks); }
  bool mine(engine::StateId h) const { return h % ranks == me; }
  engine::StateId local(engine::StateId h) const { return h / ranks; }
  engine::StateId of(engine::StateId local) const { return local * ranks + me; }
};

// This rank's handles in `comm`.
inline Handles handles_of(MPI_Comm comm) {
  int ranks = 1, me = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &me);
  return {static_cast<uint32_t>(ranks), static_cast<uint32_t>(me)};
}

}  // namespace ddsmc::dist
