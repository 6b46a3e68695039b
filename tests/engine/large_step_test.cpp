// Steps and rules far larger than node DBs usually are (issue: quadratic
// paths). A step that derives 200,000 facts or sends 200,000 messages, and a
// rule with a 100,000-literal body, must give exact results; they used to
// take minutes (linear-scan insertion, an O(n^2) planner), now a fraction of
// a second (bench/large_steps.sh has the figures). The results are checked
// against what the rules say, the planner against its contract.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/relation.hpp"
#include "engine/d2c/step.hpp"
#include "engine/d2c/successors.hpp"
#include "tests/engine/reference_support.hpp"

using namespace ddsmc;
using reftest::load_text;
using hashing::Word;

namespace {

// `state a/1, b/1` with n facts each in the initial state, plus `rules`.
std::string product_model(int n, const std::string& decls, const std::string& rules) {
  std::string init;
  for (int i = 1; i <= n; ++i) init += "a(" + std::to_string(i) + "). b(" + std::to_string(i) + "). ";
  return "state a/1, b/1" + decls + "a(X) if prev a(X).\nb(X) if prev b(X).\n" + rules + "init { " + init + "}\n";
}

engine::StepResult one_step(const engine::CompiledModel& cm, const hashing::GlobalState& s) {
  engine::StepEvaluator eval(cm);
  Word start = model::kStart;
  engine::StepResult out;
  int outcomes = 0;
  engine::StepInput in{0, &s.dbs[0], 0, &start, nullptr};
  eval.evaluate(in, [&](const engine::StepResult& r) {
    out = r;
    ++outcomes;
  });
  EXPECT_EQ(outcomes, 1);
  return out;
}

TEST(LargeStep, DerivesTwoHundredThousandFacts) {
  const int n = 450;  // 450 x 450 = 202,500 p facts, each derived twice (two rules)
  model::Overrides ov;
  ov.network_spec = "line:1";
  auto m = load_text(product_model(n, ", p/2.\n", "p(X, Y) if prev a(X), prev b(Y).\np(Y, X) if prev a(X), prev b(Y).\n"), ov);
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  hashing::GlobalState s = engine::initial_state(cm);
  engine::StepResult r = one_step(cm, s);
  const auto p = *m->find_pred("p");
  size_t p_facts = 0;
  std::set<std::pair<Word, Word>> seen;
  for (size_t i = 0; i < r.db.size(); i += cm.layout.fact_words(r.db[i])) {
    if (r.db[i] != p) continue;
    ++p_facts;
    seen.emplace(r.db[i + 1], r.db[i + 2]);
  }
  EXPECT_EQ(p_facts, size_t{n} * n);
  EXPECT_EQ(seen.size(), size_t{n} * n);  // no duplicates in the new DB
  std::vector<Word> sorted = r.db;
  hashing::normalize_db(sorted, cm.layout);
  EXPECT_EQ(sorted, r.db) << "the new DB is normalized";
}

TEST(LargeStep, SendsTwoHundredThousandMessagesToOneChannel) {
  const int n = 450;
  model::Overrides ov;
  ov.network_spec = "line:2";
  // Node n0 derives every m(X, Y) twice (two rules): a set of 202,500
  // messages, all to its one neighbour n1, on the arc n0 -> n1.
  auto m = load_text(product_model(n, ".\ntransport m/2.\n",
                                   "m(X, Y)@N if start@_, prev a(X), prev b(Y), neighbor(N).\n"
                                   "m(X, Y)@N if start@_, prev b(Y), prev a(X), neighbor(N).\n"),
                     ov);
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  hashing::GlobalState s = engine::initial_state(cm);
  engine::StepResult r = one_step(cm, s);
  size_t sent = 0;
  for (size_t i = 0; i < r.sent.size(); i += 1 + cm.layout.fact_words(r.sent[i + 1])) ++sent;
  EXPECT_EQ(sent, size_t{n} * n) << "messages form a set";
  // Into the channel: one entry per message, count 1, sorted.
  hashing::GlobalState t = s;
  std::vector<uint32_t> touched;
  engine::send_messages(t, 0, r.sent, cm, touched);
  const uint32_t arc = *m->network.arc_id(0, 1);
  EXPECT_EQ(touched, std::vector<uint32_t>{arc});
  const auto& ch = t.channels[arc];
  size_t entries = 0;
  for (size_t i = 0; i < ch.size(); i += cm.layout.fact_words(ch[i]) + 1) {
    ++entries;
    EXPECT_EQ(ch[i + cm.layout.fact_words(ch[i])], 1u);
  }
  EXPECT_EQ(entries, size_t{n} * n);
  std::vector<Word> normalized = ch;
  hashing::normalize_channel(normalized, cm.layout);
  EXPECT_EQ(normalized, ch);
  // The few-message path gives the same channel as the bulk one.
  hashing::GlobalState u = s;
  std::vector<Word> few(r.sent.begin(), r.sent.begin() + 3 * 4);  // three [dest, m, x, y] runs
  engine::send_messages(u, 0, few, cm, touched);
  hashing::GlobalState v = s;
  for (size_t i = 0; i < few.size(); i += 4) engine::channel_add(v.channels[arc], few.data() + i + 1, cm.layout);
  EXPECT_EQ(u.channels[arc], v.channels[arc]);
}

// The relation and message sets switch from a scan to a hash index at
// kIndexFrom entries, and back after a truncation: both give the same set.
TEST(LargeStep, RelationAndMessageSetsAcrossTheIndexThreshold) {
  engine::Relation rel(2);
  std::set<std::pair<Word, Word>> want;
  for (uint32_t round = 0; round < 3; ++round) {
    for (Word x = 0; x < 40; ++x)
      for (Word y = 0; y < 3; ++y) {
        Word t[2] = {x % 23, (y * 7 + round) % 5};
        EXPECT_EQ(rel.insert(t), want.emplace(t[0], t[1]).second);
      }
    rel.truncate(engine::kIndexFrom - 1 + round);  // below the threshold, then at it
    std::set<std::pair<Word, Word>> kept;
    for (uint32_t i = 0; i < rel.count(); ++i) kept.emplace(rel.tuple(i)[0], rel.tuple(i)[1]);
    EXPECT_EQ(kept.size(), rel.count());
    want = kept;
  }
  hashing::StateLayout layout;
  layout.arity = {1, 2};
  engine::MessageSet set(layout);
  std::set<std::vector<Word>> msgs;
  for (Word i = 0; i < 100; ++i) {
    std::vector<Word> run = i % 2 ? std::vector<Word>{i % 7, 0, i % 11} : std::vector<Word>{i % 5, 1, i % 3, i % 4};
    size_t before = set.runs().size();
    set.add(run.data());
    EXPECT_EQ(set.runs().size() > before, msgs.insert(run).second);
  }
}

// A 100,000-literal body: planned in a fraction of a second (it took minutes),
// and the plan keeps the planner's contract: every literal once, each
// variable bound by its first positive occurrence in plan order, every
// negated literal and constraint placed right when its variables are bound.
TEST(LargeStep, PlansAHundredThousandLiteralBody) {
  const int k = 100000;
  std::string body;
  for (int i = 0; i < k; ++i) body += (i ? ", " : "") + std::string("q(X") + std::to_string(i) + ", X" + std::to_string(i + 1) + ")";
  body += ", not q(X5, X3), X7 != X9";
  model::Overrides ov;
  ov.network_spec = "line:1";
  auto m = load_text("state q/2, r/1.\nr(X0) if " + body + ".\nq(X, Y) if prev q(X, Y).\n", ov);
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  const engine::RulePlan& plan = cm.rules[0];
  ASSERT_EQ(plan.literals.size(), size_t{k} + 1);
  ASSERT_EQ(plan.constraints.size(), 1u);
  std::vector<bool> bound(plan.num_vars, false);
  size_t negated_at = 0, constraint_at = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& st = plan.steps[i];
    if (st.kind == engine::PlanStep::Kind::Constraint) {
      constraint_at = i;
      for (const auto* op : {&plan.constraints[st.index].lhs, &plan.constraints[st.index].rhs})
        if (op->kind == engine::ArgOp::Kind::Check) {
          EXPECT_TRUE(bound[op->value]);
        }
      continue;
    }
    const auto& lp = plan.literals[st.index];
    if (lp.negated) negated_at = i;
    for (const auto& op : lp.args) {
      if (op.kind == engine::ArgOp::Kind::Bind) {
        EXPECT_FALSE(bound[op.value]);
        EXPECT_FALSE(lp.negated);
        bound[op.value] = true;
      } else if (op.kind == engine::ArgOp::Kind::Check) {
        EXPECT_TRUE(bound[op.value]) << "step " << i;
      }
    }
  }
  // Bound-first chaining binds X0, X1, ... in order: X3 and X5 are bound by
  // the fifth positive literal (plan step 4), X7 and X9 by the ninth; each
  // filter follows at once.
  EXPECT_EQ(negated_at, 5u);
  EXPECT_EQ(constraint_at, 10u);
}

}  // namespace
