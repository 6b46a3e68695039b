#include "engine/lasso.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/cycle_targets.hpp"

namespace ddsmc::engine {
namespace {

// Shortest paths by levels from a state to one satisfying `goal`, moving
// only along allowed edges (docs/engine.md §10): a state's parent is the
// least state of the level before with an allowed edge to it, and the path
// ends at the least goal state of the first level that has one. The rule
// needs no order inside a level, so the distributed analysis
// (dist/level_path.hpp) follows it too. One finder serves all the searches
// of a lasso: its parent array (4 bytes per state, kNoLocal: not seen;
// `buffer`: an array to reuse for it) is reset between searches through
// the states the last one saw (a fill when they were many). The edges of a
// path are found again when it is built: the first allowed edge in the
// parent's row to the child (rows are sorted by target, then label).
class PathFinder {
 public:
  PathFinder(const StateGraph& g, Cancellation& cancel, std::vector<LocalIndex> buffer = {})
      : g_(g), cancel_(cancel), parent_(std::move(buffer)) {
    parent_.assign(g.num_states(), kNoLocal);
  }

  template <class Allowed, class Goal>
  std::optional<Path> find_by_levels(StateId from, Allowed&& allowed, Goal&& goal) {
    if (goal(from)) return Path{{from}, {}};
    reset();
    parent_[from] = static_cast<LocalIndex>(from);
    seen_.push_back(from);
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
      note_seen(next);
      if (found != kNoState) return build(from, found, allowed);
      level.swap(next);
    }
    return std::nullopt;
  }

  // Hands the parent array back (for the next finder to reuse).
  std::vector<LocalIndex> release() { return std::move(parent_); }

 private:
  static constexpr size_t kFillFrom = size_t{1} << 16;

  void note_seen(const std::vector<StateId>& level) {
    if (seen_.size() + level.size() > kFillFrom) {
      filled_ = true;
      seen_.clear();
    }
    if (!filled_) seen_.insert(seen_.end(), level.begin(), level.end());
  }
  void reset() {
    if (filled_) std::fill(parent_.begin(), parent_.end(), kNoLocal);
    else
      for (StateId s : seen_) parent_[s] = kNoLocal;
    seen_.clear();
    filled_ = false;
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
  std::vector<StateId> seen_;       // the states the current search set a parent of, unless filled_
  bool filled_ = false;             // too many to list: reset by a fill
};

}  // namespace

std::optional<CycleTargets> qualify(const StateGraph& g, const Subgraph& sub, const std::vector<StateId>& members,
                                    std::vector<char>& in_scc, Fairness fairness) {
  for (StateId s : members) in_scc[s] = 1;
  TargetCollector targets(g.num_arcs(), fairness, sub.need_unstable);
  for (StateId s : members) {
    sub.cancel->poll();
    collect_targets(g, sub, s, [&](StateId t) { return in_scc[t] != 0; }, targets);
  }
  for (StateId s : members) in_scc[s] = 0;
  return targets.targets();
}

Path build_cycle(const StateGraph& g, const Subgraph& sub, const StatePredicate& in_scc, const CycleTargets& targets,
                 StateId entry, std::vector<LocalIndex> buffer) {
  PathFinder paths(g, *sub.cancel, std::move(buffer));
  auto inside = [&](StateId, const Edge& e) { return sub.kind_kept(e) && in_scc(e.target); };
  return cycle_through(targets, entry, [&](StateId from, StateId to) {
    return *paths.find_by_levels(from, inside, [&](StateId s) { return s == to; });
  });
}

Path stem_path(const StateGraph& g, StemStates stem_states, const StatePredicate& goal, Cancellation& cancel,
               std::vector<LocalIndex>& buffer) {
  auto allowed = [&](StateId, const Edge& e) { return !stem_states || (*stem_states)(e.target); };
  PathFinder paths(g, cancel, std::move(buffer));
  auto stem = paths.find_by_levels(0, allowed, goal);
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

Lasso build_lasso(const StateGraph& g, const Subgraph& sub, const StatePredicate& in_scc, const CycleTargets& targets,
                  StemStates stem_states, std::vector<LocalIndex> buffer) {
  Path stem = stem_path(g, stem_states, in_scc, *sub.cancel, buffer);
  return join_lasso(stem, build_cycle(g, sub, in_scc, targets, stem.states.back(), std::move(buffer)));
}

}  // namespace ddsmc::engine
