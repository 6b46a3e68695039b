// A deliberately naive reference for one step of one node (docs/reference.md
// §3.3 and §3.4), written straight from that text over the resolved
// model::Model (never the compiled plans): facts are std::set<model::Fact>,
// a rule body is evaluated by brute force over every assignment of its named
// variables to the active domain, a component's rules are iterated to a
// naive fixpoint, and choice outcomes are enumerated as an explicit product.
//
// Header-only so that several test files can share it (the test CMake globs
// only *_test.cpp). Slow by design: use it on small programs only.
#pragma once

#include <algorithm>
#include <compare>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace ddsmc::reftest {

using model::ConstId;
using model::Fact;
using model::NodeId;
using model::PredId;

// A derived transport fact and the constant its `@Dest` named.
struct RefMessage {
  ConstId dest = 0;
  Fact fact;
  friend bool operator==(const RefMessage&, const RefMessage&) = default;
  friend auto operator<=>(const RefMessage&, const RefMessage&) = default;
};

// One distinct outcome of a step.
struct RefOutcome {
  std::set<Fact> db;               // the new DB without my_name / neighbor facts
  std::set<RefMessage> sent;       // destinations that are arcs of the node (itself or a neighbour)
  std::set<RefMessage> dropped;    // destinations that are not arcs
  friend bool operator==(const RefOutcome&, const RefOutcome&) = default;
  friend auto operator<=>(const RefOutcome&, const RefOutcome&) = default;
};

struct RefStepInput {
  NodeId node = 0;
  std::set<Fact> db;  // the node's DB before the step, built-ins excluded
  NodeId msg_src = 0;
  Fact msg;           // the one transport fact processed
  std::set<Fact> input;
};

// The built-in facts of a node: my_name(n) and neighbor(m) for each m adjacent
// to n (docs/reference.md §2.1: never n itself).
inline std::set<Fact> ref_builtins(const model::Model& m, NodeId n) {
  std::set<Fact> out;
  out.insert(Fact{model::kMyName, {m.node_const[n]}});
  for (NodeId k = 0; k < m.network.num_nodes(); ++k)
    if (k != n && m.network.adjacent(n, k)) out.insert(Fact{model::kNeighbor, {m.node_const[k]}});
  return out;
}

// Checks that Model::components is a legal evaluation order (docs/reference.md
// §2.4 and §2.3, rules 4-5): every rule with a state head is in exactly the component of
// its head, choice rules listed as such; every non-prev state predicate a rule
// reads is derived in the same or an earlier component (an earlier one when
// negated or read by a choice rule); transport_rules are exactly the rules with
// transport heads. Returns "" when all holds, else what is wrong. The
// reference trusts the order only after this check.
inline std::string check_component_order(const model::Model& m) {
  std::map<PredId, size_t> comp_of;
  for (size_t c = 0; c < m.components.size(); ++c)
    for (PredId p : m.components[c].preds) {
      if (comp_of.count(p)) return "predicate " + m.preds[p].name + " is in two components";
      comp_of[p] = c;
    }
  std::vector<int> seen(m.rules.size(), 0);
  for (size_t c = 0; c < m.components.size(); ++c) {
    auto visit = [&](uint32_t ri, bool as_choice) -> std::string {
      if (ri >= m.rules.size()) return "rule index out of range";
      const auto& r = m.rules[ri];
      ++seen[ri];
      if (m.preds[r.head.pred].kind != model::PredKind::State) return "transport rule in a component: " + r.text;
      if (r.choice.has_value() != as_choice) return "choice rule listed wrongly: " + r.text;
      auto it = comp_of.find(r.head.pred);
      if (it == comp_of.end() || it->second != c) return "rule in the wrong component: " + r.text;
      for (const auto& lit : r.body) {
        if (lit.prev || m.preds[lit.atom.pred].kind != model::PredKind::State) continue;
        auto jt = comp_of.find(lit.atom.pred);
        if (jt == comp_of.end()) {
          // Not derived by any rule: then no rule may have it as head.
          for (const auto& other : m.rules)
            if (other.head.pred == lit.atom.pred) return "derived predicate without component: " + r.text;
          continue;
        }
        if (jt->second > c) return "rule reads a later component: " + r.text;
        if (jt->second == c && (lit.negated || as_choice)) return "negation/choice inside its component: " + r.text;
      }
      return "";
    };
    for (uint32_t ri : m.components[c].choice_rules)
      if (auto e = visit(ri, true); !e.empty()) return e;
    for (uint32_t ri : m.components[c].rules)
      if (auto e = visit(ri, false); !e.empty()) return e;
  }
  std::set<uint32_t> transport(m.transport_rules.begin(), m.transport_rules.end());
  if (transport.size() != m.transport_rules.size()) return "duplicate transport rule";
  for (uint32_t ri = 0; ri < m.rules.size(); ++ri) {
    bool is_transport = m.preds[m.rules[ri].head.pred].kind == model::PredKind::Transport;
    if (is_transport != (transport.count(ri) > 0)) return "transport_rules wrong at " + m.rules[ri].text;
    if (!is_transport && seen[ri] != 1) return "state rule not in exactly one component: " + m.rules[ri].text;
  }
  return "";
}

class ReferenceStep {
 public:
  ReferenceStep(const model::Model& m, const RefStepInput& in) : m_(m), in_(in) {
    src_ = m.node_const[in.msg_src];
    builtins_ = ref_builtins(m, in.node);
    prev_ = in.db;
    prev_.insert(builtins_.begin(), builtins_.end());
    // Active domain: every constant of the EDB, the message source, and every
    // constant written in the program.
    std::set<ConstId> dom;
    for (const Fact& f : prev_) dom.insert(f.args.begin(), f.args.end());
    for (const Fact& f : in.input) dom.insert(f.args.begin(), f.args.end());
    dom.insert(in.msg.args.begin(), in.msg.args.end());
    dom.insert(src_);
    auto add_term = [&](const model::RTerm& t) {
      if (!t.is_var) dom.insert(t.id);
    };
    for (const auto& r : m.rules) {
      for (const auto& t : r.head.args) add_term(t);
      if (r.head.at) add_term(*r.head.at);
      for (const auto& lit : r.body) {
        for (const auto& t : lit.atom.args) add_term(t);
        if (lit.atom.at) add_term(*lit.atom.at);
      }
      for (const auto& c : r.constraints) add_term(c.lhs), add_term(c.rhs);
    }
    domain_.assign(dom.begin(), dom.end());
  }

  std::set<RefOutcome> run() {
    outcomes_.clear();
    run_components(0, builtins_);  // built-ins hold in the new state too
    return outcomes_;
  }

 private:
  using Subst = std::vector<ConstId>;  // indexed by variable; only named variables are meaningful

  // The value of a term that is a constant or a named (bound) variable.
  static ConstId value(const model::RTerm& t, const Subst& s) { return t.is_var ? s[t.id] : t.id; }

  // Does some fact of the literal's source match its atom under s (anonymous
  // variables match anything)?
  bool atom_exists(const model::RRule& r, const model::RLiteral& lit, const Subst& s,
                   const std::set<Fact>& state) const {
    const model::RAtom& a = lit.atom;
    auto matches = [&](const Fact& f) {
      if (f.pred != a.pred || f.args.size() != a.args.size()) return false;
      for (size_t k = 0; k < a.args.size(); ++k) {
        const auto& t = a.args[k];
        if (t.is_var && r.var_anonymous[t.id]) continue;
        if (f.args[k] != value(t, s)) return false;
      }
      return true;
    };
    switch (m_.preds[a.pred].kind) {
      case model::PredKind::Transport: {
        if (!matches(in_.msg)) return false;
        if (!a.at) return true;
        if (a.at->is_var && r.var_anonymous[a.at->id]) return true;
        return value(*a.at, s) == src_;
      }
      case model::PredKind::Input:
        for (const Fact& f : in_.input)
          if (matches(f)) return true;
        return false;
      case model::PredKind::State:
        for (const Fact& f : lit.prev ? prev_ : state)
          if (matches(f)) return true;
        return false;
    }
    return false;
  }

  bool item_holds_literal(const model::RRule& r, const model::RLiteral& lit, const Subst& s,
                          const std::set<Fact>& state) const {
    return atom_exists(r, lit, s, state) != lit.negated;
  }

  // Every assignment of the rule's named variables to the active domain that
  // satisfies the whole body. Brute force, pruned only by rejecting a partial
  // assignment as soon as a body item whose named variables are all assigned
  // fails (which cannot change by assigning more variables).
  std::vector<Subst> substitutions(const model::RRule& r, const std::set<Fact>& state) const {
    std::vector<uint32_t> named;
    for (uint32_t v = 0; v < r.num_vars(); ++v)
      if (!r.var_anonymous[v]) named.push_back(v);
    std::vector<size_t> pos(r.num_vars(), 0);
    for (size_t i = 0; i < named.size(); ++i) pos[named[i]] = i + 1;  // 1-based depth at which v is assigned
    auto depth_of_term = [&](const model::RTerm& t) -> size_t {
      return t.is_var && !r.var_anonymous[t.id] ? pos[t.id] : 0;
    };
    // Items to check at each depth (0: before any assignment).
    std::vector<std::vector<size_t>> lits_at(named.size() + 1), cons_at(named.size() + 1);
    for (size_t i = 0; i < r.body.size(); ++i) {
      size_t d = 0;
      for (const auto& t : r.body[i].atom.args) d = std::max(d, depth_of_term(t));
      if (r.body[i].atom.at) d = std::max(d, depth_of_term(*r.body[i].atom.at));
      lits_at[d].push_back(i);
    }
    for (size_t i = 0; i < r.constraints.size(); ++i)
      cons_at[std::max(depth_of_term(r.constraints[i].lhs), depth_of_term(r.constraints[i].rhs))].push_back(i);

    std::vector<Subst> out;
    Subst s(r.num_vars(), 0);
    std::function<void(size_t)> rec = [&](size_t depth) {
      for (size_t i : cons_at[depth]) {
        const auto& c = r.constraints[i];
        if ((value(c.lhs, s) == value(c.rhs, s)) != c.equal) return;
      }
      for (size_t i : lits_at[depth])
        if (!item_holds_literal(r, r.body[i], s, state)) return;
      if (depth == named.size()) {
        out.push_back(s);
        return;
      }
      for (ConstId c : domain_) {
        s[named[depth]] = c;
        rec(depth + 1);
      }
    };
    rec(0);
    return out;
  }

  Fact head_fact(const model::RRule& r, const Subst& s) const {
    Fact f{r.head.pred, {}};
    for (const auto& t : r.head.args) f.args.push_back(value(t, s));
    return f;
  }

  // For a choice rule: domain value -> picked value -> what firing with that pick adds.
  template <class Item>
  using Groups = std::map<std::vector<ConstId>, std::map<std::vector<ConstId>, std::set<Item>>>;

  template <class Item, class MakeItem>
  Groups<Item> choice_groups(const model::RRule& r, const std::set<Fact>& state, MakeItem&& make) const {
    Groups<Item> g;
    for (const Subst& s : substitutions(r, state)) {
      std::vector<ConstId> x, y;
      for (auto v : r.choice->domain) x.push_back(s[v]);
      for (auto v : r.choice->picked) y.push_back(s[v]);
      g[x][y].insert(make(s));
    }
    return g;
  }

  // Calls f(items picked) for every element of the product of the picks of
  // every group of every rule.
  template <class Item>
  static void for_each_pick(const std::vector<Groups<Item>>& rules, const std::function<void(const std::set<Item>&)>& f) {
    std::vector<const std::map<std::vector<ConstId>, std::set<Item>>*> flat;
    for (const auto& g : rules)
      for (const auto& [x, picks] : g) flat.push_back(&picks);
    std::function<void(size_t, std::set<Item>)> rec = [&](size_t k, std::set<Item> sofar) {
      if (k == flat.size()) {
        f(sofar);
        return;
      }
      for (const auto& [y, items] : *flat[k]) {
        std::set<Item> next = sofar;
        next.insert(items.begin(), items.end());
        rec(k + 1, std::move(next));
      }
    };
    rec(0, {});
  }

  void fixpoint(const std::vector<uint32_t>& rules, std::set<Fact>& state) const {
    bool changed = true;
    while (changed) {
      changed = false;
      for (uint32_t ri : rules) {
        const auto& r = m_.rules[ri];
        for (const Subst& s : substitutions(r, state)) changed |= state.insert(head_fact(r, s)).second;
      }
    }
  }

  void run_components(size_t ci, std::set<Fact> state) {
    if (ci == m_.components.size()) return run_transport(state);
    const model::Component& comp = m_.components[ci];
    std::vector<Groups<Fact>> groups;
    for (uint32_t ri : comp.choice_rules) {
      const auto& r = m_.rules[ri];
      groups.push_back(choice_groups<Fact>(r, state, [&](const Subst& s) { return head_fact(r, s); }));
    }
    for_each_pick<Fact>(groups, [&](const std::set<Fact>& picked) {
      std::set<Fact> next = state;
      next.insert(picked.begin(), picked.end());
      fixpoint(comp.rules, next);
      run_components(ci + 1, std::move(next));
    });
  }

  RefMessage message(const model::RRule& r, const Subst& s) const {
    return RefMessage{value(*r.head.at, s), head_fact(r, s)};
  }

  void run_transport(const std::set<Fact>& state) {
    std::set<RefMessage> msgs;
    std::vector<Groups<RefMessage>> groups;
    for (uint32_t ri : m_.transport_rules) {
      const auto& r = m_.rules[ri];
      if (r.choice) {
        groups.push_back(choice_groups<RefMessage>(r, state, [&](const Subst& s) { return message(r, s); }));
      } else {
        for (const Subst& s : substitutions(r, state)) msgs.insert(message(r, s));
      }
    }
    for_each_pick<RefMessage>(groups, [&](const std::set<RefMessage>& picked) {
      RefOutcome o;
      for (const Fact& f : state)
        if (f.pred != model::kMyName && f.pred != model::kNeighbor) o.db.insert(f);
      std::set<RefMessage> all = msgs;
      all.insert(picked.begin(), picked.end());
      for (const RefMessage& msg : all) {
        bool arc = false;
        for (NodeId k = 0; k < m_.node_const.size(); ++k)
          if (m_.node_const[k] == msg.dest) arc = k == in_.node || m_.network.adjacent(in_.node, k);
        (arc ? o.sent : o.dropped).insert(msg);
      }
      outcomes_.insert(std::move(o));
    });
  }

  const model::Model& m_;
  const RefStepInput& in_;
  ConstId src_ = 0;
  std::set<Fact> builtins_, prev_;
  std::vector<ConstId> domain_;
  std::set<RefOutcome> outcomes_;
};

// The set of distinct outcomes of one step.
inline std::set<RefOutcome> reference_step(const model::Model& m, const RefStepInput& in) {
  return ReferenceStep(m, in).run();
}

inline std::string ref_fact_string(const model::Model& m, const Fact& f) { return m.fact_to_string(f); }

inline std::string ref_outcome_string(const model::Model& m, const RefOutcome& o) {
  std::string s = "db {";
  bool first = true;
  for (const Fact& f : o.db) s += (first ? "" : ", ") + m.fact_to_string(f), first = false;
  auto msgs = [&](const char* name, const std::set<RefMessage>& ms) {
    s += std::string("} ") + name + " {";
    bool first_msg = true;
    for (const auto& msg : ms) {
      std::string dest = m.constants.is_fixed(msg.dest) ? m.constants.spelling(msg.dest)
                                                        : "#" + std::to_string(msg.dest - m.constants.size());
      s += (first_msg ? "" : ", ") + m.fact_to_string(msg.fact) + "@" + dest;
      first_msg = false;
    }
  };
  msgs("sent", o.sent);
  msgs("dropped", o.dropped);
  return s + "}";
}

}  // namespace ddsmc::reftest
