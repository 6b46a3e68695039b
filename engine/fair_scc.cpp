#include "engine/fair_scc.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "engine/lasso.hpp"
#include "engine/owcty.hpp"
#include "engine/source_scc.hpp"

namespace ddsmc::engine {
namespace {

// Iterative Tarjan from the given roots, restricted to the subgraph. Calls
// on_scc(members) for every SCC found; stops early when on_scc returns true.
// Per state it keeps the DFS index (4 bytes) and an on-stack bit; the low
// link lives in the DFS frame, since only the states on the call stack need
// one.
class SccFinder {
 public:
  SccFinder(const StateGraph& g, const Subgraph& sub)
      : g_(g), sub_(sub), index_(g.num_states(), kUnvisited), on_stack_(g.num_states(), false) {}

  template <class OnScc>
  bool run_from(StateId root, OnScc&& on_scc) {
    if (index_[root] != kUnvisited || !sub_.keep_state(root)) return false;
    struct Frame {  // 16 bytes: the stack may hold every state
      StateId v;
      uint32_t low;
      EdgeCursor next_edge;
    };
    std::vector<Frame> call;
    call.push_back({root, visit(root), {}});
    while (!call.empty()) {
      sub_.cancel->poll();
      Frame& f = call.back();
      Edge e;
      if (g_.next_edge(f.v, f.next_edge, e)) {
        if (!sub_.keeps(e)) continue;
        const StateId w = e.target;
        if (index_[w] == kUnvisited) {
          call.push_back({w, visit(w), {}});  // (f may dangle from here on)
        } else if (on_stack_[w]) {
          f.low = std::min(f.low, index_[w]);
        }
        continue;
      }
      const StateId v = f.v;
      const uint32_t low = f.low;
      call.pop_back();
      if (!call.empty()) call.back().low = std::min(call.back().low, low);
      if (low == index_[v]) {
        std::vector<StateId> members;
        StateId w;
        do {
          w = stack_.back();
          stack_.pop_back();
          on_stack_[w] = false;
          members.push_back(w);
        } while (w != v);
        if (on_scc(members)) return true;
      }
    }
    return false;
  }

  // Hands over the per-state index array (num_states() entries), for the
  // lasso's path searches to reuse; the finder is done then.
  std::vector<uint32_t> release() { return std::move(index_); }

 private:
  static constexpr uint32_t kUnvisited = 0xffffffffu;
  uint32_t visit(StateId v) {
    index_[v] = counter_++;
    stack_.push_back(v);
    on_stack_[v] = true;
    return index_[v];
  }
  const StateGraph& g_;
  const Subgraph& sub_;
  std::vector<uint32_t> index_;
  std::vector<bool> on_stack_;
  std::vector<StateId> stack_;
  uint32_t counter_ = 0;
};

}  // namespace

std::optional<FairScc> first_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f) {
  std::vector<char> in_scc(g.num_states(), 0);
  FairScc out;
  std::optional<CycleTargets> targets;
  SccFinder finder(g, sub);
  auto on_scc = [&](const std::vector<StateId>& scc) {
    targets = qualify(g, sub, scc, in_scc, f);
    if (targets) out.members = scc;
    return targets.has_value();
  };
  if (sub.roots_everywhere) {
    for (StateId s = 0; s < g.num_states() && !targets; ++s) finder.run_from(s, on_scc);
  } else if (g.num_states() > 0) {
    finder.run_from(0, on_scc);
  }
  if (!targets) return std::nullopt;
  out.targets = std::move(*targets);
  out.buffer = finder.release();
  return out;
}

namespace {

// Searches the subgraph for a qualifying SCC and builds its lasso (its stem
// through `stem_states`). The lasso is built after the finder is done, in
// its memory: the peak is the finder's 4 bytes and a bit per state, plus 1
// for in_scc.
std::optional<Lasso> search(const StateGraph& g, const Subgraph& sub, Fairness f, StemStates stem_states) {
  auto scc = first_fair_scc(g, sub, f);
  if (!scc) return std::nullopt;
  std::vector<char> in_scc(g.num_states(), 0);
  for (StateId s : scc->members) in_scc[s] = 1;
  return build_lasso(g, sub, [&](StateId s) { return in_scc[s] != 0; }, scc->targets, stem_states,
                     std::move(scc->buffer));
}

// engine/source_scc.hpp's walk in one process. A turn's split is one
// Tarjan over H[C] (the finder above: 4 bytes and a bit per state, no
// reversed edges): it pops the SCCs of H[C] successors first, so when an
// SCC is popped, whether it reaches p is known from its edges: it holds p,
// or an edge leaves it for a state already marked B.
class TarjanWalk {
 public:
  TarjanWalk(const StateGraph& g, const Subgraph& h, std::vector<uint8_t>& flags) : g_(g), h_(h), flags_(flags) {}
  StateId gid(StateId s) const { return s; }
  std::optional<StateId> local_of(StateId gid) const { return gid; }
  StateId min_over_all(StateId x) const { return x; }
  bool any_over_all(bool x) const { return x; }
  template <class Work>
  void local(Work&& work) const {
    work();
  }
  Cancellation& cancel() const { return *h_.cancel; }

  void split(std::optional<StateId> p) {
    Subgraph in_c = h_;
    in_c.keep_state = [&](StateId s) { return (flags_[s] & kInC) != 0; };
    SccFinder finder(g_, in_c);
    auto on_scc = [&](const std::vector<StateId>& members) {
      const bool has_p = std::find(members.begin(), members.end(), *p) != members.end();
      if (has_p || leaves_for_b(members)) {
        for (StateId m : members) flags_[m] |= has_p ? (kInB | kInF) : kInB;
      }
      return false;
    };
    for (StateId s = 0; s < g_.num_states(); ++s) finder.run_from(s, on_scc);
  }

 private:
  bool leaves_for_b(const std::vector<StateId>& members) const {
    for (StateId m : members)
      for (const Edge& e : g_.edges(m))
        if (h_.kind_kept(e) && (flags_[e.target] & kInB)) return true;
    return false;
  }

  const StateGraph& g_;
  const Subgraph& h_;
  std::vector<uint8_t>& flags_;
};

// The lasso through the source SCC of H[Z] that engine/source_scc.hpp
// finds (`flags`: kInC on Z's states): the targets by a sweep of its states
// in id order, which stops once they are settled.
Lasso lasso_in_z(const StateGraph& g, const Subgraph& h, Fairness f, std::vector<uint8_t>& flags) {
  mark_source_scc(g, h, flags);
  auto in_f = [&](StateId s) { return (flags[s] & kInF) != 0; };
  TargetCollector collector(g.num_arcs(), f, h.need_unstable);
  for (StateId s = 0; s < g.num_states() && !collector.settled(); ++s) {
    if (!in_f(s)) continue;
    h.cancel->poll();
    collect_targets(g, h, s, in_f, collector);
  }
  const std::optional<CycleTargets> targets = collector.targets();
  if (!targets) throw std::logic_error("analysis: a source SCC of the OWCTY fixpoint does not qualify");
  return build_lasso(g, h, in_f, *targets, stem_states_of(h), {});
}

}  // namespace

void mark_source_scc(const StateGraph& g, const Subgraph& h, std::vector<uint8_t>& flags) {
  TarjanWalk walk(g, h, flags);
  find_source_scc(walk, flags);
}

std::optional<Lasso> find_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f, bool parallel,
                                   AnalysisStats& stats) {
  ++stats.subgraphs;
  const StemStates stem = stem_states_of(sub);
  if (!parallel) return search(g, sub, f, stem);
  OwctyResult z = owcty(g, sub, f, *sub.cancel);
  if (!take_fixpoint(z, stats)) return std::nullopt;
  return lasso_in_z(g, sub, f, z.flags);
}

}  // namespace ddsmc::engine
