// The table of the four properties (engine/properties.hpp), which
// engine::analyze and dist::analyze share: for each property, the
// subgraphs decide() hands to the search, in order (states kept, edges
// kept, roots, the non-stable edge), always-partial's nodes, and how a
// fair SCC found or not becomes the verdict. The search here is a stub
// that records what it was asked and answers as told.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/properties.hpp"
#include "tests/engine/analysis_support.hpp"

using namespace ddsmc;
using engine::Property;

namespace {

// What the search was asked: one line per subgraph.
struct Asked {
  std::string states;  // per state of the graph, '1' if kept
  bool stable_only, roots_everywhere, need_unstable;
};

// Three nodes; state 0: none faulty, 1: node 0 faulty, 2: every node faulty.
engine::StateGraph three_states() {
  return antest::build_graph(3, 1, {{{}, {}, {}}, {{0}, {}, {}}, {{0, 1, 2}, {}, {}}});
}

struct Decided {
  engine::Verdict verdict;
  std::vector<Asked> asked;
  int ever_faulty_calls = 0;
};

// decide() with a search that finds a fair SCC in the `found_at`-th
// subgraph it is asked about (-1: none), and `ever` as the ever-faulty nodes.
Decided decide_with(Property p, bool complete, int found_at, std::vector<char> ever = {1, 1, 1}) {
  const engine::StateGraph g = three_states();
  Decided r;
  auto ever_faulty = [&] {
    ++r.ever_faulty_calls;
    return ever;
  };
  auto find = [&](const engine::Subgraph& h, engine::AnalysisStats& stats, std::optional<engine::Lasso>& lasso) {
    Asked a{"", h.stable_edges_only, h.roots_everywhere, h.need_unstable};
    for (engine::StateId s = 0; s < g.num_states(); ++s) a.states += h.keep_state(s) ? '1' : '0';
    ++stats.subgraphs;
    r.asked.push_back(a);
    if (static_cast<int>(r.asked.size()) - 1 != found_at) return false;
    lasso = engine::Lasso{};
    return true;
  };
  r.verdict = engine::decide(g, p, complete, engine::Cancellation::none(), ever_faulty, find);
  return r;
}

TEST(AnalysisProperties, SometimesTakesStableEdgesFromEveryStateAndAFairSccProvesIt) {
  for (Property p : {Property::SometimesTotal, Property::SometimesPartial}) {
    const Decided found = decide_with(p, true, 0);
    ASSERT_EQ(found.asked.size(), 1u);
    EXPECT_EQ(found.asked[0].states, p == Property::SometimesTotal ? "100" : "110");
    EXPECT_TRUE(found.asked[0].stable_only);
    EXPECT_TRUE(found.asked[0].roots_everywhere);
    EXPECT_FALSE(found.asked[0].need_unstable);
    EXPECT_EQ(found.verdict.property, p);
    EXPECT_EQ(found.verdict.holds, std::optional<bool>(true));
    EXPECT_TRUE(found.verdict.lasso.has_value());
    EXPECT_EQ(found.verdict.node, std::nullopt);
    EXPECT_EQ(found.verdict.stats.subgraphs, 1u);
    EXPECT_EQ(found.ever_faulty_calls, 0);
    EXPECT_EQ(decide_with(p, true, -1).verdict.holds, std::optional<bool>(false));
    EXPECT_EQ(decide_with(p, false, -1).verdict.holds, std::nullopt);
    EXPECT_EQ(decide_with(p, false, 0).verdict.holds, std::optional<bool>(true));  // a witness on a partial graph
  }
}

TEST(AnalysisProperties, AlwaysTotalTakesEveryEdgeFromStateZeroAndAFairSccRefutesIt) {
  const Decided found = decide_with(Property::AlwaysTotal, true, 0);
  ASSERT_EQ(found.asked.size(), 1u);
  EXPECT_EQ(found.asked[0].states, "100");
  EXPECT_FALSE(found.asked[0].stable_only);
  EXPECT_FALSE(found.asked[0].roots_everywhere);
  EXPECT_TRUE(found.asked[0].need_unstable);
  EXPECT_EQ(found.verdict.holds, std::optional<bool>(false));
  EXPECT_EQ(found.verdict.node, std::nullopt);
  EXPECT_EQ(found.ever_faulty_calls, 0);
  EXPECT_EQ(decide_with(Property::AlwaysTotal, true, -1).verdict.holds, std::optional<bool>(true));
  EXPECT_EQ(decide_with(Property::AlwaysTotal, false, -1).verdict.holds, std::nullopt);
  EXPECT_EQ(decide_with(Property::AlwaysTotal, false, 0).verdict.holds, std::optional<bool>(false));
}

TEST(AnalysisProperties, AlwaysPartialTakesOneSubgraphPerNodeAndStopsAtTheFirstFairScc) {
  // Every node ever faulty: nodes 0, 1, 2 in turn; found at node 1.
  const Decided r = decide_with(Property::AlwaysPartial, true, 1);
  ASSERT_EQ(r.asked.size(), 2u);
  EXPECT_EQ(r.asked[0].states, "100");  // node 0 faulty in states 1 and 2
  EXPECT_EQ(r.asked[1].states, "110");  // node 1 faulty in state 2
  for (const Asked& a : r.asked) {
    EXPECT_FALSE(a.stable_only);
    EXPECT_FALSE(a.roots_everywhere);
    EXPECT_TRUE(a.need_unstable);
  }
  EXPECT_EQ(r.verdict.holds, std::optional<bool>(false));
  EXPECT_EQ(r.verdict.node, std::optional<uint32_t>(1));
  EXPECT_EQ(r.verdict.stats.subgraphs, 2u);
  EXPECT_EQ(r.ever_faulty_calls, 1);

  const Decided none = decide_with(Property::AlwaysPartial, true, -1);
  EXPECT_EQ(none.asked.size(), 3u);
  EXPECT_EQ(none.verdict.holds, std::optional<bool>(true));
  EXPECT_EQ(none.verdict.node, std::nullopt);
  EXPECT_EQ(decide_with(Property::AlwaysPartial, false, -1).verdict.holds, std::nullopt);
}

TEST(AnalysisProperties, AlwaysPartialExaminesTheNodesNeverFaultyOnce) {
  // Nodes 1 and 2 never faulty (as the caller says): node 0, then node 1 for both.
  const Decided r = decide_with(Property::AlwaysPartial, true, -1, {1, 0, 0});
  ASSERT_EQ(r.asked.size(), 2u);
  EXPECT_EQ(r.asked[0].states, "100");
  EXPECT_EQ(r.asked[1].states, "110");
  const Decided found = decide_with(Property::AlwaysPartial, true, 1, {0, 1, 0});
  ASSERT_EQ(found.asked.size(), 2u);  // node 0 (clean), then node 1; node 2 would be skipped
  EXPECT_EQ(found.verdict.node, std::optional<uint32_t>(1));
}

}  // namespace
