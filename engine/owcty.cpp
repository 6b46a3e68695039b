#include "engine/owcty.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <utility>

#include "engine/parallel.hpp"

namespace ddsmc::engine {
namespace {

// Scratch bits of the flags, next to kInSubgraph and kSurvives.
// Reached by the current reachability pass, when it equals the pass's
// polarity (which flips every pass, so that nothing has to clear it: after
// a pass every survivor has the new value).
constexpr uint8_t kReached = 4;
// The state had a kept edge into Z when in-degrees were counted: without
// it, no pass looks at its edges.
constexpr uint8_t kHasEdges = 8;
// On the work list of the current propagation (engine.md §10).
constexpr uint8_t kPending = 16;

constexpr size_t kSweepGrain = 1024;  // states per chunk of a sweep over all states
constexpr size_t kListGrain = 256;    // states per chunk of a list
// Passes over Z go through a list of its states instead of a sweep over all
// states once Z is this many times smaller than the graph; the list is
// rebuilt when it holds 4 times more states than Z.
constexpr uint64_t kListBelow = 16;
// A propagation sweeps its domain while the work list holds at least
// 1/kSweepAbove of it, and goes level by level through explicit lists of
// states once the work list holds less than 1/kListUnder of it.
constexpr uint64_t kSweepAbove = 16;
constexpr uint64_t kListUnder = 64;

// What a parallel loop adds up: one or two counts.
struct Tally {
  int64_t first = 0, second = 0;
  Tally& operator+=(const Tally& t) {
    first += t.first;
    second += t.second;
    return *this;
  }
  Tally& operator+=(int64_t x) {
    first += x;
    return *this;
  }
};
// The sum of the results of a loop's bodies, added up per chunk.
class Sum {
 public:
  void add(const Tally& t) {
    first_.fetch_add(t.first, std::memory_order_relaxed);
    second_.fetch_add(t.second, std::memory_order_relaxed);
  }
  Tally get() const { return {first_.load(), second_.load()}; }

 private:
  std::atomic<int64_t> first_{0}, second_{0};
};

size_t arena_slots() { return static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency())); }

// The caller's Cancellation, polled before each pass, and one copy of it
// per worker slot, polled per chunk (a Cancellation keeps a little state of
// its own: one per thread). The copies start from the caller's, so an
// interrupt it has seen keeps its grace period.
class Polls {
 public:
  Polls(Cancellation& cancel, size_t slots) : cancel_(cancel), copies_(slots, cancel) {}
  void start_pass() {
    cancel_.poll();
    std::fill(copies_.begin(), copies_.end(), cancel_);
  }
  void poll() { copies_.at(worker_slot()).poll(); }

 private:
  Cancellation& cancel_;
  std::vector<Cancellation> copies_;
};

// A list of states that the workers of a parallel loop append to, each to
// its own part, and that a later loop reads in chunks.
class StateList {
 public:
  explicit StateList(size_t slots) : parts_(slots) {}
  void push(StateId s) { parts_.at(worker_slot()).push_back(s); }  // inside a parallel loop
  void push_here(StateId s) { parts_[0].push_back(s); }            // outside one
  void clear() {
    for (auto& p : parts_) p.clear();
  }
  uint64_t size() const {
    uint64_t n = 0;
    for (const auto& p : parts_) n += p.size();
    return n;
  }
  void swap(StateList& other) noexcept { parts_.swap(other.parts_); }

  // body(s) for every state of the list, in parallel chunks, polling per
  // chunk; returns the sum of what it returns (an int64_t or a Tally).
  template <class Body>
  Tally for_each(Polls& polls, Body&& body) const {
    std::vector<std::pair<uint32_t, size_t>> chunks;  // (part, first index)
    for (uint32_t p = 0; p < parts_.size(); ++p)
      for (size_t b = 0; b < parts_[p].size(); b += kListGrain) chunks.emplace_back(p, b);
    Sum total;
    parallel_for(size_t{0}, chunks.size(), 1, [&](const tbb::blocked_range<size_t>& r) {
      Tally sum;
      for (size_t c = r.begin(); c != r.end(); ++c) {
        polls.poll();
        const auto& part = parts_[chunks[c].first];
        const size_t end = std::min(part.size(), chunks[c].second + kListGrain);
        for (size_t i = chunks[c].second; i < end; ++i) sum += body(part[i]);
      }
      total.add(sum);
    });
    return total.get();
  }

 private:
  std::vector<std::vector<StateId>> parts_;  // one per worker slot
};

// One acceptance set: for an arc, the states with its channel empty and the
// targets of edges serving it; for `unstable`, the targets of non-stable edges.
struct Acceptance {
  bool unstable = false;
  uint32_t arc = 0;
};

class Fixpoint {
 public:
  Fixpoint(const StateGraph& g, const FairSccQuery& q, Cancellation& cancel)
      : g_(g), q_(q), n_(g.num_states()), slots_(arena_slots()), polls_(cancel, slots_), flags_(n_, 0),
        indeg_(n_, 0), current_(slots_), next_(slots_), members_(slots_) {}

  OwctyResult run() {
    start();
    initial_ = survivors_;
    remove_unreferenced();
    std::vector<Acceptance> sets;
    if (q_.need_unstable) sets.push_back({true, 0});
    if (q_.fairness == Fairness::Channel)
      for (uint32_t a = 0; a < g_.num_arcs(); ++a) sets.push_back({false, a});
    // The fixpoint: as many passes in a row as there are sets change nothing.
    size_t quiet = 0;
    for (size_t i = 0; survivors_ > 0 && quiet < sets.size(); i = (i + 1) % sets.size()) {
      if (i == 0) ++rounds_;
      quiet = keep_reachable_from(sets[i]) ? 0 : quiet + 1;
    }
    OwctyResult r;
    r.flags = std::move(flags_);
    r.survivors = survivors_;
    r.initial = initial_;
    r.rounds = rounds_;
    r.passes = passes_;
    return r;
  }

 private:
  // ---- per-state flags and counters: read and written through atomic_ref,
  // since a pass reads the flags of other workers' states while they write
  // them. The parallel loops' ends order one pass after the other.
  uint8_t flags(StateId s) { return std::atomic_ref<uint8_t>(flags_[s]).load(std::memory_order_relaxed); }
  // Sets bits; returns those of them that were not set before.
  uint8_t set_flags(StateId s, uint8_t bits) {
    return bits & ~std::atomic_ref<uint8_t>(flags_[s]).fetch_or(bits, std::memory_order_relaxed);
  }
  // Clears bits; returns those of them that were set before.
  uint8_t clear_flags(StateId s, uint8_t bits) {
    return bits & std::atomic_ref<uint8_t>(flags_[s]).fetch_and(uint8_t(~bits), std::memory_order_relaxed);
  }
  bool reached(uint8_t f) const { return ((f & kReached) != 0) == polarity_; }
  // Marks s reached; true if it was not.
  bool reach(StateId s) {
    if (reached(flags(s))) return false;
    return polarity_ ? set_flags(s, kReached) != 0 : clear_flags(s, kReached) != 0;
  }
  void count_edge_into(StateId t) {
    if (std::atomic_ref<uint32_t>(indeg_[t]).fetch_add(1, std::memory_order_relaxed) == 0xffffffffu)
      throw std::length_error("owcty: a state with 2^32 incoming edges");
  }
  // True when the count drops to zero.
  bool uncount_edge_into(StateId t) {
    return std::atomic_ref<uint32_t>(indeg_[t]).fetch_sub(1, std::memory_order_relaxed) == 1;
  }
  uint32_t indeg(StateId s) { return std::atomic_ref<uint32_t>(indeg_[s]).load(std::memory_order_relaxed); }
  bool keeps(const Edge& e) const { return !q_.stable_edges_only || e.stable(); }
  // body(e) for every kept edge of s into Z (none without kHasEdges).
  template <class Body>
  void edges_into_z(StateId s, Body&& body) {
    if (!(flags(s) & kHasEdges)) return;
    for (const Edge& e : g_.edges(s))
      if (keeps(e) && (flags(e.target) & kSurvives)) body(e);
  }

  // ---- parallel loops; each returns the sum of what its body returns (an
  // int64_t or a Tally).
  // body(s) for every state.
  template <class Body>
  Tally sweep(Body&& body) {
    polls_.start_pass();
    ++passes_;
    Sum total;
    parallel_for(StateId{0}, n_, kSweepGrain, [&](const tbb::blocked_range<StateId>& r) {
      polls_.poll();
      Tally sum;
      for (StateId s = r.begin(); s != r.end(); ++s) sum += body(s);
      total.add(sum);
    });
    return total.get();
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
    return listed_ ? over(members_, body) : sweep(body);
  }
  uint64_t domain_size() const { return listed_ ? listed_ : n_; }
  // Makes the list of Z's states when it is due.
  void refresh_domain() {
    if (listed_ ? survivors_ * 4 >= listed_ : survivors_ * kListBelow >= n_) return;
    StateList list(slots_);
    over_domain([&](StateId s) -> int64_t {
      if (flags(s) & kSurvives) list.push(s);
      return 0;
    });
    members_.swap(list);
    listed_ = std::max<uint64_t>(members_.size(), 1);
  }

  // ---- propagation: a work list of states (flag kPending), each processed
  // once; processing may put more on it. While the list is long, sweeps
  // over the domain process whatever they find pending, so that work put
  // on it ahead of a sweep is done in that same sweep (state ids follow
  // the exploration's BFS, so most edges lead forward); once it is short,
  // level by level through explicit lists.
  //
  // Puts s on the work list; true if it was not.
  bool pend(StateId s) {
    if ((flags(s) & kPending) || !set_flags(s, kPending)) return false;
    if (by_levels_) next_.push(s);
    return true;
  }
  // Runs the work list to its end. Either seed(s) is called once for every
  // state of the domain in a first sweep (by_levels = false), or the list
  // starts as current_ (by_levels = true; seed is not called); process(s)
  // for each state on it. Both return how many states they put on it.
  // Returns how many states were on it in all.
  template <class Seed, class Process>
  uint64_t propagate(bool by_levels, Seed&& seed, Process&& process) {
    // A loop's tally: states put on the list, states processed.
    auto work = [&](StateId s) -> Tally {
      if (!clear_flags(s, kPending)) return {};
      return {process(s), 1};
    };
    auto work_if_pending = [&](StateId s) -> Tally { return (flags(s) & kPending) ? work(s) : Tally{}; };
    uint64_t put = 0, done = 0;
    by_levels_ = by_levels;
    if (by_levels) {
      put = current_.size();
    } else {
      const Tally t = over_domain([&](StateId s) -> Tally {
        Tally r{seed(s), 0};
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
          if (flags(s) & kPending) current_.push(s);
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

  // ---- the passes of the fixpoint
  // Z := H's states (sometimes-*) or those reachable from state 0 inside H
  // (always-*); the in-degrees inside Z counted on the way.
  void start() {
    survivors_ = static_cast<uint64_t>(sweep([&](StateId s) -> int64_t {
                                         const bool keep = q_.keep_state(s);
                                         const bool in_z = keep && q_.roots_everywhere;
                                         std::atomic_ref<uint8_t>(flags_[s]).store(
                                             (keep ? kInSubgraph : 0) | (in_z ? kSurvives : 0),
                                             std::memory_order_relaxed);
                                         return in_z;
                                       }).first);
    // Counts the kept edges of s into `into` (kSurvives or kInSubgraph);
    // with kInSubgraph, their targets join Z; returns how many states joined.
    auto count_edges = [&](StateId s, uint8_t into) -> int64_t {
      bool any = false;
      int64_t joined = 0;
      for (const Edge& e : g_.edges(s)) {
        if (!keeps(e) || !(flags(e.target) & into)) continue;
        count_edge_into(e.target);
        any = true;
        if (into == kInSubgraph && !(flags(e.target) & kSurvives) && set_flags(e.target, kSurvives) && pend(e.target))
          ++joined;
      }
      if (any) set_flags(s, kHasEdges);
      return joined;
    };
    if (q_.roots_everywhere) {
      over_domain([&](StateId s) -> int64_t { return (flags(s) & kSurvives) ? count_edges(s, kSurvives) : 0; });
      return;
    }
    if (n_ == 0 || !(flags_[0] & kInSubgraph)) return;
    flags_[0] |= kSurvives | kPending;
    current_.push_here(0);
    survivors_ = propagate(
        true, [](StateId) -> int64_t { return 0; }, [&](StateId v) { return count_edges(v, kInSubgraph); });
  }

  // Elimination: removes the states of Z with no predecessor in Z,
  // iteratively, starting with those of Z for which seed(s) holds. A
  // removed state's edges into Z are uncounted, and the states left with
  // none are removed next. The worker that clears a state's kSurvives puts
  // it on the work list: each removed state once.
  template <class Seed>
  void eliminate(Seed&& seed) {
    survivors_ -= propagate(
        false,
        [&](StateId s) -> int64_t {
          if (!(flags(s) & kSurvives) || !seed(s) || !clear_flags(s, kSurvives)) return 0;
          return pend(s);
        },
        [&](StateId v) -> int64_t {
          int64_t removed = 0;
          edges_into_z(v, [&](const Edge& e) {
            if (uncount_edge_into(e.target) && clear_flags(e.target, kSurvives)) removed += pend(e.target);
          });
          return removed;
        });
  }
  void remove_unreferenced() {
    refresh_domain();
    eliminate([&](StateId s) { return indeg(s) == 0; });
  }

  // Z := the states of Z reachable inside Z from the set's seeds, then
  // elimination. True if Z changed.
  bool keep_reachable_from(const Acceptance& a) {
    refresh_domain();
    polarity_ = !polarity_;
    auto reach_and_pend = [&](StateId t) -> int64_t { return reach(t) && pend(t); };
    const uint64_t reached_states = propagate(
        false,
        [&](StateId s) -> int64_t {
          if (!(flags(s) & kSurvives)) return 0;
          int64_t seeds = !a.unstable && g_.channel_empty(s, a.arc) ? reach_and_pend(s) : 0;
          edges_into_z(s, [&](const Edge& e) {
            if (a.unstable ? !e.stable() : e.arc() == a.arc) seeds += reach_and_pend(e.target);
          });
          return seeds;
        },
        [&](StateId v) -> int64_t {
          int64_t more = 0;
          edges_into_z(v, [&](const Edge& e) { more += reach_and_pend(e.target); });
          return more;
        });
    if (reached_states == survivors_) return false;
    eliminate([&](StateId s) { return !reached(flags(s)); });
    return true;
  }

  const StateGraph& g_;
  const FairSccQuery& q_;
  const StateId n_;
  const size_t slots_;
  Polls polls_;
  std::vector<uint8_t> flags_;   // per state: kInSubgraph | kSurvives | kReached | kHasEdges | kPending
  std::vector<uint32_t> indeg_;  // per state of Z: its kept edges from states of Z
  StateList current_, next_;     // a propagation's work list by levels: this level and the next
  StateList members_;            // once Z is small: its states (and some that left it)
  uint64_t listed_ = 0;          // how many states members_ held when made (0: no list)
  bool by_levels_ = false;       // the propagation goes by lists (pend() pushes to next_)
  bool polarity_ = false;
  uint64_t survivors_ = 0, initial_ = 0;
  uint32_t rounds_ = 0, passes_ = 0;
};

}  // namespace

OwctyResult owcty(const StateGraph& g, const FairSccQuery& q, Cancellation& cancel) {
  Fixpoint f(g, q, cancel);
  return f.run();
}

}  // namespace ddsmc::engine
