// The lasso of a fair SCC over the ranks, once the OWCTY fixpoint has left
// a non-empty Z (docs/dist.md, "The distributed analysis"), with no rank
// holding more than its own states:
//   - the source SCC of H[Z] that engine/source_scc.hpp's search finds,
//     with a walk whose closures send each edge into another rank's state
//     to its owner (backwards through the reversed edges of H[Z], which
//     each rank keeps for the states it owns);
//   - its cycle targets by engine/cycle_targets.hpp's keys, each rank
//     collecting those of its states and of the edges into them, merged
//     over the ranks;
//   - the stem and the cycle's legs by dist/level_path.hpp.
// Every choice depends on global ids only: the lasso is the one the single
// process finds (engine/fair_scc.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "dist/shard.hpp"
#include "engine/analysis.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::dist {

// Collective over comm. `flags`: per local state, engine::kInC on the
// states of Z and nothing else (used as scratch). Returns the lasso on
// every rank; throws Cancelled on every rank when any rank stops.
engine::Lasso lasso_in_z(const Shard& shard, const engine::Subgraph& h, engine::Fairness f,
                         std::vector<uint8_t>& flags, engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
