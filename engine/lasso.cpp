#include "engine/lasso.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/fairness.hpp"

namespace ddsmc::engine {
namespace {

// Shortest paths by BFS from a state to one satisfying `goal`, moving only
// along allowed edges. One finder serves all the searches of a lasso: its
// parent array (4 bytes per state, kNoLocal: not seen) is allocated once
// and reset through the queue of the last search, which holds every state
// it saw unless the search was wide enough to drop the states it had
// visited from it (then the queue holds about a BFS level, and the reset
// is a fill) (`buffer`: an array to reuse for it, such as the SCC finder's). The
// edges of a path are found again when it is built: the first allowed edge
// from a state to its child is the one the search took.
class PathFinder {
 public:
  PathFinder(const StateGraph& g, Cancellation& cancel, std::vector<LocalIndex> buffer = {})
      : g_(g), cancel_(cancel), parent_(std::move(buffer)) {
    parent_.assign(g.num_states(), kNoLocal);
  }

  template <class Allowed, class Goal>
  std::optional<Path> find(StateId from, Allowed&& allowed, Goal&& goal) {
    if (goal(from)) return Path{{from}, {}};
    reset();
    parent_[from] = static_cast<LocalIndex>(from);
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
        if (parent_[e.target] != kNoLocal || !allowed(v, e)) continue;
        parent_[e.target] = static_cast<LocalIndex>(v);
        queue_.push_back(e.target);
        if (goal(e.target)) return build(from, e.target, allowed);
      }
    }
    return std::nullopt;
  }

  // The stem's search (docs/engine.md §10): level by level, a state's
  // parent is the least state of the level before with an allowed edge to
  // it, and the path ends at the least goal state of the first level that
  // has one. Unlike find()'s FIFO order this rule needs no order inside a
  // level, so the distributed analysis (dist/stem.hpp) follows it too.
  template <class Allowed, class Goal>
  std::optional<Path> find_by_levels(StateId from, Allowed&& allowed, Goal&& goal) {
    if (goal(from)) return Path{{from}, {}};
    reset();
    trimmed_ = true;  // (the levels are not kept: reset by a fill)
    parent_[from] = static_cast<LocalIndex>(from);
    std::vector<StateId> level{from}, next;
    while (!level.empty()) {
      std::sort(level.begin(), level.end());
      next.clear();
      StateId found = kNoState;
      for (StateId v : level) {
        cancel_.poll();
        for (const Edge& e : g_.edges(v)) {
          if (parent_[e.target] != kNoLocal || !allowed(v, e)) continue;
          parent_[e.target] = static_cast<LocalIndex>(v);
          next.push_back(e.target);
          if (goal(e.target)) found = std::min(found, e.target);
        }
      }
      if (found != kNoState) return build(from, found, allowed);
      level.swap(next);
    }
    return std::nullopt;
  }

  // Hands the parent array back (for the next finder to reuse).
  std::vector<LocalIndex> release() { return std::move(parent_); }

 private:
  static constexpr size_t kTrimFrom = size_t{1} << 16;

  void reset() {
    if (trimmed_) std::fill(parent_.begin(), parent_.end(), kNoLocal);
    else
      for (StateId s : queue_) parent_[s] = kNoLocal;
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
  std::vector<LocalIndex> parent_;  // per state: its parent in the current search (the start: itself)
  std::vector<StateId> queue_;   // the current search's states, in BFS order (from some point on if trimmed_)
  bool trimmed_ = false;         // states left the queue: the parents to reset are not all in it
};

void append(Path& a, const Path& b) {
  // b starts where a ends.
  a.states.insert(a.states.end(), b.states.begin() + 1, b.states.end());
  a.edges.insert(a.edges.end(), b.edges.begin(), b.edges.end());
}

}  // namespace

std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness) {
  const bool need_unstable = sub.need_unstable;
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

Path build_cycle(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                 const CycleTargets& targets, StateId entry, std::vector<char>& in_scc, std::vector<LocalIndex> buffer) {
  for (StateId s : members) in_scc[s] = 1;
  PathFinder paths(g, *sub.cancel, std::move(buffer));
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
  for (StateId s : members) in_scc[s] = 0;
  return cycle;
}

Path stem_path(const StateGraph& g, StemStates stem_states, const std::vector<char>& goal, Cancellation& cancel,
               std::vector<LocalIndex>& buffer) {
  auto allowed = [&](StateId, const Edge& e) { return !stem_states || (*stem_states)(e.target); };
  PathFinder paths(g, cancel, std::move(buffer));
  auto stem = paths.find_by_levels(0, allowed, [&](StateId s) { return goal[s] != 0; });
  if (!stem) throw std::logic_error("analysis: no stem to a fair SCC");
  buffer = paths.release();
  return std::move(*stem);
}

Lasso join_lasso(const Path& stem, const Path& cycle) {
  Lasso l;
  l.states = stem.states;
  l.edges = stem.edges;
  l.loop_start = l.states.size() - 1;
  // cycle.states = entry, ..., entry: keep all but the closing repeat.
  l.states.insert(l.states.end(), cycle.states.begin() + 1, cycle.states.end() - 1);
  l.edges.insert(l.edges.end(), cycle.edges.begin(), cycle.edges.end());
  return l;
}

Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                  const CycleTargets& targets, StemStates stem_states, std::vector<char>& in_scc,
                  std::vector<LocalIndex> buffer) {
  for (StateId s : members) in_scc[s] = 1;
  Path stem = stem_path(g, stem_states, in_scc, *sub.cancel, buffer);
  for (StateId s : members) in_scc[s] = 0;
  return join_lasso(stem, build_cycle(g, sub, members, targets, stem.states.back(), in_scc, std::move(buffer)));
}

}  // namespace ddsmc::engine
