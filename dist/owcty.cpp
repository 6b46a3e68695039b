// The walk of the OWCTY fixpoint over the ranks (engine/owcty_fixpoint.hpp):
// plain per-state cells of this rank's states, and passes in supersteps.
#include "dist/owcty.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "dist/handles.hpp"
#include "dist/mailbox.hpp"

namespace ddsmc::dist {
namespace {

using engine::kPending;
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

}  // namespace

engine::OwctyResult owcty(const Shard& shard, const engine::Subgraph& h, engine::Fairness f,
                          engine::Cancellation& cancel, MPI_Comm comm) {
  std::unique_ptr<MailboxWalk> walk;
  const StateId initial = shard.local(shard.initial()).value_or(engine::kNoState);
  agree_on_stop(comm, stop_of([&] { walk = std::make_unique<MailboxWalk>(shard.graph(), initial, cancel, comm); }));
  const engine::OwctyCounts c = engine::OwctyFixpoint<MailboxWalk>(shard.graph(), h, f, *walk).run();
  engine::OwctyResult r;
  r.survivors = c.survivors;
  r.initial = c.initial;
  r.rounds = c.rounds;
  r.passes = walk->supersteps();
  r.flags = walk->cells().release_flags();
  return r;
}

}  // namespace ddsmc::dist
