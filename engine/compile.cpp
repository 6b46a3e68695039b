#include "engine/compile.hpp"

#include <algorithm>

namespace ddsmc::engine {
namespace {

using model::RTerm;

Source source_of(const model::Model& m, const model::RLiteral& lit) {
  switch (m.pred(lit.atom.pred).kind) {
    case model::PredKind::Input: return Source::Input;
    case model::PredKind::Transport: return Source::Message;
    case model::PredKind::State: return lit.prev ? Source::Prev : Source::State;
  }
  return Source::State;
}

// Turns terms into argument operations, given which variables are bound.
struct Binder {
  const model::RRule& rule;
  std::vector<bool> bound;

  ArgOp op(const RTerm& t, bool may_bind) {
    if (!t.is_var) return {ArgOp::Kind::Const, t.id};
    if (rule.var_anonymous[t.id]) return {ArgOp::Kind::Skip, t.id};
    if (bound[t.id]) return {ArgOp::Kind::Check, t.id};
    if (!may_bind) return {ArgOp::Kind::Check, t.id};  // unreachable for safe rules
    bound[t.id] = true;
    return {ArgOp::Kind::Bind, t.id};
  }
  bool is_ready(const RTerm& t) const { return !t.is_var || rule.var_anonymous[t.id] || bound[t.id]; }
  bool ready(const model::RAtom& a) const {
    for (const auto& t : a.args)
      if (!is_ready(t)) return false;
    return !a.at || is_ready(*a.at);
  }
  size_t bound_positions(const model::RAtom& a) const {
    size_t n = 0;
    for (const auto& t : a.args) n += (!t.is_var || bound[t.id]) ? 1 : 0;
    return n;
  }
};

RulePlan plan_rule(const model::Model& m, const model::RRule& r) {
  RulePlan plan;
  plan.rule = r.index;
  plan.head_pred = r.head.pred;
  plan.transport_head = m.pred(r.head.pred).kind == model::PredKind::Transport;
  plan.num_vars = static_cast<uint32_t>(r.num_vars());
  Binder b{r, std::vector<bool>(r.num_vars(), false)};

  std::vector<bool> done_lit(r.body.size(), false), done_con(r.constraints.size(), false);
  auto add_literal = [&](size_t i) {
    const auto& lit = r.body[i];
    LiteralPlan lp;
    lp.source = source_of(m, lit);
    lp.pred = lit.atom.pred;
    lp.negated = lit.negated;
    for (const auto& t : lit.atom.args) lp.args.push_back(b.op(t, !lit.negated));
    if (lit.atom.at) {
      lp.has_at = true;
      lp.at = b.op(*lit.atom.at, !lit.negated);
    }
    plan.steps.push_back({PlanStep::Kind::Literal, static_cast<uint32_t>(plan.literals.size())});
    plan.literals.push_back(std::move(lp));
    done_lit[i] = true;
  };
  // Negated literals and constraints go in as soon as they are fully bound.
  auto add_ready_filters = [&] {
    for (size_t i = 0; i < r.constraints.size(); ++i) {
      const auto& c = r.constraints[i];
      if (done_con[i] || !b.is_ready(c.lhs) || !b.is_ready(c.rhs)) continue;
      plan.steps.push_back({PlanStep::Kind::Constraint, static_cast<uint32_t>(plan.constraints.size())});
      plan.constraints.push_back({b.op(c.lhs, false), b.op(c.rhs, false), c.equal});
      done_con[i] = true;
    }
    for (size_t i = 0; i < r.body.size(); ++i)
      if (!done_lit[i] && r.body[i].negated && b.ready(r.body[i].atom)) add_literal(i);
  };

  add_ready_filters();
  while (true) {
    // Next positive literal: the message first (one fact), then the one with
    // the most bound positions, then the fewest unbound ones.
    long best = -1;
    std::tuple<int, size_t, size_t> best_key{};
    for (size_t i = 0; i < r.body.size(); ++i) {
      const auto& lit = r.body[i];
      if (done_lit[i] || lit.negated) continue;
      size_t boundp = b.bound_positions(lit.atom);
      auto key = std::make_tuple(source_of(m, lit) == Source::Message ? 1 : 0, boundp,
                                 lit.atom.args.size() - boundp);
      bool better = best < 0 || std::get<0>(key) > std::get<0>(best_key) ||
                    (std::get<0>(key) == std::get<0>(best_key) &&
                     (std::get<1>(key) > std::get<1>(best_key) ||
                      (std::get<1>(key) == std::get<1>(best_key) && std::get<2>(key) < std::get<2>(best_key))));
      if (better) {
        best = static_cast<long>(i);
        best_key = key;
      }
    }
    if (best < 0) break;
    add_literal(static_cast<size_t>(best));
    add_ready_filters();
  }
  // Safety guarantees every filter became ready; keep any leftover anyway.
  for (size_t i = 0; i < r.body.size(); ++i)
    if (!done_lit[i]) add_literal(i);
  add_ready_filters();

  for (const auto& t : r.head.args) plan.head_args.push_back(b.op(t, false));
  if (r.head.at) plan.head_at = b.op(*r.head.at, false);
  if (r.choice) {
    plan.has_choice = true;
    plan.choice_domain = r.choice->domain;
    plan.choice_picked = r.choice->picked;
  }
  return plan;
}

}  // namespace

CompiledModel compile(const model::Model& m) {
  CompiledModel cm;
  cm.model = &m;
  for (const auto& p : m.preds) cm.layout.arity.push_back(p.arity);
  cm.layout.num_nodes = static_cast<uint32_t>(m.network.num_nodes());
  cm.layout.num_arcs = static_cast<uint32_t>(m.network.num_arcs());
  cm.layout.num_fixed = static_cast<uint32_t>(m.constants.size());
  for (const auto& r : m.rules) cm.rules.push_back(plan_rule(m, r));
  for (const auto& c : m.components) cm.components.push_back({c.choice_rules, c.rules, c.recursive});
  cm.transport_rules = m.transport_rules;
  cm.input_preds = m.preds_of_kind(model::PredKind::Input);
  cm.may_have_fresh = !cm.input_preds.empty() && m.bounds.input > 0;
  cm.node_const = m.node_const;
  cm.node_of_const.assign(m.constants.size(), -1);
  for (size_t n = 0; n < m.node_const.size(); ++n) cm.node_of_const[m.node_const[n]] = static_cast<int32_t>(n);
  cm.builtins.resize(m.network.num_nodes());
  for (model::NodeId n = 0; n < m.network.num_nodes(); ++n) {
    auto& b = cm.builtins[n];
    b.insert(b.end(), {model::kMyName, m.node_const[n]});
    for (model::NodeId nb : m.network.neighbors(n)) b.insert(b.end(), {model::kNeighbor, m.node_const[nb]});
    hashing::normalize_db(b, cm.layout);
  }
  return cm;
}

}  // namespace ddsmc::engine
