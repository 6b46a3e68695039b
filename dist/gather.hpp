// The whole state graph of a distributed exploration, assembled on rank 0
// from the shards (dist/shard.hpp): what the analysis under network
// symmetry reads (docs/dist.md, "Network symmetry"). The quotient's
// fairness is no per-arc acceptance condition, so its exact SCC check
// (engine/quotient.hpp) runs in one process, on the quotient, which is up
// to the group's order smaller than the concrete graph.
//
// Rank 0 numbers every state by its ordinary global id (the single-process
// id: the distributed exploration numbers as the sequential BFS does) and
// builds the graph in id order: it takes every rank's global ids (8 bytes
// per state, to name the edges' targets, whose handles say only owner and
// local id, dist/handles.hpp), then asks each rank for its states in
// chunks of a few thousand as it needs them (a rank's states ascend with
// their ids), interns each encoding into the new graph's own store and
// writes each row with its targets made ordinary ids. So rank 0 holds, on
// top of its shard, the new graph, 12 bytes per state and one chunk per
// rank. Expanded states must be the ids below some count (as in one
// process); anything else is std::logic_error.
#pragma once

#include <mpi.h>

#include <optional>

#include "dist/shard.hpp"
#include "engine/system.hpp"

namespace ddsmc::dist {

// Collective over comm. `base`: the global id of the initial state (the
// test-only id base, dist/id_base.hpp, or 0). Rank 0 gets the graph, the
// others nullopt.
std::optional<engine::StateGraph> gather_graph(const Shard& shard, const engine::System& system,
                                               engine::StateId base, MPI_Comm comm);

}  // namespace ddsmc::dist
