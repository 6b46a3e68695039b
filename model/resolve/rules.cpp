// Rules (docs/reference.md §2.3, rules 1-4 and 6): heads, body literals and their
// annotations, constraints, choice, and safety; each rule becomes an RRule.
// It also records what later passes need: the head of every well-formed rule
// and the dependency edges of state rules.
#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "model/printer.hpp"
#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

// One occurrence of a variable that must be bound by a positive body literal.
struct Occurrence {
  VarId var;
  Loc loc;
};

class RuleResolver {
 public:
  explicit RuleResolver(Resolution& r) : r_(r) {}

  void resolve_rule(uint32_t i) {
    const Rule& r = r_.prog.rules[i];
    RRule& rr = r_.m.rules.emplace_back();  // reserved: stays in place
    rr.index = i;
    rr.loc = r.loc;
    rr.text = to_text(r);
    const bool is_fact = r.body.empty();
    auto where = [&] { return r_.rule_where(i); };  // built only for a message

    // clear() costs the bucket count: after a rule with very many variables,
    // start afresh so that the rules after it stay cheap.
    if (var_ids_.bucket_count() > 1024)
      std::unordered_map<std::string, VarId>().swap(var_ids_);
    else
      var_ids_.clear();
    std::vector<Occurrence>& must_bind = must_bind_;  // in source order
    must_bind.clear();
    auto new_var = [&](const std::string& name, bool anon) {
      VarId v = static_cast<VarId>(rr.var_names.size());
      rr.var_names.push_back(name);
      rr.var_anonymous.push_back(anon);
      return v;
    };
    auto term = [&](const Term& t) -> RTerm {
      switch (t.kind) {
        case Term::Kind::Const: return RTerm::constant(r_.m.constants.intern(t.text));
        case Term::Kind::Anon: return RTerm::var(new_var("_", true));
        case Term::Kind::Var: break;
      }
      auto it = var_ids_.find(t.text);
      if (it != var_ids_.end()) return RTerm::var(it->second);
      VarId v = new_var(t.text, false);
      var_ids_.emplace(t.text, v);
      return RTerm::var(v);
    };
    // A term that must be bound (head, negated literal, constraint); `_`
    // is an error where `context` is given and existential otherwise.
    auto bound_term = [&](const Term& t, const char* anon_context) -> RTerm {
      RTerm rt = term(t);
      if (t.is_anon()) {
        if (anon_context) r_.diag.error(t.loc, fmt::format("'_' cannot appear in {} {}", anon_context, where()));
      } else if (t.is_var()) {
        must_bind.push_back({rt.id, t.loc});
      }
      return rt;
    };

    // Head (rule 1).
    PredId h = lookup(r_, r.head, i);
    rr.head.pred = h;
    for (const Term& t : r.head.args) rr.head.args.push_back(bound_term(t, "a rule head"));
    if (r.head.at) rr.head.at = bound_term(*r.head.at, "a rule head's '@' annotation");
    if (h != kNoPred) {
      const Predicate& p = r_.m.preds[h];
      r_.usage[h].head = true;
      if (p.kind == PredKind::Input) {
        r_.diag.error(r.head.loc, fmt::format("input predicate '{}' cannot be a rule head (input facts come from the "
                                              "environment) {}",
                                              p.name, where()));
      } else if (h == kMyName || h == kNeighbor || h == kStart) {
        r_.diag.error(r.head.loc, fmt::format("built-in predicate '{}' cannot be a rule head {}", p.name, where()));
      } else if (p.kind == PredKind::Transport) {
        if (!r.head.at)
          r_.diag.error(r.head.loc, fmt::format("transport head '{}' needs a destination: write '{}@Dest' {}", p.name,
                                                to_text(r.head), where()));
        else
          r_.rule_head[i] = h;
      } else {
        if (r.head.at)
          r_.diag.error(r.head.at->loc, fmt::format("state head '{}' cannot carry an '@' annotation (only transport "
                                                    "heads have a destination) {}",
                                                    p.name, where()));
        r_.rule_head[i] = h;
      }
    }
    const bool state_head = r_.rule_head[i] != kNoPred && r_.m.preds[h].kind == PredKind::State;
    const size_t first_edge = r_.edges.size();

    // Body (rules 2, 4 and the bindings for rule 3).
    for (const BodyItem& item : r.body) {
      if (const auto* lit = std::get_if<Literal>(&item)) {
        RLiteral rl;
        rl.negated = lit->negated;
        rl.prev = lit->prev;
        rl.loc = lit->loc;
        const Atom& a = lit->atom;
        PredId q = lookup(r_, a, i);
        rl.atom.pred = q;
        // `_` in a negated atom is existential: it needs no binding.
        for (const Term& t : a.args) rl.atom.args.push_back(lit->negated ? bound_term(t, nullptr) : term(t));
        if (a.at) rl.atom.at = lit->negated ? bound_term(*a.at, nullptr) : term(*a.at);
        if (lit->prev) r_.m.uses_prev = true;
        if (q != kNoPred) check_body_literal(*lit, q, i);
        if (q != kNoPred && state_head && r_.m.preds[q].kind == PredKind::State && !lit->prev)
          r_.edges.push_back({h, q, lit->negated, i, lit->loc});
        rr.body.push_back(std::move(rl));
      } else if (const auto* c = std::get_if<Constraint>(&item)) {
        RConstraint rc;
        rc.equal = c->equal;
        rc.loc = c->loc;
        rc.lhs = bound_term(c->lhs, "a constraint");
        rc.rhs = bound_term(c->rhs, "a constraint");
        rr.constraints.push_back(rc);
      } else {
        const Choice& ch = std::get<Choice>(item);
        if (rr.choice) {
          r_.diag.error(ch.loc, fmt::format("a rule has at most one 'choice' (the first one is at {}) {}",
                                            loc_text(rr.choice->loc), where()));
          continue;
        }
        RChoice rc;
        rc.loc = ch.loc;
        std::unordered_map<std::string, Loc> seen;
        auto choice_var = [&](const Term& t, std::vector<VarId>& out) {
          if (!t.is_var()) {
            r_.diag.error(t.loc, fmt::format("'{}' cannot appear in a choice, which lists variables only {}",
                                             t.is_anon() ? "_" : t.text, where()));
            return;
          }
          auto [it, inserted] = seen.try_emplace(t.text, t.loc);
          if (!inserted) {
            r_.diag.error(t.loc,
                          fmt::format("variable {} appears twice in the choice (first at {}); its two lists must "
                                      "be distinct variables {}",
                                      t.text, loc_text(it->second), where()));
            return;
          }
          out.push_back(bound_term(t, nullptr).id);
        };
        for (const Term& t : ch.domain) choice_var(t, rc.domain);
        for (const Term& t : ch.picked) choice_var(t, rc.picked);
        rr.choice = std::move(rc);
      }
    }
    if (rr.choice && state_head) {
      for (size_t e = first_edge; e < r_.edges.size(); ++e) r_.choice_edges.push_back(e);
    }

    // Safety (rule 3): positive body literals bind their variables.
    std::vector<char>& bound = bound_;
    bound.assign(rr.num_vars(), 0);
    for (const RLiteral& rl : rr.body) {
      if (rl.negated) continue;
      for (const RTerm& t : rl.atom.args)
        if (t.is_var) bound[t.id] = 1;
      if (rl.atom.at && rl.atom.at->is_var) bound[rl.atom.at->id] = 1;
    }
    for (const Occurrence& o : must_bind) {
      if (bound[o.var]) continue;
      bound[o.var] = 1;  // report each variable once
      const std::string& name = rr.var_names[o.var];
      if (is_fact)
        r_.diag.error(o.loc, fmt::format("variable {} {} is unsafe: a fact (a rule without a body) must be ground",
                                         name, where()));
      else
        r_.diag.error(o.loc,
                      fmt::format("variable {} {} is unsafe: it must occur in a positive body literal", name, where()));
    }
  }

 private:
  void check_body_literal(const Literal& lit, PredId q, uint32_t rule) {
    auto where = [&] { return r_.rule_where(rule); };
    const Predicate& p = r_.m.preds[q];
    Usage& u = r_.usage[q];
    u.read = true;
    if (!lit.prev && !u.read_now) {
      u.read_now = true;
      u.first_read_now = lit.atom.loc;
      u.first_read_now_rule = rule;
    }
    if (p.kind == PredKind::Input) r_.m.uses_input = true;
    if (p.kind == PredKind::Transport) {
      if (lit.prev)
        r_.diag.error(lit.loc, fmt::format("transport atom '{}' cannot be under 'prev': it refers to the message being "
                                           "processed {}",
                                           p.name, where()));
      if (!lit.atom.at)
        r_.diag.error(lit.atom.loc, fmt::format("transport atom '{}' in a body needs '@Source' (write '{}@_' if the "
                                                "sender does not matter) {}",
                                                p.name, to_text(lit.atom), where()));
    } else {
      if (lit.atom.at)
        r_.diag.error(lit.atom.at->loc, fmt::format("{} atom '{}' cannot carry an '@' annotation (only transport atoms "
                                                    "do) {}",
                                                    pred_kind_name(p.kind), p.name, where()));
      if (lit.prev && p.kind == PredKind::Input)
        r_.diag.error(lit.loc, fmt::format("'prev' applies only to state atoms, and '{}' is an input predicate {}",
                                           p.name, where()));
    }
  }

  Resolution& r_;
  std::unordered_map<std::string, VarId> var_ids_;  // of the rule being resolved
  std::vector<Occurrence> must_bind_;               // of the rule being resolved
  std::vector<char> bound_;                         // of the rule being resolved, per variable
};

}  // namespace

void resolve_rules(Resolution& r) {
  r.rule_head.assign(r.prog.rules.size(), kNoPred);
  r.m.rules.reserve(r.prog.rules.size());
  RuleResolver rules(r);
  for (uint32_t i = 0; i < r.prog.rules.size(); ++i) rules.resolve_rule(i);
}

}  // namespace ddsmc::model::resolver
