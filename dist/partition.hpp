// The partition of the states among the ranks (docs/dist.md "Ownership"):
// a state belongs to the owner, among `ranks`, of its placement key
// (engine::placement_key over the parts `in_key` marks, by the check's
// engine::PlacementRule: a sum over those parts of its canonical encoding,
// so a step's successor is placed from the parts it changed alone); this
// process is rank `me`.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/placement.hpp"
#include "hashing/fingerprint.hpp"

namespace ddsmc::dist {

struct Partition {
  uint32_t ranks = 1, me = 0;
  std::vector<uint8_t> in_key;  // per part of the layout: 1 if it counts in the key
  uint32_t owner(uint64_t key) const { return hashing::owner_of_key(key, ranks); }
  uint32_t owner(const hashing::SegmentedEncoding& e) const { return owner(engine::placement_key(e, in_key)); }
  bool mine(uint64_t key) const { return owner(key) == me; }
};

}  // namespace ddsmc::dist
