// The stem of a lasso, and the path of a bound violation, over the ranks
// (docs/dist.md, "The distributed analysis"): engine/lasso.hpp's stem rule
// (by levels from the initial state, Shard::initial(); a state's parent is the least state of the
// level before with an edge to it; the path ends at the least goal state
// of the first level that has one), with each rank holding the parents of
// the states it owns. The result is the single-process path.
#pragma once

#include <mpi.h>

#include <vector>

#include "dist/shard.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::dist {

// Collective over comm. `keep`: nullptr (every edge) or the states a stem
// may enter, by local id; `goals`: global ids, ascending. Returns the path
// (global ids, edges to global ids) on every rank; std::logic_error on
// every rank when no goal is reachable. Throws Cancelled on every rank
// when any rank stops.
engine::Path stem_path(const Shard& shard, engine::StemStates keep, const std::vector<engine::StateId>& goals,
                       engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
