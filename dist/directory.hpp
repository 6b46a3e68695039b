// Where a state of a distributed graph lives (docs/dist.md, "The
// distributed analysis"): the rank that owns each global id, and the local
// id of each one this rank owns, in O(1). A state's owner follows from its
// encoding's fingerprint, not from its id, so the analysis, whose edges
// name targets by global id, looks owners up here.
//
// Memory: every rank keeps the owner of every state (1 byte per state up
// to 256 ranks, 2 beyond) and a bit per state with a 32-bit count per 64
// states for its own (1.5 bits per state).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "engine/edge_store.hpp"

namespace ddsmc::dist {

class Directory {
 public:
  // Collective over comm: `gids` are this rank's states' global ids,
  // ascending; `states` is their number over all ranks.
  Directory(const std::vector<engine::StateId>& gids, engine::StateId states, MPI_Comm comm);

  int me() const { return me_; }
  int ranks() const { return ranks_; }
  engine::StateId states() const { return states_; }
  int owner(engine::StateId gid) const { return wide_ ? owner16_[gid] : owner8_[gid]; }
  bool mine(engine::StateId gid) const { return (bits_[gid >> 6] >> (gid & 63)) & 1u; }
  // The local id of a state this rank owns.
  engine::StateId local(engine::StateId gid) const {
    const uint64_t below = bits_[gid >> 6] & ((uint64_t{1} << (gid & 63)) - 1);
    return base_[gid >> 6] + ones(below);
  }

 private:
  template <class T>
  void fill_owners(std::vector<T>& owner, const std::vector<engine::StateId>& gids, MPI_Datatype type, MPI_Comm comm);
  // std::popcount is a library call without -mpopcnt (the build targets
  // any x86-64): a few inline operations instead.
  static engine::StateId ones(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<engine::StateId>((x * 0x0101010101010101ull) >> 56);
  }
  int me_ = 0, ranks_ = 1;
  engine::StateId states_ = 0;
  bool wide_ = false;              // more than 256 ranks: 16-bit owners
  std::vector<uint8_t> owner8_;    // per global id (up to 256 ranks)
  std::vector<uint16_t> owner16_;  // per global id (more ranks)
  std::vector<uint64_t> bits_;   // per global id: this rank owns it
  std::vector<uint32_t> base_;   // per 64 ids: this rank's states below them
};

}  // namespace ddsmc::dist
