// The walks of the OWCTY fixpoint over the ranks (engine/owcty_fixpoint.hpp),
// passes in supersteps over this rank's states: MailboxWalk on one thread
// with plain per-state cells, ThreadedMailboxWalk on the rank's workers
// with atomic ones (from kThreadedWalkFrom workers on: below, the plain
// walk on one thread is faster).
#include "dist/owcty.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "dist/handles.hpp"
#include "dist/mailbox.hpp"
#include "engine/owcty_loops.hpp"
#include "engine/parallel.hpp"

namespace ddsmc::dist {
namespace {

using engine::kPending;
namespace loops = engine::owcty_loops;
using engine::StateId;

// How the fixpoint's passes go over the ranks: route(t) applies apply(t)
// at once when this rank owns t, and otherwise queues a message (t's
// handle) for its owner, which applies it when it arrives. Every count it
// returns is a total over the ranks (collective).
class MailboxWalk {
 public:
  // `initial`: the initial state's local id, kNoState on the ranks that do not own it.
  MailboxWalk(const engine::StateGraph& g, StateId initial, engine::Cancellation& cancel, MPI_Comm comm)
      : initial_(initial), cancel_(cancel), comm_(comm), box_(comm, 1), n_(g.num_states()), cells_(n_) {
    handles_ = {static_cast<uint32_t>(box_.ranks()), static_cast<uint32_t>(box_.me())};
  }

  engine::OwctyCells<false>& cells() { return cells_; }
  uint32_t supersteps() const { return static_cast<uint32_t>(box_.supersteps()); }

  template <class Body>
  int64_t sweep(Body&& body) {
    int64_t sum = 0;
    for (StateId s = 0; s < n_; ++s) sum += body(s);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT64_T, MPI_SUM, comm_);
    return sum;
  }
  void narrow(uint64_t) {}  // (every pass sweeps this rank's states)

  template <class Admit, class Process, class Apply>
  uint64_t propagate_from_initial(Admit&& admit, Process&& process, Apply&& apply) {
    return propagate(
        [&](StateId s, auto& push, auto&) {
          if (s == initial_ && admit(s)) push(s);
        },
        process, apply);
  }

  // One pass: seed(s, push, route) for every local state, and process(v,
  // route) once for every state put on the work list (flag kPending).
  //
  // As in engine/owcty.cpp, the work goes by sweeps over the local states
  // in id order while it is plenty: a sweep processes every pending state
  // it meets, those put on the list ahead of it included (ids follow the
  // BFS, so most edges lead forward), and reads flags and edges in memory
  // order. States put on the list behind the sweep, or once it is over,
  // wait in a list, processed last in first out, until the list holds
  // 1/64 of the states: then another sweep.
  template <class Seed, class Process, class Apply>
  uint64_t propagate(Seed&& seed, Process&& process, Apply&& apply) {
    uint64_t joined = 0;
    std::vector<StateId>& list = work_;
    list.clear();
    bool sweeping = true, seeded = false;
    StateId cursor = 0;  // the sweep's next state
    auto push = [&](StateId s) {
      cells_.set_flags(s, kPending);
      ++joined;
      if (!sweeping || s < cursor) list.push_back(s);
    };
    auto route = [&](StateId h) {
      if (handles_.mine(h)) {
        const StateId t = handles_.local(h);
        if (apply(t)) push(t);
      } else {
        box_.send(handles_.owner(h), &h);
      }
    };
    auto work_on = [&](StateId v) {
      if (!cells_.clear_flags(v, kPending)) return;
      process(v, route);
    };
    for (;;) {
      const engine::StopReason stop = stop_of([&] {
        while (!box_.full()) {
          cancel_.poll();
          if (sweeping) {
            for (const StateId end = std::min<StateId>(n_, cursor + 256); cursor < end; ++cursor) {
              if (!seeded) seed(cursor, push, route);
              work_on(cursor);
            }
            if (cursor == n_) sweeping = false, seeded = true;
          } else if (list.size() * 64 >= n_ && n_ >= 4096) {
            list.clear();  // (every state on it is pending: the sweep meets it)
            sweeping = true;
            cursor = 0;
          } else if (!list.empty()) {
            for (int k = 0; k < 256 && !list.empty(); ++k) {
              const StateId v = list.back();
              list.pop_back();
              work_on(v);
            }
          } else {
            break;
          }
        }
      });
      if (!box_.exchange(sweeping || !list.empty(), stop)) break;
      for (StateId h : box_.received()) {
        const StateId t = handles_.local(h);
        if (apply(t)) push(t);
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &joined, 1, MPI_UINT64_T, MPI_SUM, comm_);
    return joined;
  }

 private:
  const StateId initial_;
  Handles handles_;
  engine::Cancellation& cancel_;
  MPI_Comm comm_;
  Mailbox box_;
  const StateId n_;
  engine::OwctyCells<false> cells_;  // per local state: the flags and the in-degree in Z
  std::vector<StateId> work_;        // a pass's list of pending states behind its sweep
};

// The same passes with several workers per rank (the rank's task arena
// has kThreadedWalkFrom slots or more): each superstep's local part is the one
// process's parallel loops (engine/owcty.cpp) over atomic cells: sweeps
// of this rank's states, cut into segments of kSegment states so that the
// queues are exchanged when they fill, and, once the work list is short,
// levels of explicit lists. route(h) for another rank's state appends h
// to the worker's own queue for that rank; the calling thread moves the
// queues into the mailbox and exchanges between loops (MPI is called from
// that thread only), then applies what arrived in a parallel loop. Same
// Z as MailboxWalk: every pass computes a set that does not depend on the
// order of the work (engine/owcty_fixpoint.hpp).
class ThreadedMailboxWalk {
 public:
  ThreadedMailboxWalk(const engine::StateGraph& g, StateId initial, engine::Cancellation& cancel, MPI_Comm comm)
      : initial_(initial), comm_(comm), box_(comm, 1), n_(g.num_states()), slots_(loops::arena_slots()),
        polls_(cancel, slots_), cells_(n_), current_(slots_), next_(slots_), queues_(slots_) {
    handles_ = {static_cast<uint32_t>(box_.ranks()), static_cast<uint32_t>(box_.me())};
    for (auto& q : queues_) q.resize(static_cast<size_t>(box_.ranks()));
  }

  engine::OwctyCells<true>& cells() { return cells_; }
  uint32_t supersteps() const { return static_cast<uint32_t>(box_.supersteps()); }

  template <class Body>
  int64_t sweep(Body&& body) {
    int64_t sum = loops::sum_over(StateId{0}, n_, no_polls_, body).first;  // (no stop here: every rank sweeps)
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT64_T, MPI_SUM, comm_);
    return sum;
  }
  void narrow(uint64_t) {}  // (every pass sweeps this rank's states)

  template <class Seed, class Process, class Apply>
  uint64_t propagate(Seed&& seed, Process&& process, Apply&& apply) {
    return run(false, seed, process, apply);
  }
  template <class Admit, class Process, class Apply>
  uint64_t propagate_from_initial(Admit&& admit, Process&& process, Apply&& apply) {
    auto no_seed = [](StateId, auto&, auto&) {};
    by_levels_ = true;
    uint64_t put = initial_ != engine::kNoState && admit(initial_) && pend(initial_);
    return run(true, no_seed, process, apply, put);
  }

 private:
  static constexpr StateId kSegment = StateId{1} << 13;  // states per loop of a sweep
  // Puts s on the work list; true if it was not.
  bool pend(StateId s) { return loops::pend(cells_, s, by_levels_ ? &next_ : nullptr); }
  // An edge into h (a global id), inside a loop: 1 if its state went on this rank's list.
  template <class Apply>
  int64_t route(StateId h, Apply& apply) {
    if (!handles_.mine(h)) {
      queues_[engine::worker_slot()][handles_.owner(h)].push_back(h);
      return 0;
    }
    const StateId t = handles_.local(h);
    return apply(t) && pend(t);
  }
  bool queues_full() const {
    size_t words = 0;
    for (const auto& per_rank : queues_)
      for (const auto& q : per_rank) words += q.size();
    return words >= Mailbox::kFullWords;
  }
  void move_queues_to_box() {
    for (auto& per_rank : queues_)
      for (size_t r = 0; r < per_rank.size(); ++r) {
        box_.send_all(static_cast<int>(r), per_rank[r]);
        per_rank[r].clear();
      }
  }

  // Runs the work list to its end over the ranks (see MailboxWalk::propagate
  // and SharedMemoryWalk::run). `put`: the states already on it (from_initial).
  template <class Seed, class Process, class Apply>
  uint64_t run(bool from_initial, Seed& seed, Process& process, Apply& apply, uint64_t put = 0) {
    auto work = [&](StateId s) -> loops::Tally {
      if (!cells_.clear_flags(s, engine::kPending)) return {};
      int64_t joined = 0;
      auto to = [&](StateId h) { joined += route(h, apply); };
      process(s, to);
      return {joined, 1};
    };
    auto work_if_pending = [&](StateId s) -> loops::Tally {
      return (cells_.flags(s) & engine::kPending) ? work(s) : loops::Tally{};
    };
    Progress p{put, 0, !from_initial, !from_initial, 0};
    if (!from_initial) by_levels_ = false;
    for (;;) {
      const engine::StopReason stop = stop_of([&] {
        while (!queues_full() && local_step(p, seed, work, work_if_pending, apply)) {
        }
      });
      move_queues_to_box();
      if (!box_.exchange(p.sweeping || p.put > p.done, stop)) break;
      const std::vector<StateId>& in = box_.received();
      p.put += static_cast<uint64_t>(loops::sum_over(StateId{0}, in.size(), no_polls_, [&](StateId k) -> int64_t {
                                       const StateId t = handles_.local(in[k]);
                                       return apply(t) && pend(t);
                                     }).first);
    }
    by_levels_ = false;
    current_.clear();
    next_.clear();
    MPI_Allreduce(MPI_IN_PLACE, &p.put, 1, MPI_UINT64_T, MPI_SUM, comm_);
    return p.put;
  }
  struct Progress {
    uint64_t put, done;  // states put on this rank's list, and processed
    bool sweeping;       // a sweep is under way, at `cursor`
    bool seeding;        // ... the first, which seeds
    StateId cursor;
  };
  // One loop of local work: a segment of the sweep, or a level, or the
  // switch between the two. False when this rank has none left.
  template <class Seed, class Work, class WorkIfPending, class Apply>
  bool local_step(Progress& p, Seed& seed, Work& work, WorkIfPending& work_if_pending, Apply& apply) {
    polls_.start_pass();
    if (p.sweeping) {
      const StateId end = std::min<StateId>(n_, p.cursor + kSegment);
      const loops::Tally t = loops::sum_over(p.cursor, end, polls_, [&](StateId s) -> loops::Tally {
        loops::Tally r;
        if (p.seeding) {
          auto push = [&](StateId v) { r.first += pend(v); };
          auto to = [&](StateId h) { r.first += route(h, apply); };
          seed(s, push, to);
        }
        r += work_if_pending(s);
        return r;
      });
      p.put += static_cast<uint64_t>(t.first);
      p.done += static_cast<uint64_t>(t.second);
      p.cursor = end;
      if (end == n_) p.sweeping = p.seeding = false;
      return true;
    }
    const uint64_t pending = p.put - p.done;
    if (pending == 0) return false;
    if (!by_levels_ && pending * loops::kListUnder >= n_) {
      p.sweeping = true, p.cursor = 0;  // another sweep
      return true;
    }
    if (!by_levels_) {  // the pending states, into the next level
      next_.clear();
      loops::sum_over(StateId{0}, n_, polls_, [&](StateId s) -> int64_t {
        if (cells_.flags(s) & engine::kPending) next_.push(s);
        return 0;
      });
      by_levels_ = true;
    } else if (pending * loops::kSweepAbove >= n_) {
      next_.clear();  // (every state on it is pending: the sweep meets it)
      by_levels_ = false;
      p.sweeping = true, p.cursor = 0;
      return true;
    }
    current_.swap(next_);
    next_.clear();
    const loops::Tally t = current_.for_each(polls_, work);
    p.put += static_cast<uint64_t>(t.first);
    p.done += static_cast<uint64_t>(t.second);
    return true;
  }

  const StateId initial_;
  Handles handles_;
  MPI_Comm comm_;
  Mailbox box_;
  const StateId n_;
  const size_t slots_;
  loops::Polls polls_;
  loops::Polls no_polls_{engine::Cancellation::none(), slots_};
  engine::OwctyCells<true> cells_;  // per local state: the flags and the in-degree in Z
  loops::StateList current_, next_;  // levels of the work list: the one being processed, the next
  std::vector<std::vector<std::vector<StateId>>> queues_;  // per worker slot, per rank: handles to send
  bool by_levels_ = false;  // the list goes by levels (pend() appends to next_)
};

// Workers per rank from which the passes take ThreadedMailboxWalk. Its
// atomic read-modify-writes (the in-degree counters above all: a locked
// instruction per edge, which also keeps a core from overlapping its cache
// misses) make one of its workers about 1.8x slower than MailboxWalk's
// plain cells, and two workers gave 1.6x one (flooding ring:9, -np 1
// without the one-rank shortcut, 2026-12-06): at two workers the walk is
// slower than MailboxWalk on one (5.75 s against 5.06 at ring:10), from
// about three it should be faster, and four leaves a margin (docs/dist.md,
// "Threads in the analysis").
constexpr size_t kThreadedWalkFrom = 4;

// The fixpoint on one of the walks above.
template <class Walk>
engine::OwctyResult run(const Shard& shard, const engine::Subgraph& h, engine::Fairness f, StateId initial,
                        engine::Cancellation& cancel, MPI_Comm comm) {
  std::unique_ptr<Walk> walk;
  agree_on_stop(comm, stop_of([&] { walk = std::make_unique<Walk>(shard.graph(), initial, cancel, comm); }));
  const engine::OwctyCounts c = engine::OwctyFixpoint<Walk>(shard.graph(), h, f, *walk).run();
  engine::OwctyResult r;
  r.survivors = c.survivors;
  r.initial = c.initial;
  r.rounds = c.rounds;
  r.passes = walk->supersteps();
  r.flags = walk->cells().release_flags();
  return r;
}

}  // namespace

engine::OwctyResult owcty(const Shard& shard, const engine::Subgraph& h, engine::Fairness f,
                          engine::Cancellation& cancel, MPI_Comm comm) {
  const StateId initial = shard.local(shard.initial()).value_or(engine::kNoState);
  return loops::arena_slots() >= kThreadedWalkFrom ? run<ThreadedMailboxWalk>(shard, h, f, initial, cancel, comm)
                                                   : run<MailboxWalk>(shard, h, f, initial, cancel, comm);
}

}  // namespace ddsmc::dist
