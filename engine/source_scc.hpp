// A source SCC of H[Z] (docs/engine.md §10), split off around the least
// state turn by turn, written once for one process (engine/fair_scc.cpp)
// and for the ranks (dist/source_scc.cpp), which differ only in their
// *walk*: how a closure traverses edges and how a value is combined over
// the ranks. Every choice depends on global ids only, so both find the
// same SCC. Internal to the analysis.
//
// The search: C := Z; then repeatedly p := the least state of C (global
// id), B := the states of C that reach p inside C, F := the states of B
// reachable from p inside B (p's SCC in H[C]). If F = B, F is the answer;
// otherwise C := B \ F and again. Invariant: C is closed under predecessors
// inside Z (Z's predecessors of a state of C lie in C), so a source SCC of
// H[C] is one of H[Z]. It holds for Z; B is closed so inside C; and no
// edge leads from F into B \ F (its target would reach p and be reached
// from it, so lie in F), so B \ F is closed too. F = B means that nothing
// of C outside F reaches F: a source SCC. Each turn removes p from C, so
// the search ends; p being the least (earliest explored) state, usually in
// the first turn.
//
// A walk provides, over its states by local id (ascending with the global
// ids):
//   StateId gid(StateId local);  std::optional<StateId> local_of(StateId gid);
//   void split(std::optional<StateId> p);
//     marks kInB on the states of C that reach p inside C (p included)
//     and kInF on those of them that p reaches (p's SCC in H[C]), along
//     H's edges; collective: p is given by its owner, nullopt elsewhere.
//     (Over the ranks: a backward closure through reversed edges, then a
//     forward one; in one process: one Tarjan, which needs no reversed
//     edges.)
//   StateId min_over_all(StateId);  bool any_over_all(bool);
//   template <class Work> void local(Work&&): runs a local loop (over the
//     ranks: and agrees on how it stopped);
//   Cancellation& cancel();
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/edge_store.hpp"

namespace ddsmc::engine {

// The search's bits in the per-state flags (Z itself being kInC at the start).
inline constexpr uint8_t kInC = 1, kInB = 2, kInF = 4;

// On return, kInF marks the states of a source SCC of H[Z] (`flags`: per
// local state, kInC on Z's states and nothing else on entry).
template <class Walk>
void find_source_scc(Walk& w, std::vector<uint8_t>& flags) {
  for (;;) {
    StateId least = kNoState;
    w.local([&] {
      for (StateId s = 0; s < flags.size(); ++s)
        if (flags[s] & kInC) {
          least = w.gid(s);
          break;
        }
    });
    const StateId p = w.min_over_all(least);
    if (p == kNoState) throw std::logic_error("analysis: the search for a source SCC ran out of states");
    w.split(w.local_of(p));
    bool rest = false;
    w.local([&] {
      for (StateId s = 0; s < flags.size() && !rest; ++s) {
        if ((s & 4095) == 0) w.cancel().poll();
        rest = (flags[s] & kInB) && !(flags[s] & kInF);
      }
    });
    if (!w.any_over_all(rest)) return;
    w.local([&] {
      for (StateId s = 0; s < flags.size(); ++s) {
        if ((s & 4095) == 0) w.cancel().poll();
        flags[s] = (flags[s] & kInB) && !(flags[s] & kInF) ? kInC : 0;
      }
    });
  }
}

}  // namespace ddsmc::engine
