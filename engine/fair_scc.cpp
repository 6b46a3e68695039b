#include "engine/fair_scc.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "engine/lasso.hpp"
#include "engine/owcty.hpp"
#include "engine/source_scc.hpp"
#include "engine/tarjan.hpp"

namespace ddsmc::engine {
namespace {

// A property's subgraph as engine/tarjan.hpp walks it.
struct SubgraphView {
  using Vertex = StateId;
  using Cursor = EdgeCursor;
  const StateGraph& g;
  const Subgraph& sub;
  StateId size() const { return g.num_states(); }
  bool keep(StateId v) const { return sub.keep_state(v); }
  void poll() const { sub.cancel->poll(); }
  bool next(StateId v, EdgeCursor& c, StateId& w) const {
    Edge e;
    while (g.next_edge(v, c, e))
      if (sub.keeps(e)) {
        w = e.target;
        return true;
      }
    return false;
  }
};

}  // namespace

std::optional<FairScc> first_fair_scc(const StateGraph& g, const Subgraph& sub, Fairness f) {
  std::vector<char> in_scc(g.num_states(), 0);
  FairScc out;
  std::optional<CycleTargets> targets;
  const SubgraphView view{g, sub};
  Tarjan<SubgraphView, uint32_t> finder(view);
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
    const SubgraphView view{g_, in_c};
    Tarjan<SubgraphView, uint32_t> finder(view);
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
