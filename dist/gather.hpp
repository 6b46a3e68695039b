// The end of a distributed exploration (dist/explore.cpp): rank 0 receives
// every rank's states (labels and edges) in id order, a chunk of ids at a
// time, and builds the whole StateGraph the single-process analysis reads,
// without the states' encodings: those stay with their owners (the
// traces fetch the few they need, app/ranks.hpp), and the gathered graph's
// roots are unset. Every rank learns the per-rank state counts.
// Collective over comm, with no record of the exchange in transit.
#pragma once

#include <mpi.h>

#include <vector>

#include "engine/explore.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::dist {

// `local` holds this rank's states (local ids ascending with their global
// ids `gids`), with edges whose targets are global ids; `states` is the
// number of states over all ranks. On rank 0, res.graph receives the
// whole graph; res.rank_states and res.memory are set on every rank.
void gather_graph(const engine::StateGraph& local, const std::vector<engine::StateId>& gids, engine::StateId states,
                  MPI_Comm comm, engine::ExploreResult& res);

}  // namespace ddsmc::dist
