// The state and channel bounds of docs/reference.md §2.7 and §3.8, checked on concrete states.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/d2c/compile.hpp"
#include "engine/system.hpp"

namespace ddsmc::engine {

// The first bound the state exceeds, if any: nodes in order, then arcs.
std::optional<BoundViolation> check_bounds(const hashing::GlobalState& s, const CompiledModel& cm);
// The same checks for one node's DB and one channel (a step changes only
// the processing node's DB and the channels it sends on).
std::optional<BoundViolation> check_db_bound(const std::vector<hashing::Word>& db, uint32_t node,
                                             const CompiledModel& cm, std::vector<hashing::Word>& scratch);
std::optional<BoundViolation> check_channel_bound(const std::vector<hashing::Word>& channel, uint32_t arc,
                                                  const CompiledModel& cm);

}  // namespace ddsmc::engine
