#include "engine/d2c/step.hpp"

#include <algorithm>
#include <numeric>

namespace ddsmc::engine {
namespace {

// Calls f(pred, args) for every fact run in a word list.
template <class F>
void for_each_fact(const std::vector<Word>& words, const hashing::StateLayout& layout, F&& f) {
  for (size_t i = 0; i < words.size();) {
    Word pred = words[i];
    f(pred, words.data() + i + 1);
    i += 1 + layout.arity[pred];
  }
}

}  // namespace

StepEvaluator::StepEvaluator(const CompiledModel& cm) : cm_(cm), sent_(cm.layout) {
  for (uint32_t arity : cm.layout.arity) {
    state_.emplace_back(arity);
    prev_.emplace_back(arity);
    input_.emplace_back(arity);
  }
  uint32_t max_vars = 0;
  for (const auto& r : cm.rules) max_vars = std::max(max_vars, r.num_vars);
  vars_.assign(max_vars, 0);
}

void StepEvaluator::load(const StepInput& in) {
  in_ = &in;
  for (auto* rels : {&state_, &prev_, &input_})
    for (auto& r : *rels) r.clear();
  const auto& layout = cm_.layout;
  // Every source is a normalized fact list (sorted, no duplicates) and the
  // DB holds no built-ins, so facts are appended without a duplicate check.
  auto fill = [&](std::vector<Relation>& rels, const std::vector<Word>& facts) {
    for_each_fact(facts, layout, [&](Word pred, const Word* args) { rels[pred].append(args); });
  };
  fill(prev_, *in.db);
  fill(prev_, cm_.builtins[in.node]);
  fill(state_, cm_.builtins[in.node]);  // built-ins hold in the new state too
  if (in.input) fill(input_, *in.input);
  sent_.clear();
}

bool StepEvaluator::match_literal(const LiteralPlan& lp, uint32_t& cursor) {
  auto match_args = [&](const Word* tuple) {
    for (size_t k = 0; k < lp.args.size(); ++k) {
      const ArgOp& op = lp.args[k];
      switch (op.kind) {
        case ArgOp::Kind::Bind: vars_[op.value] = tuple[k]; break;
        case ArgOp::Kind::Check:
          if (vars_[op.value] != tuple[k]) return false;
          break;
        case ArgOp::Kind::Const:
          if (op.value != tuple[k]) return false;
          break;
        case ArgOp::Kind::Skip: break;
      }
    }
    return true;
  };
  if (lp.source == Source::Message) {
    if (cursor > 0) return false;
    cursor = 1;
    if (in_->msg[0] != lp.pred || !match_args(in_->msg + 1)) return false;
    if (!lp.has_at) return true;
    Word src = cm_.node_const[in_->msg_src];
    switch (lp.at.kind) {
      case ArgOp::Kind::Bind: vars_[lp.at.value] = src; return true;
      case ArgOp::Kind::Check: return vars_[lp.at.value] == src;
      case ArgOp::Kind::Const: return lp.at.value == src;
      case ArgOp::Kind::Skip: return true;
    }
    return true;
  }
  const auto& rels = lp.source == Source::State ? state_ : lp.source == Source::Prev ? prev_ : input_;
  const Relation& r = rels[lp.pred];
  for (uint32_t t = cursor; t < r.count(); ++t) {
    if (match_args(r.tuple(t))) {
      cursor = t + 1;
      return true;
    }
  }
  cursor = r.count();
  return false;
}

bool StepEvaluator::negation_holds(const LiteralPlan& lp) {
  uint32_t cursor = 0;
  return !match_literal(lp, cursor);
}

bool StepEvaluator::constraint_holds(const ConstraintPlan& c) const {
  return (value(c.lhs) == value(c.rhs)) == c.equal;
}

// Backtracking join over the plan's steps, iterative so that long bodies
// cannot exhaust the stack.
template <class F>
void StepEvaluator::join(const RulePlan& p, F&& emit_vars) {
  size_t n = p.steps.size();
  if (cursors_.size() < n) cursors_.resize(n);
  size_t i = 0;
  bool forward = true;
  while (true) {
    maybe_poll();
    if (i == n) {
      emit_vars();
      if (n == 0) return;
      i = n - 1;
      forward = false;
      continue;
    }
    const PlanStep& st = p.steps[i];
    bool ok = false;
    if (st.kind == PlanStep::Kind::Constraint) {
      ok = forward && constraint_holds(p.constraints[st.index]);
    } else {
      const LiteralPlan& lp = p.literals[st.index];
      if (lp.negated) {
        ok = forward && negation_holds(lp);
      } else {
        if (forward) cursors_[i] = 0;
        ok = match_literal(lp, cursors_[i]);
      }
    }
    if (ok) {
      ++i;
      forward = true;
    } else {
      if (i == 0) return;
      --i;
      forward = false;
    }
  }
}

void StepEvaluator::head_tuple(const RulePlan& p, std::vector<Word>& out) const {
  if (p.transport_head) out.push_back(value(p.head_at));
  for (const auto& op : p.head_args) out.push_back(value(op));
}

void StepEvaluator::run_fixpoint(const ComponentPlan& comp) {
  std::vector<Word>& buf = scratch_;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t ri : comp.rules) {
      const RulePlan& p = cm_.rules[ri];
      buf.clear();
      bool fired = false;
      join(p, [&] {
        fired = true;
        head_tuple(p, buf);
      });
      Relation& r = state_[p.head_pred];
      if (r.arity() == 0) {
        if (fired) changed |= r.insert(nullptr);
        continue;
      }
      for (size_t k = 0; k < buf.size(); k += r.arity()) {
        maybe_poll();
        changed |= r.insert(buf.data() + k);
      }
    }
    if (!comp.recursive) break;  // its rules read only earlier components: one pass is the fixpoint
  }
}

void StepEvaluator::collect_choice(const RulePlan& p, std::vector<ChoiceGroup>& groups) {
  // Records of (domain values, picked values, head tuple), grouped by domain.
  struct Rec {
    std::vector<Word> x, y, head;
  };
  std::vector<Rec> recs;
  join(p, [&] {
    Rec r;
    for (uint32_t v : p.choice_domain) r.x.push_back(vars_[v]);
    for (uint32_t v : p.choice_picked) r.y.push_back(vars_[v]);
    head_tuple(p, r.head);
    recs.push_back(std::move(r));
  });
  std::sort(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) {
    return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.head < b.head;
  });
  groups.clear();
  for (size_t i = 0; i < recs.size(); ++i) {
    bool new_x = i == 0 || recs[i].x != recs[i - 1].x;
    bool new_y = new_x || recs[i].y != recs[i - 1].y;
    if (new_x) groups.emplace_back();
    if (new_y) groups.back().heads_per_pick.emplace_back();
    auto& heads = groups.back().heads_per_pick.back();
    heads.insert(heads.end(), recs[i].head.begin(), recs[i].head.end());
  }
}

// Enumerates the product of the picks of every group of every choice rule;
// apply(rule, heads) fires one pick, next() continues the evaluation, and
// restore() undoes the picks before the following outcome.
template <class Apply, class Next>
void StepEvaluator::for_each_outcome(const std::vector<std::vector<ChoiceGroup>>& per_rule, Apply&& apply,
                                     Next&& next) {
  std::vector<std::pair<size_t, const ChoiceGroup*>> flat;
  for (size_t j = 0; j < per_rule.size(); ++j)
    for (const auto& g : per_rule[j]) flat.emplace_back(j, &g);
  std::vector<size_t> digit(flat.size(), 0);
  while (true) {
    for (size_t k = 0; k < flat.size(); ++k) apply(flat[k].first, flat[k].second->heads_per_pick[digit[k]]);
    next();
    size_t k = 0;
    for (; k < flat.size(); ++k) {
      if (++digit[k] < flat[k].second->heads_per_pick.size()) break;
      digit[k] = 0;
    }
    if (k == flat.size()) return;
  }
}

void StepEvaluator::run_components(size_t first) {
  for (size_t ci = first; ci < cm_.components.size(); ++ci) {
    const ComponentPlan& comp = cm_.components[ci];
    if (comp.choice_rules.empty()) {
      run_fixpoint(comp);
      continue;
    }
    // Choice rules fire first; their bodies read only earlier components (rule 4).
    std::vector<std::vector<ChoiceGroup>> per_rule(comp.choice_rules.size());
    for (size_t j = 0; j < comp.choice_rules.size(); ++j) collect_choice(cm_.rules[comp.choice_rules[j]], per_rule[j]);
    std::vector<uint32_t> snapshot;
    for (const auto& r : state_) snapshot.push_back(r.count());
    auto restore = [&] {
      for (size_t p = 0; p < state_.size(); ++p) state_[p].truncate(snapshot[p]);
    };
    for_each_outcome(
        per_rule,
        [&](size_t j, const std::vector<Word>& heads) {
          Relation& r = state_[cm_.rules[comp.choice_rules[j]].head_pred];
          if (r.arity() == 0) {
            r.insert(nullptr);
            return;
          }
          for (size_t k = 0; k < heads.size(); k += r.arity()) r.insert(heads.data() + k);
        },
        [&] {
          run_fixpoint(comp);
          run_components(ci + 1);
          restore();
        });
    return;
  }
  run_transport();
}

void StepEvaluator::derive_transport(const RulePlan& p) {
  std::vector<Word>& buf = scratch_;
  buf.clear();
  join(p, [&] { head_tuple(p, buf); });
  uint32_t w = 1 + cm_.layout.arity[p.head_pred];  // dest + args
  for (size_t k = 0; k < buf.size(); k += w) {
    run_.assign(1, buf[k]);
    run_.push_back(p.head_pred);
    run_.insert(run_.end(), buf.begin() + k + 1, buf.begin() + k + w);
    sent_.add(run_.data());
  }
}

void StepEvaluator::run_transport() {
  // Messages depend on this outcome's state only: start from none.
  sent_.clear();
  std::vector<uint32_t> choice_rules;
  for (uint32_t ri : cm_.transport_rules) {
    if (cm_.rules[ri].has_choice)
      choice_rules.push_back(ri);
    else
      derive_transport(cm_.rules[ri]);
  }
  if (choice_rules.empty()) return emit();
  std::vector<std::vector<ChoiceGroup>> per_rule(choice_rules.size());
  for (size_t j = 0; j < choice_rules.size(); ++j) collect_choice(cm_.rules[choice_rules[j]], per_rule[j]);
  size_t sent_size = sent_.runs().size();
  std::vector<Word> picked;
  for_each_outcome(
      per_rule,
      [&](size_t j, const std::vector<Word>& heads) {
        const RulePlan& p = cm_.rules[choice_rules[j]];
        uint32_t w = 1 + cm_.layout.arity[p.head_pred];
        for (size_t k = 0; k < heads.size(); k += w) {
          picked.push_back(heads[k]);
          picked.push_back(p.head_pred);
          picked.insert(picked.end(), heads.begin() + k + 1, heads.begin() + k + w);
        }
      },
      [&] {
        // Add the picked messages, keeping the set semantics.
        for (size_t i = 0; i < picked.size(); i += sent_.run_words(picked.data() + i)) sent_.add(picked.data() + i);
        picked.clear();
        emit();
        sent_.truncate(sent_size);
      });
}

void StepEvaluator::emit() {
  const auto& layout = cm_.layout;
  result_.db.clear();
  for (size_t p = model::kNumBuiltins; p < state_.size(); ++p) {
    const Relation& r = state_[p];
    for (uint32_t t = 0; t < r.count(); ++t) {
      result_.db.push_back(static_cast<Word>(p));
      result_.db.insert(result_.db.end(), r.tuple(t), r.tuple(t) + r.arity());
    }
  }
  if (state_[model::kError].count()) result_.db.push_back(model::kError);
  hashing::normalize_db(result_.db, layout);

  result_.sent.clear();
  result_.dropped.clear();
  const auto& net = cm_.model->network;
  model::NodeId me = in_->node;
  const std::vector<Word>& sent = sent_.runs();
  for (size_t i = 0; i < sent.size();) {
    Word dest = sent[i];
    size_t len = 2 + layout.arity[sent[i + 1]];
    int32_t node = dest < cm_.node_of_const.size() ? cm_.node_of_const[dest] : -1;
    bool arc = node >= 0 && (static_cast<model::NodeId>(node) == me || net.adjacent(me, node));
    auto& target = arc ? result_.sent : result_.dropped;
    target.push_back(arc ? static_cast<Word>(node) : dest);
    target.insert(target.end(), sent.begin() + i + 1, sent.begin() + i + len);
    i += len;
  }
  (*out_)(result_);
}

void StepEvaluator::evaluate(const StepInput& in, FunctionRef<void(const StepResult&)> out) {
  out_ = &out;
  load(in);
  run_components(0);
}

}  // namespace ddsmc::engine
