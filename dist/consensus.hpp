// Do all ranks run the same check? Every rank loads the model and parses the
// command line itself; a rank started with other arguments, another model
// file or another working directory would silently explore a different
// system and the union of the ranks' results would mean nothing. Before
// exploring, the ranks compare a 128-bit hash of a byte string describing
// their run (docs/dist.md, "Consensus on the check").
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

namespace ddsmc::dist {

// Collective over comm: every rank of comm must call it. `identity` is a
// byte string describing the run on this rank (model file bytes, network,
// bounds, flags); an empty optional means this rank failed to set up (it
// could not load the model, say). Returns std::nullopt when every rank has
// an identity and all are equal; otherwise a one-line error message, the same
// on every rank, naming the lowest rank at fault:
//   "rank 2 could not load the model"                  (failures come first)
//   "rank 1 runs a different check than rank 0 (model, network, bounds or flags differ)"
std::optional<std::string> disagreement(MPI_Comm comm, const std::optional<std::string>& identity);

}  // namespace ddsmc::dist
