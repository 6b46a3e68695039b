// For the analysis tests: state graphs built by hand (any labels, any
// edges, no model behind them), an independent check that a verdict's lasso
// proves it, and running a call on a given number of threads.
#pragma once

#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/state_graph.hpp"
#include "engine/system.hpp"
#include "engine/workers.hpp"

namespace ddsmc::antest {

using engine::Edge;
using engine::StateGraph;
using engine::StateId;

// A state of a hand-built graph: its labels and its edges.
struct HandState {
  std::vector<uint32_t> faulty;     // the faulty nodes
  std::vector<uint32_t> nonempty;   // the arcs whose channel holds something
  std::vector<Edge> edges;
};

// A System that only labels states: node n is faulty iff its DB holds a
// fact, a channel is empty iff it is. Builds graphs, generates nothing.
class LabelSystem : public engine::System {
 public:
  LabelSystem(uint32_t nodes, uint32_t arcs) {
    layout_.arity = {0};  // one predicate, m/0
    layout_.num_nodes = nodes;
    layout_.num_arcs = arcs;
  }
  const hashing::StateLayout& layout() const override { return layout_; }
  hashing::GlobalState initial_state() const override { return state_of({}); }
  std::optional<engine::BoundViolation> check_bounds(const hashing::GlobalState&) const override { return {}; }
  bool faulty(const hashing::GlobalState& s, uint32_t node) const override { return !s.dbs[node].empty(); }
  bool may_have_fresh() const override { return false; }
  std::unique_ptr<engine::Generator> generator() const override { return nullptr; }

  hashing::GlobalState state_of(const HandState& h) const {
    hashing::GlobalState s;
    s.dbs.resize(layout_.num_nodes);
    s.channels.resize(layout_.num_arcs);
    for (uint32_t n : h.faulty) s.dbs[n] = {0};
    for (uint32_t a : h.nonempty) s.channels[a] = {0, 1};
    return s;
  }

 private:
  hashing::StateLayout layout_;
};

inline StateGraph build_graph(uint32_t nodes, uint32_t arcs, const std::vector<HandState>& states) {
  LabelSystem system(nodes, arcs);
  StateGraph g(system.layout());
  for (size_t i = 0; i < states.size(); ++i)
    g.add_state({}, system.state_of(states[i]), system);
  for (size_t i = 0; i < states.size(); ++i) {
    std::vector<Edge> edges = states[i].edges;
    std::sort(edges.begin(), edges.end(),
              [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    g.set_edges(static_cast<StateId>(i), edges);
  }
  return g;
}

// The states of the subgraph H of a property (for always-partial, of the
// verdict's node).
inline bool kept(const StateGraph& g, const engine::Verdict& v, StateId s) {
  switch (v.property) {
    case engine::Property::SometimesTotal:
    case engine::Property::AlwaysTotal: return !g.any_faulty(s);
    case engine::Property::SometimesPartial: return !g.all_faulty(s);
    case engine::Property::AlwaysPartial: return v.node && !g.faulty(s, *v.node);
  }
  return false;
}

// "" when the verdict's lasso proves it on g (docs/reference.md §4.4): it starts at
// the initial state and follows edges of g; its cycle is not empty and
// stays in H (sometimes-*: kept states, stable edges; always-*: kept
// states, the stem too, and a non-stable edge); under channel fairness,
// for every arc some state of the cycle has that channel empty or some
// edge of it serves that arc. Written without the engine's ArcCoverage.
inline std::string lasso_problem(const StateGraph& g, const engine::Verdict& v, engine::Fairness f) {
  if (!v.lasso) return "no lasso";
  const engine::Lasso& l = *v.lasso;
  const bool always = v.property == engine::Property::AlwaysTotal || v.property == engine::Property::AlwaysPartial;
  if (l.states.empty() || l.states[0] != 0) return "does not start at the initial state";
  if (l.edges.size() != l.states.size()) return "not one edge per state";
  if (l.loop_start >= l.states.size()) return "no cycle";
  if ((v.property == engine::Property::AlwaysPartial) != v.node.has_value()) return "node given or missing";
  for (size_t i = 0; i < l.states.size(); ++i) {
    const StateId from = l.states[i], to = i + 1 < l.states.size() ? l.states[i + 1] : l.states[l.loop_start];
    const Edge& e = l.edges[i];
    if (from >= g.num_states() || to >= g.num_states()) return "state out of range at " + std::to_string(i);
    if (e.target != to) return "edge " + std::to_string(i) + " does not lead to the next state";
    bool found = false;
    for (const Edge& x : g.edges(from)) found |= x == e;
    if (!found) return "edge " + std::to_string(i) + " is not an edge of the graph";
    const bool in_cycle = i >= l.loop_start;
    if ((in_cycle || always) && !kept(g, v, from)) return "state " + std::to_string(from) + " is not in H";
    if (in_cycle && !always && !e.stable()) return "non-stable edge in a sometimes-* cycle";
  }
  if (always) {
    bool unstable = false;
    for (size_t i = l.loop_start; i < l.edges.size(); ++i) unstable |= !l.edges[i].stable();
    if (!unstable) return "no non-stable edge in the always-* cycle";
  }
  if (f == engine::Fairness::Channel)
    for (uint32_t a = 0; a < g.num_arcs(); ++a) {
      bool covered = false;
      for (size_t i = l.loop_start; i < l.states.size() && !covered; ++i)
        covered = g.channel_empty(l.states[i], a) || l.edges[i].arc() == a;
      if (!covered) return "arc " + std::to_string(a) + " neither empty nor served in the cycle";
    }
  return "";
}

// Runs f() on an arena of `threads` slots, TBB allowed that many workers.
template <class F>
auto on_threads(size_t threads, F&& f) {
  engine::WorkerPool pool(threads);
  tbb::task_arena arena(static_cast<int>(threads));
  return arena.execute(f);
}

// The sequential verdict and the parallel one at `threads` threads agree
// (holds, node, whether there is a lasso) and the parallel lasso proves
// its verdict: "" or what is wrong.
inline std::string compare_with_sequential(const StateGraph& g, engine::Property p, engine::Fairness f, bool complete,
                                           const engine::Verdict& seq, const engine::Verdict& par) {
  auto show = [](const std::optional<bool>& h) { return !h ? std::string("undecided") : *h ? "holds" : "fails"; };
  std::string what = std::string(engine::property_name(p)) +
                     (f == engine::Fairness::None ? " (fairness none)" : "") + (complete ? "" : " (incomplete)");
  if (seq.holds != par.holds) return what + ": sequential " + show(seq.holds) + ", parallel " + show(par.holds);
  if (seq.node != par.node) return what + ": another node";
  if (seq.lasso.has_value() != par.lasso.has_value()) return what + ": a lasso in one only";
  if (par.lasso) {
    std::string problem = lasso_problem(g, par, f);
    if (!problem.empty()) return what + ": parallel lasso: " + problem;
  }
  if (seq.lasso) {
    std::string problem = lasso_problem(g, seq, f);
    if (!problem.empty()) return what + ": sequential lasso: " + problem;
  }
  return "";
}

}  // namespace ddsmc::antest
