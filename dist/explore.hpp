// The distributed breadth-first exploration (docs/dist.md): each rank owns
// the states whose placement key maps to it (dist/partition.hpp, by the
// rule opts.placement), keeps them in its own StateStore and expands them
// with its own workers; successors go to their owners as byte records.
// The ranks move through the BFS queue slice by slice together, and every
// slice is numbered exactly as the sequential BFS numbers it (the least
// discovery key, engine/slice.hpp), so states, ids, edges, cut-offs and
// hence every verdict and trace equal the single-process run's.
//
// Collective over comm: every rank calls it with the same system and
// options. The graph stays in the shards: every rank's result has an empty
// graph and the same figures over all ranks (`sharded`), and `shard`
// receives this rank's states, encodings included, and the figures only
// ranks have (Shard::figures(): states per rank, bytes sent, time by part).
//
// `id_base` (tests only, dist/id_base.hpp): the states are numbered from
// it, so the shard's gids and the result's violating state and parent are
// the ordinary ids + id_base (counts are not); the checkpoints it hands to
// opts.checkpoint and the restored shard it takes hold ordinary ids.
// std::invalid_argument (on every rank, before any collective) for a base
// that leaves no room (dist::checked_id_base).
#pragma once

#include <mpi.h>

#include <memory>

#include "dist/shard.hpp"
#include "engine/explore.hpp"

namespace ddsmc::dist {

// Where a resumed exploration stands (a checkpoint's figures over every
// rank; engine/checkpoint.hpp).
struct Resumed {
  uint64_t pruned_states = 0;
  hashing::CanonicalStats canonical;
  hashing::StateSizes sizes;
  double seconds = 0;
};

// `resumed`: continue from the states `shard` holds on entry (this rank's
// part of a checkpoint, ordinary ids) instead of from the initial state.
engine::ExploreResult explore(const engine::System& system, const engine::ExploreOptions& opts, MPI_Comm comm,
                              std::unique_ptr<Shard>& shard, const Resumed* resumed = nullptr,
                              engine::StateId id_base = 0);

}  // namespace ddsmc::dist
