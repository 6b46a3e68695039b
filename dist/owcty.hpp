// The OWCTY fixpoint of engine/owcty.hpp over the ranks (docs/dist.md,
// "The distributed analysis"): each rank keeps the flags and in-degree
// counters of the states it owns and walks their edges; an edge into
// another rank's state becomes a message to it (count, uncount, reach or
// join, one kind per pass), exchanged in supersteps (dist/mailbox.hpp). The
// set Z it leaves is the single-process one: each pass computes a set that
// does not depend on the order of the work (the states reachable from the
// seeds; what is left when states without predecessors are removed until
// none is).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "dist/directory.hpp"
#include "engine/owcty.hpp"

namespace ddsmc::dist {

struct DistZ {
  std::vector<uint8_t> flags;  // per local state: engine::kInSubgraph, engine::kSurvives (other bits: scratch)
  uint64_t survivors = 0;      // |Z| over all ranks
  uint32_t rounds = 0;
  uint32_t passes = 0;         // supersteps
  uint64_t bytes_sent = 0;     // this rank's messages to others
};

// Collective over comm. `shard`: this rank's states by local id (edges to
// global ids); q.keep_state takes local ids. Throws Cancelled on every rank
// when any rank stops.
DistZ owcty(const engine::StateGraph& shard, const Directory& dir, const engine::FairSccQuery& q,
            engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
