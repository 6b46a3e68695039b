// The convergence analysis of engine/analysis.hpp over the ranks (docs/
// dist.md, "The distributed analysis"), on the shards the distributed
// exploration left, with no rank holding the whole graph. The properties'
// subgraphs and verdicts are engine/properties.hpp's table (the one
// engine::analyze follows); per subgraph H:
//   - the OWCTY fixpoint Z over the ranks (dist/owcty.hpp: the
//     single-process driver, engine/owcty_fixpoint.hpp, with a mailbox walk);
//   - when Z is not empty, the lasso through a source SCC of H[Z] over the
//     ranks (dist/source_scc.hpp), with no gather of Z.
// Each step computes what the single-process analyze() computes, so the
// verdicts and lassos are its own. At one rank it is engine::analyze
// itself, on the shard (whose handles are its local ids), on the caller's
// task arena.
#pragma once

#include <mpi.h>

#include <vector>

#include "dist/shard.hpp"
#include "engine/analysis.hpp"

namespace ddsmc::dist {

// Collective over comm. Every rank gets `holds`, `node` and the stats;
// rank 0 also the lasso (global ids). Throws Cancelled on every rank when
// any rank stops.
engine::Verdict analyze(const Shard& shard, engine::Property p, engine::Fairness f, bool complete,
                        engine::Cancellation& cancel, MPI_Comm comm);

// Collective over comm: engine::bfs_tree_path over the ranks (the path
// from state 0 to `target` along the BFS tree; `target_parent` as there),
// on every rank.
std::vector<engine::StateId> bfs_tree_path(const Shard& shard, engine::StateId target, engine::StateId target_parent,
                                           engine::Cancellation& cancel, MPI_Comm comm);

}  // namespace ddsmc::dist
