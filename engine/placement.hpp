// Where a state lives under MPI: its placement key, a sum over some parts
// of its canonical segmented encoding (node DBs first, then channels), and
// the rule that says which parts count (docs/dist.md "Ownership").
//
// A step changes few parts, so a key made of the parts steps rarely change
// keeps most successors on their source's rank; it must still hold enough
// parts for the states to spread evenly over the ranks. The rule keeps
// every node's DB and every K-th channel (`nodes+arcs/K`): `all` (K = 1,
// every part) and `nodes` (no channel) are its two ends. The key is a pure
// function of the canonical encoding and the rule, so every rank, and a
// resumed run with the same rule, places a state alike; the verdicts,
// numbering and traces do not depend on it (docs/dist.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hashing/state.hpp"

namespace ddsmc::engine {

struct PlacementRule {
  uint32_t arc_stride = 3;  // channels 0, K, 2K, ... count; 0: none, 1: all
  // "all", "nodes" or "nodes+arcs/K" (K a whole number from 1 to 2^20);
  // nullopt for anything else.
  static std::optional<PlacementRule> parse(std::string_view text);
  // The rule as parse() reads it ("all" for K = 1, "nodes" for none).
  std::string text() const;
  friend bool operator==(const PlacementRule&, const PlacementRule&) = default;
};

// Per part of a layout with `nodes` node DBs and `arcs` channels (in the
// segmented encoding's order): 1 if it counts in the key.
std::vector<uint8_t> key_parts(const PlacementRule& rule, uint32_t nodes, uint32_t arcs);

// A state's placement key: the sum mod 2^64 of hashing::part_key over the
// parts of its canonical segmented encoding that `in_key` marks, which a
// step updates from the parts it changed alone. Equal encodings have equal
// keys.
uint64_t placement_key(const hashing::SegmentedEncoding& e, std::span<const uint8_t> in_key);

}  // namespace ddsmc::engine
