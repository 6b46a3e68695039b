// The partition of the states among the ranks (docs/dist.md): a state
// belongs to the owner, among `ranks`, of its placement key
// (engine::placement_key: a sum over the parts of its canonical encoding,
// so a step's successor is placed from the parts it changed alone); this
// process is rank `me`.
#pragma once

#include <cstdint>

#include "engine/expander.hpp"
#include "hashing/fingerprint.hpp"

namespace ddsmc::dist {

struct Partition {
  uint32_t ranks = 1, me = 0;
  uint32_t owner(uint64_t key) const { return hashing::owner_of_key(key, ranks); }
  uint32_t owner(const hashing::SegmentedEncoding& e) const { return owner(engine::placement_key(e)); }
  bool mine(uint64_t key) const { return owner(key) == me; }
};

}  // namespace ddsmc::dist
