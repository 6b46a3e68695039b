// Name resolution and the static checks of SPEC section 1 (rules 1-6), the
// evaluation order of SPEC section 2, the network, init facts and bounds.
//
// Every phase runs even after errors in earlier ones, so one run reports all
// independent errors; a phase skips only what depends on something that
// failed (e.g. `init at x` is not checked against a network that failed to
// build). Nothing recurses on the size of the input: the dependency graph is
// walked with an explicit stack (Tarjan) and queues (BFS, Kahn).
#include "model/resolve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/network.hpp"
#include "model/printer.hpp"

namespace ddsmc::model {
namespace {

constexpr PredId kNoPred = std::numeric_limits<PredId>::max();
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

std::string loc_text(Loc l) { return fmt::format("line {}:{}", l.line, l.col); }

// Rule texts inside messages are cut to keep a message on one screen line.
std::string shorten(const std::string& s, size_t max = 60) {
  if (s.size() <= max) return s;
  return s.substr(0, max - 3) + "...";
}

std::string plural(size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Levenshtein distance between a and b, or cap + 1 when it exceeds cap.
size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap) return cap + 1;
  std::vector<size_t> row(b.size() + 1), next(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    next[0] = i;
    size_t best = next[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      next[j] = std::min({row[j] + 1, next[j - 1] + 1, sub});
      best = std::min(best, next[j]);
    }
    if (best > cap) return cap + 1;
    std::swap(row, next);
  }
  return std::min(row[b.size()], cap + 1);
}

PredKind to_kind(DeclKind k) {
  switch (k) {
    case DeclKind::Input: return PredKind::Input;
    case DeclKind::State: return PredKind::State;
    case DeclKind::Transport: return PredKind::Transport;
  }
  return PredKind::State;
}

// What the rules do with a predicate, for the warnings.
struct Usage {
  bool head = false;      // some rule derives (state) or sends (transport) it
  bool read = false;      // some rule body mentions it, under prev or not
  bool read_now = false;  // some rule body mentions it without prev
  bool in_init = false;   // some init fact has it
  Loc first_read_now;     // the first such non-prev body literal
  uint32_t first_read_now_rule = kNone;
};

// A dependency edge of the state graph, one per non-prev state body literal.
struct DepEdge {
  PredId from;  // the head
  PredId to;    // the body predicate
  bool negative;
  uint32_t rule;
  Loc loc;  // of the literal
};

// One occurrence of a variable that must be bound by a positive body literal.
struct Occurrence {
  VarId var;
  Loc loc;
};

class Resolver {
 public:
  Resolver(const Program& program, const Overrides& overrides, Diagnostics& diag)
      : prog_(program), ov_(overrides), diag_(diag) {}

  std::optional<Model> run() {
    diag_.set_phase(Phase::Resolve);
    m_.file = prog_.file;
    declare_builtins();
    declare();
    usage_.assign(m_.preds.size(), Usage{});
    resolve_network();
    rule_head_.assign(prog_.rules.size(), kNoPred);
    m_.rules.reserve(prog_.rules.size());
    for (uint32_t i = 0; i < prog_.rules.size(); ++i) resolve_rule(i);
    analyse_dependencies();
    resolve_inits();
    resolve_bounds();
    warn();
    m_.pred_index = std::move(pred_by_name_);
    if (diag_.has_errors()) return std::nullopt;
    return std::move(m_);
  }

 private:
  // ---- declarations -------------------------------------------------------

  PredId add_pred(std::string name, uint32_t arity, PredKind kind, bool builtin, Loc loc) {
    PredId id = static_cast<PredId>(m_.preds.size());
    pred_by_name_.emplace(name, id);
    m_.preds.push_back(Predicate{std::move(name), arity, kind, builtin, loc});
    return id;
  }

  void declare_builtins() {
    add_pred("my_name", 1, PredKind::State, true, {});
    add_pred("neighbor", 1, PredKind::State, true, {});
    add_pred("error", 0, PredKind::State, true, {});
    add_pred("start", 0, PredKind::Transport, true, {});
  }

  void declare() {
    for (const PredDecl& d : prog_.decls) {
      auto it = pred_by_name_.find(d.name);
      if (it != pred_by_name_.end()) {
        const Predicate& first = m_.preds[it->second];
        if (first.builtin)
          diag_.error(d.loc, fmt::format("'{}' is a built-in {} predicate ({}/{}) and must not be declared", d.name,
                                         pred_kind_name(first.kind), first.name, first.arity));
        else
          diag_.error(d.loc, fmt::format("predicate '{}' is declared twice (first declared at {})", d.name,
                                         loc_text(first.loc)));
        continue;
      }
      if (d.arity > kMaxArity)
        diag_.error(d.loc, fmt::format("predicate '{}' has arity {}, more than the maximum of {}", d.name, d.arity,
                                       kMaxArity));
      PredKind kind = to_kind(d.kind);
      if (kind == PredKind::Input) declares_input_ = true;
      add_pred(d.name, d.arity, kind, false, d.loc);
    }
  }

  // The closest declared name within a small edit distance (none for names
  // of 1-2 characters, 1 up to 5, else 2), or "" when none. The work is
  // capped so that a file full of undeclared names stays fast.
  std::string suggestion(const std::string& name) {
    auto cached = suggestion_cache_.find(name);
    if (cached != suggestion_cache_.end()) return cached->second;
    std::string best;
    const size_t max_distance = name.size() <= 2 ? 0 : name.size() <= 5 ? 1 : 2;
    size_t best_distance = max_distance + 1;
    if (name.size() <= 64 && max_distance > 0) {
      for (const Predicate& p : m_.preds) {
        if (suggestion_budget_ <= 0) break;
        size_t diff = p.name.size() > name.size() ? p.name.size() - name.size() : name.size() - p.name.size();
        if (diff > max_distance) continue;
        suggestion_budget_ -= static_cast<int64_t>((name.size() + 1) * (p.name.size() + 1));
        size_t d = edit_distance(name, p.name, max_distance);
        if (d < best_distance) {
          best_distance = d;
          best = p.name;
        }
      }
    }
    if (suggestion_cache_.size() < 10000) suggestion_cache_.emplace(name, best);
    return best;
  }

  // Rule 6: the predicate is declared and the arity matches. Returns the id
  // (also on an arity mismatch, so that later checks can go on) or kNoPred.
  PredId lookup(const Atom& a, uint32_t rule) {
    auto where = [&] { return rule_where(rule); };
    auto it = pred_by_name_.find(a.pred);
    if (it == pred_by_name_.end()) {
      std::string near = suggestion(a.pred);
      diag_.error(a.loc, fmt::format("undeclared predicate '{}' {}{}", a.pred, where(),
                                     near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
      return kNoPred;
    }
    const Predicate& p = m_.preds[it->second];
    if (a.args.size() != p.arity) {
      if (p.builtin)
        diag_.error(a.loc, fmt::format("built-in '{}' has arity {} but is used with {} {}", a.pred, p.arity,
                                       plural(a.args.size(), "argument"), where()));
      else
        diag_.error(a.loc, fmt::format("'{}' is declared with arity {} but used with {} {}", a.pred, p.arity,
                                       plural(a.args.size(), "argument"), where()));
    }
    return it->second;
  }

  // ---- network ----------------------------------------------------------

  static Loc network_loc(const NetworkDecl& n) {
    return std::visit([](const auto& d) { return d.loc; }, n);
  }

  void resolve_network() {
    for (size_t k = 1; k < prog_.networks.size(); ++k)
      diag_.error(network_loc(prog_.networks[k]),
                  fmt::format("more than one network declaration (the first one is at {})",
                              loc_text(network_loc(prog_.networks[0]))));
    std::optional<Network> net;
    if (ov_.network_spec) {
      std::string err;
      net = network_from_spec(*ov_.network_spec, &err);
      if (!net) diag_.error(Loc{}, err.empty() ? fmt::format("bad --network '{}'", *ov_.network_spec) : err);
    } else if (!prog_.networks.empty()) {
      const NetworkDecl& decl = prog_.networks[0];
      if (const auto* gen = std::get_if<NetworkGenerator>(&decl))
        net = from_generator(*gen);
      else
        net = from_block(std::get<NetworkBlock>(decl));
    } else {
      diag_.error(Loc{}, "no network: give --network SPEC or a `network` declaration");
    }
    if (!net) return;
    m_.network = std::move(*net);
    network_ok_ = true;
    // Node names are the first constants (so node_const[n] == n).
    m_.node_const.reserve(m_.network.num_nodes());
    for (NodeId n = 0; n < m_.network.num_nodes(); ++n) m_.node_const.push_back(m_.constants.intern(m_.network.name(n)));
  }

  std::optional<Network> from_generator(const NetworkGenerator& gen) {
    std::string err;
    auto net = generate_network(gen.name, gen.args, &err);
    if (!net) {
      diag_.error(gen.loc, fmt::format("bad network declaration: {}", err));
      return std::nullopt;
    }
    if (net->description().empty()) {
      std::string d = gen.name;
      for (size_t i = 0; i < gen.args.size(); ++i)
        d += fmt::format("{}{}", i == 0 ? ":" : (gen.name == "grid" ? "x" : ":"), gen.args[i]);
      net->set_description(d);
    }
    return net;
  }

  std::optional<Network> from_block(const NetworkBlock& block) {
    std::vector<std::string> names;
    std::unordered_map<std::string, NodeId> index;
    auto node = [&](const NetworkNode& n) {
      auto [it, inserted] = index.try_emplace(n.name, static_cast<NodeId>(names.size()));
      if (inserted) names.push_back(n.name);
      return it->second;
    };
    for (const NetworkNode& n : block.nodes) node(n);
    std::vector<std::pair<NodeId, NodeId>> edges;
    std::unordered_map<uint64_t, Loc> seen;  // undirected edge -> where first written
    bool ok = true;
    for (const auto& [a, b] : block.edges) {
      NodeId x = node(a), y = node(b);
      if (x == y) {
        diag_.error(a.loc, fmt::format("network edge '{} - {}' joins a node to itself (every node already has its "
                                       "self-loop channel)",
                                       a.name, b.name));
        ok = false;
        continue;
      }
      auto [it, inserted] = seen.try_emplace(undirected_edge_key(x, y), a.loc);
      if (!inserted) {
        diag_.error(a.loc, fmt::format("network edge '{} - {}' is written twice (first at {})", a.name, b.name,
                                       loc_text(it->second)));
        ok = false;
        continue;
      }
      edges.emplace_back(x, y);
    }
    if (!ok) return std::nullopt;
    std::string err;
    auto net = Network::build(std::move(names), edges, &err);
    if (!net) {
      diag_.error(block.loc, fmt::format("bad network declaration: {}", err));
      return std::nullopt;
    }
    if (net->description().empty()) net->set_description("block");
    return net;
  }

  // ---- rules --------------------------------------------------------------

  void resolve_rule(uint32_t i) {
    const Rule& r = prog_.rules[i];
    RRule& rr = m_.rules.emplace_back();  // reserved: stays in place
    rr.index = i;
    rr.loc = r.loc;
    rr.text = to_text(r);
    const bool is_fact = r.body.empty();
    auto where = [&] { return rule_where(i); };  // built only for a message

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
        case Term::Kind::Const: return RTerm::constant(m_.constants.intern(t.text));
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
        if (anon_context) diag_.error(t.loc, fmt::format("'_' cannot appear in {} {}", anon_context, where()));
      } else if (t.is_var()) {
        must_bind.push_back({rt.id, t.loc});
      }
      return rt;
    };

    // Head (rule 1).
    PredId h = lookup(r.head, i);
    rr.head.pred = h;
    for (const Term& t : r.head.args) rr.head.args.push_back(bound_term(t, "a rule head"));
    if (r.head.at) rr.head.at = bound_term(*r.head.at, "a rule head's '@' annotation");
    if (h != kNoPred) {
      const Predicate& p = m_.preds[h];
      usage_[h].head = true;
      if (p.kind == PredKind::Input) {
        diag_.error(r.head.loc, fmt::format("input predicate '{}' cannot be a rule head (input facts come from the "
                                            "environment) {}",
                                            p.name, where()));
      } else if (h == kMyName || h == kNeighbor || h == kStart) {
        diag_.error(r.head.loc, fmt::format("built-in predicate '{}' cannot be a rule head {}", p.name, where()));
      } else if (p.kind == PredKind::Transport) {
        if (!r.head.at)
          diag_.error(r.head.loc, fmt::format("transport head '{}' needs a destination: write '{}@Dest' {}", p.name,
                                              to_text(r.head), where()));
        else
          rule_head_[i] = h;
      } else {
        if (r.head.at)
          diag_.error(r.head.at->loc, fmt::format("state head '{}' cannot carry an '@' annotation (only transport "
                                                  "heads have a destination) {}",
                                                  p.name, where()));
        rule_head_[i] = h;
      }
    }
    const bool state_head = rule_head_[i] != kNoPred && m_.preds[h].kind == PredKind::State;
    const size_t first_edge = edges_.size();

    // Body (rules 2, 4 and the bindings for rule 3).
    for (const BodyItem& item : r.body) {
      if (const auto* lit = std::get_if<Literal>(&item)) {
        RLiteral rl;
        rl.negated = lit->negated;
        rl.prev = lit->prev;
        rl.loc = lit->loc;
        const Atom& a = lit->atom;
        PredId q = lookup(a, i);
        rl.atom.pred = q;
        // `_` in a negated atom is existential: it needs no binding.
        for (const Term& t : a.args) rl.atom.args.push_back(lit->negated ? bound_term(t, nullptr) : term(t));
        if (a.at) rl.atom.at = lit->negated ? bound_term(*a.at, nullptr) : term(*a.at);
        if (lit->prev) m_.uses_prev = true;
        if (q != kNoPred) check_body_literal(*lit, q, i);
        if (q != kNoPred && state_head && m_.preds[q].kind == PredKind::State && !lit->prev)
          edges_.push_back({h, q, lit->negated, i, lit->loc});
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
          diag_.error(ch.loc, fmt::format("a rule has at most one 'choice' (the first one is at {}) {}",
                                          loc_text(rr.choice->loc), where()));
          continue;
        }
        RChoice rc;
        rc.loc = ch.loc;
        std::unordered_map<std::string, Loc> seen;
        auto choice_var = [&](const Term& t, std::vector<VarId>& out) {
          if (!t.is_var()) {
            diag_.error(t.loc, fmt::format("'{}' cannot appear in a choice, which lists variables only {}",
                                           t.is_anon() ? "_" : t.text, where()));
            return;
          }
          auto [it, inserted] = seen.try_emplace(t.text, t.loc);
          if (!inserted) {
            diag_.error(t.loc, fmt::format("variable {} appears twice in the choice (first at {}); its two lists must "
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
      for (size_t e = first_edge; e < edges_.size(); ++e) choice_edges_.push_back(e);
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
        diag_.error(o.loc, fmt::format("variable {} {} is unsafe: a fact (a rule without a body) must be ground", name,
                                       where()));
      else
        diag_.error(o.loc, fmt::format("variable {} {} is unsafe: it must occur in a positive body literal", name,
                                       where()));
    }
  }

  // Rule 2 for one body literal, plus the usage bookkeeping.
  void check_body_literal(const Literal& lit, PredId q, uint32_t rule) {
    auto where = [&] { return rule_where(rule); };
    const Predicate& p = m_.preds[q];
    Usage& u = usage_[q];
    u.read = true;
    if (!lit.prev && !u.read_now) {
      u.read_now = true;
      u.first_read_now = lit.atom.loc;
      u.first_read_now_rule = rule;
    }
    if (p.kind == PredKind::Input) m_.uses_input = true;
    if (p.kind == PredKind::Transport) {
      if (lit.prev)
        diag_.error(lit.loc, fmt::format("transport atom '{}' cannot be under 'prev': it refers to the message being "
                                         "processed {}",
                                         p.name, where()));
      if (!lit.atom.at)
        diag_.error(lit.atom.loc, fmt::format("transport atom '{}' in a body needs '@Source' (write '{}@_' if the "
                                              "sender does not matter) {}",
                                              p.name, to_text(lit.atom), where()));
    } else {
      if (lit.atom.at)
        diag_.error(lit.atom.at->loc, fmt::format("{} atom '{}' cannot carry an '@' annotation (only transport atoms "
                                                  "do) {}",
                                                  pred_kind_name(p.kind), p.name, where()));
      if (lit.prev && p.kind == PredKind::Input)
        diag_.error(lit.loc, fmt::format("'prev' applies only to state atoms, and '{}' is an input predicate {}",
                                         p.name, where()));
    }
  }

  // ---- dependency graph: stratification, choice, components ---------------

  void analyse_dependencies() {
    const uint32_t n = static_cast<uint32_t>(m_.preds.size());
    build_graph(n);
    tarjan(n);

    // Rule 5: a negative edge inside an SCC closes a cycle through negation.
    for (const DepEdge& e : edges_) {
      if (!e.negative || comp_[e.from] != comp_[e.to]) continue;
      std::string cycle;
      if (e.from == e.to) {
        cycle = fmt::format("{} -> not {}", name(e.from), name(e.to));
      } else if (auto path = path_in_scc(e.to, e.from)) {
        cycle = fmt::format("{} -> not {}", name(e.from), format_path(e.to, *path));
      } else {
        cycle = fmt::format("{} -> not {} -> ... -> {}", name(e.from), name(e.to), name(e.from));
      }
      diag_.error(e.loc, fmt::format("unstratified negation: {}, {}", cycle, rule_where(e.rule)));
    }

    // Rule 4: the body of a choice rule is complete before the rule fires.
    // The head h reads q, so q depends on h exactly when they share an SCC.
    for (size_t k : choice_edges_) {
      const DepEdge& e = edges_[k];
      if (comp_[e.from] != comp_[e.to]) continue;
      std::string msg;
      if (e.from == e.to) {
        msg = fmt::format("choice rule for '{}' reads '{}' itself, so its body is not complete when it chooses",
                          name(e.from), name(e.to));
      } else {
        auto path = path_in_scc(e.to, e.from);
        msg = fmt::format("choice rule for '{}' reads '{}', which depends on '{}' ({})", name(e.from), name(e.to),
                          name(e.from),
                          path ? format_path(e.to, *path) : fmt::format("{} -> ... -> {}", name(e.to), name(e.from)));
      }
      diag_.error(e.loc, fmt::format("{}, {}", msg, rule_where(e.rule)));
    }

    order_components(n);
    for (uint32_t i = 0; i < prog_.rules.size(); ++i) {
      PredId h = rule_head_[i];
      if (h != kNoPred && m_.preds[h].kind == PredKind::Transport) m_.transport_rules.push_back(i);
    }
  }

  const std::string& name(PredId p) const { return m_.preds[p].name; }

  // "in rule 'TEXT'" (or "in fact ..."), naming a rule in messages; kNone is an init block.
  std::string rule_where(uint32_t rule) const {
    if (rule == kNone) return "in an init block";
    return fmt::format("in {} '{}'", prog_.rules[rule].body.empty() ? "fact" : "rule", shorten(m_.rules[rule].text));
  }

  // Deduplicated adjacency (CSR) of the state graph: head -> body predicate,
  // negative when some literal for the pair is negated.
  void build_graph(uint32_t n) {
    std::vector<uint32_t> count(n + 1, 0);
    for (const DepEdge& e : edges_) ++count[e.from + 1];
    for (uint32_t v = 0; v < n; ++v) count[v + 1] += count[v];
    std::vector<std::pair<PredId, bool>> raw(edges_.size());
    {
      std::vector<uint32_t> fill(count.begin(), count.end() - 1);
      for (const DepEdge& e : edges_) raw[fill[e.from]++] = {e.to, e.negative};
    }
    adj_begin_.assign(n + 1, 0);
    adj_.clear();
    adj_.reserve(raw.size());
    std::vector<uint32_t> last_src(n, kNone), pos(n, 0);
    for (uint32_t v = 0; v < n; ++v) {
      adj_begin_[v] = static_cast<uint32_t>(adj_.size());
      for (uint32_t k = count[v]; k < count[v + 1]; ++k) {
        auto [to, neg] = raw[k];
        if (last_src[to] == v) {
          adj_[pos[to]].second = adj_[pos[to]].second || neg;
        } else {
          last_src[to] = v;
          pos[to] = static_cast<uint32_t>(adj_.size());
          adj_.emplace_back(to, neg);
        }
      }
    }
    adj_begin_[n] = static_cast<uint32_t>(adj_.size());
  }

  // Iterative Tarjan: comp_[p] is p's SCC; SCC ids come out in reverse
  // topological order (an SCC after every SCC it reads).
  void tarjan(uint32_t n) {
    comp_.assign(n, kNone);
    std::vector<uint32_t> index(n, kNone), low(n, 0);
    std::vector<char> on_stack(n, 0);
    std::vector<PredId> stack;
    struct Frame {
      PredId v;
      uint32_t next;  // next edge to look at
    };
    std::vector<Frame> calls;
    uint32_t counter = 0;
    num_comps_ = 0;
    auto enter = [&](PredId v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack[v] = 1;
      calls.push_back({v, adj_begin_[v]});
    };
    for (PredId s = 0; s < n; ++s) {
      if (index[s] != kNone) continue;
      enter(s);
      while (!calls.empty()) {
        PredId v = calls.back().v;
        if (calls.back().next < adj_begin_[v + 1]) {
          PredId w = adj_[calls.back().next++].first;
          if (index[w] == kNone)
            enter(w);
          else if (on_stack[w])
            low[v] = std::min(low[v], index[w]);
          continue;
        }
        if (low[v] == index[v]) {
          PredId w;
          do {
            w = stack.back();
            stack.pop_back();
            on_stack[w] = 0;
            comp_[w] = num_comps_;
          } while (w != v);
          ++num_comps_;
        }
        calls.pop_back();
        if (!calls.empty()) low[calls.back().v] = std::min(low[calls.back().v], low[v]);
      }
    }
  }

  // Shortest path from `from` to `to` inside their common SCC, as the steps
  // after `from` (predicate, whether the edge into it is negative); nullopt
  // once the total search budget is spent (pathological files).
  std::optional<std::vector<std::pair<PredId, bool>>> path_in_scc(PredId from, PredId to) {
    const uint32_t n = static_cast<uint32_t>(m_.preds.size());
    if (bfs_stamp_.size() != n) {
      bfs_stamp_.assign(n, 0);
      bfs_parent_.assign(n, {kNone, false});
    }
    if (path_budget_ <= 0) return std::nullopt;
    ++stamp_;
    const uint32_t c = comp_[from];
    std::queue<PredId> queue;
    queue.push(from);
    bfs_stamp_[from] = stamp_;
    bool found = from == to;
    while (!queue.empty() && !found) {
      PredId v = queue.front();
      queue.pop();
      for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k) {
        --path_budget_;
        auto [w, neg] = adj_[k];
        if (comp_[w] != c || bfs_stamp_[w] == stamp_) continue;
        bfs_stamp_[w] = stamp_;
        bfs_parent_[w] = {v, neg};
        if (w == to) {
          found = true;
          break;
        }
        queue.push(w);
      }
    }
    if (!found) return std::nullopt;
    std::vector<std::pair<PredId, bool>> steps;
    for (PredId v = to; v != from; v = bfs_parent_[v].first) steps.emplace_back(v, bfs_parent_[v].second);
    std::reverse(steps.begin(), steps.end());
    return steps;
  }

  // "q -> not r -> p"; a long path keeps its first and last steps only.
  std::string format_path(PredId from, const std::vector<std::pair<PredId, bool>>& steps) const {
    constexpr size_t kKeep = 5;
    std::string out = name(from);
    for (size_t k = 0; k < steps.size(); ++k) {
      if (steps.size() > 3 * kKeep && k == kKeep) {
        out += fmt::format(" -> ... ({} more) ...", steps.size() - 2 * kKeep);
        k = steps.size() - kKeep - 1;
        continue;
      }
      out += fmt::format(" -> {}{}", steps[k].second ? "not " : "", name(steps[k].first));
    }
    return out;
  }

  // Kahn's algorithm over the SCC graph, the ready SCC with the smallest
  // predicate id first, so the order depends only on the program.
  void order_components(uint32_t n) {
    const uint32_t nc = num_comps_;
    std::vector<uint32_t> pending(nc, 0), min_pred(nc, kNone);
    std::vector<uint32_t> members_begin(nc + 1, 0);
    for (PredId p = 0; p < n; ++p) {
      min_pred[comp_[p]] = std::min(min_pred[comp_[p]], p);
      ++members_begin[comp_[p] + 1];
    }
    for (uint32_t c = 0; c < nc; ++c) members_begin[c + 1] += members_begin[c];
    std::vector<PredId> members(n);
    {
      std::vector<uint32_t> fill(members_begin.begin(), members_begin.end() - 1);
      for (PredId p = 0; p < n; ++p) members[fill[comp_[p]]++] = p;  // ascending within an SCC
    }
    // dependents: for SCC d, the SCCs that read it (with multiplicity).
    std::vector<uint32_t> dep_begin(nc + 1, 0);
    for (PredId v = 0; v < n; ++v)
      for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k)
        if (comp_[adj_[k].first] != comp_[v]) ++dep_begin[comp_[adj_[k].first] + 1], ++pending[comp_[v]];
    for (uint32_t c = 0; c < nc; ++c) dep_begin[c + 1] += dep_begin[c];
    std::vector<uint32_t> dependents(dep_begin[nc]);
    {
      std::vector<uint32_t> fill(dep_begin.begin(), dep_begin.end() - 1);
      for (PredId v = 0; v < n; ++v)
        for (uint32_t k = adj_begin_[v]; k < adj_begin_[v + 1]; ++k)
          if (comp_[adj_[k].first] != comp_[v]) dependents[fill[comp_[adj_[k].first]]++] = comp_[v];
    }

    // The rules of each SCC, in source order.
    std::vector<int32_t> comp_slot(nc, -1);
    std::vector<std::vector<uint32_t>> choice_rules(nc), other_rules(nc);
    std::vector<char> has_rules(nc, 0), recursive(nc, 0);
    for (uint32_t i = 0; i < prog_.rules.size(); ++i) {
      PredId h = rule_head_[i];
      if (h == kNoPred || m_.preds[h].kind != PredKind::State) continue;
      uint32_t c = comp_[h];
      has_rules[c] = 1;
      (m_.rules[i].choice ? choice_rules[c] : other_rules[c]).push_back(i);
    }
    for (const DepEdge& e : edges_)
      if (comp_[e.from] == comp_[e.to]) recursive[comp_[e.from]] = 1;

    using Entry = std::pair<uint32_t, uint32_t>;  // (min pred id, SCC)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (uint32_t c = 0; c < nc; ++c)
      if (pending[c] == 0) ready.push({min_pred[c], c});
    while (!ready.empty()) {
      uint32_t c = ready.top().second;
      ready.pop();
      if (has_rules[c]) {
        Component comp;
        comp.preds.assign(members.begin() + members_begin[c], members.begin() + members_begin[c + 1]);
        comp.choice_rules = std::move(choice_rules[c]);
        comp.rules = std::move(other_rules[c]);
        comp.recursive = recursive[c];
        m_.components.push_back(std::move(comp));
      }
      for (uint32_t k = dep_begin[c]; k < dep_begin[c + 1]; ++k)
        if (--pending[dependents[k]] == 0) ready.push({min_pred[dependents[k]], dependents[k]});
    }
  }

  // ---- init ---------------------------------------------------------------

  std::string node_list() const {
    const size_t n = m_.network.num_nodes(), shown = std::min<size_t>(n, 8);
    std::string out;
    for (size_t k = 0; k < shown; ++k) out += fmt::format("{}{}", k ? ", " : "", m_.network.name(k));
    if (n > shown) out += fmt::format(", ... ({} more)", n - shown);
    return out;
  }

  void resolve_inits() {
    std::vector<Fact> everywhere;
    std::vector<std::vector<Fact>> at_node(network_ok_ ? m_.network.num_nodes() : 0);
    for (const InitBlock& block : prog_.inits) {
      std::optional<NodeId> target;
      bool keep = true;
      if (block.at) {
        if (!network_ok_) {
          keep = false;  // cannot check it; the network error is reported already
        } else if ((target = m_.network.find(block.at->name)); !target) {
          diag_.error(block.at->loc, fmt::format("init at '{}': no such node in the network (nodes: {})",
                                                 block.at->name, node_list()));
          keep = false;
        }
      }
      for (const Atom& a : block.facts) {
        std::optional<Fact> f = init_fact(a);
        if (!f || !keep) continue;
        (target ? at_node[*target] : everywhere).push_back(std::move(*f));
      }
    }
    if (!network_ok_) return;
    const size_t nodes = m_.network.num_nodes();
    m_.init_facts.resize(nodes);
    for (NodeId n = 0; n < nodes; ++n) {
      std::vector<Fact>& facts = m_.init_facts[n];
      facts = everywhere;
      facts.insert(facts.end(), at_node[n].begin(), at_node[n].end());
      facts.push_back(Fact{kMyName, {m_.node_const[n]}});
      for (NodeId nb : m_.network.neighbors(n)) facts.push_back(Fact{kNeighbor, {m_.node_const[nb]}});
      std::sort(facts.begin(), facts.end());
      facts.erase(std::unique(facts.begin(), facts.end()), facts.end());
    }
  }

  std::optional<Fact> init_fact(const Atom& a) {
    PredId p = lookup(a, kNone);
    bool ok = p != kNoPred && a.args.size() == m_.preds[p].arity;
    if (p != kNoPred) {
      const Predicate& pred = m_.preds[p];
      usage_[p].in_init = true;
      if (p == kMyName || p == kNeighbor) {
        diag_.error(a.loc, fmt::format("'{}' facts are built in (fixed by the network) and cannot be given in an init block",
                                       pred.name));
        ok = false;
      } else if (pred.kind != PredKind::State) {
        diag_.error(a.loc, fmt::format("init facts are state facts, but '{}' is {} {} predicate", pred.name,
                                       pred.kind == PredKind::Input ? "an" : "a", pred_kind_name(pred.kind)));
        ok = false;
      }
    }
    if (a.at) {
      diag_.error(a.at->loc, fmt::format("init fact '{}' cannot carry an '@' annotation", a.pred));
      ok = false;
    }
    for (const Term& t : a.args) {
      if (t.is_const()) continue;
      diag_.error(t.loc, fmt::format("init facts must be ground, but '{}' in '{}' is a variable", t.text, a.pred));
      ok = false;
    }
    if (!ok) return std::nullopt;
    Fact f{p, {}};
    for (const Term& t : a.args) f.args.push_back(m_.constants.intern(t.text));
    return f;
  }

  // ---- bounds -------------------------------------------------------------

  void resolve_bounds() {
    static constexpr std::array<const char*, 3> kinds = {"input", "state", "channel"};
    std::array<std::optional<uint32_t>, 3> value;
    std::array<std::optional<Loc>, 3> first;
    for (const BoundDecl& b : prog_.bounds) {
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const char* k) { return b.kind == k; });
      if (it == kinds.end()) {
        diag_.error(b.loc, fmt::format("unknown bound '{}' (the bounds are input, state and channel)", b.kind));
        continue;
      }
      size_t k = static_cast<size_t>(it - kinds.begin());
      if (first[k]) {
        diag_.error(b.loc, fmt::format("bound '{}' is given twice (first at {})", b.kind, loc_text(*first[k])));
        continue;
      }
      first[k] = b.loc;
      if (b.value > std::numeric_limits<uint32_t>::max()) {
        diag_.error(b.loc, fmt::format("bound '{} {}' is too large (at most {})", b.kind, b.value,
                                       std::numeric_limits<uint32_t>::max()));
        continue;
      }
      value[k] = static_cast<uint32_t>(b.value);
    }
    m_.bounds.input = ov_.input_bound ? *ov_.input_bound : value[0] ? *value[0] : (declares_input_ ? 1u : 0u);
    m_.bounds.state = ov_.state_bound ? ov_.state_bound : value[1];
    m_.bounds.channel = ov_.channel_bound ? ov_.channel_bound : value[2];
    check_constant_ids(ov_.input_bound ? Loc{} : first[0].value_or(Loc{}));
  }

  // The fresh constants of an input DB (at most bound x the largest input
  // arity) and the fixed constants must all have ids below kMaxConstantIds.
  // Computed in 64 bits: the bound and the arity are below 2^32 and 2^7.
  void check_constant_ids(Loc bound_loc) {
    uint32_t arity = 0;
    const Predicate* widest = nullptr;
    for (const Predicate& p : m_.preds) {
      if (p.kind == PredKind::Input && (!widest || p.arity > arity)) {
        arity = p.arity;
        widest = &p;
      }
    }
    const uint64_t fresh = uint64_t{m_.bounds.input} * arity, fixed = m_.constants.size();
    if (fresh + fixed <= kMaxConstantIds) return;
    if (fresh == 0) {
      diag_.error(Loc{}, fmt::format("the model has {} fixed constants, more than the limit of {} constant ids", fixed,
                                     kMaxConstantIds));
      return;
    }
    diag_.error(bound_loc, fmt::format("input bound {} is too large: input DBs of {} facts of '{}' (arity {}) may "
                                       "hold {} fresh constants; with {} that exceeds the limit of {} constant ids",
                                       m_.bounds.input, m_.bounds.input, widest->name, arity, fresh,
                                       plural(fixed, "fixed constant"), kMaxConstantIds));
  }

  // ---- warnings -----------------------------------------------------------

  void warn() {
    for (PredId p = kNumBuiltins; p < m_.preds.size(); ++p) {
      const Predicate& pred = m_.preds[p];
      const Usage& u = usage_[p];
      if (!u.head && !u.read) {
        diag_.warning(pred.loc, fmt::format("{} predicate '{}' is declared but no rule uses it{}",
                                            pred_kind_name(pred.kind), pred.name,
                                            u.in_init ? " (its init facts are dropped at the node's first step)" : ""));
        continue;
      }
      if (pred.kind == PredKind::State) {
        if (!u.read) {
          diag_.warning(pred.loc, fmt::format("state predicate '{}' is derived but no rule reads it, not even as 'prev "
                                              "{}': it only shows in the state",
                                              pred.name, pred.name));
        } else if (!u.head && u.read_now) {
          diag_.warning(u.first_read_now,
                        fmt::format("state predicate '{}' is read {} but no rule derives it, so it is always false "
                                    "there{}",
                                    pred.name, rule_where(u.first_read_now_rule),
                                    u.in_init ? " (init facts are seen only as 'prev " + pred.name +
                                                    "', in the node's first step)"
                                              : ""));
        } else if (!u.head && !u.in_init) {
          diag_.warning(pred.loc, fmt::format("state predicate '{}' is never derived and has no init facts, so 'prev "
                                              "{}' is always false",
                                              pred.name, pred.name));
        }
      } else if (pred.kind == PredKind::Transport) {
        if (!u.read)
          diag_.warning(pred.loc, fmt::format("transport predicate '{}' is sent but never received: no rule body reads "
                                              "'{}@Source', so its messages only fill channels",
                                              pred.name, pred.name));
        else if (!u.head)
          diag_.warning(pred.loc, fmt::format("transport predicate '{}' is never sent: no rule has it as its head, so "
                                              "the rules that receive it never fire",
                                              pred.name));
      }
    }
  }

  const Program& prog_;
  const Overrides& ov_;
  Diagnostics& diag_;
  Model m_;
  std::unordered_map<std::string, PredId> pred_by_name_;
  std::unordered_map<std::string, std::string> suggestion_cache_;
  int64_t suggestion_budget_ = 20'000'000;  // edit-distance cells
  bool declares_input_ = false;
  bool network_ok_ = false;
  std::vector<Usage> usage_;
  std::unordered_map<std::string, VarId> var_ids_;  // of the rule being resolved
  std::vector<Occurrence> must_bind_;               // of the rule being resolved
  std::vector<char> bound_;                         // of the rule being resolved, per variable
  std::vector<PredId> rule_head_;                   // a well-formed state or transport head, else kNoPred
  std::vector<DepEdge> edges_;
  std::vector<size_t> choice_edges_;  // indices into edges_ of choice rules' body literals
  std::vector<uint32_t> adj_begin_;
  std::vector<std::pair<PredId, bool>> adj_;
  std::vector<uint32_t> comp_;
  uint32_t num_comps_ = 0;
  std::vector<uint32_t> bfs_stamp_;
  std::vector<std::pair<PredId, bool>> bfs_parent_;
  uint32_t stamp_ = 0;
  int64_t path_budget_ = 10'000'000;  // edges looked at by all path searches together
};

}  // namespace

std::optional<Model> resolve(const Program& program, const Overrides& overrides, Diagnostics& diag) {
  return Resolver(program, overrides, diag).run();
}

}  // namespace ddsmc::model
