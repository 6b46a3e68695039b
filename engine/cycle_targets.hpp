// What a witness cycle through a fair SCC must visit (docs/engine.md §10),
// defined by keys so that the SCC's states and internal edges may be seen
// in any order, in one process or spread over the ranks, and give the same
// targets. Internal to the analysis (engine/lasso, dist/source_scc).
//
// Every internal kept edge s -> t of the SCC has the key (s, t, label), and
// every state s of it the key (s, ∞, ∞), ids being the global ones: keys
// follow the states in ascending id and, inside a state, its row order
// (target, label), then the state itself. The targets are
//   - the least internal edge (an SCC needs one);
//   - for always-* (need_unstable) the least non-stable internal edge;
//   - under channel fairness, for every arc, the least key among the edges
//     serving it and the states where its channel is empty;
// the SCC qualifies when all of them exist. The cycle visits the target
// states ascending, then the target edges ascending (each once).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/analysis.hpp"  // Fairness
#include "engine/subgraph.hpp"  // CycleTargets

namespace ddsmc::engine {

class TargetCollector {
 public:
  TargetCollector(uint32_t num_arcs, Fairness f, bool need_unstable);

  // An internal edge of the SCC: `source` -> e.target (global ids), of a
  // kind H keeps.
  void edge(StateId source, const Edge& e);
  // A state of the SCC; `channel_empty(arc)` says which channels are empty in it.
  template <class Empty>
  void state(StateId s, Empty&& channel_empty) {
    const Key k{s, kNoState, kNoLabel};
    for (uint32_t a = 0; a < cover_.size(); ++a)
      if (k < cover_[a] && channel_empty(a)) cover_[a] = k;
  }
  // Whether every target has been found, when the states and edges are
  // seen in key order (then nothing later changes them).
  bool settled() const;

  // The least of both, target by target (the ranks' collectors).
  void merge(const TargetCollector& other);
  // As 64-bit words and back (for an MPI gather): 3 words per key.
  std::vector<uint64_t> words() const;
  void from_words(const uint64_t* w);
  size_t num_words() const { return 3 * (2 + cover_.size()); }

  // The targets, or nullopt when the SCC does not qualify.
  std::optional<CycleTargets> targets() const;

 private:
  static constexpr uint32_t kNoLabel = 0xffffffffu;
  struct Key {
    StateId source = kNoState, target = kNoState;
    uint32_t label = kNoLabel;
    friend auto operator<=>(const Key&, const Key&) = default;
    bool none() const { return source == kNoState; }
    bool is_edge() const { return target != kNoState; }
  };
  bool need_unstable_;
  Key first_, unstable_;
  std::vector<Key> cover_;  // per arc (none when there is no fairness condition)
};

}  // namespace ddsmc::engine
