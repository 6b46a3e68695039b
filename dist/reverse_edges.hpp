// The reversed edges of H[Z] into the states a rank owns, for the backward
// closures of dist/source_scc.cpp (one process needs none: its split is a
// Tarjan, engine/fair_scc.cpp): one array of source handles per target
// (compressed rows), 8 bytes per owned state and 8 per edge into an owned
// state of Z. Built in two passes over the same edges: count every edge's
// target, then add every edge; a target's sources come in no particular
// order.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/edge_store.hpp"

namespace ddsmc::dist {

class ReverseEdges {
 public:
  explicit ReverseEdges(size_t num_states) : offsets_(num_states + 1, 0) {}

  // Pass one, for every edge: its target (local id).
  void count(engine::StateId target) { ++offsets_[target]; }
  // Between the passes.
  void end_counting() {
    uint64_t sum = 0;
    for (size_t t = 0; t + 1 < offsets_.size(); ++t) offsets_[t] = sum += offsets_[t];
    offsets_.back() = sum;
    sources_.resize(sum);
  }
  // Pass two, for every edge counted: its target (local id) and source (handle).
  void add(engine::StateId target, engine::StateId source) { sources_[--offsets_[target]] = source; }

  template <class F>
  void for_each_source(engine::StateId target, F&& f) const {
    for (uint64_t i = offsets_[target]; i < offsets_[target + 1]; ++i) f(sources_[i]);
  }

 private:
  std::vector<uint64_t> offsets_;  // after pass two: where each target's sources start
  std::vector<engine::StateId> sources_;
};

}  // namespace ddsmc::dist
