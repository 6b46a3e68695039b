// The OWCTY fixpoint of engine/owcty_fixpoint.hpp over the ranks (docs/
// dist.md, "The distributed analysis"), with the walk that sends edges
// through the mailbox: each rank keeps the flags and in-degree counters of
// the states it owns and walks their edges; an edge into another rank's
// state becomes a message to it (count, uncount, reach or join, one kind
// per pass), exchanged in supersteps (dist/mailbox.hpp). The passes, rounds
// and termination test are the single-process ones (the same template),
// and each pass computes a set that does not depend on the order of the
// work, so the set Z it leaves is the single-process one. With one worker
// per rank (the caller's task arena) the walk is sequential over plain
// cells; with more, each superstep's local part runs the one process's
// parallel loops (engine/owcty_loops.hpp) over atomic cells.
#pragma once

#include <mpi.h>

#include "dist/shard.hpp"
#include "engine/owcty.hpp"

namespace ddsmc::dist {

// Collective over comm. `shard`: this rank's states by local id (edges to
// handles, dist/handles.hpp); h.keep_state takes local ids. The result's
// flags are per local state, its counts over all ranks, its passes the
// supersteps. Throws Cancelled on every rank when any rank stops.
engine::OwctyResult owcty(const Shard& shard, const engine::Subgraph& h, engine::Fairness f,
                          engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
