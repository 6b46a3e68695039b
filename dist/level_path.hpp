// Paths by levels over the ranks (docs/dist.md, "The distributed
// analysis"): engine/lasso.hpp's rule (a state's parent is the least state
// of the level before with an allowed edge to it; the path ends at the
// least goal state of the first level that has one; its edge from a parent
// to a child is the first allowed one in the parent's row, the least
// label), with each rank holding the parents of the states it owns. The
// result is the single-process path. The lasso's stem, its cycle's legs
// and a bound violation's path are such searches.
#pragma once

#include <mpi.h>

#include <functional>

#include "dist/shard.hpp"
#include "engine/subgraph.hpp"

namespace ddsmc::dist {

// What a search may do, on the rank that owns the states in question.
struct LevelSearch {
  engine::StateId from = 0;                      // global id
  std::function<bool(engine::StateId)> enter;    // by local id: the states it may enter (empty: all)
  std::function<bool(const engine::Edge&)> take;  // the edges it may take, by kind (empty: all)
  std::function<bool(engine::StateId)> goal;     // by local id
};

// Collective over comm. Returns the path (global ids, edges to global ids)
// on every rank; std::logic_error on every rank when no goal is reachable.
// Throws Cancelled on every rank when any rank stops.
engine::Path level_path(const Shard& shard, const LevelSearch& search, engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
