// The parallel convergence analysis (OWCTY fixpoint, then Tarjan inside the
// survivors) against the sequential one (Tarjan over each whole subgraph),
// the tests' oracle: the same `holds` and `node` at 1, 2 and 4 threads, and
// every lasso proves its verdict (analysis_support.hpp checks it without
// the engine's code). On hand-built graphs for the edge cases of the
// proof in docs/engine.md §10, on random graphs, on every example and on
// random programs. The TSan stage of scripts/test runs the ParallelAnalysis
// suite.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>

#include "engine/analysis.hpp"
#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/explore.hpp"
#include "engine/parallel.hpp"  // DDSMC_TSAN
#include "model/load.hpp"
#include "tests/engine/analysis_support.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using antest::build_graph;
using antest::HandState;
using engine::Edge;
using engine::Fairness;
using engine::kIdleArc;
using engine::Property;

namespace {

constexpr size_t kThreadCounts[] = {1, 2, 4};
constexpr Fairness kFairness[] = {Fairness::Channel, Fairness::None};
// Under TSan every parallel loop starts its threads anew (engine/parallel.hpp):
// fewer graphs there.
#ifdef DDSMC_TSAN
constexpr int kSmallGraphs = 200, kLargeGraphs = 2;
constexpr bool kRing4 = false;
#else
constexpr int kSmallGraphs = 1500, kLargeGraphs = 12;
constexpr bool kRing4 = true;
#endif

// Every property, both fairness modes, complete or not as given: the
// parallel analysis at 1, 2 and 4 threads against the sequential one.
// Returns the first difference ("" if none).
std::string check_all(const engine::StateGraph& g, bool complete = true) {
  std::vector<engine::Verdict> seq;
  for (Fairness f : kFairness)
    for (Property p : engine::kAllProperties) seq.push_back(engine::analyze_sequential(g, p, f, complete));
  for (size_t threads : kThreadCounts) {
    std::string problem = antest::on_threads(threads, [&] {
      size_t i = 0;
      for (Fairness f : kFairness)
        for (Property p : engine::kAllProperties) {
          engine::Verdict par = engine::analyze(g, p, f, complete);
          std::string d = antest::compare_with_sequential(g, p, f, complete, seq[i++], par);
          if (!d.empty()) return d;
        }
      return std::string();
    });
    if (!problem.empty()) return std::to_string(threads) + " threads: " + problem;
  }
  return "";
}

engine::Verdict parallel(const engine::StateGraph& g, Property p, Fairness f = Fairness::Channel) {
  return antest::on_threads(2, [&] { return engine::analyze(g, p, f, true); });
}

// ---- hand-built graphs: one arc, no faults unless said so -----------------------

Edge stable(engine::StateId t, uint32_t arc = kIdleArc) { return Edge(t, arc, true); }
Edge changing(engine::StateId t, uint32_t arc = kIdleArc) { return Edge(t, arc, false); }

// 0 -> {1, 2} -> {3, 4}: the first SCC is unfair (channel 0 never empty, no
// edge serves arc 0), the second fair (3 -> 4 serves it). The fair SCC is
// reachable only through the unfair one.
TEST(ParallelAnalysis, FairSccOnlyReachableThroughAnUnfairOne) {
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {0}, {stable(1)}},
                                      {{}, {0}, {stable(2)}},
                                      {{}, {0}, {stable(1), stable(3)}},
                                      {{}, {0}, {stable(4, 0)}},
                                      {{}, {0}, {stable(3)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict v = parallel(g, Property::SometimesTotal);
  ASSERT_EQ(v.holds, true);
  EXPECT_EQ(v.lasso->states[v.lasso->loop_start] >= 3, true);
  EXPECT_EQ(v.stats.survivors, 2u);  // Z is the fair SCC
}

// The same SCCs the other way round: the fair one first, the unfair one
// below it stays in Z (it is reachable from the seeds and has
// predecessors), and Tarjan inside Z must skip it.
TEST(ParallelAnalysis, UnfairSccBelowAFairOne) {
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {0}, {stable(1)}},
                                      {{}, {0}, {stable(2, 0)}},
                                      {{}, {0}, {stable(1), stable(3)}},
                                      {{}, {0}, {stable(4)}},
                                      {{}, {0}, {stable(3)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict v = parallel(g, Property::SometimesTotal);
  ASSERT_EQ(v.holds, true);
  EXPECT_EQ(v.stats.survivors, 4u);
  EXPECT_EQ(antest::lasso_problem(g, v, Fairness::Channel), "");
}

// Channel 0 is never empty in the SCC {1, 2}: only its edge 1 -> 2, which
// serves arc 0, makes it fair.
TEST(ParallelAnalysis, FairnessOnlyFromAnEdgeSeed) {
  engine::StateGraph g = build_graph(1, 1, {{{}, {}, {stable(1)}}, {{}, {0}, {stable(2, 0)}}, {{}, {0}, {stable(1)}}});
  EXPECT_EQ(check_all(g), "");
  EXPECT_EQ(parallel(g, Property::SometimesTotal).holds, true);
}

// An edge serving arc 0 that enters the SCC {1, 2} from 0 (itself an SCC
// through its self-loop) seeds 1, but it is no edge of {1, 2}: unfair.
TEST(ParallelAnalysis, AnEdgeSeedFromOutsideTheSccDoesNotCount) {
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {0}, {stable(0), stable(1, 0)}},
                                      {{}, {0}, {stable(2)}},
                                      {{}, {0}, {stable(1)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict v = parallel(g, Property::SometimesTotal);
  EXPECT_EQ(v.holds, false);
  EXPECT_EQ(v.stats.survivors, 0u);
  EXPECT_EQ(parallel(g, Property::SometimesTotal, Fairness::None).holds, true);
}

// One-state SCCs: self-loops, idle (serving nothing) or serving the arc.
TEST(ParallelAnalysis, SelfLoops) {
  // The idle self-loop of a state whose channels are all empty: fair.
  engine::StateGraph quiet = build_graph(1, 1, {{{}, {0}, {stable(1, 0)}}, {{}, {}, {stable(1)}}});
  EXPECT_EQ(check_all(quiet), "");
  EXPECT_EQ(parallel(quiet, Property::SometimesTotal).holds, true);
  EXPECT_EQ(parallel(quiet, Property::AlwaysTotal).holds, true);  // stable: no counterexample
  // A self-loop serving arc 0 with the channel never empty: fair only
  // through the edge seed; a changing one: an always-* counterexample.
  engine::StateGraph serving = build_graph(1, 1, {{{}, {0}, {changing(1, 0)}}, {{}, {0}, {changing(1, 0)}}});
  EXPECT_EQ(check_all(serving), "");
  EXPECT_EQ(parallel(serving, Property::AlwaysTotal).holds, false);
  EXPECT_EQ(parallel(serving, Property::SometimesTotal).holds, false);  // not stable
  // An idle self-loop with the channel not empty: unfair, fair without fairness.
  engine::StateGraph stuck = build_graph(1, 1, {{{}, {0}, {changing(0)}}});
  EXPECT_EQ(check_all(stuck), "");
  EXPECT_EQ(parallel(stuck, Property::AlwaysTotal).holds, true);
  EXPECT_EQ(parallel(stuck, Property::AlwaysTotal, Fairness::None).holds, false);
}

// always-*: the fair SCC {2, 3} of the fault-free states is reachable from
// 0 only through the faulty state 1, so it is not in H's part reachable
// from 0 inside H; sometimes-* looks at every SCC of H.
TEST(ParallelAnalysis, SccUnreachableFromTheInitialStateInsideH) {
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {}, {changing(1, 0)}},
                                      {{0}, {}, {changing(2, 0)}},
                                      {{}, {}, {changing(3, 0)}},
                                      {{}, {}, {changing(2, 0), stable(3)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict always = parallel(g, Property::AlwaysTotal);
  EXPECT_EQ(always.holds, true);
  EXPECT_EQ(always.stats.survivors, 0u);
  EXPECT_EQ(parallel(g, Property::SometimesTotal).holds, true);  // the stable self-loop of 3
  // Once 1 is fault-free too, the SCC is reachable inside H: a counterexample.
  engine::StateGraph reachable = build_graph(1, 1,
                                             {{{}, {}, {changing(1, 0)}},
                                              {{}, {}, {changing(2, 0)}},
                                              {{}, {}, {changing(3, 0)}},
                                              {{}, {}, {changing(2, 0), stable(3)}}});
  EXPECT_EQ(check_all(reachable), "");
  EXPECT_EQ(parallel(reachable, Property::AlwaysTotal).holds, false);
}

// Fairness::None: no acceptance sets, the fixpoint is the elimination alone.
TEST(ParallelAnalysis, FairnessNone) {
  // A stable cycle with channel 0 full and never served, after a DAG.
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {0}, {changing(1), changing(2)}},
                                      {{}, {0}, {changing(3)}},
                                      {{}, {0}, {changing(3)}},
                                      {{}, {0}, {stable(4)}},
                                      {{}, {0}, {stable(3)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict v = parallel(g, Property::SometimesTotal, Fairness::None);
  EXPECT_EQ(v.holds, true);
  EXPECT_EQ(v.stats.rounds, 0u);
  EXPECT_EQ(v.stats.survivors, 2u);
  EXPECT_EQ(parallel(g, Property::SometimesTotal).holds, false);
  // A DAG has no cycle at all: Z empties by elimination alone.
  engine::StateGraph dag = build_graph(1, 0, {{{}, {}, {changing(1), changing(2)}}, {{}, {}, {changing(2)}}, {}});
  EXPECT_EQ(check_all(dag), "");
  EXPECT_EQ(parallel(dag, Property::SometimesTotal, Fairness::None).stats.survivors, 0u);
}

// always-*: the only fair cycle is stable (no counterexample), next to an
// unstable cycle that is unfair.
TEST(ParallelAnalysis, AlwaysNeedsAnUnstableEdgeInTheFairCycle) {
  engine::StateGraph g = build_graph(1, 1,
                                     {{{}, {}, {changing(1), changing(3)}},
                                      {{}, {}, {stable(2, 0)}},
                                      {{}, {}, {stable(1)}},
                                      {{}, {0}, {changing(4)}},
                                      {{}, {0}, {changing(3)}}});
  EXPECT_EQ(check_all(g), "");
  EXPECT_EQ(parallel(g, Property::AlwaysTotal).holds, true);
  EXPECT_EQ(parallel(g, Property::AlwaysTotal, Fairness::None).holds, false);
}

// always-partial: node 0 is faulty on one branch, node 1 on the other, node
// 2 nowhere; the counterexample's node is the first whose subgraph has a
// fair unstable cycle, as in the sequential analysis.
TEST(ParallelAnalysis, AlwaysPartialNodes) {
  engine::StateGraph g = build_graph(3, 0,
                                     {{{}, {}, {changing(1), changing(3)}},
                                      {{0}, {}, {changing(2)}},
                                      {{0}, {}, {changing(1)}},
                                      {{1}, {}, {changing(4)}},
                                      {{1}, {}, {changing(3)}}});
  EXPECT_EQ(check_all(g), "");
  engine::Verdict v = parallel(g, Property::AlwaysPartial);
  EXPECT_EQ(v.holds, false);
  EXPECT_EQ(v.node, 0u);  // H_0 holds the cycle {3, 4}
  EXPECT_EQ(v.stats.subgraphs, 1u);
  // Without that cycle, node 1's subgraph has {1, 2}, after node 0's and
  // before node 2's (the whole graph).
  engine::StateGraph later = build_graph(3, 0,
                                         {{{}, {}, {changing(1), changing(3)}},
                                          {{0}, {}, {changing(2)}},
                                          {{0}, {}, {changing(1)}},
                                          {{1}, {}, {changing(4)}},
                                          {{1}, {}, {}}});
  EXPECT_EQ(check_all(later), "");
  engine::Verdict w = parallel(later, Property::AlwaysPartial);
  EXPECT_EQ(w.node, 1u);
  EXPECT_EQ(w.stats.subgraphs, 2u);
  EXPECT_EQ(parallel(g, Property::AlwaysTotal).holds, true);
}

TEST(ParallelAnalysis, EmptyAndTinyGraphs) {
  hashing::StateLayout layout;
  layout.arity = {0};
  layout.num_nodes = 1;
  engine::StateGraph empty(layout);
  EXPECT_EQ(check_all(empty, false), "");
  EXPECT_EQ(check_all(build_graph(1, 1, {{}}), false), "");  // one state, no edge (unexpanded)
  EXPECT_EQ(check_all(build_graph(1, 1, {{{0}, {}, {changing(0)}}})), "");  // faulty initial state
}

// A stop request stops the parallel analysis; a grace lets it finish.
TEST(ParallelAnalysis, Cancellation) {
  engine::StateGraph g = build_graph(1, 1, {{{}, {}, {changing(1, 0)}}, {{}, {}, {changing(0, 0)}}});
  std::atomic<unsigned> requests{engine::Cancellation::kInterrupt};
  engine::Cancellation c(requests);
  for (Property p : engine::kAllProperties)
    EXPECT_THROW(antest::on_threads(2, [&] { return engine::analyze(g, p, Fairness::Channel, true, c); }),
                 engine::Cancelled);
  c.set_grace(std::chrono::hours(1));
  EXPECT_EQ(antest::on_threads(2, [&] { return engine::analyze(g, Property::AlwaysTotal, Fairness::Channel, true, c); })
                .holds,
            false);
  requests = engine::Cancellation::kMemoryLow;
  engine::Cancellation low(requests);
  EXPECT_THROW(antest::on_threads(2, [&] { return engine::analyze(g, Property::SometimesTotal, Fairness::Channel, true, low); }),
               engine::Cancelled);
}

// ---- random graphs ----------------------------------------------------------------

struct RandomGraphShape {
  uint32_t min_states, max_states;
  double back_edges;  // chance of each extra edge going to a state with a smaller id
};

// Every state reachable from 0 (a random tree first), then extra edges;
// random labels with a few faults, channels often full, edges often stable.
engine::StateGraph random_graph(reftest::Rng& rng, const RandomGraphShape& shape) {
  using reftest::coin;
  using reftest::uni;
  const uint32_t n = uni(rng, shape.min_states, shape.max_states);
  const uint32_t nodes = uni(rng, 1, 3), arcs = uni(rng, 0, 3);
  const double fault = coin(rng, 0.5) ? 0.0 : 0.05 * uni(rng, 1, 4), full = 0.2 * uni(rng, 0, 4);
  const double stable_rate = 0.25 * uni(rng, 0, 4);
  const uint32_t extra = uni(rng, 0, 3);
  std::vector<HandState> states(n);
  auto edge_to = [&](engine::StateId t) {
    const uint32_t arc = arcs == 0 || coin(rng, 0.2) ? kIdleArc : uni(rng, 0, arcs - 1);
    return Edge(t, arc, coin(rng, stable_rate));
  };
  for (uint32_t s = 0; s < n; ++s) {
    for (uint32_t k = 0; k < nodes; ++k)
      if (coin(rng, fault)) states[s].faulty.push_back(k);
    for (uint32_t a = 0; a < arcs; ++a)
      if (coin(rng, full)) states[s].nonempty.push_back(a);
    if (s > 0) {
      // A parent among the last few states: long chains, as BFS levels give.
      const uint32_t lo = s > 8 ? s - 8 : 0;
      states[uni(rng, lo, s - 1)].edges.push_back(edge_to(s));
    }
  }
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t k = uni(rng, 0, extra);
    for (uint32_t i = 0; i < k; ++i) {
      engine::StateId t;
      if (coin(rng, shape.back_edges)) t = uni(rng, s > 20 ? s - 20 : 0, s);
      else t = uni(rng, s, std::min(n - 1, s + 20));
      states[s].edges.push_back(edge_to(t));
    }
  }
  return build_graph(nodes, arcs, states);
}

TEST(ParallelAnalysis, SmallRandomGraphs) {
  reftest::Rng rng(2024);
  int holds_differently = 0;
  for (int i = 0; i < kSmallGraphs; ++i) {
    engine::StateGraph g = random_graph(rng, {1, 30, 0.3});
    const bool complete = reftest::coin(rng, 0.8);
    ASSERT_EQ(check_all(g, complete), "") << "graph " << i;
    // The fairness modes do not always agree: the graphs are not trivial.
    holds_differently += engine::analyze_sequential(g, Property::SometimesTotal, Fairness::Channel, true).holds !=
                         engine::analyze_sequential(g, Property::SometimesTotal, Fairness::None, true).holds;
  }
  EXPECT_GT(holds_differently, kSmallGraphs / 30);
}

// Larger graphs: many chunks per pass, the sweeps and the level lists, the
// list of Z's states, workers racing on the flags and counters.
TEST(ParallelAnalysis, LargeRandomGraphs) {
  reftest::Rng rng(77);
  for (int i = 0; i < kLargeGraphs; ++i) {
    engine::StateGraph g = random_graph(rng, {2000, 40000, i % 3 == 0 ? 0.02 : 0.3});
    ASSERT_EQ(check_all(g), "") << "graph " << i << " (" << g.num_states() << " states)";
  }
}

// ---- models ---------------------------------------------------------------------

// Every example on its own network, on ring:3 and (but under TSan) on
// ring:4 (flooding there has 784 states), up to 60,000 states.
TEST(ParallelAnalysis, Examples) {
  int checked = 0;
  for (const auto& path : test::example_files())
    for (std::optional<std::string> net : {std::optional<std::string>{}, std::optional<std::string>{"ring:3"},
                                           std::optional<std::string>{"ring:4"}}) {
      if (!kRing4 && net == "ring:4") continue;
      model::Diagnostics diag;
      model::Overrides ov;
      ov.network_spec = net;
      auto m = model::load_model(path, ov, diag);
      ASSERT_TRUE(m) << diag.format_all();
      engine::CompiledModel cm = engine::compile(*m);
      engine::ExploreOptions eo;
      eo.max_states = 60000;
      engine::ExploreResult res = engine::explore(cm, eo);
      if (res.violation) continue;  // nothing is analysed
      EXPECT_EQ(check_all(res.graph, res.complete), "") << path << " on " << net.value_or("its network");
      ++checked;
    }
  EXPECT_GE(checked, kRing4 ? 25 : 16);
}

// Random programs (the reference tests' generator), explored with on-bound
// prune under small bounds.
TEST(ParallelAnalysisPrograms, RandomPrograms) {
  reftest::Rng rng(4242);
  reftest::GenOptions opt;
  opt.min_input = opt.max_input = 1;
  opt.max_input_arity = 1;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  opt.min_rules = 3;
  opt.max_rules = 6;
  reftest::ProgramGenerator gen(rng, opt);
  const std::vector<std::string> networks{"line:1", "line:2", "line:2", "ring:3", "line:3"};
  int compared = 0, failing = 0;
  for (int attempt = 0; attempt < 2000 && compared < 300; ++attempt) {
    std::string text = reftest::coin(rng, 0.8) ? gen.generate_explore() : gen.generate();
    model::Overrides ov;
    ov.network_spec = reftest::pick(rng, networks);
    ov.state_bound = reftest::uni(rng, 1, 2);
    ov.channel_bound = reftest::uni(rng, 1, 2);
    ov.input_bound = 1;
    auto m = reftest::load_text(text, ov);
    if (!m) continue;
    engine::CompiledModel cm = engine::compile(*m);
    engine::ExploreOptions eo;
    eo.on_bound = engine::OnBound::Prune;
    eo.max_states = 3000;
    engine::ExploreResult res = engine::explore(cm, eo);
    ++compared;
    for (Fairness f : kFairness)
      failing += engine::analyze_sequential(res.graph, Property::AlwaysTotal, f, res.complete).holds == false;
    ASSERT_EQ(check_all(res.graph, res.complete), "") << "network " << *ov.network_spec << ":\n" << text;
  }
  EXPECT_GE(compared, 300);
  EXPECT_GE(failing, 30);  // counterexamples too, not only exhaustive passes
}

}  // namespace
