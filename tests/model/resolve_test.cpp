// Resolution and the static rules of docs/reference.md §2.3: for each rule 1-6 a
// program that passes and one that fails (message and line:col), the
// evaluation order, network/init/bounds handling, warnings, and scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <fmt/format.h>

#include "model/parser.hpp"
#include "model/resolve.hpp"

using namespace ddsmc::model;

namespace {

Overrides ring3() {
  Overrides ov;
  ov.network_spec = "ring:3";
  return ov;
}

struct Result {
  std::optional<Model> model;
  Diagnostics diag{"t.d2c"};

  size_t count(Diagnostic::Severity s) const {
    return static_cast<size_t>(
        std::count_if(diag.all().begin(), diag.all().end(), [&](const Diagnostic& d) { return d.severity == s; }));
  }
  size_t errors() const { return count(Diagnostic::Severity::Error); }
  size_t warnings() const { return count(Diagnostic::Severity::Warning); }
  // The diagnostic at line:col whose message contains `text`.
  const Diagnostic* find(uint32_t line, uint32_t col, const std::string& text,
                         Diagnostic::Severity s = Diagnostic::Severity::Error) const {
    for (const auto& d : diag.all())
      if (d.severity == s && d.loc == Loc{line, col} && d.message.find(text) != std::string::npos) return &d;
    return nullptr;
  }
  bool has(const std::string& text, Diagnostic::Severity s = Diagnostic::Severity::Error) const {
    for (const auto& d : diag.all())
      if (d.severity == s && d.message.find(text) != std::string::npos) return true;
    return false;
  }
  std::string all() const { return diag.format_all(); }
};

Result resolve_program(Program prog, const Overrides& ov = ring3()) {
  Result r;
  prog.file = "t.d2c";
  r.model = resolve(prog, ov, r.diag);
  EXPECT_EQ(r.model.has_value(), !r.diag.has_errors()) << r.all();
  return r;
}

Result run(const std::string& src, const Overrides& ov = ring3()) {
  Diagnostics syntax("t.d2c");
  Program prog = parse_program(src, syntax);
  EXPECT_FALSE(syntax.has_errors()) << "syntax error in the test program:\n" << syntax.format_all();
  return resolve_program(std::move(prog), ov);
}

// A program that must resolve without errors.
Model ok(const std::string& src, const Overrides& ov = ring3()) {
  Result r = run(src, ov);
  EXPECT_TRUE(r.model.has_value()) << r.all();
  if (!r.model) return Model{};
  return std::move(*r.model);
}

#define EXPECT_DIAG(result, line, col, text)                                                        \
  EXPECT_NE((result).find(line, col, text), nullptr) << "want " << line << ":" << col << ": " << text \
                                                     << "\ngot:\n"                                  \
                                                     << (result).all()
#define EXPECT_WARNING(result, line, col, text)                                                      \
  EXPECT_NE((result).find(line, col, text, Diagnostic::Severity::Warning), nullptr)                  \
      << "want warning " << line << ":" << col << ": " << text << "\ngot:\n"                        \
      << (result).all()

std::vector<std::string> fact_strings(const Model& m, const std::vector<Fact>& facts) {
  std::vector<std::string> out;
  for (const auto& f : facts) out.push_back(m.fact_to_string(f));
  return out;
}

std::vector<std::string> comp_names(const Model& m, const Component& c) {
  std::vector<std::string> out;
  for (PredId p : c.preds) out.push_back(m.pred(p).name);
  return out;
}

}  // namespace

// ---- declarations and built-ins ---------------------------------------------

TEST(Resolve, BuiltinsHaveFixedIds) {
  Model m = ok("state p/1.\ntransport t/0.\np(X) if my_name(X).\nt@N if neighbor(N), p(_).\nerror if not p(_), start@_.\n"
               "p(X) if t@X.\n");
  ASSERT_GE(m.preds.size(), 6u);
  EXPECT_EQ(m.pred(kMyName).name, "my_name");
  EXPECT_EQ(m.pred(kNeighbor).name, "neighbor");
  EXPECT_EQ(m.pred(kError).name, "error");
  EXPECT_EQ(m.pred(kStart).name, "start");
  EXPECT_EQ(m.pred(kStart).kind, PredKind::Transport);
  EXPECT_TRUE(m.pred(kError).builtin);
  EXPECT_EQ(m.pred(kError).arity, 0u);
  EXPECT_EQ(m.find_pred("p"), std::optional<PredId>(4));
  EXPECT_EQ(m.find_pred("t"), std::optional<PredId>(5));
  EXPECT_EQ(m.find_pred("nope"), std::nullopt);
  EXPECT_EQ(m.preds_of_kind(PredKind::Transport), (std::vector<PredId>{kStart, 5}));
  EXPECT_STREQ(pred_kind_name(PredKind::Input), "input");
  EXPECT_EQ(m.rules.size(), 4u);
  EXPECT_EQ(m.rules[1].text, "t@N if neighbor(N), p(_).");
}

TEST(Resolve, DeclarationErrors) {
  Result r = run("state p/1.\nstate q/0, p/2.\ntransport start/0.\nstate neighbor/1.\np(a). q.\n");
  EXPECT_DIAG(r, 2, 12, "predicate 'p' is declared twice (first declared at line 1:7)");
  EXPECT_DIAG(r, 3, 11, "'start' is a built-in transport predicate (start/0) and must not be declared");
  EXPECT_DIAG(r, 4, 7, "'neighbor' is a built-in state predicate");
  EXPECT_EQ(r.errors(), 3u) << r.all();
}

TEST(Resolve, ArityLimit) {
  Program prog;
  prog.decls.push_back(PredDecl{DeclKind::State, "wide", kMaxArity + 1, Loc{1, 7}});
  Result r = resolve_program(prog);
  EXPECT_DIAG(r, 1, 7, "predicate 'wide' has arity 65, more than the maximum of 64");
}

// ---- rule 6: declared names, arity ------------------------------------------

TEST(ResolveRule6, DeclaredAndMatchingArityPasses) {
  ok("state p/2, q/1.\np(X, Y) if q(X), q(Y).\nq(a).\n");
}

TEST(ResolveRule6, UndeclaredPredicate) {
  Result r = run("state seen/1.\nseen(X) if sen(X).\nseen(a) if zzz.\n");
  EXPECT_DIAG(r, 2, 12, "undeclared predicate 'sen' in rule 'seen(X) if sen(X).' (did you mean 'seen'?)");
  const Diagnostic* d = r.find(3, 12, "undeclared predicate 'zzz'");
  ASSERT_NE(d, nullptr) << r.all();
  EXPECT_EQ(d->message.find("did you mean"), std::string::npos) << d->message;
  EXPECT_FALSE(r.model);
}

TEST(ResolveRule6, UndeclaredHeadAndInit) {
  Result r = run("state p/0.\nfoo if p.\ninit { bar. }\n");
  EXPECT_DIAG(r, 2, 1, "undeclared predicate 'foo'");
  EXPECT_DIAG(r, 3, 8, "undeclared predicate 'bar' in an init block");
}

TEST(ResolveRule6, ArityMismatch) {
  Result r = run("state p/2, q/1.\np(X, Y) if q(X, Y).\np(a) if q(a).\nq if my_name(a, b).\n");
  EXPECT_DIAG(r, 2, 12, "'q' is declared with arity 1 but used with 2 arguments");
  EXPECT_DIAG(r, 3, 1, "'p' is declared with arity 2 but used with 1 argument in rule 'p(a) if q(a).'");
  EXPECT_DIAG(r, 4, 1, "'q' is declared with arity 1 but used with 0 arguments");
  EXPECT_DIAG(r, 4, 6, "built-in 'my_name' has arity 1 but is used with 2 arguments");
}

// ---- rule 1: heads -----------------------------------------------------------

TEST(ResolveRule1, StateAndTransportHeadsPass) {
  Model m = ok("input e/1.\nstate p/1.\ntransport t/1.\np(X) if e(X).\nt(X)@N if e(X), neighbor(N).\nerror if e(bad).\n");
  EXPECT_EQ(m.rules[1].head.at, std::optional<RTerm>(RTerm::var(1)));
  EXPECT_EQ(m.transport_rules, (std::vector<uint32_t>{1}));
}

TEST(ResolveRule1, BadHeads) {
  Result r = run(
      "input e/1.\n"
      "state p/1.\n"
      "transport t/1.\n"
      "e(a) if p(a).\n"             // 4: input head
      "t(a) if p(a).\n"             // 5: transport head without @Dest
      "p(a)@b if p(b).\n"           // 6: state head with an annotation
      "my_name(a) if p(a).\n"       // 7: built-ins are never heads
      "neighbor(a) if p(a).\n"      // 8
      "start@a if p(a).\n");        // 9
  EXPECT_DIAG(r, 4, 1, "input predicate 'e' cannot be a rule head");
  EXPECT_DIAG(r, 5, 1, "transport head 't' needs a destination: write 't(a)@Dest' in rule 't(a) if p(a).'");
  EXPECT_DIAG(r, 6, 6, "state head 'p' cannot carry an '@' annotation");
  EXPECT_DIAG(r, 7, 1, "built-in predicate 'my_name' cannot be a rule head");
  EXPECT_DIAG(r, 8, 1, "built-in predicate 'neighbor' cannot be a rule head");
  EXPECT_DIAG(r, 9, 1, "built-in predicate 'start' cannot be a rule head");
  EXPECT_EQ(r.errors(), 6u) << r.all();
}

// ---- rule 2: body annotations and prev ----------------------------------------

TEST(ResolveRule2, BodyAnnotationsPass) {
  Model m = ok("input e/1.\nstate p/1.\ntransport t/1.\np(X) if t(X)@S, prev p(X), e(X), my_name(S).\n"
               "p(X) if t(X)@_, not prev p(X).\np(X) if prev not p(X), e(X).\n");
  ASSERT_EQ(m.rules[0].body.size(), 4u);
  EXPECT_TRUE(m.rules[0].body[0].atom.at.has_value());
  EXPECT_TRUE(m.rules[0].body[1].prev);
  EXPECT_TRUE(m.rules[2].body[0].prev && m.rules[2].body[0].negated);
  EXPECT_TRUE(m.uses_prev);
  EXPECT_TRUE(m.uses_input);
}

TEST(ResolveRule2, BadBodyAtoms) {
  Result r = run(
      "input e/1.\n"
      "state p/1.\n"
      "transport t/1.\n"
      "p(X) if t(X).\n"             // 4: transport without @Source
      "p(X) if e(X)@a.\n"           // 5: input with an annotation
      "p(X) if e(X), p(X)@X.\n"     // 6: state with an annotation
      "p(X) if e(X), prev e(X).\n"  // 7: prev on input
      "p(X) if prev t(X)@_.\n");    // 8: transport under prev
  EXPECT_DIAG(r, 4, 9, "transport atom 't' in a body needs '@Source' (write 't(X)@_' if the sender does not matter)");
  EXPECT_DIAG(r, 5, 14, "input atom 'e' cannot carry an '@' annotation");
  EXPECT_DIAG(r, 6, 20, "state atom 'p' cannot carry an '@' annotation");
  EXPECT_DIAG(r, 7, 15, "'prev' applies only to state atoms, and 'e' is an input predicate");
  EXPECT_DIAG(r, 8, 9, "transport atom 't' cannot be under 'prev'");
  EXPECT_EQ(r.errors(), 5u) << r.all();
}

// ---- rule 3: safety -------------------------------------------------------------

TEST(ResolveRule3, SafeRulesPass) {
  Model m = ok("state p/1, q/2, r/2.\ntransport t/1.\n"
               "p(X) if q(X, _), not r(X, _), X != a.\n"
               "p(X) if prev p(X).\n"
               "t(X)@S if t(X)@S.\n"
               "q(a, b).\n"
               "r(X, Y) if q(X, Y), X = Y.\n");
  const RRule& r0 = m.rules[0];
  ASSERT_EQ(r0.num_vars(), 3u);
  EXPECT_EQ(r0.var_names, (std::vector<std::string>{"X", "_", "_"}));
  EXPECT_EQ(r0.var_anonymous, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(r0.body[0].atom.args[1], RTerm::var(1));
  EXPECT_EQ(r0.body[1].atom.args[1], RTerm::var(2));  // each `_` is its own variable
  ASSERT_EQ(r0.constraints.size(), 1u);
  EXPECT_FALSE(r0.constraints[0].equal);
  EXPECT_FALSE(r0.constraints[0].rhs.is_var);
  EXPECT_EQ(m.constants.spelling(r0.constraints[0].rhs.id), "a");
}

TEST(ResolveRule3, UnsafeVariables) {
  Result r = run(
      "state p/1, q/1, r/1.\n"
      "transport t/1.\n"
      "p(X) if not q(X).\n"          // 3: head variable bound only negatively
      "p(X) if q(X), not r(Y).\n"    // 4: negated literal
      "p(X) if q(X), Y != X.\n"      // 5: constraint
      "t(X)@N if q(X).\n"            // 6: head annotation
      "p(X) if q(X), choice((), (Z)).\n"  // 7: choice
      "p(X).\n");                    // 8: a fact must be ground
  EXPECT_DIAG(r, 3, 3, "variable X in rule 'p(X) if not q(X).' is unsafe: it must occur in a positive body literal");
  EXPECT_DIAG(r, 4, 21, "variable Y in rule 'p(X) if q(X), not r(Y).' is unsafe");
  EXPECT_DIAG(r, 5, 15, "variable Y in rule");
  EXPECT_DIAG(r, 6, 6, "variable N in rule 't(X)@N if q(X).' is unsafe");
  EXPECT_DIAG(r, 7, 27, "variable Z in rule");
  EXPECT_DIAG(r, 8, 3, "variable X in fact 'p(X).' is unsafe: a fact (a rule without a body) must be ground");
  EXPECT_EQ(r.errors(), 6u) << r.all();
}

TEST(ResolveRule3, AnonymousOnlyInBodyAtoms) {
  Result r = run(
      "state p/1, q/1.\n"
      "transport t/1.\n"
      "p(_) if q(a).\n"
      "t(a)@_ if q(a).\n"
      "p(X) if q(X), X = _.\n");
  EXPECT_DIAG(r, 3, 3, "'_' cannot appear in a rule head");
  EXPECT_DIAG(r, 4, 6, "'_' cannot appear in a rule head's '@' annotation");
  EXPECT_DIAG(r, 5, 19, "'_' cannot appear in a constraint");
  EXPECT_EQ(r.errors(), 3u) << r.all();
}

// ---- rule 4: choice ---------------------------------------------------------------

TEST(ResolveRule4, ChoicePasses) {
  Model m = ok("state pick/1, pair/2, kept/1.\n"
               "pick(N) if neighbor(N), start@_, choice((), (N)).\n"
               "pair(X, Y) if neighbor(X), neighbor(Y), choice((X), (Y)).\n"
               "kept(X) if prev kept(X), neighbor(X), choice((), (X)).\n"  // prev of its own head is fine
               "kept(X) if pick(X).\n");
  ASSERT_TRUE(m.rules[1].choice.has_value());
  EXPECT_EQ(m.rules[1].choice->domain, (std::vector<VarId>{0}));
  EXPECT_EQ(m.rules[1].choice->picked, (std::vector<VarId>{1}));
  EXPECT_EQ(m.rules[0].choice->domain.size(), 0u);
  // The choice rules of a component are listed apart from its other rules.
  const auto kept = *m.find_pred("kept");
  for (const auto& c : m.components) {
    if (c.preds == std::vector<PredId>{kept}) {
      EXPECT_EQ(c.choice_rules, (std::vector<uint32_t>{2}));
      EXPECT_EQ(c.rules, (std::vector<uint32_t>{3}));
    }
  }
}

TEST(ResolveRule4, ChoiceErrors) {
  Result r = run(
      "state p/1, q/1, s/1.\n"
      "p(X) if neighbor(X), choice((), (X)), choice((), (X)).\n"  // 2: two choices
      "p(X) if neighbor(X), neighbor(Y), choice((X), (X, Y)).\n"   // 3: X twice
      "p(X) if q(X), choice((), (X)).\n"                           // 4: q depends on p
      "q(X) if p(X).\n"
      "s(X) if s(X), neighbor(X), choice((), (X)).\n");            // 6: reads its own head
  EXPECT_DIAG(r, 2, 39, "a rule has at most one 'choice' (the first one is at line 2:22)");
  EXPECT_DIAG(r, 3, 48, "variable X appears twice in the choice (first at line 3:43)");
  EXPECT_DIAG(r, 4, 9, "choice rule for 'p' reads 'q', which depends on 'p' (q -> p), in rule 'p(X) if q(X)");
  EXPECT_DIAG(r, 6, 9, "choice rule for 's' reads 's' itself");
  EXPECT_EQ(r.errors(), 4u) << r.all();
}

TEST(ResolveRule4, ChoiceDependencyPathThroughSeveralRules) {
  Result r = run("state p/1, a/1, b/1.\n"
                 "p(X) if a(X), choice((), (X)).\n"
                 "a(X) if b(X).\n"
                 "b(X) if p(X).\n");
  EXPECT_DIAG(r, 2, 9, "choice rule for 'p' reads 'a', which depends on 'p' (a -> b -> p)");
}

// ---- rule 5: stratification ----------------------------------------------------------

TEST(ResolveRule5, StratifiedPasses) {
  Model m = ok("state p/0, q/0, r/0, s/0.\n"
               "p if not q.\nq if r.\nr if q, s.\ns if not prev s.\np if prev not p.\n");
  // q and r form one recursive component; the others are singletons.
  ASSERT_EQ(m.components.size(), 3u);
  EXPECT_EQ(comp_names(m, m.components[0]), (std::vector<std::string>{"s"}));
  EXPECT_EQ(comp_names(m, m.components[1]), (std::vector<std::string>{"q", "r"}));
  EXPECT_TRUE(m.components[1].recursive);
  EXPECT_EQ(comp_names(m, m.components[2]), (std::vector<std::string>{"p"}));
  EXPECT_FALSE(m.components[2].recursive);  // `prev not p` is no dependency
  EXPECT_EQ(m.components[2].rules, (std::vector<uint32_t>{0, 4}));
}

TEST(ResolveRule5, UnstratifiedNegationNamesTheCycle) {
  Result r = run("state p/0, q/0.\np if not q.\nq if p.\n");
  EXPECT_DIAG(r, 2, 6, "unstratified negation: p -> not q -> p, in rule 'p if not q.'");
  EXPECT_EQ(r.errors(), 1u) << r.all();
}

TEST(ResolveRule5, LongerCyclesAndSelfNegation) {
  Result r = run("state a/0, b/0, c/0, d/0.\n"
                 "a if b.\n"
                 "b if not c.\n"
                 "c if a, not d.\n"
                 "d if not d.\n");
  EXPECT_DIAG(r, 3, 6, "unstratified negation: b -> not c -> a -> b");
  EXPECT_DIAG(r, 5, 6, "unstratified negation: d -> not d");
  EXPECT_EQ(r.errors(), 2u) << r.all();
}

// ---- several independent errors in one run -----------------------------------------

TEST(Resolve, ReportsAllIndependentErrors) {
  Result r = run("state p/1, q/0.\n"
                 "transport t/1.\n"
                 "p(X) if not q.\n"        // unsafe X
                 "q if not q.\n"           // unstratified
                 "t(a) if q.\n"            // no destination
                 "p(a) if r.\n"            // undeclared
                 "init at zz { q. }\n"     // no such node
                 "init { p(Y). }\n");      // not ground
  EXPECT_DIAG(r, 3, 3, "variable X");
  EXPECT_DIAG(r, 4, 6, "unstratified negation: q -> not q");
  EXPECT_DIAG(r, 5, 1, "transport head 't' needs a destination");
  EXPECT_DIAG(r, 6, 9, "undeclared predicate 'r'");
  EXPECT_DIAG(r, 7, 9, "init at 'zz': no such node in the network (nodes: n0, n1, n2)");
  EXPECT_DIAG(r, 8, 10, "init facts must be ground, but 'Y' in 'p' is a variable");
  EXPECT_EQ(r.errors(), 6u) << r.all();
  EXPECT_FALSE(r.model);
}

// ---- evaluation order -----------------------------------------------------------------

TEST(ResolveComponents, DependenciesComeFirst) {
  Model m = ok("state a/1, b/1, c/1, d/1.\ntransport t/1.\n"
               "a(X) if b(X).\n"
               "t(X)@X if a(X).\n"
               "b(X) if c(X).\n"
               "c(X) if neighbor(X).\n"
               "d(X) if prev d(X).\n"
               "t(X)@X if d(X).\n");
  ASSERT_EQ(m.components.size(), 4u);
  EXPECT_EQ(comp_names(m, m.components[0]), (std::vector<std::string>{"c"}));
  EXPECT_EQ(comp_names(m, m.components[1]), (std::vector<std::string>{"b"}));
  EXPECT_EQ(comp_names(m, m.components[2]), (std::vector<std::string>{"a"}));
  EXPECT_EQ(comp_names(m, m.components[3]), (std::vector<std::string>{"d"}));
  EXPECT_EQ(m.components[0].rules, (std::vector<uint32_t>{3}));
  EXPECT_EQ(m.components[2].rules, (std::vector<uint32_t>{0}));
  EXPECT_FALSE(m.components[3].recursive);  // prev d is data from the last state
  EXPECT_EQ(m.transport_rules, (std::vector<uint32_t>{1, 5}));
  for (uint32_t i = 0; i < m.rules.size(); ++i) EXPECT_EQ(m.rules[i].index, i);
}

TEST(ResolveComponents, IndependentPredicatesInIdOrder) {
  Model m = ok("state z/0, y/0, x/0.\nx.\ny if x.\nz.\n");
  ASSERT_EQ(m.components.size(), 3u);
  EXPECT_EQ(comp_names(m, m.components[0]), (std::vector<std::string>{"z"}));
  EXPECT_EQ(comp_names(m, m.components[1]), (std::vector<std::string>{"x"}));
  EXPECT_EQ(comp_names(m, m.components[2]), (std::vector<std::string>{"y"}));
}

// ---- network, init, constants -----------------------------------------------------------

TEST(ResolveInit, FactsAndBuiltinsOnRing3) {
  Model m = ok("state tok/0, leader/1, val/1.\n"
               "network ring(3).\n"
               "init { tok. val(7). }\n"
               "init at n1 { leader(n1). val(007). }\n"
               "tok if prev tok.\nleader(X) if prev leader(X).\nval(X) if prev val(X), tok, leader(_).\n",
               Overrides{});
  ASSERT_EQ(m.network.num_nodes(), 3u);
  ASSERT_EQ(m.init_facts.size(), 3u);
  // Node names are the first constants.
  for (NodeId n = 0; n < 3; ++n) {
    EXPECT_EQ(m.node_const[n], n);
    EXPECT_EQ(m.constants.spelling(m.node_const[n]), fmt::format("n{}", n));
  }
  EXPECT_EQ(fact_strings(m, m.init_facts[0]),
            (std::vector<std::string>{"my_name(n0)", "neighbor(n1)", "neighbor(n2)", "tok", "val(7)"}));
  EXPECT_EQ(fact_strings(m, m.init_facts[1]), (std::vector<std::string>{"my_name(n1)", "neighbor(n0)", "neighbor(n2)",
                                                                        "tok", "leader(n1)", "val(7)"}));
  EXPECT_TRUE(std::is_sorted(m.init_facts[1].begin(), m.init_facts[1].end()));
  EXPECT_EQ(m.constants.size(), 4u);  // n0 n1 n2 7
  EXPECT_TRUE(m.constants.find("7").has_value());
  EXPECT_FALSE(m.constants.find("007").has_value());
}

TEST(ResolveInit, BadInitFacts) {
  Result r = run("state p/1.\ninput e/1.\ntransport t/0.\n"
                 "init { my_name(a). e(a). t. p(a, b). }\n"
                 "init at nobody { p(a). }\n"
                 "p(X) if prev p(X), e(X), t@_.\n");
  EXPECT_DIAG(r, 4, 8, "'my_name' facts are built in (fixed by the network) and cannot be given in an init block");
  EXPECT_DIAG(r, 4, 20, "init facts are state facts, but 'e' is an input predicate");
  EXPECT_DIAG(r, 4, 26, "init facts are state facts, but 't' is a transport predicate");
  EXPECT_DIAG(r, 4, 29, "'p' is declared with arity 1 but used with 2 arguments in an init block");
  EXPECT_DIAG(r, 5, 9, "init at 'nobody': no such node in the network (nodes: n0, n1, n2)");
  EXPECT_EQ(r.errors(), 5u) << r.all();
}

TEST(ResolveInit, UnknownNodeListIsTruncated) {
  Overrides ov;
  ov.network_spec = "line:20";
  Result r = run("state p/0.\ninit at x { p. }\np if prev p.\n", ov);
  EXPECT_DIAG(r, 2, 9, "init at 'x': no such node in the network (nodes: n0, n1, n2, n3, n4, n5, n6, n7, ... (12 more))");
}

TEST(ResolveNetwork, FileNetworkOverriddenByCommandLine) {
  const std::string src = "state p/0.\nnetwork { a - b. b - c. d - a. }\np if prev p.\n";
  Model file = ok(src, Overrides{});
  EXPECT_EQ(file.network.names(), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(file.network.adjacent(0, 3));
  EXPECT_EQ(file.init_facts[0].size(), 3u);  // my_name(a), neighbor(b), neighbor(d)
  Overrides ov;
  ov.network_spec = "line:2";
  Model cli = ok(src, ov);
  EXPECT_EQ(cli.network.names(), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(cli.network.description(), "line:2");
}

TEST(ResolveNetwork, Errors) {
  Result none = run("state p/0.\np if prev p.\n", Overrides{});
  EXPECT_DIAG(none, 0, 0, "no network: give --network SPEC or a `network` declaration");

  Result two = run("state p/0.\nnetwork ring(3).\nnetwork line(2).\np if prev p.\n", Overrides{});
  EXPECT_DIAG(two, 3, 9, "more than one network declaration (the first one is at line 2:9)");

  Result bad_gen = run("state p/0.\nnetwork ring(0).\np if prev p.\n", Overrides{});
  EXPECT_DIAG(bad_gen, 2, 9, "bad network declaration: ring:0 has no nodes");

  Result self = run("state p/0.\nnetwork { a - b. b - b. a - b. }\np if prev p.\n", Overrides{});
  EXPECT_DIAG(self, 2, 18, "network edge 'b - b' joins a node to itself");
  EXPECT_DIAG(self, 2, 25, "network edge 'a - b' is written twice (first at line 2:11)");

  Result split = run("state p/0.\nnetwork { a - b. c. }\np if prev p.\n", Overrides{});
  EXPECT_DIAG(split, 2, 1, "bad network declaration: network is not connected");

  Overrides bad_spec;
  bad_spec.network_spec = "ring:0";
  Result spec = run("state p/0.\np if prev p.\n", bad_spec);
  ASSERT_EQ(spec.errors(), 1u) << spec.all();
  EXPECT_EQ(spec.diag.all()[0].loc, Loc{});
  EXPECT_NE(spec.diag.all()[0].message.find("ring:0"), std::string::npos) << spec.all();
}

TEST(ResolveConstants, NodeNamesThenRulesThenInit) {
  Model m = ok("state p/1.\nnetwork { x - y. }\np(k) if p(\"x\").\ninit { p(j). p(k). }\np(X) if prev p(X).\n",
               Overrides{});
  std::vector<std::string> spellings;
  for (ConstId c = 0; c < m.constants.size(); ++c) spellings.push_back(m.constants.spelling(c));
  EXPECT_EQ(spellings, (std::vector<std::string>{"x", "y", "k", "\"x\"", "j"}));
  EXPECT_TRUE(m.constants.is_fixed(4));
  EXPECT_FALSE(m.constants.is_fixed(5));
  Fact fresh{*m.find_pred("p"), {5}};
  EXPECT_EQ(m.fact_to_string(fresh), "p(#1)");
}

// ---- bounds -------------------------------------------------------------------------------

TEST(ResolveBounds, DefaultsFileAndOverrides) {
  Model no_input = ok("state p/0.\np if prev p.\n");
  EXPECT_EQ(no_input.bounds.input, 0u);
  EXPECT_EQ(no_input.bounds.state, std::nullopt);
  EXPECT_EQ(no_input.bounds.channel, std::nullopt);
  EXPECT_FALSE(no_input.uses_input);

  Model with_input = ok("input e/1.\nstate p/1.\np(X) if e(X).\n");
  EXPECT_EQ(with_input.bounds.input, 1u);
  EXPECT_TRUE(with_input.uses_input);

  const std::string src = "input e/1.\nstate p/1.\nbounds { input 2. state 3. channel 4. }\np(X) if e(X).\n";
  Model file = ok(src);
  EXPECT_EQ(file.bounds.input, 2u);
  EXPECT_EQ(file.bounds.state, std::optional<uint32_t>(3));
  EXPECT_EQ(file.bounds.channel, std::optional<uint32_t>(4));

  Overrides ov = ring3();
  ov.input_bound = 0;
  ov.state_bound = 7;
  ov.channel_bound = 1;
  Model cli = ok(src, ov);
  EXPECT_EQ(cli.bounds.input, 0u);
  EXPECT_EQ(cli.bounds.state, std::optional<uint32_t>(7));
  EXPECT_EQ(cli.bounds.channel, std::optional<uint32_t>(1));
}

TEST(ResolveBounds, Errors) {
  Result r = run("state p/0.\nbounds { state 3. state 4. channel 5000000000. }\np if prev p.\n");
  EXPECT_DIAG(r, 2, 19, "bound 'state' is given twice (first at line 2:10)");
  EXPECT_DIAG(r, 2, 28, "bound 'channel 5000000000' is too large");
  Program prog;
  prog.bounds.push_back(BoundDecl{"fuel", 1, Loc{1, 10}});
  Result unknown = resolve_program(prog);
  EXPECT_DIAG(unknown, 1, 10, "unknown bound 'fuel' (the bounds are input, state and channel)");
}

// ---- warnings -----------------------------------------------------------------------------

TEST(ResolveWarnings, CleanProgramHasNone) {
  Result r = run("state seen/0.\ntransport tok/0.\n"
                 "seen if prev seen.\nseen if tok@_.\ntok@N if start@_, neighbor(N).\ntok@N if tok@_, neighbor(N), "
                 "not prev seen.\n");
  EXPECT_EQ(r.warnings(), 0u) << r.all();
  EXPECT_EQ(r.errors(), 0u) << r.all();
}

TEST(ResolveWarnings, SuspiciousPrograms) {
  Result r = run("input unused_in/1.\n"                 // 1
                 "state idle/0, out/0, ghost/0, gone/0.\n"  // 2
                 "transport lost/0, never/0, quiet/0.\n"    // 3
                 "init { gone. }\n"                          // 4
                 "out if start@_.\n"                         // 5: out is never read
                 "lost@N if neighbor(N), ghost.\n"           // 6: lost never received; ghost never derived
                 "out if never@_, prev gone.\n");            // 7: never is never sent
  EXPECT_WARNING(r, 1, 7, "input predicate 'unused_in' is declared but no rule uses it");
  EXPECT_WARNING(r, 2, 7, "state predicate 'idle' is declared but no rule uses it");
  EXPECT_WARNING(r, 2, 15, "state predicate 'out' is derived but no rule reads it, not even as 'prev out'");
  EXPECT_WARNING(r, 6, 24, "state predicate 'ghost' is read in rule 'lost@N if neighbor(N), ghost.' but no rule "
                           "derives it, so it is always false there");
  EXPECT_WARNING(r, 3, 11, "transport predicate 'lost' is sent but never received");
  EXPECT_WARNING(r, 3, 19, "transport predicate 'never' is never sent");
  EXPECT_WARNING(r, 3, 28, "transport predicate 'quiet' is declared but no rule uses it");
  EXPECT_EQ(r.warnings(), 7u) << r.all();  // `gone` is read as prev and set by init: fine
  EXPECT_EQ(r.errors(), 0u) << r.all();
  EXPECT_TRUE(r.model.has_value());
}

// A bound that is provably never reached (issue 24): the state bound above
// what a DB can hold when no input constant reaches a state predicate (the
// fixed constants, or none when no state predicate has arguments); the
// input bound above what arity-0 input predicates make, or with none.
TEST(ResolveWarnings, BoundsNeverReached) {
  // Three node names and `v`: a DB holds at most 4 constants.
  const std::string closed = "state has/1.\ntransport tok/1.\n"
                             "has(X) if tok(X)@_.\nhas(X) if prev has(X).\ntok(v)@N if start@_, neighbor(N).\n";
  Result tight = run(closed + "bounds { state 4. }\n");
  EXPECT_EQ(tight.warnings(), 0u) << tight.all();
  Result loose = run(closed + "bounds { state 5. }\n");
  EXPECT_WARNING(loose, 6, 10, "state bound 5 is never reached: no input constant reaches a state predicate, so a "
                               "node's DB holds at most the model's 4 fixed constants");
  EXPECT_EQ(loose.warnings(), 1u) << loose.all();
  // The same program, but `tok` carries input data on to `has`: any bound may be reached.
  Result open = run("input d/1.\nstate has/1.\ntransport tok/1.\nhas(X) if tok(X)@_.\nhas(X) if prev has(X).\n"
                    "tok(X)@N if d(X), start@_, neighbor(N).\nbounds { state 50. input 1. }\n");
  EXPECT_EQ(open.warnings(), 0u) << open.all();
  // No state predicate with arguments: state 0 is exact, state 1 never reached.
  const std::string flags = "state seen/0.\ntransport tok/0.\nseen if tok@_.\nseen if prev seen.\n"
                            "tok@N if start@_, neighbor(N).\n";
  EXPECT_EQ(run(flags + "bounds { state 0. }\n").warnings(), 0u);
  Result one = run(flags + "bounds { state 1. }\n");
  EXPECT_WARNING(one, 6, 10, "state bound 1 is never reached: no state predicate has arguments");
  // From the command line: no location, the option named.
  Overrides ov = ring3();
  ov.state_bound = 2;
  EXPECT_TRUE(run(flags, ov).has("state bound 2 (--state-bound) is never reached", Diagnostic::Severity::Warning));
  // Input bounds.
  Result none = run(flags + "bounds { input 2. }\n");
  EXPECT_WARNING(none, 6, 10, "input bound 2 has no effect: the program declares no input predicate");
  const std::string pulses = "input go/0, halt/0.\nstate seen/0.\nseen if go.\nseen if halt.\nseen if prev seen.\n";
  EXPECT_EQ(run(pulses + "bounds { input 2. }\n").warnings(), 0u);
  Result three = run(pulses + "bounds { input 3. }\n");
  EXPECT_WARNING(three, 6, 10, "input bound 3 is never reached: the input predicates all have arity 0, so an input "
                               "DB holds at most 2 facts");
}

// ---- scale ----------------------------------------------------------------------------------

TEST(ResolveScale, HundredThousandRulesAndLongChains) {
  constexpr int kChain = 20000, kRules = 100000;
  std::string src = "input e/1.\nstate r/1, q/2.\n";
  for (int i = 0; i < kChain; ++i) src += fmt::format("state p{}/1.\n", i);
  // p0 <- p1 <- ... <- p19999, alternating negation: deep but stratified.
  for (int i = 0; i + 1 < kChain; ++i)
    src += fmt::format("p{}(X) if e(X), {}p{}(X).\n", i, i % 2 ? "not " : "", i + 1);
  src += fmt::format("p{}(X) if e(X).\n", kChain - 1);
  for (int i = kChain; i < kRules; ++i) src += fmt::format("r(X) if q(X, c{}), p{}(X).\n", i, i % kChain);
  src += "q(X, Y) if e(X), e(Y).\n";
  // CPU time, not wall time: the suite may share the machine with builds.
  std::clock_t c0 = std::clock();
  Diagnostics syntax("t.d2c");
  Program prog = parse_program(src, syntax);
  ASSERT_FALSE(syntax.has_errors()) << syntax.format_all().substr(0, 2000);
  std::clock_t c1 = std::clock();
  Result r = resolve_program(std::move(prog));
  std::clock_t c2 = std::clock();
  double parse_s = double(c1 - c0) / CLOCKS_PER_SEC, resolve_s = double(c2 - c1) / CLOCKS_PER_SEC;
  ASSERT_TRUE(r.model.has_value()) << r.all().substr(0, 2000);
  EXPECT_EQ(r.model->rules.size(), static_cast<size_t>(kRules + 1));
  ASSERT_EQ(r.model->components.size(), static_cast<size_t>(kChain + 2));
  EXPECT_EQ(r.model->pred(r.model->components.front().preds[0]).name, "q");
  EXPECT_EQ(r.model->pred(r.model->components[1].preds[0]).name, fmt::format("p{}", kChain - 1));
  EXPECT_EQ(r.model->pred(r.model->components.back().preds[0]).name, "r");
  EXPECT_LT(resolve_s, 10.0);
  std::cout << "[ info ] " << kRules << " rules: parse " << parse_s << " s, resolve " << resolve_s << " s (CPU)\n";
}

TEST(ResolveScale, BigCycleThroughNegationIsReportedBriefly) {
  constexpr int kCycle = 20000;
  std::string src = "state s/0.\n";
  for (int i = 0; i < kCycle; ++i) src += fmt::format("state p{}/0.\n", i);
  for (int i = 0; i < kCycle; ++i) src += fmt::format("p{} if {}p{}.\n", i, i == 0 ? "not " : "", (i + 1) % kCycle);
  Result r = run(src);
  ASSERT_EQ(r.errors(), 1u) << r.all().substr(0, 2000);
  const std::string& msg = r.diag.all()[0].message;
  EXPECT_NE(msg.find("unstratified negation: p0 -> not p1 -> p2 -> p3 -> p4 -> p5 -> p6 -> ... (19989 more) ... -> "
                     "p19996 -> p19997 -> p19998 -> p19999 -> p0"),
            std::string::npos)
      << msg;
  EXPECT_LT(msg.size(), 300u);
}
