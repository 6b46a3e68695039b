// The BFS tree read back from the edges (engine/bfs_tree.hpp): for every
// state of explored examples, the path starts at the initial state, follows
// recorded edges, ends at the state and is a shortest one (its length is the
// state's distance, by a plain BFS over the same edges); with a bound cut-off,
// the path to the violating state goes through the parent the exploration
// reports and is as short as any.
#include <gtest/gtest.h>

#include <deque>

#include "engine/bfs_tree.hpp"
#include "engine/lasso.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

std::vector<uint32_t> distances(const engine::StateGraph& g) {
  std::vector<uint32_t> d(g.num_states(), 0xffffffffu);
  std::deque<engine::StateId> q{0};
  d[0] = 0;
  while (!q.empty()) {
    const engine::StateId s = q.front();
    q.pop_front();
    for (const engine::Edge& e : g.edges(s))
      if (d[e.target] == 0xffffffffu) {
        d[e.target] = d[s] + 1;
        q.push_back(e.target);
      }
  }
  return d;
}

bool has_edge(const engine::StateGraph& g, engine::StateId from, engine::StateId to) {
  for (const engine::Edge& e : g.edges(from))
    if (e.target == to) return true;
  return false;
}

std::optional<model::Model> load(const std::string& name, const std::string& network) {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = network;
  auto m = model::load_model(test::source_path("examples/" + name + ".d2c"), ov, diag);
  EXPECT_TRUE(m) << diag.format_all();
  return m;
}

TEST(BfsTree, EveryPathIsAShortestPathAlongEdges) {
  for (auto [name, net] : {std::pair{"flooding", "ring:4"}, {"leader_election", "ring:3"}, {"echo", "line:3"},
                           {"spanning_tree", "ring:3"}}) {
    auto m = load(name, net);  // (the compiled model refers to it)
    ASSERT_TRUE(m);
    engine::CompiledModel cm = engine::compile(*m);
    engine::ExploreOptions opts;
    opts.threads = 2;
    opts.on_bound = engine::OnBound::Prune;
    engine::ExploreResult res = engine::explore(cm, opts);
    ASSERT_TRUE(res.complete) << name;
    const engine::StateGraph& g = res.graph;
    const std::vector<uint32_t> dist = distances(g);
    // (every 60th state under the sanitizers, where each path costs ten times
    // as much; every 300th otherwise)
    const engine::StateId samples = test::built_with_address_sanitizer() ? 60 : 300;
    const engine::StateId step = std::max<engine::StateId>(1, g.num_states() / samples);
    for (engine::StateId s = 0; s < g.num_states(); s += step) {
      const auto path = engine::bfs_tree_path(g, s, engine::kNoState);
      ASSERT_FALSE(path.empty());
      EXPECT_EQ(path.front(), 0u) << name << " state " << s;
      EXPECT_EQ(path.back(), s) << name;
      EXPECT_EQ(path.size() - 1, dist[s]) << name << " state " << s;
      for (size_t i = 1; i < path.size(); ++i) {
        EXPECT_LT(path[i - 1], path[i]) << name << ": a BFS parent has the smaller id";
        EXPECT_TRUE(has_edge(g, path[i - 1], path[i])) << name << " state " << s << " hop " << i;
      }
    }
  }
}

// The stem rule (engine/lasso.hpp: by levels, least parent, least goal)
// over every edge is the BFS tree: the distributed bound path relies on it
// (dist/analysis.cpp), and the analysis's sometimes-* stems are its paths.
TEST(BfsTree, TheStemRuleGivesTheBfsTree) {
  for (auto [name, net] : {std::pair{"flooding", "ring:5"}, {"spanning_tree", "ring:3"}, {"leader_election", "line:2"}}) {
    auto m = load(name, net);
    ASSERT_TRUE(m);
    engine::CompiledModel cm = engine::compile(*m);
    engine::ExploreOptions opts;
    opts.threads = 2;
    opts.on_bound = engine::OnBound::Prune;
    engine::ExploreResult res = engine::explore(cm, opts);
    const engine::StateGraph& g = res.graph;
    std::vector<char> goal(g.num_states(), 0);
    auto is_goal = [&](engine::StateId s) { return goal[s] != 0; };
    std::vector<engine::LocalIndex> buffer;
    const engine::StateId step = std::max<engine::StateId>(1, g.num_states() / 100);
    for (engine::StateId s = 0; s < g.num_states(); s += step) {
      goal[s] = 1;
      const engine::Path p = engine::stem_path(g, nullptr, is_goal, engine::Cancellation::none(), buffer);
      goal[s] = 0;
      EXPECT_EQ(p.states, engine::bfs_tree_path(g, s, engine::kNoState)) << name << " state " << s;
      ASSERT_EQ(p.edges.size() + 1, p.states.size());
      for (size_t i = 0; i < p.edges.size(); ++i) EXPECT_EQ(p.edges[i].target, p.states[i + 1]);
    }
    // Two goals: the least one of the first level that has one.
    if (g.num_states() > 2) {
      const engine::StateId a = g.num_states() - 1, b = g.num_states() / 2;
      goal[a] = goal[b] = 1;
      const engine::Path p = engine::stem_path(g, nullptr, is_goal, engine::Cancellation::none(), buffer);
      EXPECT_EQ(p.states, engine::bfs_tree_path(g, std::min(a, b), engine::kNoState)) << name;
    }
  }
}

TEST(BfsTree, TheViolatingStateHangsOffItsHaltedParent) {
  // Leader election with one message per channel: the first state with two
  // on a channel (3 steps deep) stops the exploration; its parent's edges
  // are not recorded.
  model::Diagnostics diag;
  model::Overrides ov;
  ov.channel_bound = 1;
  auto m = model::load_model(test::source_path("examples/leader_election.d2c"), ov, diag);
  ASSERT_TRUE(m) << diag.format_all();
  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreOptions opts;
  opts.on_bound = engine::OnBound::Stop;
  engine::ExploreResult res = engine::explore(cm, opts);
  ASSERT_FALSE(res.complete);
  ASSERT_EQ(res.incomplete_reason, "bound");
  ASSERT_NE(res.violating_state, engine::kNoState);
  ASSERT_NE(res.violating_parent, engine::kNoState);
  EXPECT_FALSE(has_edge(res.graph, res.violating_parent, res.violating_state)) << "the halted source keeps no edges";
  const auto path = engine::bfs_tree_path(res.graph, res.violating_state, res.violating_parent);
  ASSERT_EQ(path.size(), 4u) << "the shortest bound trace has 3 steps";
  EXPECT_EQ(path[path.size() - 2], res.violating_parent);
  const std::vector<uint32_t> dist = distances(res.graph);
  EXPECT_EQ(path.size() - 2, dist[res.violating_parent]) << "a shortest path to the parent";
  // Without the parent it is not found: the parent's edges were not kept.
  EXPECT_THROW(engine::bfs_tree_path(res.graph, res.violating_state, engine::kNoState), std::logic_error);
}

}  // namespace
