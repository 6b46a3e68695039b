// engine/quotient at the graph level: random concrete state graphs closed
// under a group of node permutations (S2 on a star's leaves, C3, S3 and D4
// on rings, the Klein four-group), their quotients by the group built as the
// exploration builds them (each representative's every concrete edge, with
// the element π that takes its target to the target's representative),
// and the four verdicts of the quotient analysis against the plain
// analysis of the concrete graph, under both fairness modes. Random graphs
// reach what whole systems rarely do: SCCs whose fairness depends on the
// permutations along their cycles, stabilisers, faults on one node of an
// orbit. Every witness and counterexample is also made concrete
// (engine/quotient_lasso, its concrete SCC explored through the concrete
// graph's rows) and checked against the concrete graph: a run from the
// initial state along its edges whose cycle serves or empties every arc
// (under channel fairness) and keeps to the property's subgraph. Under the
// Klein four-group on ring:4 a cycle's lift needs both generators: one
// covering cycle repeated would leave arcs unserved.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/analysis.hpp"
#include "engine/quotient.hpp"
#include "engine/quotient_lasso.hpp"
#include "hashing/symmetry.hpp"
#include "tests/hashing/random_states.hpp"
#include "tests/hashing/symmetry_support.hpp"

using namespace ddsmc;
using hashing::GlobalState;
using hashing::test::reflection;
using hashing::test::rotation;

namespace {

// Predicates: err/0 (the node is faulty), v/1 (a value), tok/0 (a message).
constexpr hashing::Word kErr = 0, kV = 1, kTok = 2;
constexpr uint32_t kValues = 2;

class GraphSystem : public engine::System {
 public:
  explicit GraphSystem(const hashing::NetworkShape& sh) {
    layout_.arity = {0, 1, 0};
    layout_.num_nodes = sh.num_nodes;
    layout_.num_arcs = static_cast<uint32_t>(sh.arcs.size());
    layout_.num_fixed = sh.num_fixed;
  }
  const hashing::StateLayout& layout() const override { return layout_; }
  GlobalState initial_state() const override { return {}; }
  std::optional<engine::BoundViolation> check_bounds(const GlobalState&) const override { return {}; }
  bool faulty(const GlobalState& s, uint32_t node) const override {
    return !s.dbs[node].empty() && s.dbs[node][0] == kErr;
  }
  bool may_have_fresh() const override { return false; }
  const hashing::SymmetryGroup* symmetry() const override { return group_; }
  // The steps of a state are its rows in `concrete` (set by serve()).
  std::unique_ptr<engine::Generator> generator() const override { return std::make_unique<Rows>(*this); }
  void serve(const hashing::SymmetryGroup* group, const engine::StateGraph* concrete) {
    group_ = group;
    concrete_ = concrete;
    index_.clear();
    for (engine::StateId s = 0; s < concrete->num_states(); ++s) index_.emplace(concrete->bytes(s), s);
  }
  engine::StateId id(const std::string& bytes) const { return index_.at(bytes); }

 private:
  class Rows : public engine::Generator {
   public:
    explicit Rows(const GraphSystem& sys) : sys_(sys) {}
    void successors(GlobalState& s, Sink sink) override {
      const engine::StateGraph& g = *sys_.concrete_;
      for (const engine::Edge& e : g.edges(sys_.id(hashing::encode(s, sys_.layout_)))) {
        GlobalState t;
        if (!hashing::decode(g.bytes(e.target), sys_.layout_, t)) throw std::logic_error("undecodable state");
        sink(engine::EdgeLabel{e.arc(), e.stable()}, t, engine::StepInfo{});
      }
    }
    void set_cancellation(engine::Cancellation*) override {}

   private:
    const GraphSystem& sys_;
  };
  hashing::StateLayout layout_;
  const hashing::SymmetryGroup* group_ = nullptr;
  const engine::StateGraph* concrete_ = nullptr;
  std::map<std::string, engine::StateId> index_;
};

// "" when `l` is a witness or counterexample of p in the concrete graph
// `c` (node n never faulty for always-partial): a run from state 0 along
// c's edges, back to loop_start at the end, whose cycle has an edge, keeps
// to p's subgraph, and serves or empties every arc under channel fairness.
std::string lasso_problem(const GraphSystem& sys, const engine::StateGraph& c, const engine::ConcreteLasso& l,
                          engine::Property p, engine::Fairness f, std::optional<uint32_t> n) {
  using P = engine::Property;
  if (l.states.empty() || l.edges.size() != l.states.size() || l.loop_start >= l.states.size())
    return "not a lasso";
  std::vector<engine::StateId> ids;
  for (const auto& b : l.states) ids.push_back(sys.id(b));
  if (ids[0] != 0) return "does not start at the initial state";
  const bool sometimes = p == P::SometimesTotal || p == P::SometimesPartial;
  std::vector<char> served(c.num_arcs(), 0);
  bool unstable = false;
  for (size_t i = 0; i < ids.size(); ++i) {
    const engine::StateId x = ids[i], y = ids[i + 1 < ids.size() ? i + 1 : l.loop_start];
    const engine::Edge& want = l.edges[i];
    bool found = false;
    for (const engine::Edge& e : c.edges(x)) found |= e.target == y && e.arc() == want.arc() && e.stable() == want.stable();
    if (!found) return "step " + std::to_string(i) + " is no edge of the concrete graph";
    const bool in_cycle = i >= l.loop_start;
    const bool fault = p == P::AlwaysPartial      ? c.faulty(x, *n)
                       : p == P::SometimesPartial ? c.all_faulty(x)
                                                  : c.any_faulty(x);
    if ((in_cycle || !sometimes) && fault) return "state " + std::to_string(i) + " is outside the subgraph";
    if (!in_cycle) continue;
    if (sometimes && !want.stable()) return "a non-stable edge in a witness's cycle";
    unstable |= !want.stable();
    if (want.arc() != engine::kIdleArc) served[want.arc()] = 1;
    for (uint32_t a = 0; a < c.num_arcs(); ++a) served[a] |= c.channel_empty(x, a) ? 1 : 0;
  }
  if (!sometimes && !unstable) return "a counterexample's cycle without a non-stable edge";
  for (uint32_t a = 0; f == engine::Fairness::Channel && a < c.num_arcs(); ++a)
    if (!served[a]) return "arc " + std::to_string(a) + " neither served nor empty on the cycle";
  return "";
}

// A random state: some nodes faulty, values, some channels holding a token.
GlobalState random_state(hashing::test::Rng& rng, const hashing::NetworkShape& sh, double fault_rate,
                         double token_rate) {
  GlobalState s;
  s.dbs.resize(sh.num_nodes);
  s.channels.resize(sh.arcs.size());
  for (auto& db : s.dbs) {
    if (std::bernoulli_distribution(fault_rate)(rng)) db = {kErr};
    if (std::bernoulli_distribution(0.5)(rng)) db.insert(db.end(), {kV, sh.num_nodes + hashing::test::uniform(rng, 0, kValues - 1)});
  }
  for (auto& ch : s.channels)
    if (std::bernoulli_distribution(token_rate)(rng)) ch = {kTok, 1};
  return s;
}

struct Graphs {
  engine::StateGraph concrete, quotient;
};

// A G-closed random concrete graph and its quotient. With `cycle`, the
// representatives after the initial state also form a cycle x1 -> g1(x2)
// -> ... -> gk(x1) of stable edges (so that a spanning tree of its SCC has
// depth 2 and more, where the order of composing the frames matters).
Graphs random_graphs(hashing::test::Rng& rng, const hashing::SymmetryGroup& G, const GraphSystem& sys,
                     bool cycle = false) {
  const auto& sh = G.shape();
  const auto& layout = sys.layout();
  const uint32_t arcs = layout.num_arcs;
  hashing::SymmetricCanonicalizer canon(layout, G);
  auto rep_of = [&](const GlobalState& s, uint32_t* element) {
    hashing::CanonicalForm f;
    canon.canonicalize(s, f, element);
    return f.state;
  };
  // Representatives: the initial state (G-invariant: the same at every node, no token) first.
  GlobalState s0;
  s0.dbs.assign(sh.num_nodes, {kV, sh.num_nodes});
  s0.channels.assign(arcs, {});
  const double fault_rate = std::bernoulli_distribution(0.5)(rng) ? 0.0 : 0.25;
  std::vector<GlobalState> reps{s0};
  std::set<std::string> seen{hashing::encode(s0, layout)};
  const uint32_t want = hashing::test::uniform(rng, 2, 10);
  while (reps.size() < want) {
    uint32_t e = 0;
    // (A cycle's states hold more tokens: its fairness then rests on the arcs it serves.)
    GlobalState r = rep_of(random_state(rng, sh, fault_rate, cycle ? 0.85 : 0.35), &e);
    if (seen.insert(hashing::encode(r, layout)).second) reps.push_back(r);
  }
  // Random edges out of each representative (and the cycle), then closed under G.
  std::vector<std::pair<size_t, size_t>> chain;
  if (cycle)
    for (size_t i = 1; i < reps.size(); ++i) chain.push_back({i, i + 1 < reps.size() ? i + 1 : 1});
  std::map<std::string, engine::StateId> cid;
  std::vector<GlobalState> cstates;
  auto concrete_id = [&](const GlobalState& s) {
    auto [it, added] = cid.emplace(hashing::encode(s, layout), cstates.size());
    if (added) cstates.push_back(s);
    return it->second;
  };
  for (const auto& r : reps)
    for (uint32_t h = 0; h < G.order(); ++h) {
      GlobalState m;
      hashing::permute(r, layout, G.element(h), m);
      concrete_id(m);
    }
  std::vector<std::vector<engine::Edge>> rows(cstates.size());
  // (The initial state has an edge to every representative, so that every
  // state is reachable, as the analysis assumes.)
  for (size_t xi = 0; xi < reps.size(); ++xi) {
    const GlobalState& x = reps[xi];
    const uint32_t k = xi == 0 ? static_cast<uint32_t>(reps.size()) : hashing::test::uniform(rng, 0, cycle ? 1 : 4) + (cycle ? 1 : 0);
    for (uint32_t i = 0; i < k; ++i) {
      size_t to = hashing::test::uniform(rng, 0, static_cast<uint32_t>(reps.size()) - 1);
      if (xi == 0) to = i;
      else if (cycle && i == 0) to = chain[xi - 1].second;
      GlobalState z;
      hashing::permute(reps[to], layout, G.element(hashing::test::uniform(rng, 0, static_cast<uint32_t>(G.order()) - 1)), z);
      // An idle step is a self-loop (of a state whose channels are all empty, in a system).
      const bool idle = xi != 0 && !(cycle && i == 0) && std::bernoulli_distribution(0.1)(rng);
      if (idle) z = x;
      const uint32_t b = idle ? engine::kIdleArc : hashing::test::uniform(rng, 0, arcs - 1);
      const bool stable = (cycle && i == 0 && xi != 0) || std::bernoulli_distribution(0.6)(rng);
      for (uint32_t h = 0; h < G.order(); ++h) {
        GlobalState hx, hz;
        hashing::permute(x, layout, G.element(h), hx);
        hashing::permute(z, layout, G.element(h), hz);
        rows[concrete_id(hx)].emplace_back(concrete_id(hz), idle ? b : G.element(h).arc[b], stable);
      }
    }
  }
  Graphs g{engine::StateGraph(layout), engine::StateGraph(layout, 1 << 12, arcs * static_cast<uint32_t>(G.order()))};
  for (const auto& s : cstates) g.concrete.add_state("", s, sys);
  for (engine::StateId s = 0; s < cstates.size(); ++s) {
    std::sort(rows[s].begin(), rows[s].end(),
              [](const engine::Edge& a, const engine::Edge& b) { return a.target != b.target ? a.target < b.target : a.label < b.label; });
    rows[s].erase(std::unique(rows[s].begin(), rows[s].end()), rows[s].end());
    g.concrete.set_edges(s, rows[s]);
  }
  // The quotient: each representative's concrete edges, to the target's representative with π.
  std::map<std::string, engine::StateId> qid;
  for (const auto& r : reps) qid.emplace(hashing::encode(r, layout), qid.size());
  for (const auto& r : reps) g.quotient.add_state("", r, sys);
  for (engine::StateId q = 0; q < reps.size(); ++q) {
    std::vector<engine::Edge> row;
    for (const engine::Edge& e : g.concrete.edges(cid.at(hashing::encode(reps[q], layout)))) {
      uint32_t pi = 0;
      const GlobalState r = rep_of(cstates[e.target], &pi);
      row.emplace_back(qid.at(hashing::encode(r, layout)), engine::quotient_arc(e.arc(), pi, arcs), e.stable());
    }
    std::sort(row.begin(), row.end(),
              [](const engine::Edge& a, const engine::Edge& b) { return a.target != b.target ? a.target < b.target : a.label < b.label; });
    row.erase(std::unique(row.begin(), row.end()), row.end());
    g.quotient.set_edges(q, row);
  }
  return g;
}

}  // namespace

TEST(QuotientGraph, VerdictsEqualThoseOfTheConcreteGraph) {
  struct Case {
    const char* name;
    hashing::NetworkShape shape;
    std::vector<std::vector<uint32_t>> gens;
  };
  const std::vector<Case> cases = {
      {"star, S2 on the leaves", hashing::test::shape(3, {{0, 1}, {0, 2}}, kValues), {{0, 2, 1}}},
      {"ring:3, S3", hashing::test::shape(3, {{0, 1}, {1, 2}, {2, 0}}, kValues), {rotation(3), reflection(3)}},
      {"ring:3, C3", hashing::test::shape(3, {{0, 1}, {1, 2}, {2, 0}}, kValues), {rotation(3)}},
      {"ring:4, D4", hashing::test::shape(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, kValues), {rotation(4), reflection(4)}},
      {"ring:4, Klein four", hashing::test::shape(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}, kValues), {{1, 0, 3, 2}, {3, 2, 1, 0}}},
      {"star:4, S3 on the leaves", hashing::test::shape(4, {{0, 1}, {0, 2}, {0, 3}}, kValues), {{0, 2, 1, 3}, {0, 2, 3, 1}}},
  };
  hashing::test::Rng rng(2317);
  size_t holds = 0, fails = 0, lassos = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const hashing::SymmetryGroup G = hashing::SymmetryGroup::generate(c.shape, c.gens, 100);
    GraphSystem sys(c.shape);
    for (int round = 0; round < 300; ++round) {
      Graphs g = random_graphs(rng, G, sys, round % 2 == 1);
      sys.serve(&G, &g.concrete);
      for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
        for (auto p : engine::kAllProperties) {
          const engine::Verdict want = engine::analyze_sequential(g.concrete, p, f, true);
          std::optional<engine::QuotientFinding> finding;
          const engine::Verdict got =
              engine::analyze_quotient(g.quotient, G, p, f, true, engine::Cancellation::none(), &finding);
          ASSERT_EQ(want.holds, got.holds) << engine::property_name(p) << (f == engine::Fairness::None ? " (none)" : "")
                                           << ", round " << round;
          ASSERT_EQ(want.node, got.node) << engine::property_name(p) << ", round " << round;
          ASSERT_EQ(finding.has_value(), want.lasso.has_value()) << engine::property_name(p) << ", round " << round;
          if (finding) {
            const auto l = engine::concrete_lasso(sys, g.quotient, *finding, f, engine::Cancellation::none());
            ASSERT_TRUE(l.has_value()) << engine::property_name(p) << ", round " << round;
            ASSERT_EQ(lasso_problem(sys, g.concrete, *l, p, f, got.node), "")
                << engine::property_name(p) << (f == engine::Fairness::None ? " (none)" : "") << ", round " << round;
            ++lassos;
          }
          (*want.holds == (p == engine::Property::SometimesTotal || p == engine::Property::SometimesPartial) ? holds
                                                                                                               : fails)++;
        }
    }
  }
  // Both outcomes occur often enough to mean something.
  EXPECT_GE(holds, 500u);
  EXPECT_GE(fails, 500u);
  EXPECT_GE(lassos, 1000u);
}
