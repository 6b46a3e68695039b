#include "dist/owcty.hpp"

#include <memory>
#include <stdexcept>

#include "dist/mailbox.hpp"

namespace ddsmc::dist {
namespace {

using engine::Edge;
using engine::StateId;
using engine::kInSubgraph;
using engine::kSurvives;

constexpr uint8_t kReached = 4;   // reached by the current reachability pass
constexpr uint8_t kHasEdges = 8;  // it has kept edges (without, no pass reads its edges)
constexpr uint8_t kPending = 16;  // on the work list of the current pass

struct Acceptance {
  bool unstable = false;
  uint32_t arc = 0;
};

class Fixpoint {
 public:
  Fixpoint(const engine::StateGraph& g, const Directory& dir, const engine::FairSccQuery& q,
           engine::Cancellation& cancel, MPI_Comm comm)
      : g_(g), dir_(dir), q_(q), cancel_(cancel), comm_(comm), box_(comm, 1), n_(g.num_states()), flags_(n_, 0),
        indeg_(n_, 0) {}

  DistZ run() {
    start();
    eliminate([&](StateId s) { return indeg_[s] == 0; });
    std::vector<Acceptance> sets;
    if (q_.need_unstable) sets.push_back({true, 0});
    if (q_.fairness == engine::Fairness::Channel)
      for (uint32_t a = 0; a < g_.num_arcs(); ++a) sets.push_back({false, a});
    size_t quiet = 0;
    for (size_t i = 0; total(local_survivors_) > 0 && quiet < sets.size(); i = (i + 1) % sets.size()) {
      if (i == 0) ++rounds_;
      quiet = keep_reachable_from(sets[i]) ? 0 : quiet + 1;
    }
    DistZ z;
    z.survivors = total(local_survivors_);
    z.flags = std::move(flags_);
    z.rounds = rounds_;
    z.passes = static_cast<uint32_t>(box_.supersteps());
    z.bytes_sent = box_.bytes_sent();
    return z;
  }

 private:
  uint64_t total(uint64_t local) {
    MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_UINT64_T, MPI_SUM, comm_);
    return local;
  }
  bool keeps(const Edge& e) const { return !q_.stable_edges_only || e.stable(); }
  bool survives(StateId s) const { return flags_[s] & kSurvives; }

  // One pass: seed(s) for every local state, and process(v) once for every
  // state put on the work list (flag kPending); both hand edges' targets to
  // route(), which applies apply(t) at once to a local target and queues a
  // message for a remote one (applied by its owner). apply(t) returns
  // whether t joins the work list. Returns how many states joined it over
  // all ranks (seed() pushes through push()).
  //
  // As in engine/owcty.cpp, the work goes by sweeps over the local states
  // in id order while it is plenty: a sweep processes every pending state
  // it meets, those put on the list ahead of it included (ids follow the
  // BFS, so most edges lead forward), and reads flags and edges in memory
  // order. States put on the list behind the sweep, or once it is over,
  // wait in a list, processed last in first out, until the list holds
  // 1/64 of the states: then another sweep.
  template <class Seed, class Process, class Apply>
  uint64_t pass(Seed&& seed, Process&& process, Apply&& apply) {
    uint64_t joined = 0;
    std::vector<StateId>& list = work_;
    list.clear();
    bool sweeping = true, seeded = false;
    StateId cursor = 0;  // the sweep's next state
    auto push = [&](StateId s) {
      flags_[s] |= kPending;
      ++joined;
      if (!sweeping || s < cursor) list.push_back(s);
    };
    auto route = [&](StateId gid) {
      if (dir_.mine(gid)) {
        const StateId t = dir_.local(gid);
        if (apply(t)) push(t);
      } else {
        box_.send(dir_.owner(gid), &gid);
      }
    };
    auto work_on = [&](StateId v) {
      if (!(flags_[v] & kPending)) return;
      flags_[v] &= uint8_t(~kPending);
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
      for (uint32_t gid : box_.received()) {
        const StateId t = dir_.local(gid);
        if (apply(t)) push(t);
      }
    }
    return total(joined);
  }
  // route(t) for every kept edge of s (none without kHasEdges).
  template <class Route>
  void kept_edges(StateId s, Route& route) {
    if (!(flags_[s] & kHasEdges)) return;
    for (const Edge& e : g_.edges(s))
      if (keeps(e)) route(e.target);
  }

  // Z := H's states (sometimes-*) or those reachable from state 0 inside H
  // (always-*), counting the kept edges inside Z on the way.
  void start() {
    for (StateId s = 0; s < n_; ++s) {
      const bool keep = q_.keep_state(s);
      bool edges = false;
      if (keep)
        for (const Edge& e : g_.edges(s))
          if (keeps(e)) {
            edges = true;
            break;
          }
      flags_[s] = (keep ? kInSubgraph : 0) | (keep && q_.roots_everywhere ? kSurvives : 0) | (edges ? kHasEdges : 0);
      local_survivors_ += keep && q_.roots_everywhere;
    }
    auto count = [&](StateId t) {
      if (survives(t)) ++indeg_[t];
      return false;
    };
    if (q_.roots_everywhere) {
      pass([&](StateId s, auto&, auto& route) { if (survives(s)) kept_edges(s, route); },
           [](StateId, auto&) {}, count);
      return;
    }
    // From state 0 through H, each kept edge counted as it is crossed.
    auto join = [&](StateId t) {
      if (!(flags_[t] & kInSubgraph)) return false;
      ++indeg_[t];
      if (survives(t)) return false;
      flags_[t] |= kSurvives;
      ++local_survivors_;
      return true;
    };
    pass(
        [&](StateId s, auto& push, auto&) {
          if (dir_.mine(0) && s == dir_.local(0) && (flags_[s] & kInSubgraph)) {
            flags_[s] |= kSurvives;
            ++local_survivors_;
            push(s);
          }
        },
        [&](StateId v, auto& route) { kept_edges(v, route); }, join);
  }

  // Removes the states of Z with no predecessor in Z, iteratively, starting
  // with those for which seed(s) holds.
  template <class Seed>
  void eliminate(Seed&& seed) {
    auto remove = [&](StateId s) {
      flags_[s] &= uint8_t(~kSurvives);
      --local_survivors_;
    };
    pass(
        [&](StateId s, auto& push, auto&) {
          if (survives(s) && seed(s)) {
            remove(s);
            push(s);
          }
        },
        [&](StateId v, auto& route) { kept_edges(v, route); },
        [&](StateId t) {
          if (!survives(t)) return false;  // (its counter is dead)
          if (indeg_[t] == 0) throw std::logic_error("owcty: an in-degree below zero");
          if (--indeg_[t] != 0) return false;
          remove(t);
          return true;
        });
  }

  // Z := the states of Z reachable inside Z from the set's seeds, then
  // elimination. True if Z changed.
  bool keep_reachable_from(const Acceptance& a) {
    for (auto& f : flags_) f &= uint8_t(~kReached);
    auto reach = [&](StateId t) {
      if (!survives(t) || (flags_[t] & kReached)) return false;
      flags_[t] |= kReached;
      return true;
    };
    const uint64_t reached = pass(
        [&](StateId s, auto& push, auto& route) {
          if (!survives(s)) return;
          if (!a.unstable && g_.channel_empty(s, a.arc) && reach(s)) push(s);
          if (!(flags_[s] & kHasEdges)) return;
          for (const Edge& e : g_.edges(s))
            if (keeps(e) && (a.unstable ? !e.stable() : e.arc() == a.arc)) route(e.target);
        },
        [&](StateId v, auto& route) { kept_edges(v, route); }, reach);
    if (reached == total(local_survivors_)) return false;
    eliminate([&](StateId s) { return !(flags_[s] & kReached); });
    return true;
  }

  const engine::StateGraph& g_;
  const Directory& dir_;
  const engine::FairSccQuery& q_;
  engine::Cancellation& cancel_;
  MPI_Comm comm_;
  Mailbox box_;
  const StateId n_;
  std::vector<uint8_t> flags_;
  std::vector<uint32_t> indeg_;
  std::vector<StateId> work_;
  uint64_t local_survivors_ = 0;
  uint32_t rounds_ = 0;
};

}  // namespace

DistZ owcty(const engine::StateGraph& shard, const Directory& dir, const engine::FairSccQuery& q,
            engine::Cancellation& cancel, MPI_Comm comm) {
  std::unique_ptr<Fixpoint> f;
  agree_on_stop(comm, stop_of([&] { f = std::make_unique<Fixpoint>(shard, dir, q, cancel, comm); }));
  return f->run();
}

}  // namespace ddsmc::dist
