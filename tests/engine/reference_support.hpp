// Shared pieces of the Ref* differential tests: converting between the
// engine's word runs and model::Fact sets, running engine::StepEvaluator on
// a RefStepInput, loading program text, and a random D2C program generator.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/step.hpp"
#include "model/load.hpp"
#include "tests/engine/reference_step_impl.hpp"

namespace ddsmc::reftest {

using hashing::Word;
using Rng = std::mt19937_64;

inline uint32_t uni(Rng& rng, uint32_t lo, uint32_t hi) {  // inclusive
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}
inline bool coin(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }
template <class T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[uni(rng, 0, static_cast<uint32_t>(v.size()) - 1)];
}

// ---- words <-> facts ---------------------------------------------------------

inline std::vector<Word> to_words(const std::set<Fact>& facts) {
  std::vector<Word> out;
  for (const Fact& f : facts) {  // std::set order is the word-run order (same pred, same length)
    out.push_back(f.pred);
    out.insert(out.end(), f.args.begin(), f.args.end());
  }
  return out;
}

inline std::vector<Word> to_words(const Fact& f) {
  std::vector<Word> out{f.pred};
  out.insert(out.end(), f.args.begin(), f.args.end());
  return out;
}

inline std::set<Fact> to_facts(const std::vector<Word>& words, const hashing::StateLayout& layout) {
  std::set<Fact> out;
  for (size_t i = 0; i < words.size();) {
    Fact f{words[i], {}};
    f.args.assign(words.begin() + i + 1, words.begin() + i + 1 + layout.arity[words[i]]);
    out.insert(std::move(f));
    i += 1 + layout.arity[words[i]];
  }
  return out;
}

// ---- the engine on a RefStepInput -------------------------------------------

struct EngineStep {
  std::set<RefOutcome> outcomes;
  size_t calls = 0;                // StepResults delivered (one per choice outcome)
  std::vector<std::string> problems;  // broken invariants of StepResult
};

// Evaluator: engine::StepEvaluator or engine::CompiledStepEvaluator.
template <class Evaluator>
EngineStep engine_step(const engine::CompiledModel& cm, Evaluator& ev, const RefStepInput& in) {
  const auto& layout = cm.layout;
  std::vector<Word> db = to_words(in.db), input = to_words(in.input), msg = to_words(in.msg);
  EngineStep out;
  engine::StepInput si{in.node, &db, in.msg_src, msg.data(), &input};
  ev.evaluate(si, [&](const engine::StepResult& r) {
    ++out.calls;
    RefOutcome o;
    std::vector<Word> norm = r.db;
    hashing::normalize_db(norm, layout);
    if (norm != r.db) out.problems.push_back("StepResult::db is not normalized");
    o.db = to_facts(r.db, layout);
    for (const Fact& f : o.db)
      if (f.pred == model::kMyName || f.pred == model::kNeighbor) out.problems.push_back("built-in in StepResult::db");
    auto read_msgs = [&](const std::vector<Word>& w, bool node_ids, std::set<RefMessage>& into) {
      size_t count = 0;
      for (size_t i = 0; i < w.size();) {
        RefMessage msg;
        if (node_ids) {
          if (w[i] >= cm.node_const.size()) {
            out.problems.push_back("sent to a node id out of range");
            return;
          }
          msg.dest = cm.node_const[w[i]];
        } else {
          msg.dest = w[i];
        }
        msg.fact.pred = w[i + 1];
        uint32_t arity = layout.arity[w[i + 1]];
        msg.fact.args.assign(w.begin() + i + 2, w.begin() + i + 2 + arity);
        into.insert(std::move(msg));
        ++count;
        i += 2 + arity;
      }
      if (count != into.size()) out.problems.push_back("duplicate message in one StepResult");
    };
    read_msgs(r.sent, true, o.sent);
    read_msgs(r.dropped, false, o.dropped);
    out.outcomes.insert(std::move(o));
  });
  return out;
}

inline std::string outcomes_string(const model::Model& m, const std::set<RefOutcome>& os) {
  std::string s;
  for (const auto& o : os) s += "    " + ref_outcome_string(m, o) + "\n";
  return s.empty() ? "    (none)\n" : s;
}

inline std::string facts_string(const model::Model& m, const std::set<Fact>& fs) {
  std::string s = "{";
  bool first = true;
  for (const Fact& f : fs) s += (first ? "" : ", ") + m.fact_to_string(f), first = false;
  return s + "}";
}

inline std::string step_input_string(const model::Model& m, const RefStepInput& in) {
  return "node " + m.network.name(in.node) + ", db " + facts_string(m, in.db) + ", message " +
         m.fact_to_string(in.msg) + "@" + m.network.name(in.msg_src) + ", input " + facts_string(m, in.input);
}

// ---- loading -------------------------------------------------------------------

inline std::optional<model::Model> load_text(const std::string& text, const model::Overrides& ov,
                                             std::string* errors = nullptr) {
  model::Diagnostics diag;
  auto m = model::load_model_text(text, "ref.d2c", ov, diag);
  if (errors) *errors = diag.format_all();
  return m;
}

inline model::Overrides network_override(const std::string& spec) {
  model::Overrides ov;
  ov.network_spec = spec;
  return ov;
}

// ---- random step inputs ------------------------------------------------------

// A random step input for node programs of `m` (the Ref* step tests and
// compiled_step_test): a random node, a DB of up to 8 random state facts, a
// message from the node itself or a neighbour, up to two input facts.
// Arguments come from the fixed constants, two fresh ids and the
// neighbourhood's names.
inline RefStepInput random_step_input(Rng& rng, const model::Model& m) {
  RefStepInput in;
  const uint32_t nodes = static_cast<uint32_t>(m.network.num_nodes());
  in.node = uni(rng, 0, nodes - 1);
  std::vector<NodeId> sources{in.node};
  for (NodeId k : m.network.neighbors(in.node)) sources.push_back(k);
  in.msg_src = pick(rng, sources);

  std::vector<ConstId> pool;
  const uint32_t fixed = static_cast<uint32_t>(m.constants.size());
  for (ConstId c = 0; c < fixed; ++c) pool.push_back(c);
  for (ConstId c = fixed; c < fixed + 2; ++c) pool.push_back(c);
  // Node names of the node and its neighbours, more often.
  for (NodeId k : sources) pool.push_back(m.node_const[k]), pool.push_back(m.node_const[k]);
  auto fact_of = [&](PredId p) {
    Fact f{p, {}};
    for (uint32_t k = 0; k < m.preds[p].arity; ++k) f.args.push_back(pick(rng, pool));
    return f;
  };
  std::vector<PredId> state, input, transport;
  for (PredId p = 0; p < m.preds.size(); ++p) {
    if (p == model::kMyName || p == model::kNeighbor) continue;
    switch (m.preds[p].kind) {
      case model::PredKind::State: state.push_back(p); break;
      case model::PredKind::Input: input.push_back(p); break;
      case model::PredKind::Transport: transport.push_back(p); break;
    }
  }
  uint32_t ndb = uni(rng, 0, 8);
  for (uint32_t i = 0; i < ndb; ++i) in.db.insert(fact_of(pick(rng, state)));
  in.msg = fact_of(pick(rng, transport));
  if (!input.empty()) {
    uint32_t ni = uni(rng, 0, 2);
    for (uint32_t i = 0; i < ni; ++i) in.input.insert(fact_of(pick(rng, input)));
  }
  return in;
}

// ---- random programs -----------------------------------------------------------

struct GenOptions {
  uint32_t min_state = 1, max_state = 3;  // state predicates
  uint32_t max_state_arity = 2;
  uint32_t min_input = 0, max_input = 1;  // input predicates
  uint32_t max_input_arity = 2;
  uint32_t min_transport = 1, max_transport = 2;
  uint32_t max_transport_arity = 2;
  uint32_t min_rules = 2, max_rules = 6;
  double choice_rate = 0.2;
  double init_rate = 0.15;  // an `init` block with a fact
};

class ProgramGenerator {
 public:
  ProgramGenerator(Rng& rng, GenOptions opt) : rng_(rng), opt_(opt) {}

  std::string generate() {
    preds_.clear();
    uint32_t ns = uni(rng_, opt_.min_state, opt_.max_state);
    uint32_t ni = uni(rng_, opt_.min_input, opt_.max_input);
    uint32_t nt = uni(rng_, opt_.min_transport, opt_.max_transport);
    std::string text;
    auto declare = [&](const char* kw, const char* prefix, uint32_t n, uint32_t max_arity, Kind k) {
      if (n == 0) return;
      text += kw;
      for (uint32_t i = 0; i < n; ++i) {
        Pred p{std::string(prefix) + std::to_string(i), uni(rng_, 0, max_arity), k, false};
        text += (i ? ", " : " ") + p.name + "/" + std::to_string(p.arity);
        preds_.push_back(p);
      }
      text += ".\n";
    };
    declare("state", "s", ns, opt_.max_state_arity, Kind::State);
    declare("input", "i", ni, opt_.max_input_arity, Kind::Input);
    declare("transport", "t", nt, opt_.max_transport_arity, Kind::Transport);
    preds_.push_back({"my_name", 1, Kind::State, true});
    preds_.push_back({"neighbor", 1, Kind::State, true});
    preds_.push_back({"error", 0, Kind::State, true});
    preds_.push_back({"start", 0, Kind::Transport, true});
    if (coin(rng_, opt_.init_rate)) {
      std::vector<const Pred*> user;
      for (const auto& p : preds_)
        if (p.kind == Kind::State && !p.builtin) user.push_back(&p);
      const Pred& p = *pick(rng_, user);
      text += coin(rng_, 0.5) ? "init { " : "init at n0 { ";
      text += atom_text(p, [&] { return pick(rng_, constants_); }) + ". }\n";
    }
    uint32_t nr = uni(rng_, opt_.min_rules, opt_.max_rules);
    for (uint32_t i = 0; i < nr; ++i) text += rule() + "\n";
    return text;
  }

  // A program that keeps running and stores input data: fixed declarations,
  // a random subset of rule templates that poll, store, persist and relay
  // input values, plus a few random rules over the same predicates.
  std::string generate_explore(uint32_t random_rules_max = 3) {
    preds_ = {{"i0", 1, Kind::Input, false},  {"s0", 1, Kind::State, false},     {"s1", 1, Kind::State, false},
              {"s2", 0, Kind::State, false},  {"t0", 1, Kind::Transport, false}, {"t1", 0, Kind::Transport, false},
              {"my_name", 1, Kind::State, true}, {"neighbor", 1, Kind::State, true}, {"error", 0, Kind::State, true},
              {"start", 0, Kind::Transport, true}};
    static const std::vector<std::string> templates{
        "s0(X) if i0(X).",
        "s0(X) if i0(X), t1@_.",
        "s0(X) if prev s0(X).",
        "s0(X) if prev s0(X), not t0(X)@_.",
        "s0(X) if prev s0(X), start@_.",
        "s1(X) if t0(X)@_.",
        "s1(X) if prev s1(X), not i0(_).",
        "s1(X) if t0(X)@S, prev s0(S).",
        "s2 if t0(_)@_, not prev s2.",
        "s2 if prev s2, start@_.",
        "t0(X)@N if s0(X), neighbor(N).",
        "t0(X)@N if i0(X), neighbor(N), not prev s2.",
        "t0(X)@S if t0(X)@S, S != X, not s1(S).",
        "t1@M if start@_, my_name(M).",
        "t1@M if t1@_, my_name(M), not s2.",
        "t1@M if t0(_)@_, my_name(M).",
        "error if s0(X), s1(X).",
        "s1(X) if s0(X), choice((), (X)).",
        "t0(X)@N if s1(X), neighbor(N), choice((X), (N)).",
        "s0(X) if i0(X), not prev s1(X), X != n0.",
    };
    std::string text =
        "input i0/1.\nstate s0/1, s1/1, s2/0.\ntransport t0/1, t1/0.\n";
    uint32_t n = 0;
    for (const auto& t : templates)
      if (coin(rng_, 0.3)) text += t + "\n", ++n;
    uint32_t nr = uni(rng_, n < 2 ? 1 : 0, random_rules_max);
    for (uint32_t i = 0; i < nr; ++i) text += rule() + "\n";
    return text;
  }

 private:
  enum class Kind { State, Input, Transport };
  struct Pred {
    std::string name;
    uint32_t arity;
    Kind kind;
    bool builtin;
  };

  template <class TermFn>
  std::string atom_text(const Pred& p, TermFn&& term) {
    std::string s = p.name;
    if (p.arity == 0) return s;
    s += "(";
    for (uint32_t k = 0; k < p.arity; ++k) s += (k ? ", " : "") + term();
    return s + ")";
  }

  const Pred& readable() {
    // Weighted: user state predicates and neighbor most often (they match
    // random DBs), then input and message predicates, then the rest.
    std::vector<const Pred*> v;
    for (const auto& p : preds_) {
      uint32_t w = 1;
      if (!p.builtin) w = p.kind == Kind::State ? 3 : 2;
      if (p.name == "neighbor") w = 3;
      for (uint32_t k = 0; k < w; ++k) v.push_back(&p);
    }
    return *pick(rng_, v);
  }

  const Pred& neighbor() const {
    for (const auto& p : preds_)
      if (p.name == "neighbor") return p;
    return preds_.front();
  }

  std::string rule() {
    std::vector<std::string> items;
    std::set<std::string> bound;
    const std::vector<std::string> vars{"X", "Y", "Z"};
    const bool is_choice = coin(rng_, opt_.choice_rate);
    uint32_t npos = uni(rng_, 0, 3);
    if (npos == 0 && (is_choice || coin(rng_, 0.7))) npos = 1;
    if (npos == 3 && coin(rng_, 0.5)) npos = 2;
    for (uint32_t i = 0; i < npos; ++i) {
      // A choice rule's first literal is one that usually has several facts.
      const Pred& p = is_choice && i == 0 ? *pick(rng_, std::vector<const Pred*>{&neighbor(), &neighbor(), &readable()})
                                          : readable();
      std::string lit;
      auto term = [&]() -> std::string {
        double r = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (r < 0.65) {
          const std::string& v = pick(rng_, vars);
          bound.insert(v);
          return v;
        }
        if (r < 0.82) return "_";
        return pick(rng_, constants_);
      };
      if (p.kind == Kind::State && coin(rng_, 0.4)) lit = "prev ";
      lit += atom_text(p, term);
      if (p.kind == Kind::Transport) lit += "@" + at_term(bound, true);
      items.push_back(lit);
    }
    std::vector<std::string> bvars(bound.begin(), bound.end());
    auto bound_or_const = [&]() -> std::string {
      if (!bvars.empty() && coin(rng_, 0.7)) return pick(rng_, bvars);
      return pick(rng_, constants_);
    };
    uint32_t nneg = uni(rng_, 0, 2);
    for (uint32_t i = 0; i < nneg; ++i) {
      const Pred& p = readable();
      auto term = [&]() -> std::string {
        double r = std::uniform_real_distribution<double>(0, 1)(rng_);
        if (r < 0.5 && !bvars.empty()) return pick(rng_, bvars);
        if (r < 0.75) return "_";
        return pick(rng_, constants_);
      };
      std::string lit;
      if (p.kind == Kind::State) {
        uint32_t form = uni(rng_, 0, 3);  // not p, not prev p, prev not p, not p
        lit = form == 1 ? "not prev " : form == 2 ? "prev not " : "not ";
      } else {
        lit = "not ";
      }
      lit += atom_text(p, term);
      if (p.kind == Kind::Transport) {
        std::string at = coin(rng_, 0.5) || bvars.empty() ? (coin(rng_, 0.6) ? "_" : pick(rng_, constants_))
                                                          : pick(rng_, bvars);
        lit += "@" + at;
      }
      items.push_back(lit);
    }
    if (coin(rng_, 0.35)) {
      std::string lhs = bound_or_const(), rhs = bound_or_const();
      items.push_back(lhs + (coin(rng_, 0.5) ? " = " : " != ") + rhs);
    }
    if (!bvars.empty() && is_choice) {
      std::vector<std::string> sh = bvars;
      std::shuffle(sh.begin(), sh.end(), rng_);
      size_t nd = uni(rng_, 0, std::min<uint32_t>(1, static_cast<uint32_t>(sh.size()) - 1));
      // Usually at least one picked variable; an empty pick list makes the
      // rule fire for every substitution (one pick per group).
      size_t np = uni(rng_, coin(rng_, 0.1) ? 0 : 1, static_cast<uint32_t>(sh.size() - nd));
      std::string c = "choice((";
      for (size_t k = 0; k < nd; ++k) c += (k ? ", " : "") + sh[k];
      c += "), (";
      for (size_t k = 0; k < np; ++k) c += (k ? ", " : "") + sh[nd + k];
      items.push_back(c + "))");
    }
    std::shuffle(items.begin(), items.end(), rng_);

    // Head: a user state predicate, error, or a user transport predicate.
    std::vector<const Pred*> heads;
    for (const auto& p : preds_) {
      if (p.builtin && p.name != "error") continue;
      heads.push_back(&p);
      if (p.kind == Kind::State && !p.builtin) heads.push_back(&p);
    }
    std::vector<const Pred*> writable;
    for (const Pred* p : heads)
      if (p->kind != Kind::Input) writable.push_back(p);
    const Pred& h = *pick(rng_, writable);
    std::string head = atom_text(h, bound_or_const);
    if (h.kind == Kind::Transport) head += "@" + (!bvars.empty() && coin(rng_, 0.75) ? pick(rng_, bvars)
                                                                                      : pick(rng_, dests_));
    if (items.empty()) return head + ".";
    std::string s = head + (coin(rng_, 0.8) ? " if " : " :- ");
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    return s + ".";
  }

  std::string at_term(std::set<std::string>& bound, bool positive) {
    double r = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (r < 0.4 && positive) {
      std::string v = coin(rng_, 0.5) ? "S" : "X";
      bound.insert(v);
      return v;
    }
    if (r < 0.85) return "_";
    return pick(rng_, dests_);
  }

  Rng& rng_;
  GenOptions opt_;
  std::vector<Pred> preds_;
  const std::vector<std::string> constants_{"n0", "n1", "n2", "a", "b", "7", "\"a\""};
  const std::vector<std::string> dests_{"n0", "n1", "n2", "n4", "a"};
};

}  // namespace ddsmc::reftest
