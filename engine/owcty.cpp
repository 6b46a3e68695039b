// The walk of the OWCTY fixpoint in one process (engine/owcty_fixpoint.hpp):
// parallel loops on the caller's task arena over shared per-state cells,
// read and written with relaxed atomic operations.
#include "engine/owcty.hpp"

#include <algorithm>
#include <utility>

#include "engine/owcty_loops.hpp"
#include "engine/parallel.hpp"

namespace ddsmc::engine {
namespace {

using namespace owcty_loops;

// Passes over Z go through a list of its states instead of a sweep over all
// states once Z is this many times smaller than the graph; the list is
// rebuilt when it holds 4 times more states than Z.
constexpr uint64_t kListBelow = 16;

// How the fixpoint's passes go in one process. Passes over Z sweep all
// states, or, once Z is small, a list of its states (narrow()). A
// propagation sweeps its domain while its work list is long and goes level
// by level through lists of states once it is short (docs/engine.md §10).
// route(t) applies apply(t) at once, whichever worker holds t.
class SharedMemoryWalk {
 public:
  SharedMemoryWalk(const StateGraph& g, Cancellation& cancel)
      : n_(g.num_states()), slots_(arena_slots()), polls_(cancel, slots_), cells_(n_), current_(slots_),
        next_(slots_), members_(slots_) {}

  OwctyCells<true>& cells() { return cells_; }
  uint32_t passes() const { return passes_; }

  template <class Body>
  int64_t sweep(Body&& body) {
    return sweep_tally(body).first;
  }
  // Makes the list of Z's states when it is due.
  void narrow(uint64_t survivors) {
    if (listed_ ? survivors * 4 >= listed_ : survivors * kListBelow >= n_) return;
    StateList list(slots_);
    over_domain([&](StateId s) -> int64_t {
      if (cells_.flags(s) & kSurvives) list.push(s);
      return 0;
    });
    members_.swap(list);
    listed_ = std::max<uint64_t>(members_.size(), 1);
  }
  template <class Seed, class Process, class Apply>
  uint64_t propagate(Seed&& seed, Process&& process, Apply&& apply) {
    return run(false, seed, process, apply);
  }
  template <class Admit, class Process, class Apply>
  uint64_t propagate_from_initial(Admit&& admit, Process&& process, Apply&& apply) {
    if (n_ > 0 && admit(StateId{0})) {
      cells_.set_flags(0, kPending);
      current_.push_here(0);
    }
    auto no_seed = [](StateId, auto&, auto&) {};
    return run(true, no_seed, process, apply);
  }

 private:
  // ---- parallel loops; each returns the sum of what its body returns (an
  // int64_t or a Tally).
  // body(s) for every state.
  template <class Body>
  Tally sweep_tally(Body&& body) {
    polls_.start_pass();
    ++passes_;
    return sum_over(StateId{0}, n_, polls_, body);
  }
  // body(s) for every state of a list.
  template <class Body>
  Tally over(const StateList& list, Body&& body) {
    polls_.start_pass();
    ++passes_;
    return list.for_each(polls_, body);
  }
  // body(s) for every state of the domain: all states, or, once Z is small,
  // the list of Z's states (and a few that left it since it was made).
  template <class Body>
  Tally over_domain(Body&& body) {
    return listed_ ? over(members_, body) : sweep_tally(body);
  }
  uint64_t domain_size() const { return listed_ ? listed_ : n_; }

  // ---- propagation: a work list of states (flag kPending), each processed
  // once; processing may put more on it. While the list is long, sweeps
  // over the domain process whatever they find pending, so that work put
  // on it ahead of a sweep is done in that same sweep (state ids follow
  // the exploration's BFS, so most edges lead forward); once it is short,
  // level by level through explicit lists.
  //
  // Puts s on the work list; true if it was not.
  bool pend(StateId s) { return owcty_loops::pend(cells_, s, by_levels_ ? &next_ : nullptr); }
  // Runs the work list to its end. Either seed() is called once for every
  // state of the domain in a first sweep (by_levels = false), or the list
  // starts as current_ (by_levels = true; seed is not called). Returns how
  // many states were on it in all.
  template <class Seed, class Process, class Apply>
  uint64_t run(bool by_levels, Seed& seed, Process& process, Apply& apply) {
    // A loop's tally: states put on the list, states processed.
    auto work = [&](StateId s) -> Tally {
      if (!cells_.clear_flags(s, kPending)) return {};
      int64_t put = 0;
      auto route = [&](StateId t) { put += apply(t) && pend(t); };
      process(s, route);
      return {put, 1};
    };
    auto work_if_pending = [&](StateId s) -> Tally { return (cells_.flags(s) & kPending) ? work(s) : Tally{}; };
    uint64_t put = 0, done = 0;
    by_levels_ = by_levels;
    if (by_levels) {
      put = current_.size();
    } else {
      const Tally t = over_domain([&](StateId s) -> Tally {
        int64_t seeded = 0;
        auto push = [&](StateId v) { seeded += pend(v); };
        auto route = [&](StateId t) { seeded += apply(t) && pend(t); };
        seed(s, push, route);
        Tally r{seeded, 0};
        r += work_if_pending(s);
        return r;
      });
      put += static_cast<uint64_t>(t.first);
      done += static_cast<uint64_t>(t.second);
    }
    while (put > done) {
      const uint64_t size = domain_size(), pending = put - done;
      if (!by_levels_ && pending * kListUnder < size) {
        current_.clear();
        over_domain([&](StateId s) -> int64_t {
          if (cells_.flags(s) & kPending) current_.push(s);
          return 0;
        });
        by_levels_ = true;
      } else if (by_levels_ && pending * kSweepAbove >= size) {
        current_.clear();
        by_levels_ = false;
      }
      Tally t;
      if (by_levels_) {
        next_.clear();
        t = over(current_, work);
        current_.swap(next_);
      } else {
        t = over_domain(work_if_pending);
      }
      put += static_cast<uint64_t>(t.first);
      done += static_cast<uint64_t>(t.second);
    }
    by_levels_ = false;
    current_.clear();
    next_.clear();
    return put;
  }

  const StateId n_;
  const size_t slots_;
  Polls polls_;
  OwctyCells<true> cells_;    // per state: the flags and the in-degree in Z
  StateList current_, next_;  // a propagation's work list by levels: this level and the next
  StateList members_;         // once Z is small: its states (and some that left it)
  uint64_t listed_ = 0;       // how many states members_ held when made (0: no list)
  bool by_levels_ = false;    // the propagation goes by lists (pend() pushes to next_)
  uint32_t passes_ = 0;
};

}  // namespace

OwctyResult owcty(const StateGraph& g, const Subgraph& h, Fairness f, Cancellation& cancel) {
  SharedMemoryWalk walk(g, cancel);
  const OwctyCounts c = OwctyFixpoint<SharedMemoryWalk>(g, h, f, walk).run();
  OwctyResult r;
  r.survivors = c.survivors;
  r.initial = c.initial;
  r.rounds = c.rounds;
  r.passes = walk.passes();
  r.flags = walk.cells().release_flags();
  return r;
}

}  // namespace ddsmc::engine
