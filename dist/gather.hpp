// The whole state graph of a distributed exploration, assembled on rank 0
// from the shards (dist/shard.hpp): what the analysis under network
// symmetry reads (docs/dist.md, "Network symmetry"). The quotient's
// fairness is no per-arc acceptance condition, so its exact SCC check
// (engine/quotient.hpp) runs in one process, on the quotient, which is up
// to the group's order smaller than the concrete graph.
//
// Each rank sends its states (global id, labels, encoding) and its rows
// (targets as handles, dist/handles.hpp) to rank 0, which numbers every
// state by its ordinary global id (the single-process id: the distributed
// exploration numbers as the sequential BFS does), interns its encoding
// into the new graph's own store, and writes the rows in id order with
// their targets made ordinary ids. Expanded states must be the ids below
// some count (as in one process); anything else is std::logic_error.
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
