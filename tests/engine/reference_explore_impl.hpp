// A naive reference for the state space (docs/reference.md §3): the initial
// state, the state and channel bounds, every input DB, the successors of a
// global state and a breadth-first exploration that identifies states with
// hashing::canonicalize_brute_force (the least encoding over every
// permutation of the fresh constants), never the real Canonicalizer.
// Header-only, slow by design: small systems only.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/state_graph.hpp"
#include "engine/d2c/step.hpp"
#include "engine/d2c/successors.hpp"
#include "engine/d2c/system.hpp"
#include "hashing/canonical.hpp"
#include "hashing/state.hpp"
#include "tests/engine/reference_step_impl.hpp"
#include "tests/engine/reference_support.hpp"

namespace ddsmc::reftest {

using hashing::GlobalState;
using hashing::StateLayout;

// ---- channels as multisets ------------------------------------------------------

using Multiset = std::map<Fact, uint32_t>;

inline Multiset channel_multiset(const std::vector<Word>& ch, const StateLayout& layout) {
  Multiset out;
  for (size_t i = 0; i < ch.size();) {
    Fact f{ch[i], {}};
    uint32_t arity = layout.arity[ch[i]];
    f.args.assign(ch.begin() + i + 1, ch.begin() + i + 1 + arity);
    out[f] += ch[i + 1 + arity];
    i += 2 + arity;
  }
  return out;
}

inline std::vector<Word> channel_words(const Multiset& ms) {
  std::vector<Word> out;
  for (const auto& [f, n] : ms) {
    if (n == 0) continue;
    out.push_back(f.pred);
    out.insert(out.end(), f.args.begin(), f.args.end());
    out.push_back(n);
  }
  return out;
}

// The arc from s to d in the network's arc numbering, if there is one.
inline std::optional<uint32_t> ref_arc(const model::Model& m, NodeId s, NodeId d) {
  const auto& arcs = m.network.arcs();
  for (uint32_t a = 0; a < arcs.size(); ++a)
    if (arcs[a].src == s && arcs[a].dst == d) return a;
  return std::nullopt;
}

// ---- initial state and bounds -------------------------------------------------------

// Every node: its init facts (built-ins are implied, not stored); every
// self-loop: one `start`; every other channel empty.
inline GlobalState ref_initial_state(const model::Model& m) {
  GlobalState s;
  s.dbs.resize(m.network.num_nodes());
  s.channels.resize(m.network.num_arcs());
  for (NodeId n = 0; n < m.network.num_nodes(); ++n) {
    std::set<Fact> db;
    for (const Fact& f : m.init_facts[n])
      if (f.pred != model::kMyName && f.pred != model::kNeighbor) db.insert(f);
    s.dbs[n] = to_words(db);
    s.channels[*ref_arc(m, n, n)] = channel_words(Multiset{{Fact{model::kStart, {}}, 1}});
  }
  return s;
}

// docs/reference.md §3.8: more distinct constants in a DB (built-ins are
// not stored) than `state`, or more payloads in a channel than `channel`.
inline bool ref_exceeds_bounds(const GlobalState& s, const model::Model& m, const StateLayout& layout) {
  if (m.bounds.state)
    for (const auto& db : s.dbs) {
      std::set<ConstId> consts;
      for (const Fact& f : to_facts(db, layout)) consts.insert(f.args.begin(), f.args.end());
      if (consts.size() > *m.bounds.state) return true;
    }
  if (m.bounds.channel)
    for (const auto& ch : s.channels) {
      uint64_t total = 0;
      for (const auto& [f, n] : channel_multiset(ch, layout)) total += n;
      if (total > *m.bounds.channel) return true;
    }
  return false;
}

// ---- inputs ---------------------------------------------------------------------------

// Every constant of a state (fixed or fresh).
inline std::set<ConstId> state_constants(const GlobalState& s, const StateLayout& layout) {
  std::set<ConstId> out;
  for (const auto& db : s.dbs)
    for (const Fact& f : to_facts(db, layout)) out.insert(f.args.begin(), f.args.end());
  for (const auto& ch : s.channels)
    for (const auto& [f, n] : channel_multiset(ch, layout)) out.insert(f.args.begin(), f.args.end());
  return out;
}

// ALL input DBs of docs/reference.md §3.5, naively: every set of at most
// `input` facts of the input predicates over the fixed constants, the state's
// constants and input*maxarity new ids (enough for any pattern of equalities
// among new constants). The empty DB first.
inline std::vector<std::set<Fact>> ref_input_dbs(const model::Model& m, const StateLayout& layout,
                                                 const GlobalState& s) {
  std::vector<std::set<Fact>> out{{}};
  const uint32_t bound = m.bounds.input;
  std::vector<PredId> preds;
  uint32_t max_arity = 0;
  for (PredId p = 0; p < m.preds.size(); ++p)
    if (m.preds[p].kind == model::PredKind::Input) preds.push_back(p), max_arity = std::max(max_arity, m.preds[p].arity);
  if (bound == 0 || preds.empty()) return out;
  std::set<ConstId> dom;
  for (ConstId c = 0; c < layout.num_fixed; ++c) dom.insert(c);
  std::set<ConstId> sc = state_constants(s, layout);
  dom.insert(sc.begin(), sc.end());
  ConstId next = layout.num_fixed;
  if (!sc.empty()) next = std::max<ConstId>(next, *sc.rbegin() + 1);
  for (uint32_t k = 0; k < bound * max_arity; ++k) dom.insert(next + k);
  std::vector<ConstId> d(dom.begin(), dom.end());
  std::vector<Fact> facts;
  for (PredId p : preds) {
    uint32_t a = m.preds[p].arity;
    std::vector<size_t> idx(a, 0);
    while (true) {
      Fact f{p, {}};
      for (size_t i : idx) f.args.push_back(d[i]);
      facts.push_back(f);
      size_t k = 0;
      while (k < a && ++idx[k] == d.size()) idx[k++] = 0;
      if (k == a) break;
    }
  }
  std::function<void(size_t, std::set<Fact>&)> rec = [&](size_t from, std::set<Fact>& cur) {
    if (cur.size() == bound) return;
    for (size_t i = from; i < facts.size(); ++i) {
      cur.insert(facts[i]);
      out.push_back(cur);
      rec(i + 1, cur);
      cur.erase(facts[i]);
    }
  };
  std::set<Fact> cur;
  rec(0, cur);
  return out;
}

// ---- successors -----------------------------------------------------------------------

struct RefSucc {
  GlobalState state;
  uint32_t arc = engine::kIdleArc;
  bool stable = true;
};

// Which step function the naive successor function calls.
enum class StepImpl { Reference, Engine };

// Every step of docs/reference.md §3.3 from s: a non-empty channel, one distinct
// payload, every input DB, every outcome; or the idle self-loop.
class RefSuccessors {
 public:
  RefSuccessors(const engine::CompiledModel& cm, StepImpl impl) : cm_(cm), m_(*cm.model), impl_(impl), ev_(cm) {}

  std::vector<RefSucc> operator()(const GlobalState& s) {
    const StateLayout& layout = cm_.layout;
    std::vector<RefSucc> out;
    const auto inputs = ref_input_dbs(m_, layout, s);
    const auto& arcs = m_.network.arcs();
    for (uint32_t a = 0; a < arcs.size(); ++a) {
      Multiset ch = channel_multiset(s.channels[a], layout);
      for (const auto& [payload, count] : ch) {
        for (const auto& input : inputs) {
          RefStepInput in;
          in.node = arcs[a].dst;
          in.db = to_facts(s.dbs[in.node], layout);
          in.msg_src = arcs[a].src;
          in.msg = payload;
          in.input = input;
          std::set<RefOutcome> outcomes =
              impl_ == StepImpl::Reference ? reference_step(m_, in) : engine_step(cm_, ev_, in).outcomes;
          for (const RefOutcome& o : outcomes) {
            RefSucc r;
            r.state = s;
            r.arc = a;
            r.stable = o.db == in.db;
            r.state.dbs[in.node] = to_words(o.db);
            std::vector<Multiset> chans;
            for (const auto& c : s.channels) chans.push_back(channel_multiset(c, layout));
            --chans[a][payload];
            for (const RefMessage& msg : o.sent) {
              NodeId dest = 0;
              for (NodeId k = 0; k < m_.node_const.size(); ++k)
                if (m_.node_const[k] == msg.dest) dest = k;
              auto out_arc = ref_arc(m_, in.node, dest);
              if (!out_arc) throw std::logic_error("a sent message has no arc");
              ++chans[*out_arc][msg.fact];
            }
            for (size_t k = 0; k < chans.size(); ++k) r.state.channels[k] = channel_words(chans[k]);
            out.push_back(std::move(r));
          }
        }
      }
    }
    bool all_empty = std::all_of(s.channels.begin(), s.channels.end(), [](const auto& c) { return c.empty(); });
    if (all_empty) out.push_back(RefSucc{s, engine::kIdleArc, true});  // the system is serial
    return out;
  }

 private:
  const engine::CompiledModel& cm_;
  const model::Model& m_;
  StepImpl impl_;
  engine::StepEvaluator ev_;
};

// The successors from engine::SuccessorGenerator, in the same shape. The
// generator edits its argument in place; that it restores it exactly (to
// the byte) is checked here, on every state the differential tests expand.
inline std::vector<RefSucc> engine_successors(engine::SuccessorGenerator& gen, const GlobalState& s) {
  std::vector<RefSucc> out;
  GlobalState edited = s;
  gen.successors(edited, [&](const engine::EdgeLabel& l, const GlobalState& succ, const engine::StepDetail&) {
    out.push_back(RefSucc{succ, l.arc, l.stable});
  });
  if (edited != s) throw std::logic_error("SuccessorGenerator::successors did not restore the state it expanded");
  return out;
}

// The fixed constants of docs/reference.md §3.7, computed from the model: node
// names, constants written in the program, constants in init blocks.
inline std::set<ConstId> spec_fixed_constants(const model::Model& m) {
  std::set<ConstId> out(m.node_const.begin(), m.node_const.end());
  auto add = [&](const model::RTerm& t) {
    if (!t.is_var) out.insert(t.id);
  };
  for (const auto& r : m.rules) {
    for (const auto& t : r.head.args) add(t);
    if (r.head.at) add(*r.head.at);
    for (const auto& lit : r.body) {
      for (const auto& t : lit.atom.args) add(t);
      if (lit.atom.at) add(*lit.atom.at);
    }
    for (const auto& c : r.constraints) add(c.lhs), add(c.rhs);
  }
  for (const auto& facts : m.init_facts)
    for (const Fact& f : facts) out.insert(f.args.begin(), f.args.end());
  return out;
}

// ---- exploration --------------------------------------------------------------------------

struct RefEdge {
  uint32_t src, dst, arc;
  bool stable;
  friend auto operator<=>(const RefEdge&, const RefEdge&) = default;
};

// (the reference numbers its states with its own 32-bit ids)
inline constexpr uint32_t kNoParent = 0xffffffffu;

struct RefGraph {
  bool complete = false;
  std::string why_incomplete;           // "initial state out of bounds", "max states", "too many fresh constants"
  std::vector<std::string> bytes;       // canonical (brute-force) encoding per state, BFS order
  std::vector<GlobalState> states;      // the canonical representatives
  std::vector<uint32_t> parent;
  std::vector<uint32_t> depth;          // BFS depth
  std::set<uint32_t> cut_from;          // states with a successor over a bound (pruned)
  std::map<std::string, uint32_t> index;
  std::set<RefEdge> edges;              // distinct (source class, target class, arc, stable)
};

inline uint32_t fresh_count(const GlobalState& s, const StateLayout& layout) {
  return static_cast<uint32_t>(hashing::fresh_constants(s, layout).size());
}

// BFS over classes; successors of a class are computed on its brute-force
// canonical representative; successors over a bound are cut (on-bound prune).
inline RefGraph ref_explore(const engine::CompiledModel& cm, const std::function<std::vector<RefSucc>(const GlobalState&)>& succ,
                            uint32_t max_states, uint32_t max_fresh = 6) {
  const StateLayout& layout = cm.layout;
  const model::Model& m = *cm.model;
  RefGraph g;
  auto add = [&](const GlobalState& s, uint32_t parent) -> std::optional<uint32_t> {
    if (fresh_count(s, layout) > max_fresh) return std::nullopt;
    hashing::CanonicalForm cf = hashing::canonicalize_brute_force(s, layout);
    auto [it, fresh] = g.index.try_emplace(cf.bytes, static_cast<uint32_t>(g.bytes.size()));
    if (fresh) {
      g.bytes.push_back(cf.bytes);
      g.states.push_back(cf.state);
      g.parent.push_back(parent);
      g.depth.push_back(parent == kNoParent ? 0 : g.depth[parent] + 1);
    }
    return it->second;
  };
  GlobalState init = ref_initial_state(m);
  if (ref_exceeds_bounds(init, m, layout)) {
    g.why_incomplete = "initial state out of bounds";
    return g;
  }
  if (!add(init, kNoParent)) {
    g.why_incomplete = "too many fresh constants";
    return g;
  }
  for (uint32_t id = 0; id < g.states.size(); ++id) {
    if (g.states.size() > max_states) {
      g.why_incomplete = "max states";
      return g;
    }
    GlobalState cur = g.states[id];
    for (const RefSucc& r : succ(cur)) {
      if (ref_exceeds_bounds(r.state, m, layout)) {
        g.cut_from.insert(id);
        continue;
      }
      auto t = add(r.state, id);
      if (!t) {
        g.why_incomplete = "too many fresh constants";
        return g;
      }
      g.edges.insert(RefEdge{id, *t, r.arc, r.stable});
    }
  }
  g.complete = true;
  return g;
}

// The reference graph as an engine::StateGraph, for engine::analyze.
inline engine::StateGraph to_state_graph(const RefGraph& g, const engine::CompiledModel& cm) {
  engine::StateGraph sg(cm.layout);
  const engine::D2cSystem system(cm);  // its fault labels: `error` in a node's DB
  for (uint32_t i = 0; i < g.states.size(); ++i) sg.add_state(g.bytes[i], g.states[i], system);
  std::vector<std::vector<engine::Edge>> out(g.states.size());
  for (const RefEdge& e : g.edges) out[e.src].push_back(engine::Edge{e.dst, e.arc, e.stable});
  for (uint32_t i = 0; i < g.states.size(); ++i) sg.set_edges(i, out[i]);
  return sg;
}

}  // namespace ddsmc::reftest
