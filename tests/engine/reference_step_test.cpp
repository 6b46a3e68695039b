// Differential tests of engine::StepEvaluator against the naive reference of
// reference_step_impl.hpp (docs/reference.md §3.3 and §3.4): random
// programs, random node DBs, messages and inputs, compared as sets of
// distinct outcomes; plus hand-written programs with hand-derived outcomes,
// checked against the reference, the interpreter and the compiled step
// (tests/engine/compiled_step_test.cpp compares the compiled step with the
// interpreter on random programs). A disagreement prints the program, the network, the
// step input (node, DB, message and source, input DB) and both outcome sets.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "engine/d2c/compiled_step.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/step.hpp"
#include "tests/engine/reference_step_impl.hpp"
#include "tests/engine/reference_support.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;

namespace {

struct Totals {
  uint64_t programs = 0, rejected = 0, cases = 0, multi = 0, with_sent = 0, with_dropped = 0, with_db = 0;
};

// Compares engine and reference on one input; returns false (with a
// reproducer in the failure message) when they disagree.
bool compare_step(const model::Model& m, const engine::CompiledModel& cm, engine::StepEvaluator& ev,
                  const RefStepInput& in, const std::string& text, Totals& t) {
  std::set<RefOutcome> ref = reference_step(m, in);
  EngineStep eng = engine_step(cm, ev, in);
  ++t.cases;
  if (ref.size() > 1) ++t.multi;
  for (const auto& o : ref) {
    if (!o.sent.empty()) ++t.with_sent;
    if (!o.dropped.empty()) ++t.with_dropped;
    if (!o.db.empty()) ++t.with_db;
  }
  bool ok = eng.problems.empty() && eng.outcomes == ref;
  EXPECT_TRUE(ok) << "engine and reference disagree on one step\n"
                  << "program (network " << m.network.description() << "):\n"
                  << text << "input: " << step_input_string(m, in) << "\nreference outcomes:\n"
                  << outcomes_string(m, ref) << "engine outcomes (" << eng.calls << " calls):\n"
                  << outcomes_string(m, eng.outcomes)
                  << (eng.problems.empty() ? "" : "engine problem: " + eng.problems.front() + "\n");
  return ok;
}

const std::vector<std::string> kNetworks{"line:1", "line:2", "line:2", "ring:3", "ring:3", "line:3", "star:4",
                                         "complete:3"};

TEST(RefStep, RandomProgramsAgreeWithReference) {
  auto t0 = std::chrono::steady_clock::now();
  Rng rng(20240611);
  Totals t;
  const uint64_t want_programs = 2000;
  const uint32_t cases_per_program = 30;
  uint32_t failures = 0;
  GenOptions opt;
  ProgramGenerator gen(rng, opt);
  while (t.programs < want_programs && failures < 3) {
    std::string text = gen.generate();
    std::string net = pick(rng, kNetworks);
    std::string err;
    auto m = load_text(text, network_override(net), &err);
    if (!m) {
      // REF_SHOW_REJECTED=1 prints the generated programs the static checks reject.
      if (std::getenv("REF_SHOW_REJECTED")) std::cout << text << err << "\n";
      ++t.rejected;
      continue;
    }
    ++t.programs;
    std::string order = check_component_order(*m);
    EXPECT_EQ(order, "") << "component order of\n" << text;
    if (!order.empty()) {
      ++failures;
      continue;
    }
    engine::CompiledModel cm = engine::compile(*m);
    engine::StepEvaluator ev(cm);
    for (uint32_t c = 0; c < cases_per_program; ++c) {
      RefStepInput in = random_step_input(rng, *m);
      if (!compare_step(*m, cm, ev, in, text, t)) {
        ++failures;
        break;
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[RefStep] " << t.programs << " programs (" << t.rejected << " generated programs rejected by the "
            << "static checks), " << t.cases << " step cases: " << t.multi << " with several outcomes, "
            << t.with_db << " outcomes with a non-empty DB, " << t.with_sent << " sending, " << t.with_dropped
            << " dropping; " << secs << " s\n";
  if (failures) return;
  EXPECT_EQ(t.programs, want_programs);
  // The generator must exercise the interesting cases.
  EXPECT_GT(t.multi, 1500u);
  EXPECT_GT(t.with_sent, 6000u);
  EXPECT_GT(t.with_dropped, 3000u);
  RecordProperty("step_cases", static_cast<int>(t.cases));
}

// Programs with more choice rules and recursion (transitive-closure shapes).
TEST(RefStep, RandomChoiceHeavyProgramsAgreeWithReference) {
  Rng rng(777);
  Totals t;
  GenOptions opt;
  opt.choice_rate = 0.6;
  opt.min_rules = 3;
  opt.max_rules = 6;
  ProgramGenerator gen(rng, opt);
  uint32_t failures = 0;
  while (t.programs < 800 && failures < 3) {
    std::string text = gen.generate();
    auto m = load_text(text, network_override(pick(rng, kNetworks)));
    if (!m) {
      ++t.rejected;
      continue;
    }
    ++t.programs;
    EXPECT_EQ(check_component_order(*m), "") << text;
    engine::CompiledModel cm = engine::compile(*m);
    engine::StepEvaluator ev(cm);
    for (uint32_t c = 0; c < 20; ++c)
      if (!compare_step(*m, cm, ev, random_step_input(rng, *m), text, t)) {
        ++failures;
        break;
      }
  }
  if (failures) return;
  std::cout << "[RefStep] choice-heavy: " << t.programs << " programs, " << t.cases << " cases, " << t.multi
            << " with several outcomes\n";
  EXPECT_GT(t.multi, 1200u);
}

// Recursive programs: random graphs in prev DBs, closures to fixpoint, with
// negation on the closure in a later stratum.
TEST(RefStep, RandomRecursiveProgramsAgreeWithReference) {
  Rng rng(4242);
  const std::vector<std::string> rule_pool{
      "r(X, Y) if prev e(X, Y).",
      "r(X, Z) if r(X, Y), prev e(Y, Z).",
      "r(X, Z) if r(X, Y), r(Y, Z).",
      "r(X, Y) if r(Y, X).",
      "e(X, Y) if prev e(X, Y), not r(Y, X).",
      "e(X, Y) if prev e(X, Y).",
      "u(X) if r(X, _), not r(_, X).",
      "u(X) if neighbor(X), not r(X, X).",
      "c(X) if prev e(X, _), not u(X), choice((), (X)).",
      "c(X) if r(X, Y), X != Y, choice((Y), (X)).",
      "t(X)@N if c(X), neighbor(N).",
      "t(X)@X if u(X).",
      "t(Y)@M if t(Y)@_, my_name(M), not r(Y, Y).",
      "e(X, Y) if t(X)@Y.",
      "error if r(X, X), not u(X).",
  };
  Totals t;
  uint32_t failures = 0;
  for (int prog = 0; prog < 120 && failures < 3; ++prog) {
    std::string text = "state e/2, r/2, u/1, c/1.\ntransport t/1.\n";
    for (const auto& r : rule_pool)
      if (coin(rng, 0.5)) text += r + "\n";
    auto m = load_text(text, network_override(coin(rng, 0.5) ? "ring:3" : "line:2"));
    if (!m) {
      ++t.rejected;
      continue;
    }
    ++t.programs;
    EXPECT_EQ(check_component_order(*m), "") << text;
    engine::CompiledModel cm = engine::compile(*m);
    engine::StepEvaluator ev(cm);
    const uint32_t fixed = static_cast<uint32_t>(m->constants.size());
    for (int c = 0; c < 10; ++c) {
      RefStepInput in;
      in.node = uni(rng, 0, static_cast<uint32_t>(m->network.num_nodes()) - 1);
      in.msg_src = in.node;
      std::vector<ConstId> pool;
      for (ConstId k = 0; k < fixed; ++k) pool.push_back(k);
      for (ConstId k = fixed; k < fixed + 3; ++k) pool.push_back(k);
      uint32_t ne = uni(rng, 0, 6);
      auto e = *m->find_pred("e");
      for (uint32_t i = 0; i < ne; ++i) in.db.insert(Fact{e, {pick(rng, pool), pick(rng, pool)}});
      in.msg = coin(rng, 0.5) ? Fact{model::kStart, {}} : Fact{*m->find_pred("t"), {pick(rng, pool)}};
      if (!compare_step(*m, cm, ev, in, text, t)) {
        ++failures;
        break;
      }
    }
  }
  std::cout << "[RefStep] recursive: " << t.programs << " programs, " << t.cases << " cases, " << t.multi
            << " with several outcomes\n";
  EXPECT_GT(t.programs, 60u);
}

// ---- hand-written programs, hand-derived outcomes ------------------------------

struct Hand {
  std::optional<model::Model> m;
  std::optional<engine::CompiledModel> cm;
  std::string text;
  Hand(const std::string& program, const std::string& network) : text(program) {
    std::string err;
    m = load_text(program, network_override(network), &err);
    EXPECT_TRUE(m.has_value()) << err;
    if (m) cm = engine::compile(*m);
  }
  ConstId c(const std::string& spelling) const {
    auto id = m->constants.find(spelling);
    EXPECT_TRUE(id.has_value()) << spelling;
    return id.value_or(0);
  }
  PredId p(const std::string& name) const { return *m->find_pred(name); }
  NodeId node(const std::string& name) const { return *m->network.find(name); }
  Fact f(const std::string& pred, std::vector<std::string> args = {}) const {
    Fact out{p(pred), {}};
    for (const auto& a : args) out.args.push_back(c(a));
    return out;
  }
  RefMessage msg(const std::string& dest, const std::string& pred, std::vector<std::string> args = {}) const {
    return RefMessage{c(dest), f(pred, std::move(args))};
  }
  // Checks both the reference and the engine against the expected outcomes.
  void expect(const RefStepInput& in, const std::set<RefOutcome>& want) const {
    ASSERT_TRUE(m);
    std::set<RefOutcome> ref = reference_step(*m, in);
    EXPECT_EQ(ref, want) << "reference on\n"
                         << text << "got:\n"
                         << outcomes_string(*m, ref) << "want:\n"
                         << outcomes_string(*m, want);
    engine::StepEvaluator ev(*cm);
    expect_engine(engine_step(*cm, ev, in), want, "interpreter");
    // The compiled step (docs/engine.md §4a) on the same hand-derived cases.
    auto loaded = engine::CompiledStepLibrary::load(*cm);
    ASSERT_TRUE(loaded.library) << loaded.error;
    engine::CompiledStepEvaluator compiled(loaded.library);
    expect_engine(engine_step(*cm, compiled, in), want, "compiled step");
  }
  void expect_engine(const EngineStep& eng, const std::set<RefOutcome>& want, const char* which) const {
    EXPECT_TRUE(eng.problems.empty()) << which << ": " << eng.problems.front();
    EXPECT_EQ(eng.outcomes, want) << which << " on\n"
                                  << text << "got:\n"
                                  << outcomes_string(*m, eng.outcomes) << "want:\n"
                                  << outcomes_string(*m, want);
  }
  RefStepInput start_at(const std::string& n) const {
    RefStepInput in;
    in.node = node(n);
    in.msg_src = in.node;
    in.msg = Fact{model::kStart, {}};
    return in;
  }
};

TEST(RefStepHand, ChoiceOverThreeNeighboursGivesThreeOutcomes) {
  Hand h("state pick/1.\npick(N) if neighbor(N), start@_, choice((), (N)).\n", "star:4");
  std::set<RefOutcome> want;
  for (const char* n : {"n1", "n2", "n3"}) want.insert(RefOutcome{{h.f("pick", {n})}, {}, {}});
  h.expect(h.start_at("n0"), want);
  // A leaf of the star has one neighbour: one outcome.
  h.expect(h.start_at("n2"), {RefOutcome{{h.f("pick", {"n0"})}, {}, {}}});
}

TEST(RefStepHand, TwoChoiceRulesGiveTheProduct) {
  Hand h(
      "state pick/1, other/1.\n"
      "pick(N) if neighbor(N), start@_, choice((), (N)).\n"
      "other(N) if neighbor(N), start@_, choice((), (N)).\n",
      "star:4");
  std::set<RefOutcome> want;
  for (const char* a : {"n1", "n2", "n3"})
    for (const char* b : {"n1", "n2", "n3"}) want.insert(RefOutcome{{h.f("pick", {a}), h.f("other", {b})}, {}, {}});
  ASSERT_EQ(want.size(), 9u);
  h.expect(h.start_at("n0"), want);
}

TEST(RefStepHand, ChoicePerDomainValue) {
  // Every prev item X picks one owner among the neighbours: 2 items x 2 neighbours.
  Hand h(
      "state item/1, owner/2.\n"
      "item(X) if prev item(X).\n"
      "owner(X, N) if item(X), neighbor(N), choice((X), (N)).\n",
      "ring:3");
  RefStepInput in = h.start_at("n0");
  in.db = {h.f("item", {"n0"}), h.f("item", {"n2"})};
  std::set<RefOutcome> want;
  for (const char* a : {"n1", "n2"})
    for (const char* b : {"n1", "n2"})
      want.insert(RefOutcome{
          {h.f("item", {"n0"}), h.f("item", {"n2"}), h.f("owner", {"n0", a}), h.f("owner", {"n2", b})}, {}, {}});
  ASSERT_EQ(want.size(), 4u);
  h.expect(in, want);
}

TEST(RefStepHand, ChoiceWithNothingToChooseFromIsOneOutcome) {
  Hand h("state pick/1, item/1.\npick(X) if prev item(X), choice((), (X)).\n", "line:2");
  h.expect(h.start_at("n0"), {RefOutcome{}});
}

TEST(RefStepHand, ChoiceFeedsALaterStratumAndMessages) {
  // The pick decides what is derived after it and which neighbour is told.
  Hand h(
      "state pick/1, other/1.\n"
      "transport hi/0.\n"
      "pick(N) if neighbor(N), start@_, choice((), (N)).\n"
      "other(N) if neighbor(N), not pick(N).\n"
      "hi@N if pick(N).\n",
      "ring:3");
  std::set<RefOutcome> want{
      RefOutcome{{h.f("pick", {"n1"}), h.f("other", {"n2"})}, {h.msg("n1", "hi")}, {}},
      RefOutcome{{h.f("pick", {"n2"}), h.f("other", {"n1"})}, {h.msg("n2", "hi")}, {}},
  };
  h.expect(h.start_at("n0"), want);
}

TEST(RefStepHand, TransportChoiceSendsOneOfTheNeighbours) {
  Hand h("transport hi/0.\nhi@N if neighbor(N), start@_, choice((), (N)).\nhi@M if my_name(M), start@_.\n", "ring:3");
  std::set<RefOutcome> want{
      RefOutcome{{}, {h.msg("n1", "hi"), h.msg("n0", "hi")}, {}},
      RefOutcome{{}, {h.msg("n2", "hi"), h.msg("n0", "hi")}, {}},
  };
  h.expect(h.start_at("n0"), want);
}

TEST(RefStepHand, TransitiveClosureToFixpoint) {
  Hand h(
      "state e/2, r/2.\n"
      "e(X, Y) if prev e(X, Y).\n"
      "r(X, Y) if e(X, Y).\n"
      "r(X, Z) if r(X, Y), e(Y, Z).\n",
      "line:1");
  RefStepInput in = h.start_at("n0");
  // a -> b -> c -> d: the program constants are only n0; use fresh ids.
  const ConstId base = static_cast<ConstId>(h.m->constants.size());
  const ConstId a = base, b = base + 1, c = base + 2, d = base + 3;
  PredId e = h.p("e"), r = h.p("r");
  in.db = {Fact{e, {a, b}}, Fact{e, {b, c}}, Fact{e, {c, d}}};
  RefOutcome o;
  o.db = in.db;
  for (auto [x, y] : std::vector<std::pair<ConstId, ConstId>>{{a, b}, {b, c}, {c, d}, {a, c}, {b, d}, {a, d}})
    o.db.insert(Fact{r, {x, y}});
  h.expect(in, {o});
  // A cycle a -> b -> a: r holds for all four pairs.
  in.db = {Fact{e, {a, b}}, Fact{e, {b, a}}};
  RefOutcome cyc;
  cyc.db = in.db;
  for (ConstId x : {a, b})
    for (ConstId y : {a, b}) cyc.db.insert(Fact{r, {x, y}});
  h.expect(in, {cyc});
}

TEST(RefStepHand, StratifiedNegation) {
  // q is complete before r reads `not q`; `not p(X, _)` is existential.
  Hand h(
      "state p/2, q/1, r/1, s/1.\n"
      "p(X, Y) if prev p(X, Y).\n"
      "q(X) if p(X, X).\n"
      "r(X) if p(X, _), not q(X).\n"
      "s(X) if p(_, X), not p(X, _).\n",
      "line:1");
  RefStepInput in = h.start_at("n0");
  const ConstId base = static_cast<ConstId>(h.m->constants.size());
  const ConstId a = base, b = base + 1, c = base + 2;
  PredId p = h.p("p");
  in.db = {Fact{p, {a, a}}, Fact{p, {a, b}}, Fact{p, {b, c}}};
  RefOutcome o;
  o.db = in.db;
  o.db.insert(Fact{h.p("q"), {a}});
  o.db.insert(Fact{h.p("r"), {b}});
  o.db.insert(Fact{h.p("s"), {c}});
  h.expect(in, {o});
}

TEST(RefStepHand, MessagesToNonNeighboursAreDropped) {
  // line:3 is n0 - n1 - n2: from n0, n2 is no neighbour and zz no node.
  Hand h(
      "transport m/1.\n"
      "m(1)@n0 if start@_.\n"
      "m(2)@n1 if start@_.\n"
      "m(3)@n2 if start@_.\n"
      "m(4)@zz if start@_.\n",
      "line:3");
  h.expect(h.start_at("n0"), {RefOutcome{{}, {h.msg("n0", "m", {"1"}), h.msg("n1", "m", {"2"})},
                                         {h.msg("n2", "m", {"3"}), h.msg("zz", "m", {"4"})}}});
  // From n1 every node is an arc.
  h.expect(h.start_at("n1"), {RefOutcome{{}, {h.msg("n0", "m", {"1"}), h.msg("n1", "m", {"2"}), h.msg("n2", "m", {"3"})},
                                         {h.msg("zz", "m", {"4"})}}});
}

TEST(RefStepHand, StateIsNotInertialAndPrevReadsTheOldDb) {
  Hand h(
      "state p/1, q/1.\n"
      "transport go/1.\n"
      "q(X) if prev p(X).\n"
      "p(X) if go(X)@_.\n",
      "line:2");
  RefStepInput in = h.start_at("n0");
  in.db = {h.f("p", {"n1"}), h.f("q", {"n0"})};
  // start: p(n1) becomes q(n1); q(n0) and p(n1) are gone.
  h.expect(in, {RefOutcome{{h.f("q", {"n1"})}, {}, {}}});
  in.msg = h.f("go", {"n0"});
  in.msg_src = h.node("n1");
  h.expect(in, {RefOutcome{{h.f("q", {"n1"}), h.f("p", {"n0"})}, {}, {}}});
}

TEST(RefStepHand, MessageSourceInputAndBuiltins) {
  Hand h(
      "input in/1.\n"
      "state from/1, got/1, me/1, nb/1.\n"
      "transport t/1, back/1.\n"
      "from(S) if t(_)@S.\n"
      "got(X) if in(X), not t(X)@_.\n"
      "me(X) if prev my_name(X).\n"
      "nb(X) if neighbor(X), not prev neighbor(X).\n"  // never: built-ins are in the prev DB too
      "back(X)@S if t(X)@S, S != n0.\n"
      "error if t(X)@X.\n",
      "line:2");
  RefStepInput in;
  in.node = h.node("n0");
  in.msg_src = h.node("n1");
  in.msg = h.f("t", {"n1"});
  const ConstId fresh = static_cast<ConstId>(h.m->constants.size());
  in.input = {Fact{h.p("in"), {fresh}}, h.f("in", {"n1"})};
  RefOutcome o;
  o.db = {h.f("from", {"n1"}), Fact{h.p("got"), {fresh}}, h.f("me", {"n0"}), Fact{model::kError, {}}};
  o.sent = {h.msg("n1", "back", {"n1"})};
  h.expect(in, {o});
}

}  // namespace
