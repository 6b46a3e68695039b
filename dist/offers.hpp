// Offers: the successors a rank sends to their owners (dist/explore.cpp),
// as *units*, one record per expanded source and destination rank: the
// source (its local and global ids) and, for a plain model, its whole
// segmented encoding (the *base*), then each successor of the source owned
// by that rank as a *delta*: its ordinal, whether it is over a bound, its
// labels and the parts in which it differs from the base (a successor not
// given as a patch of its source, e.g. with fresh constants, lists every
// part). The owner interns a delta with TreeStore::intern_overlay against
// the base, whose subtrees it interns once per unit (on demand, cached;
// BaseSubtrees keeps the ids of those the next unit's base shares): a
// successor costs its changed leaves and their paths to the root, and
// the bytes sent per successor are those of its changed parts.
//
// A unit is built while its source is expanded (one worker expands one
// source), in the worker's bundle for the destination, and closed when the
// expansion ends, normally or by an exception.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dist/wire.hpp"
#include "engine/edge_store.hpp"
#include "engine/expander.hpp"
#include "hashing/tree_store.hpp"

namespace ddsmc::dist {

class OfferWriter {
 public:
  OfferWriter(int ranks, uint8_t kind) : open_(static_cast<size_t>(ranks), kClosed), kind_(kind) {}
  // Appends successor `c` of the source being expanded to its unit in
  // boxes[owner] (its owner's), opening the unit first.
  void add(std::vector<std::vector<uint8_t>>& boxes, uint32_t owner, uint32_t source_local, engine::StateId source,
           uint32_t ordinal, const engine::Candidate& c, std::span<const uint64_t> labels);
  // Closes the units of the source (writes their lengths): call when its
  // expansion ends, however it ends.
  void close(std::vector<std::vector<uint8_t>>& boxes);

 private:
  static constexpr size_t kClosed = ~size_t{0};
  std::vector<size_t> open_;     // per destination: where its open unit's length goes
  std::vector<uint32_t> opened_;  // destinations with an open unit
  uint8_t kind_;
};

// Reads a unit: the header at construction, then one delta per next().
class UnitReader {
 public:
  // Scratch a worker keeps between units.
  struct Scratch {
    std::vector<uint32_t> begin;  // the base's part offsets
    std::vector<uint64_t> labels;
    std::vector<hashing::TreeStore::Part> changed;
  };
  UnitReader(std::span<const uint8_t> record, uint32_t parts, uint32_t label_words, Scratch& scratch);
  uint32_t source_local = 0;
  engine::StateId source = 0;  // global id
  std::string_view base;  // the base's bytes (empty without a base)
  const uint32_t* base_begin() const { return has_base_ ? scratch_.begin.data() : nullptr; }
  // The next delta, into the fields below; false at the end of the unit.
  bool next();
  uint32_t ordinal = 0;
  bool violating = false;
  std::span<const uint64_t> labels() const { return scratch_.labels; }
  std::span<const hashing::TreeStore::Part> changed() const { return scratch_.changed; }

 private:
  Reader in_;
  uint32_t parts_;
  bool has_base_ = false;
  Scratch& scratch_;
};

// A worker's cache for TreeStore::intern_overlay kept from one unit to the
// next: the ids of the subtrees of the last unit's base, kept where the
// new base has the same bytes in every part below (an exact test: a
// subtree's id is a function of those bytes; ids never move, even when
// the store grows). A unit now holds about one successor, so without it
// each offer would intern its base's whole tree; consecutive units share
// many parts (sources of one slice, parts a step rarely changes).
class BaseSubtrees {
 public:
  // The cache for a unit of base `base` (its part offsets `begin`; null:
  // a unit without base), to pass to intern_overlay: every id of the last
  // base's subtrees that the new one shares, kUnknown elsewhere.
  uint32_t* start(const hashing::TreeStore& tree, std::string_view base, const uint32_t* begin);

 private:
  std::string last_;                // the last base's bytes
  std::vector<uint32_t> last_begin_;  // its part offsets (empty: none)
  std::vector<uint32_t> ids_;       // per tree position (tree_size())
  std::vector<uint8_t> same_;       // scratch: per position, the same bytes below
};

}  // namespace ddsmc::dist
