// engine::Cancellation: a stop request reaches every phase that can run
// long (the join of one step, the exploration, the analysis, lifting,
// simulation), the phases that keep partial results (explore, simulate)
// return them, and a grace period lets the analysis finish.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "engine/analysis.hpp"
#include "engine/cancel.hpp"
#include "engine/d2c/system.hpp"
#include "engine/d2c/simulate.hpp"
#include "engine/d2c/step.hpp"
#include "engine/d2c/successors.hpp"
#include "engine/d2c/trace.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using engine::Cancellation;
using engine::Cancelled;
using engine::StopReason;

namespace {

model::Model load_text(const std::string& text) {
  model::Diagnostics diag("test.d2c");
  auto m = model::load_model_text(text, "test.d2c", {}, diag);
  EXPECT_TRUE(m) << diag.format_all();
  return std::move(*m);
}

model::Model load_example(const std::string& name) {
  model::Diagnostics diag(name);
  auto m = model::load_model(test::source_path("examples/" + name + ".d2c"), {}, diag);
  EXPECT_TRUE(m) << diag.format_all();
  return std::move(*m);
}

// The first step's join enumerates n^4 substitutions and derives nothing.
std::string quartic_join_model(int n) {
  std::string facts;
  for (int i = 0; i < n; ++i) facts += "e(" + std::to_string(i) + "). ";
  return "state e/1, big/0.\nnetwork { a. }\ninit { " + facts +
         "}\nbig if prev e(X), prev e(Y), prev e(Z), prev e(W), W = X, W != X.\n";
}

StopReason reason_of(Cancellation& c) {
  try {
    c.poll();
  } catch (const Cancelled& e) {
    return e.reason();
  }
  return StopReason::None;
}

TEST(Cancellation, StopsOnlyWhenAsked) {
  std::atomic<unsigned> requests{0};
  Cancellation c(requests);
  for (int i = 0; i < 10000; ++i) EXPECT_EQ(reason_of(c), StopReason::None);
  requests = Cancellation::kInterrupt;
  EXPECT_EQ(reason_of(c), StopReason::Interrupted);
  requests = Cancellation::kMemoryLow;
  EXPECT_EQ(reason_of(c), StopReason::OutOfMemory);
  EXPECT_EQ(reason_of(Cancellation::none()), StopReason::None);
  EXPECT_STREQ(engine::stop_reason_name(StopReason::Interrupted), "interrupted");
  EXPECT_STREQ(engine::stop_reason_name(StopReason::OutOfMemory), "out-of-memory");
}

TEST(Cancellation, GraceDelaysAnInterruptButNotAMemoryStop) {
  std::atomic<unsigned> requests{Cancellation::kInterrupt};
  Cancellation c(requests);
  c.set_grace(std::chrono::hours(1));
  for (int i = 0; i < 100000; ++i) ASSERT_EQ(reason_of(c), StopReason::None) << "poll " << i;
  requests |= Cancellation::kMemoryLow;
  EXPECT_EQ(reason_of(c), StopReason::OutOfMemory);

  std::atomic<unsigned> interrupt{Cancellation::kInterrupt};
  Cancellation short_grace(interrupt);
  short_grace.set_grace(std::chrono::milliseconds(1));
  // Once the grace is over the next clock reading stops it (bounded loop).
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  StopReason r = StopReason::None;
  while (r == StopReason::None && std::chrono::steady_clock::now() < give_up) r = reason_of(short_grace);
  EXPECT_EQ(r, StopReason::Interrupted);
}

TEST(Cancellation, ReachesInsideOneStep) {
  // 60^4 = 1.3e7 join steps: short enough to finish if nothing polls.
  model::Model m = load_text(quartic_join_model(60));
  engine::CompiledModel cm = engine::compile(m);
  engine::StepEvaluator eval(cm);
  std::atomic<unsigned> requests{Cancellation::kInterrupt};
  Cancellation c(requests);
  eval.set_cancellation(&c);
  hashing::GlobalState s = engine::initial_state(cm);
  engine::Word start = model::kStart;
  std::vector<engine::Word> no_input;
  engine::StepInput in{0, &s.dbs[0], 0, &start, &no_input};
  EXPECT_THROW(eval.evaluate(in, [](const engine::StepResult&) {}), Cancelled);
  requests = 0;
  int outcomes = 0;
  eval.evaluate(in, [&](const engine::StepResult&) { ++outcomes; });
  EXPECT_EQ(outcomes, 1);
}

TEST(Cancellation, ExploreKeepsWhatItFound) {
  model::Model m = load_example("flooding");
  engine::CompiledModel cm = engine::compile(m);
  std::atomic<unsigned> requests{Cancellation::kInterrupt};
  Cancellation c(requests);
  engine::ExploreOptions eo;
  eo.cancel = &c;
  engine::ExploreResult res = engine::explore(cm, eo);
  EXPECT_FALSE(res.complete);
  EXPECT_EQ(res.incomplete_reason, "interrupted");
  EXPECT_EQ(res.graph.num_states(), 1u) << "the initial state, not expanded";
  EXPECT_EQ(res.graph.num_edges(), 0u);

  requests = Cancellation::kMemoryLow;
  Cancellation low(requests);
  eo.cancel = &low;
  EXPECT_EQ(engine::explore(cm, eo).incomplete_reason, "out-of-memory");
}

TEST(Cancellation, AnalysisAndLiftStopUnlessGivenGrace) {
  model::Model m = load_example("ping_pong");  // always-total fails with a counterexample
  engine::CompiledModel cm = engine::compile(m);
  engine::ExploreResult res = engine::explore(cm, {});
  ASSERT_TRUE(res.complete);
  std::atomic<unsigned> requests{Cancellation::kInterrupt};
  Cancellation c(requests);
  auto analyse = [&] {
    return engine::analyze(res.graph, engine::Property::AlwaysTotal, engine::Fairness::Channel, true, c);
  };
  EXPECT_THROW(analyse(), Cancelled);
  // A grace long enough for this small graph: the verdict and its trace.
  c.set_grace(std::chrono::hours(1));
  engine::Verdict v = analyse();
  ASSERT_EQ(v.holds, false);
  ASSERT_TRUE(v.lasso);
  auto hops = engine::lasso_hops(v.lasso->states, v.lasso->edges, v.lasso->loop_start);
  EXPECT_TRUE(engine::lift(cm, res.graph, hops, c));
  Cancellation now(requests);
  EXPECT_THROW(engine::lift(cm, res.graph, hops, now), Cancelled);
}

TEST(Cancellation, SimulateReturnsTheStepsTaken) {
  model::Model m = load_example("ping_pong");
  engine::CompiledModel cm = engine::compile(m);
  uint64_t seen = 0;
  auto count = [&](const engine::ConcreteStep&, uint64_t index) { EXPECT_EQ(index, seen++); };
  engine::SimulateResult full = engine::simulate(cm, 50, 1, count);
  EXPECT_EQ(full.steps, 50u);
  EXPECT_EQ(seen, 50u);
  EXPECT_EQ(full.stopped, StopReason::None);

  std::atomic<unsigned> requests{Cancellation::kInterrupt};
  Cancellation c(requests);
  seen = 0;
  engine::SimulateResult cut = engine::simulate(cm, 50, 1, count, c);
  EXPECT_EQ(cut.stopped, StopReason::Interrupted);
  EXPECT_EQ(cut.steps, 0u);
  EXPECT_EQ(seen, 0u);
}

}  // namespace
