// The distributed breadth-first exploration (docs/dist.md): each rank owns
// the states whose canonical encoding's fingerprint maps to it
// (hashing::owner_of), keeps them in its own StateStore and expands them
// with its own workers; successors go to their owners as byte records.
// The ranks move through the BFS queue slice by slice together, and every
// slice is numbered exactly as the sequential BFS numbers it (the least
// discovery key, engine/level.hpp), so states, ids, edges, cut-offs and
// hence every verdict and trace equal the single-process run's.
//
// Collective over comm: every rank calls it with the same system and
// options. Rank 0's result holds the whole graph but the states'
// encodings, gathered from the ranks once the exploration is over (so that
// the single-process analysis runs on it; dist/gather.hpp); the other
// ranks' results have an empty graph and the same figures. `shard`
// receives this rank's states, encodings included.
#pragma once

#include <mpi.h>

#include <memory>

#include "dist/shard.hpp"
#include "engine/explore.hpp"

namespace ddsmc::dist {

engine::ExploreResult explore(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm,
                              std::unique_ptr<Shard>& shard);

}  // namespace ddsmc::dist
