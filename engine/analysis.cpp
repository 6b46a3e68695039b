#include "engine/analysis.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <stdexcept>

#include "engine/fairness.hpp"
#include "engine/owcty.hpp"
#include "engine/parallel.hpp"

namespace ddsmc::engine {
namespace {

// A subgraph of the state graph: the states it keeps and the edges between
// them it keeps.
struct Subgraph {
  std::function<bool(StateId)> keep_state;
  bool stable_edges_only = false;
  Cancellation* cancel = &Cancellation::none();  // polled by every walk over it
  bool keeps(const Edge& e) const { return (!stable_edges_only || e.stable()) && keep_state(e.target); }
};

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

// What a fair cycle through an SCC has to visit: for every arc, a state with
// that channel empty or an edge serving it; maybe one non-stable edge.
struct CycleTargets {
  std::vector<StateId> states;
  std::vector<std::pair<StateId, Edge>> edges;
};

// Checks the SCC and returns the targets a witness cycle must visit, or
// nullopt when the SCC does not qualify.
std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness, bool need_unstable) {
  for (StateId s : members) in_scc[s] = 1;
  CycleTargets t;
  bool has_edge = false, has_unstable = false;
  ArcCoverage arcs(g.num_arcs(), fairness);
  for (StateId s : members) {
    sub.cancel->poll();
    for (const Edge& e : g.edges(s)) {
      if (!in_scc[e.target] || !sub.keeps(e)) continue;
      if (!has_edge) {
        has_edge = true;
        t.edges.emplace_back(s, e);
      }
      if (need_unstable && !has_unstable && !e.stable()) {
        has_unstable = true;
        t.edges.emplace_back(s, e);
      }
      if (arcs.serve(e.arc())) t.edges.emplace_back(s, e);
    }
    if (arcs.visit(g, s)) t.states.push_back(s);
  }
  for (StateId s : members) in_scc[s] = 0;
  if (!has_edge || (need_unstable && !has_unstable) || !arcs.complete()) return std::nullopt;
  return t;
}

// Paths as (states, edges); states[0] is where the path starts.
struct Path {
  std::vector<StateId> states;
  std::vector<Edge> edges;
};

// Shortest paths by BFS from a state to one satisfying `goal`, moving only
// along allowed edges. One finder serves all the searches of a lasso: its
// parent array (4 bytes per state, kNoState: not seen) is allocated once
// and reset through the queue of the last search, which holds every state
// it saw unless the search was wide enough to drop the states it had
// visited from it (then the queue holds about a BFS level, and the reset
// is a fill) (`buffer`: an array to reuse for it, such as the SCC finder's). The
// edges of a path are found again when it is built: the first allowed edge
// from a state to its child is the one the search took.
class PathFinder {
 public:
  PathFinder(const StateGraph& g, Cancellation& cancel, std::vector<StateId> buffer = {})
      : g_(g), cancel_(cancel), parent_(std::move(buffer)) {
    parent_.assign(g.num_states(), kNoState);
  }

  template <class Allowed, class Goal>
  std::optional<Path> find(StateId from, Allowed&& allowed, Goal&& goal) {
    if (goal(from)) return Path{{from}, {}};
    reset();
    parent_[from] = from;
    queue_.push_back(from);
    for (size_t head = 0; head < queue_.size(); ++head) {
      cancel_.poll();
      if (head >= kTrimFrom && 2 * head >= queue_.size()) {
        // A wide search (the stem's crosses the whole graph): keep only the
        // queue's unvisited part, and reset the parents in full next time.
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head));
        head = 0;
        trimmed_ = true;
      }
      const StateId v = queue_[head];
      for (const Edge& e : g_.edges(v)) {
        if (parent_[e.target] != kNoState || !allowed(v, e)) continue;
        parent_[e.target] = v;
        queue_.push_back(e.target);
        if (goal(e.target)) return build(from, e.target, allowed);
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kTrimFrom = size_t{1} << 16;

  void reset() {
    if (trimmed_) std::fill(parent_.begin(), parent_.end(), kNoState);
    else
      for (StateId s : queue_) parent_[s] = kNoState;
    queue_.clear();
    trimmed_ = false;
  }

  template <class Allowed>
  Path build(StateId from, StateId end, Allowed& allowed) const {
    Path p;
    for (StateId s = end; s != from; s = parent_[s]) {
      const StateId v = parent_[s];
      p.states.push_back(s);
      for (const Edge& e : g_.edges(v))
        if (e.target == s && allowed(v, e)) {
          p.edges.push_back(e);
          break;
        }
    }
    p.states.push_back(from);
    std::reverse(p.states.begin(), p.states.end());
    std::reverse(p.edges.begin(), p.edges.end());
    return p;
  }

  const StateGraph& g_;
  Cancellation& cancel_;
  std::vector<StateId> parent_;  // per state: its parent in the current search (the start: itself)
  std::vector<StateId> queue_;   // the current search's states, in BFS order (from some point on if trimmed_)
  bool trimmed_ = false;         // states left the queue: the parents to reset are not all in it
};

void append(Path& a, const Path& b) {
  // b starts where a ends.
  a.states.insert(a.states.end(), b.states.begin() + 1, b.states.end());
  a.edges.insert(a.edges.end(), b.edges.begin(), b.edges.end());
}

// The states a stem may go through: all (nullptr), or those kept.
using StemStates = const std::function<bool(StateId)>*;

// A lasso: the stem from the initial state to the SCC, then a cycle through
// every target, back to where it entered. `in_scc`: all zero, per state;
// `buffer`: an array for the path searches to reuse.
Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                  const CycleTargets& targets, StemStates stem_states, std::vector<char>& in_scc,
                  std::vector<StateId> buffer) {
  for (StateId s : members) in_scc[s] = 1;
  auto stem_allowed = [&](StateId, const Edge& e) { return !stem_states || (*stem_states)(e.target); };
  PathFinder paths(g, *sub.cancel, std::move(buffer));
  Path stem = *paths.find(0, stem_allowed, [&](StateId s) { return in_scc[s] != 0; });
  StateId entry = stem.states.back();
  auto inside = [&](StateId, const Edge& e) { return in_scc[e.target] && sub.keeps(e); };

  Path cycle{{entry}, {}};
  auto go_to_state = [&](StateId target) {
    append(cycle, *paths.find(cycle.states.back(), inside, [&](StateId s) { return s == target; }));
  };
  for (StateId s : targets.states) go_to_state(s);
  for (const auto& [src, e] : targets.edges) {
    go_to_state(src);
    cycle.states.push_back(e.target);
    cycle.edges.push_back(e);
  }
  // Close the cycle: back to the entry (with at least one edge in the cycle).
  StateId last = cycle.states.back();
  if (cycle.edges.empty() || last != entry) {
    if (last == entry) {
      // No target forced an edge: take any internal edge out of the entry.
      for (const Edge& e : g.edges(entry))
        if (inside(entry, e)) {
          cycle.states.push_back(e.target);
          cycle.edges.push_back(e);
          break;
        }
    }
    if (cycle.states.back() != entry) {
      auto back = paths.find(cycle.states.back(), inside, [&](StateId s) { return s == entry; });
      // find() with goal(from) true returns an empty path; entry != back here.
      append(cycle, *back);
    }
  }
  Lasso l;
  l.states = stem.states;
  l.edges = stem.edges;
  l.loop_start = l.states.size() - 1;
  // cycle.states = entry, ..., entry: keep all but the closing repeat.
  l.states.insert(l.states.end(), cycle.states.begin() + 1, cycle.states.end() - 1);
  l.edges.insert(l.edges.end(), cycle.edges.begin(), cycle.edges.end());
  return l;
}

// Searches the subgraph for a qualifying SCC and builds its lasso (its stem
// through `stem_states`).
// The lasso is built after the finder is done, in its memory: the peak is
// the finder's 4 bytes and a bit per state, plus 1 for in_scc.
std::optional<Lasso> search(const StateGraph& g, const Subgraph& sub, bool roots_everywhere, Fairness f,
                            bool need_unstable, StemStates stem_states) {
  std::vector<char> in_scc(g.num_states(), 0);
  std::vector<StateId> members;
  std::optional<CycleTargets> targets;
  std::vector<StateId> buffer;
  {
    SccFinder finder(g, sub);
    auto on_scc = [&](const std::vector<StateId>& scc) {
      targets = qualify(g, sub, scc, in_scc, f, need_unstable);
      if (targets) members = scc;
      return targets.has_value();
    };
    if (roots_everywhere) {
      for (StateId s = 0; s < g.num_states() && !targets; ++s) finder.run_from(s, on_scc);
    } else if (g.num_states() > 0) {
      finder.run_from(0, on_scc);
    }
    if (!targets) return std::nullopt;
    buffer = finder.release();
  }
  return build_lasso(g, sub, members, *targets, stem_states, in_scc, std::move(buffer));
}

// The lasso of a fair SCC of the subgraph, if it has one. Sequentially: one
// Tarjan over the subgraph (roots: every kept state for sometimes-*, state 0
// for always-*). In parallel: the OWCTY fixpoint Z first; Z is empty iff
// there is no fair SCC, and otherwise a source SCC of Z is one
// (docs/engine.md §10), so Tarjan runs over Z only, from every state of it.
// The stem goes anywhere for sometimes-* and through the subgraph's states
// for always-*, in both cases.
std::optional<Lasso> find_fair_scc(const StateGraph& g, const Subgraph& sub, bool roots_everywhere, Fairness f,
                                   bool need_unstable, bool parallel, AnalysisStats& stats) {
  ++stats.subgraphs;
  StemStates stem = roots_everywhere ? nullptr : &sub.keep_state;
  if (!parallel) return search(g, sub, roots_everywhere, f, need_unstable, stem);
  FairSccQuery q;
  q.keep_state = sub.keep_state;
  q.stable_edges_only = sub.stable_edges_only;
  q.roots_everywhere = roots_everywhere;
  q.fairness = f;
  q.need_unstable = need_unstable;
  OwctyResult z = owcty(g, q, *sub.cancel);
  stats.rounds += z.rounds;
  stats.passes += z.passes;
  stats.survivors += z.survivors;
  if (z.survivors == 0) return std::nullopt;
  Subgraph inside_z = sub;
  inside_z.keep_state = [&z](StateId s) { return (z.flags[s] & kSurvives) != 0; };
  auto lasso = search(g, inside_z, true, f, need_unstable, stem);
  if (!lasso) throw std::logic_error("analysis: the OWCTY fixpoint is not empty but holds no fair SCC");
  return lasso;
}

// The nodes faulty in some state (a parallel sweep, or a loop).
std::vector<char> ever_faulty_nodes(const StateGraph& g, Cancellation& cancel, bool parallel) {
  if (!parallel) {
    std::vector<char> out(g.num_nodes(), 0);
    for (StateId s = 0; s < g.num_states(); ++s) {
      cancel.poll();
      for (uint32_t n = 0; n < g.num_nodes(); ++n)
        if (g.faulty(s, n)) out[n] = 1;
    }
    return out;
  }
  std::vector<std::atomic<char>> seen(g.num_nodes());
  for (auto& x : seen) x.store(0, std::memory_order_relaxed);
  cancel.poll();
  const int slots = std::max(1, tbb::this_task_arena::max_concurrency());
  std::vector<Cancellation> polls(static_cast<size_t>(slots), cancel);
  parallel_for(StateId{0}, g.num_states(), 4096, [&](const tbb::blocked_range<StateId>& r) {
    polls.at(worker_slot()).poll();
    for (StateId s = r.begin(); s != r.end(); ++s)
      for (uint32_t n = 0; n < g.num_nodes() && g.any_faulty(s); ++n)
        if (g.faulty(s, n) && !seen[n].load(std::memory_order_relaxed)) seen[n].store(1, std::memory_order_relaxed);
  });
  std::vector<char> out(g.num_nodes());
  for (uint32_t n = 0; n < g.num_nodes(); ++n) out[n] = seen[n].load();
  return out;
}

Verdict analyze_with(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel,
                     bool parallel) {
  Verdict v;
  v.property = p;
  switch (p) {
    case Property::SometimesTotal:
    case Property::SometimesPartial: {
      // A converged suffix: stable edges only, between states meeting the
      // fault condition; every explored state is reachable.
      Subgraph sub;
      sub.cancel = &cancel;
      sub.stable_edges_only = true;
      if (p == Property::SometimesTotal)
        sub.keep_state = [&](StateId s) { return !g.any_faulty(s); };
      else
        sub.keep_state = [&](StateId s) { return !g.all_faulty(s); };
      v.lasso = find_fair_scc(g, sub, true, f, false, parallel, v.stats);
      if (v.lasso) v.holds = true;
      else if (complete) v.holds = false;
      break;
    }
    case Property::AlwaysTotal: {
      Subgraph sub;
      sub.cancel = &cancel;
      sub.keep_state = [&](StateId s) { return !g.any_faulty(s); };
      v.lasso = find_fair_scc(g, sub, false, f, true, parallel, v.stats);
      if (v.lasso) v.holds = false;
      else if (complete) v.holds = true;
      break;
    }
    case Property::AlwaysPartial: {
      // Nodes that are never faulty anywhere give the same subgraph: check it once.
      std::vector<char> ever_faulty = ever_faulty_nodes(g, cancel, parallel);
      bool checked_clean = false;
      for (uint32_t n = 0; n < g.num_nodes() && !v.lasso; ++n) {
        if (!ever_faulty[n]) {
          if (checked_clean) continue;
          checked_clean = true;
        }
        Subgraph sub;
        sub.cancel = &cancel;
        sub.keep_state = [&g, n](StateId s) { return !g.faulty(s, n); };
        v.lasso = find_fair_scc(g, sub, false, f, true, parallel, v.stats);
        if (v.lasso) v.node = n;
      }
      if (v.lasso) v.holds = false;
      else if (complete) v.holds = true;
      break;
    }
  }
  return v;
}

}  // namespace

const char* property_name(Property p) {
  switch (p) {
    case Property::SometimesTotal: return "sometimes-total";
    case Property::SometimesPartial: return "sometimes-partial";
    case Property::AlwaysTotal: return "always-total";
    case Property::AlwaysPartial: return "always-partial";
  }
  return "?";
}

const char* property_json_key(Property p) {
  switch (p) {
    case Property::SometimesTotal: return "sometimes_total";
    case Property::SometimesPartial: return "sometimes_partial";
    case Property::AlwaysTotal: return "always_total";
    case Property::AlwaysPartial: return "always_partial";
  }
  return "?";
}

Verdict analyze(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel) {
  return analyze_with(g, p, f, complete, cancel, true);
}

Verdict analyze_sequential(const StateGraph& g, Property p, Fairness f, bool complete, Cancellation& cancel) {
  return analyze_with(g, p, f, complete, cancel, false);
}

}  // namespace ddsmc::engine
