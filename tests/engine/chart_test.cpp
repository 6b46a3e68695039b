// engine/d2c/chart: the arrows of a message-sequence chart on hand-built
// runs (messages in the initial state, a message never consumed, identical
// messages on one arc, a lasso whose last message is in flight when the
// cycle closes, a step that takes what no channel holds), and on the
// counterexamples of the examples, where every message must be matched:
// sent before it is consumed, on the arc and with the payload the
// consuming step names, and as many arrows as the run has messages.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/analysis.hpp"
#include "engine/d2c/chart.hpp"
#include "engine/d2c/system.hpp"
#include "engine/explore.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using hashing::Word;

namespace {

const char* kTwo = R"(
state got/0.
transport ping/0, pong/0, tok/0.
network { n0 - n1. }
got if ping@_.
)";

struct Two {
  std::optional<model::Model> m;
  engine::CompiledModel cm;
  Word start = 0, ping = 0, pong = 0, tok = 0;
  model::ArcId arc(model::NodeId s, model::NodeId d) const { return *m->network.arc_id(s, d); }
  engine::ConcreteStep step(model::NodeId from, model::NodeId to, Word payload, std::vector<Word> sent) const {
    engine::ConcreteStep st;
    st.arc = arc(from, to);
    st.from = from;
    st.node = to;
    st.payload = {payload};
    st.sent = std::move(sent);
    return st;
  }
};

Two two() {
  Two t;
  model::Diagnostics diag("two.d2c");
  t.m = model::load_model_text(kTwo, "two.d2c", {}, diag);
  EXPECT_TRUE(t.m) << diag.format_all();
  t.cm = engine::compile(*t.m);
  t.start = *t.m->find_pred("start");
  t.ping = *t.m->find_pred("ping");
  t.pong = *t.m->find_pred("pong");
  t.tok = *t.m->find_pred("tok");
  return t;
}

engine::ConcreteRun run_of(const Two& t, std::vector<engine::ConcreteStep> steps) {
  engine::ConcreteRun r;
  hashing::GlobalState s0;
  s0.dbs.resize(2);
  s0.channels.resize(t.m->network.num_arcs());
  s0.channels[t.arc(0, 0)] = {t.start, 1};
  s0.channels[t.arc(1, 1)] = {t.start, 1};
  r.states.push_back(s0);
  r.steps = std::move(steps);
  return r;
}

}  // namespace

TEST(Chart, InitialMessagesAMessageNeverConsumedAndIdenticalMessages) {
  const Two t = two();
  const auto run = run_of(t, {t.step(0, 0, t.start, {1, t.ping}),       // 0: n0 starts, pings n1
                              t.step(1, 1, t.start, {0, t.pong}),       // 1: n1 starts, pongs n0
                              t.step(0, 1, t.ping, {0, t.pong}),        // 2: n1 takes the ping, pongs again
                              t.step(1, 0, t.pong, {})});                // 3: n0 takes one pong
  const auto arrows = engine::chart_arrows(run, t.cm.layout, t.m->network);
  using A = engine::ChartArrow;
  const std::vector<A> want = {
      {std::nullopt, 0, 0, 0, {t.start}},  // in the initial state, taken by step 0
      {std::nullopt, 1, 1, 1, {t.start}},
      {0, 2, 0, 1, {t.ping}},
      {1, 3, 1, 0, {t.pong}},             // the older of the two identical pongs
      {2, std::nullopt, 1, 0, {t.pong}},  // never consumed
  };
  EXPECT_EQ(arrows, want);
}

TEST(Chart, ALassoLeavesTheMessageOfItsLastStepInFlight) {
  const Two t = two();
  auto run = run_of(t, {t.step(0, 0, t.start, {1, t.tok}),  // 0
                        t.step(1, 1, t.start, {}),          // 1
                        t.step(0, 1, t.tok, {0, t.tok}),    // 2: the cycle starts here
                        t.step(1, 0, t.tok, {1, t.tok})});  // 3: back to the state before step 2
  run.loop_start = 2;
  const auto arrows = engine::chart_arrows(run, t.cm.layout, t.m->network);
  ASSERT_EQ(arrows.size(), 5u);
  EXPECT_EQ(arrows[2], (engine::ChartArrow{0, 2, 0, 1, {t.tok}}));
  EXPECT_EQ(arrows[3], (engine::ChartArrow{2, 3, 1, 0, {t.tok}}));
  EXPECT_EQ(arrows[4], (engine::ChartArrow{3, std::nullopt, 0, 1, {t.tok}}));  // taken by the next round's step 2
}

TEST(Chart, AStepTakingWhatNoChannelHoldsIsRefused) {
  const Two t = two();
  EXPECT_THROW(engine::chart_arrows(run_of(t, {t.step(0, 1, t.ping, {})}), t.cm.layout, t.m->network),
               std::invalid_argument);
  // The idle step takes nothing.
  engine::ConcreteStep idle;
  EXPECT_TRUE(engine::chart_arrows(run_of(t, {idle}), t.cm.layout, t.m->network).size() == 2);
}

TEST(Chart, EveryMessageOfTheExamplesCounterexamplesIsMatched) {
  size_t runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("examples"))) {
    if (entry.path().extension() != ".d2c") continue;
    model::Diagnostics diag(entry.path().string());
    auto m = model::load_model(entry.path().string(), {}, diag);
    ASSERT_TRUE(m) << entry.path();
    const engine::CompiledModel cm = engine::compile(*m);
    engine::D2cSystem system(cm);
    engine::ExploreOptions eo;
    eo.max_states = 200000;
    const engine::ExploreResult res = engine::explore(system, eo);
    for (auto p : engine::kAllProperties) {
      const engine::Verdict v = engine::analyze(res.graph, p, engine::Fairness::Channel, res.complete);
      if (!v.lasso) continue;
      const auto run = engine::lift(cm, res.graph, engine::lasso_hops(v.lasso->states, v.lasso->edges, v.lasso->loop_start));
      ASSERT_TRUE(run) << entry.path();
      SCOPED_TRACE(entry.path().filename().string() + " " + engine::property_name(p));
      const auto arrows = engine::chart_arrows(*run, cm.layout, m->network);
      size_t messages = 0;  // the initial state's and every step's sends
      for (const auto& ch : run->states[0].channels)
        for (size_t i = 0; i < ch.size(); i += cm.layout.fact_words(ch[i]) + 1) messages += ch[i + cm.layout.fact_words(ch[i])];
      for (const auto& st : run->steps)
        for (size_t i = 0; i < st.sent.size(); i += 1 + cm.layout.fact_words(st.sent[i + 1])) ++messages;
      EXPECT_EQ(arrows.size(), messages);
      size_t consumed = 0;
      for (const auto& a : arrows) {
        if (!a.consumed) continue;
        ++consumed;
        const auto& st = run->steps[*a.consumed];
        EXPECT_TRUE(!a.sent || *a.sent < *a.consumed);
        EXPECT_EQ(st.payload, a.message);
        EXPECT_EQ(st.from, a.from);
        EXPECT_EQ(st.node, a.to);
      }
      size_t takers = 0;
      for (const auto& st : run->steps) takers += st.arc != engine::kIdleArc;
      EXPECT_EQ(consumed, takers);
      ++runs;
    }
  }
  EXPECT_GE(runs, 5u);
}
