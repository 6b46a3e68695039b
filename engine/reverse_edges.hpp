// The reversed edges of H[Z] into the states one process or rank holds
// (engine/source_scc.hpp's backward closures), as one array of sources per
// target (compressed rows): 8 bytes per held state and sizeof(Source) per
// edge (a local id, 4 bytes, in one process; a handle, 8, over the ranks).
// Built in two passes over the same edges: count every edge's target, then
// add every edge; a target's sources come in no particular order.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/edge_store.hpp"

namespace ddsmc::engine {

template <class Source>
class ReverseEdges {
 public:
  explicit ReverseEdges(size_t num_states) : offsets_(num_states + 1, 0) {}

  // Pass one, for every edge: its target.
  void count(StateId target) { ++offsets_[target]; }
  // Between the passes.
  void end_counting() {
    uint64_t sum = 0;
    for (size_t t = 0; t + 1 < offsets_.size(); ++t) offsets_[t] = sum += offsets_[t];
    offsets_.back() = sum;
    sources_.resize(sum);
  }
  // Pass two, for every edge counted: its target and source.
  void add(StateId target, Source source) { sources_[--offsets_[target]] = source; }

  template <class F>
  void for_each_source(StateId target, F&& f) const {
    for (uint64_t i = offsets_[target]; i < offsets_[target + 1]; ++i) f(sources_[i]);
  }

 private:
  std::vector<uint64_t> offsets_;  // after pass two: where each target's sources start
  std::vector<Source> sources_;
};

}  // namespace ddsmc::engine
