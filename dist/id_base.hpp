// The test-only id base of the distributed engine (docs/dist.md, "State
// ids"; issue 21): with a base B, dist::explore numbers the states from B
// instead of 0, so every global id inside the MPI engine is the ordinary id
// + B: the shards' gids, the records on the wire, the analysis (OWCTY, the
// source SCC, the cycle targets, the stem and its goals), the fetch of
// encodings and the bound's state. Tests set B well above 2^32 to run the
// distributed differential tests on ids that do not fit 32 bits. Counts
// (states, transitions) never include B.
//
// B is removed at exactly two boundaries, so that nothing outside the MPI
// engine ever sees it and every output equals the one without a base:
//   - dist::MpiBackend (the app's view: the result's ids, verdict lassos,
//     bound paths, the gids it checkpoints; the ids the app passes in get B
//     added);
//   - checkpoints: dist::explore hands its checkpoints unbased gids and
//     figures and adds B to a restored shard's gids, so a checkpoint file is
//     the same with any base and may be resumed with another one.
// The command line sets B with the environment variable DDSMC_TEST_ID_BASE
// (decimal), which the MPI backend alone reads (the single process ignores
// it). B = 0 changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/edge_store.hpp"

namespace ddsmc::dist {

inline constexpr const char* kIdBaseVariable = "DDSMC_TEST_ID_BASE";

// `base` if every gid of `ranks` ranks (each holding at most
// engine::kMaxLocalStates states) stays below 2^63 (bit 63 marks a
// provisional target, engine/slice.hpp); else std::invalid_argument.
engine::StateId checked_id_base(uint64_t base, int ranks);

// The base DDSMC_TEST_ID_BASE gives (0 when unset), checked for `ranks`;
// std::invalid_argument when it is not a decimal number or leaves no room.
engine::StateId id_base_from_environment(int ranks);

// The parse of a decimal base (no sign, no spaces, at most 2^64 - 1), or nullopt.
std::optional<uint64_t> parse_id_base(const std::string& text);

}  // namespace ddsmc::dist
