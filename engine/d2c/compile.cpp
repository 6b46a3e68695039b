#include "engine/d2c/compile.hpp"

#include <algorithm>
#include <set>
#include <tuple>

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
  std::vector<uint32_t> newly_bound;  // variables bound by the last literal

  ArgOp op(const RTerm& t, bool may_bind) {
    if (!t.is_var) return {ArgOp::Kind::Const, t.id};
    if (rule.var_anonymous[t.id]) return {ArgOp::Kind::Skip, t.id};
    if (bound[t.id]) return {ArgOp::Kind::Check, t.id};
    if (!may_bind) return {ArgOp::Kind::Check, t.id};  // unreachable for safe rules
    bound[t.id] = true;
    newly_bound.push_back(t.id);
    return {ArgOp::Kind::Bind, t.id};
  }
  // A named variable that is not bound yet (what a filter waits for).
  bool waits_for(const RTerm& t) const { return t.is_var && !rule.var_anonymous[t.id] && !bound[t.id]; }
};

// The body items that mention each variable, for the incremental planner.
struct Occurrences {
  std::vector<std::vector<uint32_t>> positive;  // per variable: positive literals, once per position
  std::vector<std::vector<uint32_t>> filters;   // per variable: filters (see plan_rule), once each
};

// Plans a rule body: bound-first, most selective first. Filters (negated
// literals and constraints) go in as soon as their variables are bound; the
// next positive literal is the message (one fact), else the one with the most
// bound positions, then the fewest unbound ones, then the first in the
// source. Incremental: binding a variable updates only the items that
// mention it, so a body of n literals is planned in O(n log n), not O(n^2).
RulePlan plan_rule(const model::Model& m, const model::RRule& r) {
  RulePlan plan;
  plan.rule = r.index;
  plan.head_pred = r.head.pred;
  plan.transport_head = m.pred(r.head.pred).kind == model::PredKind::Transport;
  plan.num_vars = static_cast<uint32_t>(r.num_vars());
  Binder b{r, std::vector<bool>(r.num_vars(), false), {}};
  const size_t L = r.body.size();
  // Filters are numbered: constraints 0 .. C-1, then negated literal i as C + i.
  const size_t C = r.constraints.size();
  std::vector<bool> done_lit(L, false), done_con(C, false);
  std::vector<uint32_t> waiting(C + L, 0);  // distinct unbound variables of each filter
  std::vector<size_t> bound_pos(L, 0);      // positive literals: constant or bound positions
  Occurrences occ{std::vector<std::vector<uint32_t>>(r.num_vars()), std::vector<std::vector<uint32_t>>(r.num_vars())};
  auto add_filter_var = [&](uint32_t filter, const RTerm& t) {
    if (!b.waits_for(t)) return;
    auto& list = occ.filters[t.id];
    if (!list.empty() && list.back() == filter) return;  // a variable counts once per filter
    list.push_back(filter);
    ++waiting[filter];
  };
  for (size_t i = 0; i < C; ++i) {
    add_filter_var(static_cast<uint32_t>(i), r.constraints[i].lhs);
    add_filter_var(static_cast<uint32_t>(i), r.constraints[i].rhs);
  }
  // Positive literals, keyed so that the set's first element is the next to place.
  using Key = std::tuple<int, long, size_t, size_t>;  // (-message, -bound, unbound, index)
  auto key = [&](size_t i) {
    const auto& lit = r.body[i];
    int message = source_of(m, lit) == Source::Message ? 1 : 0;
    return Key{-message, -static_cast<long>(bound_pos[i]), lit.atom.args.size() - bound_pos[i], i};
  };
  std::set<Key> positives;
  for (size_t i = 0; i < L; ++i) {
    const auto& lit = r.body[i];
    if (lit.negated) {
      const auto f = static_cast<uint32_t>(C + i);
      for (const auto& t : lit.atom.args) add_filter_var(f, t);
      if (lit.atom.at) add_filter_var(f, *lit.atom.at);
      continue;
    }
    for (const auto& t : lit.atom.args) {
      if (!t.is_var) ++bound_pos[i];
      else if (!r.var_anonymous[t.id]) occ.positive[t.id].push_back(static_cast<uint32_t>(i));
    }
    positives.insert(key(i));
  }

  std::vector<uint32_t> ready;  // filters that became ready, not yet placed
  for (size_t f = 0; f < C + L; ++f)
    if (waiting[f] == 0 && (f < C || r.body[f - C].negated)) ready.push_back(static_cast<uint32_t>(f));
  auto add_literal = [&](size_t i) {
    const auto& lit = r.body[i];
    LiteralPlan lp;
    lp.source = source_of(m, lit);
    lp.pred = lit.atom.pred;
    lp.negated = lit.negated;
    b.newly_bound.clear();
    for (const auto& t : lit.atom.args) lp.args.push_back(b.op(t, !lit.negated));
    if (lit.atom.at) {
      lp.has_at = true;
      lp.at = b.op(*lit.atom.at, !lit.negated);
    }
    plan.steps.push_back({PlanStep::Kind::Literal, static_cast<uint32_t>(plan.literals.size())});
    plan.literals.push_back(std::move(lp));
    done_lit[i] = true;
    for (uint32_t v : b.newly_bound) {
      for (uint32_t j : occ.positive[v]) {
        if (done_lit[j]) continue;
        positives.erase(key(j));
        ++bound_pos[j];
        positives.insert(key(j));
      }
      for (uint32_t f : occ.filters[v])
        if (--waiting[f] == 0) ready.push_back(f);
    }
  };
  // The filters that became ready go in: constraints first, then negated
  // literals, each in source order.
  auto add_ready_filters = [&] {
    std::sort(ready.begin(), ready.end());
    for (uint32_t f : ready) {
      if (f >= C) {
        if (!done_lit[f - C]) add_literal(f - C);  // negated: binds nothing, readies nothing
        continue;
      }
      const auto& c = r.constraints[f];
      plan.steps.push_back({PlanStep::Kind::Constraint, static_cast<uint32_t>(plan.constraints.size())});
      plan.constraints.push_back({b.op(c.lhs, false), b.op(c.rhs, false), c.equal});
      done_con[f] = true;
    }
    ready.clear();
  };

  add_ready_filters();
  while (!positives.empty()) {
    const size_t best = std::get<3>(*positives.begin());
    positives.erase(positives.begin());
    add_literal(best);
    add_ready_filters();
  }
  // Safety guarantees every filter became ready; keep any leftover anyway.
  for (size_t i = 0; i < L; ++i)
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
  for (const auto& arc : m.network.arcs()) cm.layout.arc_from.push_back(static_cast<uint32_t>(arc.src));
  cm.layout.num_fixed = static_cast<uint32_t>(m.constants.size());
  for (const auto& r : m.rules) cm.rules.push_back(plan_rule(m, r));
  for (const auto& c : m.components) cm.components.push_back({c.choice_rules, c.rules, c.recursive});
  cm.transport_rules = m.transport_rules;
  // Facts of an input predicate no rule reads change no successor (beyond
  // using up room under the input bound), so only the read ones are enumerated.
  std::vector<bool> read(m.preds.size(), false);
  for (const auto& r : m.rules)
    for (const auto& lit : r.body) read[lit.atom.pred] = true;
  for (model::PredId p : m.preds_of_kind(model::PredKind::Input))
    if (read[p]) cm.input_preds.push_back(p);
  cm.may_have_fresh = !cm.input_preds.empty() && m.bounds.input > 0;
  cm.input_matters.assign(m.preds.size(), 0);
  for (const RulePlan& r : cm.rules) {
    if (std::none_of(r.literals.begin(), r.literals.end(), [](const LiteralPlan& l) { return l.source == Source::Input; }))
      continue;
    bool named = false;
    for (const LiteralPlan& l : r.literals)
      if (l.source == Source::Message && !l.negated) {
        cm.input_matters[l.pred] = 1;
        named = true;
      }
    if (!named) std::fill(cm.input_matters.begin(), cm.input_matters.end(), 1);
  }
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
