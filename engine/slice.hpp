// The BFS slice kernel both explorers run (docs/engine.md §9, docs/dist.md):
// one slice of the breadth-first queue, a BFS level or its first kSlice
// states when the level is wide, expanded by any number of workers at once
// and committed exactly as the sequential BFS would have found its states.
// The single process (engine/explore.cpp, engine/level.hpp) and each MPI
// rank (dist/bfs.hpp) differ in two policies only:
//
//   Router (where a successor goes), per worker:
//     Expander& expander;
//     template <class F> void successors(uint32_t root, F&& each);
//       runs the expander over the state of `root`, each(candidate) per step
//     Routed route(const Candidate& c, StateId source, uint64_t key);
//       claims c here (Slice::claim) or sends it to where it is claimed;
//       returns the step's edge target as the slice stores it (a committed
//       id, kProvisional | index, or kNoState: told by the numbering) and
//       whether the step claimed a new state here.
//   Numbering (how the new states get their ids):
//     Numbered number(Slice& slice);
//       sets ids() of the new states kept (their global ids), and returns
//       the cut-off and the indices of this process's kept states in id order
//     StateId committed(Slice& slice, const Numbered& n);
//       after they are committed (added to the graph in that order): gives
//       every step of a source before the cut its target (set_target), if
//       the router left it unset; returns the end of the local sources whose
//       edge rows are stored (the halted source or the slice's end)
//
// While the slice runs, a state first found in it is *provisional*: the
// visited set maps its root to kProvisional | index into the slice's new
// states, which record the least discovery key (source's global id << 32 |
// ordinal of the step in the source's generation) of the steps reaching
// it. Sequential BFS numbers new states in exactly that order, so ids,
// parents, edges, cut-offs and so every result are the same at every
// thread and rank count.
//
// A --max-states cut-off inside one expansion: `room` is how many new
// states the slice may add. Once one source's steps claimed room + 1 new
// states here, at least room + 1 states have discovery keys no larger than
// its last step's, so the cut-off falls at or before it: the rest of its
// steps (and its edges, which a cut-off drops) cannot matter, and its
// expansion ends there (ExpansionCut). The states kept and their keys are
// as without it; only the work and memory of a huge fan-out are bounded.
#pragma once

#include <tbb/concurrent_vector.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/expander.hpp"
#include "engine/parallel.hpp"
#include "engine/redo.hpp"
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// (The store's references are 32-bit: kProvisional, kMaxLocalStates,
// engine/state_store.hpp.) An edge's target while its slice runs: a committed state's id, or
// kProvisionalTarget | the index of a new state (told at the commit).
inline constexpr StateId kProvisionalTarget = StateId{1} << 63;
inline StateId provisional_target(uint32_t ref) { return kProvisionalTarget | (ref & ~kProvisional); }

// The most sources one slice takes: about 16 MiB of edge buffers and new
// states at 10 successors per state; a slice has 4 to 16 rounds at 2 to 8
// threads.
inline constexpr StateId kSlice = StateId{1} << 17;

// The sources of one round per process at `threads` workers (rounds let
// the store grow between them, progress show and cut-offs end a slice).
inline StateId round_sources(size_t threads) { return static_cast<StateId>(std::max<size_t>(1024, 4096 * threads)); }

// How many new states a slice may keep after `states` (--max-states; 0: no limit).
inline uint64_t slice_room(uint64_t max_states, uint64_t states) {
  return max_states ? max_states - std::min(max_states, states) : std::numeric_limits<uint64_t>::max();
}

// Whether a cut-off surely falls among `found` new states (with `violation`:
// one of them over a bound): later sources only find larger keys.
inline bool cut_certain(uint64_t found, bool violation, uint64_t room, bool stop_at_violation) {
  return found > room || (stop_at_violation && violation);
}

// A step's discovery key: its source's position in the slice (from the
// slice's first source; a slice has at most kSlice sources) and its
// ordinal among the source's steps. Keys order steps as sequential BFS
// meets them.
inline uint64_t discovery_key(StateId source_in_slice, uint32_t ordinal) { return source_in_slice << 32 | ordinal; }
inline StateId key_source(uint64_t key) { return key >> 32; }

// Lowers a state's least discovery key to `key` if that is smaller; from
// any number of threads at once.
inline void lower_discovery_key(uint64_t& least, uint64_t key) {
  std::atomic_ref<uint64_t> ref(least);
  uint64_t seen = ref.load(std::memory_order_relaxed);
  while (key < seen && !ref.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
  }
}

// A source's edges [b, e) as its row stores them: sorted by (target,
// label) without repeats, in place; returns how many remain.
template <class It>
uint32_t make_row(It b, It e) {
  std::sort(b, e, [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
  return static_cast<uint32_t>(std::unique(b, e) - b);
}

// What one worker (one slot of the arena) owns. An explorer's worker may
// derive from it, hiding mark() and rewind() to cover its own buffers.
struct SliceWorker {
  SliceWorker(const System& system, OnBound on_bound, hashing::TreeStore& store, const Cancellation& c)
      : expander(system, on_bound, store), cancel(c) {
    expander.set_cancellation(&cancel);
  }
  Expander expander;
  Cancellation cancel;      // a copy per worker: it keeps a little state of its own
  std::vector<Edge> edges;  // of the sources this worker expanded, contiguous per source
  // Where a round began, and dropping what it appended (a redone round).
  size_t mark() const { return edges.size(); }
  void rewind(size_t m) { edges.resize(m); }
};

// A router's answer for one step.
struct Routed {
  StateId target;  // the edge's target: committed id, kProvisionalTarget | index, or kNoState (told later)
  bool claimed;     // a new state claimed here
};

// Where a slice's cut-off falls (global ids).
struct SliceCut {
  uint64_t keep = 0;             // new states kept: the first ones in BFS order
  StateId halted = kNoState;     // the source a cut-off interrupts (it keeps no edges, nor do later ones)
  StateId violating = kNoState;  // the first state over a bound (on_bound=stop): kept, and it halts
  bool max_states = false;       // the cut-off is --max-states'
};

// A numbering's result.
struct Numbered {
  SliceCut cut;
  std::vector<uint32_t> kept;  // this process's kept new states, in id order
};

class Slice {
 public:
  // 32 bytes while the graph's labels fit in one word (64 nodes and arcs).
  struct NewState {
    uint32_t root = 0;  // in the store
    bool violating = false;
    uint64_t key = 0;    // least discovery key; lowered to a min with atomic_ref
    uint64_t label = 0;  // StateGraph::labels_of, if one word
    std::unique_ptr<uint64_t[]> more_labels;  // else all of them
    const uint64_t* labels() const { return more_labels ? more_labels.get() : &label; }
  };

  // The local sources [first, end) of g, expanded by `workers` (whose edge
  // buffers it empties and uses); at most `room` new states are kept.
  // `first_global`: the global id of the slice's first source (of every
  // process's: the discovery keys count sources from it).
  template <class W>
  Slice(StateGraph& g, tbb::task_arena& arena, std::vector<std::unique_ptr<W>>& workers, StateId first, StateId end,
        StateId first_global, uint64_t room)
      : graph_(g), store_(g.store()), arena_(arena), first_(first), first_global_(first_global), room_(room),
        spans_(end - first) {
    for (auto& w : workers) {
      w->edges.clear();
      buffers_.push_back(&w->edges);
    }
  }

  StateId first() const { return first_; }
  StateId first_global() const { return first_global_; }
  // The global id of the source of a discovery key.
  StateId source_of(uint64_t key) const { return first_global_ + key_source(key); }
  StateId end() const { return first_ + static_cast<StateId>(spans_.size()); }
  uint64_t room() const { return room_; }
  tbb::task_arena& arena() { return arena_; }
  // New states so far, and whether one of them is over a bound.
  size_t new_states() const { return new_.size(); }
  bool found_violation() const { return violation_.load(std::memory_order_relaxed); }
  const NewState& new_state(size_t i) const { return new_[i]; }
  // Per new state: its global id once numbered (kNoState: not kept, or not
  // known here). Sized by finish().
  std::vector<StateId>& ids() { return ids_; }

  // Expands the local sources [lo, hi) on the arena's workers, visit(source,
  // worker, slot) each (which calls expand()). A round that fills the store
  // is redone whole after grow(): the workers rewound to their marks, its
  // sources no longer expanded; the states it claimed stay and are found
  // again, so the caller must let the round end before a cut-off can fall.
  template <class W, class Visit, class Grow>
  void expand_round(std::vector<std::unique_ptr<W>>& workers, StateId lo, StateId hi, Visit&& visit, Grow&& grow);

  // Expands local source `source` (global id `global`) with `router`,
  // appending its edges to worker `worker`'s buffer; ends early once its
  // steps claimed more than room() new states here. Safe from several
  // workers at once (distinct sources). Throws hashing::TreeStoreFull (see
  // expand_round()).
  template <class Router>
  void expand(StateId source, StateId global, Router& router, uint32_t worker);

  // A step of key `key` reaches the state of root `root`, which this
  // process interns: claims it as new (its labels written by
  // labels(uint64_t* out)) or lowers its least key. From any worker.
  template <class Labels>
  StateStore::Claim claim(uint32_t root, bool violating, uint64_t key, Labels&& labels);

  // Sets the target of step `ordinal` of local source `source`.
  void set_target(StateId source, uint32_t ordinal, StateId target) {
    const Span& span = spans_[source - first_];
    (*buffers_[span.worker])[span.begin + ordinal].target = target;
  }

  struct Outcome {
    SliceCut cut;
    uint64_t transitions = 0;  // edges stored here
    uint64_t pruned = 0;       // successors pruned (on_bound=prune) by the sources whose edges are stored
  };
  // Commits the slice: the numbering's kept states in id order, then the
  // edge rows of the local sources before the cut (none from the state a
  // cut-off interrupts, nor after it), their provisional targets renumbered.
  template <class Numbering>
  Outcome finish(Numbering& numbering) {
    ids_.assign(new_.size(), kNoState);
    const Numbered n = numbering.number(*this);
    commit(n.kept);
    Outcome out;
    out.cut = n.cut;
    write_rows(numbering.committed(*this, n), out);
    return out;
  }

 private:
  struct Span {  // the edges of one source in one worker's buffer
    uint32_t worker = 0;
    size_t begin = 0, end = 0;
    uint64_t pruned = 0;  // successors the expander pruned
    bool expanded = false;
  };
  // After a round is interrupted: its sources are no longer expanded.
  void forget(StateId lo, StateId hi) {
    std::fill(spans_.begin() + (lo - first_), spans_.begin() + (hi - first_), Span{});
  }
  // Adds the new states `kept` to the graph in that order and binds them.
  void commit(const std::vector<uint32_t>& kept);
  // Sorts, deduplicates and encodes the rows of the local sources [first, last).
  void write_rows(StateId last, Outcome& out);

  StateGraph& graph_;
  StateStore& store_;
  tbb::task_arena& arena_;
  StateId first_, first_global_;
  uint64_t room_;
  std::vector<Span> spans_;  // per local source of the slice
  std::vector<std::vector<Edge>*> buffers_;  // per worker slot
  tbb::concurrent_vector<NewState> new_;
  std::vector<StateId> ids_;
  std::atomic<bool> violation_{false};
};

template <class W, class Visit, class Grow>
void Slice::expand_round(std::vector<std::unique_ptr<W>>& workers, StateId lo, StateId hi, Visit&& visit, Grow&& grow) {
  std::vector<decltype(workers[0]->mark())> marks;
  for (const auto& w : workers) marks.push_back(w->mark());
  redo_when_full(
      [&] {
        arena_.execute([&] {
          parallel_for(lo, hi, 16, [&](const tbb::blocked_range<StateId>& r) {
            const uint32_t slot = worker_slot();
            W& w = *workers[slot];
            for (StateId s = r.begin(); s < r.end(); ++s) visit(s, w, slot);
          });
        });
      },
      [&] {
        for (size_t i = 0; i < workers.size(); ++i) workers[i]->rewind(marks[i]);
        forget(lo, hi);
      },
      grow);
}

template <class Router>
void Slice::expand(StateId source, StateId global, Router& router, uint32_t worker) {
  Span& span = spans_[source - first_];
  std::vector<Edge>& edges = *buffers_[worker];
  span.worker = worker;
  span.begin = edges.size();
  const uint64_t pruned_before = router.expander.pruned();
  uint32_t ordinal = 0;
  uint64_t claimed = 0;  // new states this source's steps claimed here
  try {
    router.successors(graph_.root(source), [&](const Candidate& c) {
      const Routed r = router.route(c, source, discovery_key(global - first_global_, ordinal++));
      edges.emplace_back(r.target, c.label);
      if (r.claimed && ++claimed > room_) throw ExpansionCut{};
    });
  } catch (const ExpansionCut&) {
    // The cut-off falls within this source's steps: the rest cannot matter.
  }
  span.end = edges.size();
  span.pruned = router.expander.pruned() - pruned_before;
  span.expanded = true;
}

template <class Labels>
StateStore::Claim Slice::claim(uint32_t root, bool violating, uint64_t key, Labels&& labels) {
  auto made = [&]() -> uint32_t {
    NewState n{root, violating, key, 0, nullptr};
    if (graph_.label_words() > 1) n.more_labels = std::make_unique<uint64_t[]>(graph_.label_words());
    labels(n.more_labels ? n.more_labels.get() : &n.label);
    auto it = new_.push_back(std::move(n));
    const auto index = static_cast<uint64_t>(it - new_.begin());
    // (kProvisional | index stays below the store's reserved references)
    if (index >= kProvisional - 2) throw std::length_error("more than 2^31 new states in one BFS slice");
    if (violating) violation_.store(true, std::memory_order_relaxed);
    return kProvisional | static_cast<uint32_t>(index);
  };
  const StateStore::Claim r = store_.find_or_claim(root, made);
  // Keep the least key of every step that reaches the state.
  if (!r.inserted && (r.ref & kProvisional)) lower_discovery_key(new_[r.ref & ~kProvisional].key, key);
  return r;
}

}  // namespace ddsmc::engine
