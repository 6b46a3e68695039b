// The OWCTY elimination fixpoint (docs/engine.md §10), written once for
// one process (engine/owcty.cpp: shared atomics over the local graph) and
// for the ranks (dist/owcty.cpp: mailbox supersteps): its flags, its
// passes (the start, the eliminations, the reachability passes from each
// acceptance set), its rounds and its termination test. What survives is
// a set Z of states, empty iff the subgraph H has a fair SCC; the claim
// and its proof are in docs/engine.md §10.
//
// A walk (the template parameter) says how the passes traverse edges. It
// owns the per-state cells (OwctyCells<concurrent>) and provides, with
// every count in it a total over all ranks:
//   cells()                    the flags and in-degree counters;
//   sweep(body)                body(s) -> int64_t for every state, the sum;
//   narrow(survivors)          before a pass over Z: it may walk a list of
//                              Z's states from there on instead of all;
//   propagate(seed, process, apply)
//                              a work list (flag kPending), each state on
//                              it processed once: seed(s, push, route) for
//                              every state of the domain, process(v, route)
//                              for every state on the list; route(t) takes
//                              an edge target t (a global id), whose owner
//                              runs apply(t) (t: its local id), putting t
//                              on the list when it returns true; push(s)
//                              puts s (local, not pending) on it directly.
//                              Returns how many states went on the list;
//   propagate_from_initial(admit, process, apply)
//                              the same from state 0 alone (put on the
//                              list if admit(its local id)), no seeds.
// Every pass below computes a set that does not depend on the order of the
// work (the states reachable from the seeds; what is left when states
// without predecessors are removed until none is), so every walk, at any
// thread or rank count, leaves the same Z.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/analysis.hpp"  // Fairness
#include "engine/subgraph.hpp"

namespace ddsmc::engine {

// Per-state flags. kInSubgraph and kSurvives are the result (owcty.hpp);
// the others are scratch.
inline constexpr uint8_t kInSubgraph = 1;  // keep_state(s)
inline constexpr uint8_t kSurvives = 2;    // s is in Z
// Reached by the current reachability pass, when it equals the pass's
// polarity (which flips every pass, so that nothing has to clear it: after
// a pass every survivor has the new value).
inline constexpr uint8_t kReached = 4;
// s has an edge of a kind H keeps (found when its edges were first walked):
// without it, no pass looks at its edges.
inline constexpr uint8_t kHasEdges = 8;
inline constexpr uint8_t kPending = 16;  // on the work list of the current propagation

// A byte of flags and a 32-bit in-degree counter per state (5 bytes per
// state). With `Concurrent`, read and written through atomic_ref (relaxed:
// a pass reads the flags of other workers' states while they write them,
// and the ends of the parallel loops order one pass after the next).
template <bool Concurrent>
class OwctyCells {
 public:
  explicit OwctyCells(StateId n) : flags_(n, 0), indeg_(n, 0) {}

  uint8_t flags(StateId s) const {
    if constexpr (Concurrent) return std::atomic_ref<const uint8_t>(flags_[s]).load(std::memory_order_relaxed);
    else return flags_[s];
  }
  void store_flags(StateId s, uint8_t f) {
    if constexpr (Concurrent) std::atomic_ref<uint8_t>(flags_[s]).store(f, std::memory_order_relaxed);
    else flags_[s] = f;
  }
  // Sets bits; returns those of them that were not set before.
  uint8_t set_flags(StateId s, uint8_t bits) {
    uint8_t old;
    if constexpr (Concurrent) old = std::atomic_ref<uint8_t>(flags_[s]).fetch_or(bits, std::memory_order_relaxed);
    else old = std::exchange(flags_[s], uint8_t(flags_[s] | bits));
    return bits & ~old;
  }
  // Clears bits; returns those of them that were set before.
  uint8_t clear_flags(StateId s, uint8_t bits) {
    uint8_t old;
    if constexpr (Concurrent) old = std::atomic_ref<uint8_t>(flags_[s]).fetch_and(uint8_t(~bits), std::memory_order_relaxed);
    else old = std::exchange(flags_[s], uint8_t(flags_[s] & ~bits));
    return bits & old;
  }

  void count_edge_into(StateId t) {
    if (change(t, +1) == 0xffffffffu) throw std::length_error("owcty: a state with 2^32 incoming edges");
  }
  // True when the count drops to zero.
  bool uncount_edge_into(StateId t) {
    const uint32_t old = change(t, -1);
    if (old == 0) throw std::logic_error("owcty: an in-degree below zero");
    return old == 1;
  }
  uint32_t indeg(StateId s) const {
    if constexpr (Concurrent) return std::atomic_ref<const uint32_t>(indeg_[s]).load(std::memory_order_relaxed);
    else return indeg_[s];
  }

  std::vector<uint8_t> release_flags() {
    indeg_ = {};
    return std::move(flags_);
  }

 private:
  // Adds d; returns the old value.
  uint32_t change(StateId t, int d) {
    if constexpr (Concurrent)
      return d > 0 ? std::atomic_ref<uint32_t>(indeg_[t]).fetch_add(1, std::memory_order_relaxed)
                   : std::atomic_ref<uint32_t>(indeg_[t]).fetch_sub(1, std::memory_order_relaxed);
    else return std::exchange(indeg_[t], indeg_[t] + static_cast<uint32_t>(d));
  }
  std::vector<uint8_t> flags_;
  std::vector<uint32_t> indeg_;
};

// One acceptance set, over the current Z: for an arc, the states with its
// channel empty and the targets of H's edges serving it; for `unstable`,
// the targets of H's non-stable edges (edges from states of Z). Under
// network symmetry (`orbit_of`), `arc` names an orbit of arcs, and the set
// is the union of its arcs' (an edge's served arc read from its arc field).
struct Acceptance {
  bool unstable = false;
  uint32_t arc = 0;
  const std::vector<uint32_t>* orbit_of = nullptr;
  bool seeds_state(const StateGraph& g, StateId s) const {
    if (unstable) return false;
    if (!orbit_of) return g.channel_empty(s, arc);
    for (uint32_t a = 0; a < g.num_arcs(); ++a)
      if ((*orbit_of)[a] == arc && g.channel_empty(s, a)) return true;
    return false;
  }
  bool seeds_edge(const StateGraph& g, const Edge& e) const {
    if (unstable) return !e.stable();
    if (!orbit_of) return e.arc() == arc;
    const uint32_t served = served_arc(e.arc(), g.num_arcs());
    return served != kIdleArc && (*orbit_of)[served] == arc;
  }
};

// The sets in the order the rounds take them: the non-stable one first
// (always-*: the most selective), then one per arc (per orbit of arcs
// under network symmetry) under channel fairness.
inline std::vector<Acceptance> acceptance_sets(const StateGraph& g, const Subgraph& h, Fairness f) {
  std::vector<Acceptance> sets;
  if (h.need_unstable) sets.push_back({true, 0, nullptr});
  if (f != Fairness::Channel) return sets;
  for (uint32_t a = 0; a < g.num_arcs(); ++a)
    if (!h.arc_orbit) sets.push_back({false, a, nullptr});
    else if ((*h.arc_orbit)[a] == a) sets.push_back({false, a, h.arc_orbit});  // (an orbit is named by its least arc)
  return sets;
}

// What the fixpoint leaves besides the walk's flags.
struct OwctyCounts {
  uint64_t survivors = 0;  // |Z|
  uint64_t initial = 0;    // |Z| at the start: the kept (and, for always-*, reachable) states
  uint32_t rounds = 0;     // rounds over the acceptance sets (0 when there are none)
};

template <class Walk>
class OwctyFixpoint {
 public:
  // `g`: the graph (in dist/, this rank's shard: states by local id, edges
  // to global ids).
  OwctyFixpoint(const StateGraph& g, const Subgraph& h, Fairness f, Walk& walk)
      : g_(g), h_(h), f_(f), walk_(walk), cells_(walk.cells()) {}

  OwctyCounts run() {
    start();
    counts_.initial = counts_.survivors;
    walk_.narrow(counts_.survivors);
    eliminate([&](StateId s) { return cells_.indeg(s) == 0; });
    // The fixpoint: as many passes in a row as there are sets change nothing.
    const std::vector<Acceptance> sets = acceptance_sets(g_, h_, f_);
    size_t quiet = 0;
    for (size_t i = 0; counts_.survivors > 0 && quiet < sets.size(); i = (i + 1) % sets.size()) {
      if (i == 0) ++counts_.rounds;
      quiet = keep_reachable_from(sets[i]) ? 0 : quiet + 1;
    }
    return counts_;
  }

 private:
  bool survives(StateId s) const { return cells_.flags(s) & kSurvives; }
  // body(e) for every edge of s of a kind H keeps (none without kHasEdges).
  template <class Body>
  void kept_edges(StateId s, Body&& body) const {
    if (!(cells_.flags(s) & kHasEdges)) return;
    for (const Edge& e : g_.edges(s))
      if (h_.kind_kept(e)) body(e);
  }
  // Routes every kept edge of s, the first time s's edges are walked,
  // noting whether it has any.
  template <class Route>
  void route_first_time(StateId s, Route& route) const {
    bool any = false;
    for (const Edge& e : g_.edges(s))
      if (h_.kind_kept(e)) {
        any = true;
        route(e.target);
      }
    if (any) cells_.set_flags(s, kHasEdges);
  }

  // Z := H's states (sometimes-*) or those reachable from state 0 inside H
  // (always-*); each state's in-degree: its kept edges from states of Z.
  void start() {
    counts_.survivors = static_cast<uint64_t>(walk_.sweep([&](StateId s) -> int64_t {
      const bool keep = h_.keep_state(s);
      const bool in_z = keep && h_.roots_everywhere;
      cells_.store_flags(s, (keep ? kInSubgraph : 0) | (in_z ? kSurvives : 0));
      return in_z;
    }));
    if (h_.roots_everywhere) {
      walk_.propagate(
          [&](StateId s, auto&, auto& route) {
            if (survives(s)) route_first_time(s, route);
          },
          [](StateId, auto&) {},
          [&](StateId t) {
            if (survives(t)) cells_.count_edge_into(t);
            return false;
          });
      return;
    }
    // From state 0 through H, each kept edge counted as it is crossed.
    counts_.survivors = walk_.propagate_from_initial(
        [&](StateId s) { return (cells_.flags(s) & kInSubgraph) && cells_.set_flags(s, kSurvives); },
        [&](StateId v, auto& route) { route_first_time(v, route); },
        [&](StateId t) {
          if (!(cells_.flags(t) & kInSubgraph)) return false;
          cells_.count_edge_into(t);
          return !survives(t) && cells_.set_flags(t, kSurvives) != 0;
        });
  }

  // Elimination: removes the states of Z with no predecessor in Z,
  // iteratively, starting with those of Z for which seed(s) holds. A
  // removed state's edges into Z are uncounted, and the states left with
  // none are removed next. Whoever clears a state's kSurvives puts it on
  // the work list: each removed state once.
  template <class Seed>
  void eliminate(Seed&& seed) {
    counts_.survivors -= walk_.propagate(
        [&](StateId s, auto& push, auto&) {
          if (survives(s) && seed(s) && cells_.clear_flags(s, kSurvives)) push(s);
        },
        [&](StateId v, auto& route) { kept_edges(v, [&](const Edge& e) { route(e.target); }); },
        [&](StateId t) {
          // (a removed state's counter is dead: not touched again)
          return survives(t) && cells_.uncount_edge_into(t) && cells_.clear_flags(t, kSurvives) != 0;
        });
  }

  bool reached(StateId s) const { return ((cells_.flags(s) & kReached) != 0) == polarity_; }
  // Marks a state of Z reached; true if it was not.
  bool reach(StateId t) {
    if (!survives(t) || reached(t)) return false;
    return polarity_ ? cells_.set_flags(t, kReached) != 0 : cells_.clear_flags(t, kReached) != 0;
  }

  // Z := the states of Z reachable inside Z from the set's seeds, then
  // elimination. True if Z changed.
  bool keep_reachable_from(const Acceptance& a) {
    walk_.narrow(counts_.survivors);
    polarity_ = !polarity_;
    const uint64_t reached_states = walk_.propagate(
        [&](StateId s, auto& push, auto& route) {
          if (!survives(s)) return;
          if (a.seeds_state(g_, s) && reach(s)) push(s);
          kept_edges(s, [&](const Edge& e) {
            if (a.seeds_edge(g_, e)) route(e.target);
          });
        },
        [&](StateId v, auto& route) { kept_edges(v, [&](const Edge& e) { route(e.target); }); },
        [&](StateId t) { return reach(t); });
    if (reached_states == counts_.survivors) return false;
    eliminate([&](StateId s) { return !reached(s); });
    return true;
  }

  const StateGraph& g_;
  const Subgraph& h_;
  const Fairness f_;
  Walk& walk_;
  decltype(std::declval<Walk&>().cells()) cells_;
  bool polarity_ = false;
  OwctyCounts counts_;
};

}  // namespace ddsmc::engine
