// Lexer, parser and printer: the grammar of docs/reference.md §1-2, error locations
// and recovery, and the print-then-parse round trip.
#include <gtest/gtest.h>

#include <random>

#include "model/lexer.hpp"
#include "model/parser.hpp"
#include "model/printer.hpp"

using namespace ddsmc::model;

namespace {

Program parse_ok(const std::string& src) {
  Diagnostics diag("t.d2c");
  Program p = parse_program(src, diag);
  EXPECT_FALSE(diag.has_errors()) << diag.format_all();
  return p;
}

std::string parse_errors(const std::string& src) {
  Diagnostics diag("t.d2c");
  parse_program(src, diag);
  EXPECT_TRUE(diag.has_errors()) << "expected a syntax error in: " << src;
  return diag.format_all();
}

}  // namespace

TEST(Lexer, TokensConstantsAndComments) {
  Diagnostics diag("t.d2c");
  auto toks = lex("p(X, _, 007, \"a\\\"b\", abc) :- q. % comment\n// another\nr != s", diag);
  ASSERT_FALSE(diag.has_errors()) << diag.format_all();
  std::vector<Tok> kinds;
  for (const auto& t : toks) kinds.push_back(t.kind);
  std::vector<Tok> want = {Tok::Ident, Tok::LParen, Tok::Var,    Tok::Comma, Tok::Anon,   Tok::Comma,
                           Tok::Int,   Tok::Comma,  Tok::String, Tok::Comma, Tok::Ident,  Tok::RParen,
                           Tok::If,    Tok::Ident,  Tok::Dot,    Tok::Ident, Tok::Neq,    Tok::Ident,
                           Tok::End};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(toks[6].text, "7");  // 007 is 7
  EXPECT_EQ(toks[8].text, "\"a\\\"b\"");
  EXPECT_EQ(toks[15].loc, (Loc{3, 1}));
}

TEST(Lexer, ReservedWordsAreKeywords) {
  Diagnostics diag("t.d2c");
  auto toks = lex("if not prev choice input state transport init at network bounds channel", diag);
  for (size_t i = 1; i < 11; ++i) EXPECT_EQ(toks[i].kind, Tok::Keyword) << toks[i].text;
  EXPECT_EQ(toks[0].kind, Tok::If);
  EXPECT_EQ(toks[11].kind, Tok::Ident);  // `channel` is not reserved
}

TEST(Lexer, ErrorsAreLocated) {
  Diagnostics diag("t.d2c");
  lex("p.\n  q # r.\n\"open", diag);
  std::string all = diag.format_all();
  EXPECT_NE(all.find("t.d2c:2:5: error: unexpected character '#'"), std::string::npos) << all;
  EXPECT_NE(all.find("t.d2c:3:1: error: unterminated string"), std::string::npos) << all;
}

TEST(Lexer, LongNamesAreRejected) {
  Diagnostics diag("t.d2c");
  lex(std::string(kMaxNameLength + 1, 'a'), diag);
  EXPECT_NE(diag.format_all().find("longer than the limit"), std::string::npos);
  Diagnostics ok("t.d2c");
  lex(std::string(kMaxNameLength, 'a'), ok);
  EXPECT_FALSE(ok.has_errors());
}

TEST(Lexer, UnderscoreNamesAreRejected) {
  Diagnostics diag("t.d2c");
  lex("p(_x).", diag);
  EXPECT_NE(diag.format_all().find("cannot start with '_'"), std::string::npos);
}

TEST(Parser, Declarations) {
  Program p = parse_ok("input echo/2.\nstate alive/1, seen/2.\ntransport say/1, ack/0.");
  ASSERT_EQ(p.decls.size(), 5u);
  EXPECT_EQ(p.decls[0].kind, DeclKind::Input);
  EXPECT_EQ(p.decls[0].name, "echo");
  EXPECT_EQ(p.decls[0].arity, 2u);
  EXPECT_EQ(p.decls[2].name, "seen");
  EXPECT_EQ(p.decls[2].kind, DeclKind::State);
  EXPECT_EQ(p.decls[4].kind, DeclKind::Transport);
  EXPECT_EQ(p.decls[4].arity, 0u);
  EXPECT_EQ(p.decls[1].loc, (Loc{2, 7}));
}

TEST(Parser, RuleShapes) {
  Program p = parse_ok(
      "say(X)@N if neighbor(N), echo(X, _), not prev seen(X, N), X != a.\n"
      "alive(X) :- prev alive(X).\n"
      "seen(X, Y) if prev not seen(X, Y), say(X)@Y, Y = b.\n"
      "pick(N) if neighbor(N), start@_, choice((), (N)).\n"
      "tok.\n");
  ASSERT_EQ(p.rules.size(), 5u);
  const Rule& r0 = p.rules[0];
  EXPECT_EQ(r0.head.pred, "say");
  ASSERT_TRUE(r0.head.at.has_value());
  EXPECT_EQ(r0.head.at->text, "N");
  ASSERT_EQ(r0.body.size(), 4u);
  const auto& neg = std::get<Literal>(r0.body[2]);
  EXPECT_TRUE(neg.negated);
  EXPECT_TRUE(neg.prev);
  EXPECT_EQ(std::get<Literal>(r0.body[1]).atom.args[1].kind, Term::Kind::Anon);
  const auto& c = std::get<Constraint>(r0.body[3]);
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.rhs.kind, Term::Kind::Const);
  // `prev not` and `not prev` are the same literal.
  const auto& pn = std::get<Literal>(p.rules[2].body[0]);
  EXPECT_TRUE(pn.negated && pn.prev);
  EXPECT_EQ(std::get<Literal>(p.rules[2].body[1]).atom.at->text, "Y");
  const auto& ch = std::get<Choice>(p.rules[3].body[2]);
  EXPECT_TRUE(ch.domain.empty());
  ASSERT_EQ(ch.picked.size(), 1u);
  EXPECT_EQ(ch.picked[0].text, "N");
  EXPECT_TRUE(p.rules[4].body.empty());
}

TEST(Parser, ConstantAsConstraintLeftSide) {
  Program p = parse_ok("p(X) if q(X), a = X, 1 != X, \"s\" = X.");
  ASSERT_EQ(p.rules[0].body.size(), 4u);
  EXPECT_EQ(std::get<Constraint>(p.rules[0].body[1]).lhs.text, "a");
  EXPECT_EQ(std::get<Constraint>(p.rules[0].body[3]).lhs.text, "\"s\"");
}

TEST(Parser, NetworkInitBounds) {
  Program p = parse_ok(
      "network { a - b. b - c. c - a. d. }\n"
      "network ring(4).\n"
      "network grid(2, 3).\n"
      "init { token_seen. }\n"
      "init at a { initiator. value(1). }\n"
      "bounds { input 1. state 3. channel 2. }\n");
  ASSERT_EQ(p.networks.size(), 3u);
  const auto& block = std::get<NetworkBlock>(p.networks[0]);
  ASSERT_EQ(block.nodes.size(), 4u);
  EXPECT_EQ(block.nodes[3].name, "d");
  EXPECT_EQ(block.edges.size(), 3u);
  const auto& ring = std::get<NetworkGenerator>(p.networks[1]);
  EXPECT_EQ(ring.name, "ring");
  EXPECT_EQ(ring.args, std::vector<uint64_t>{4});
  EXPECT_EQ(std::get<NetworkGenerator>(p.networks[2]).args, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(p.inits.size(), 2u);
  EXPECT_FALSE(p.inits[0].at.has_value());
  EXPECT_EQ(p.inits[1].at->name, "a");
  EXPECT_EQ(p.inits[1].facts.size(), 2u);
  ASSERT_EQ(p.bounds.size(), 3u);
  EXPECT_EQ(p.bounds[2].kind, "channel");
  EXPECT_EQ(p.bounds[2].value, 2u);
}

TEST(Parser, SyntaxErrorsAreLocatedAndRecovered) {
  std::string errs = parse_errors(
      "state p/1.\n"
      "p(X) if q(X.\n"          // missing ')'
      "p(a).\n"                 // fine
      "p(X) if , q(X).\n"       // missing literal
      "state q/.\n");           // missing arity
  EXPECT_NE(errs.find("t.d2c:2:12: error: expected ',' or ')' in the arguments of 'q', found '.'"), std::string::npos)
      << errs;
  EXPECT_NE(errs.find("t.d2c:4:9:"), std::string::npos) << errs;
  EXPECT_NE(errs.find("t.d2c:5:9: error: expected the arity of 'q'"), std::string::npos) << errs;
}

TEST(Parser, SpecificMessages) {
  EXPECT_NE(parse_errors("p() .").find("empty argument list"), std::string::npos);
  EXPECT_NE(parse_errors("state p/1000.").find("more than the limit of 64"), std::string::npos);
  EXPECT_NE(parse_errors("p(X) if X.").find("no '=' or '!='"), std::string::npos);
  EXPECT_NE(parse_errors("bounds { memory 3. }").find("unknown bound 'memory'"), std::string::npos);
  EXPECT_NE(parse_errors("p if state.").find("reserved word"), std::string::npos);
  EXPECT_NE(parse_errors("network { a - . }").find("a node name after 'a -'"), std::string::npos);
  EXPECT_NE(parse_errors("init { p@a. }").find("carry no '@'"), std::string::npos);
  EXPECT_NE(parse_errors("p if q").find("found end of file"), std::string::npos);
  std::string many_args = "p(";
  for (int i = 0; i < 1000; ++i) many_args += (i ? ",a" : "a");
  EXPECT_NE(parse_errors(many_args + ").").find("arity limit"), std::string::npos);
}

TEST(Parser, DeepParenthesesDoNotRecurse) {
  std::string src = "p if q" + std::string(100000, '(') + ".";
  std::string errs = parse_errors(src);
  EXPECT_NE(errs.find("error"), std::string::npos);
}

TEST(Parser, ManyErrorsAreCapped) {
  std::string src;
  for (int i = 0; i < 5000; ++i) src += "p if .\n";
  Diagnostics diag("t.d2c");
  parse_program(src, diag);
  EXPECT_LE(diag.error_count(), 102u);
  EXPECT_NE(diag.format_all().find("too many syntax errors"), std::string::npos);
}

TEST(Printer, RoundTripOfEveryConstruct) {
  const std::string src =
      "input echo/2.\nstate alive/1, seen/2, leader/1.\ntransport say/1, ack/0.\n"
      "network { x. a - b. b - \"c\". 3 - a. }\n"
      "init { alive(x). }\ninit at a { leader(a). }\n"
      "bounds { input 1. state 3. channel 2. }\n"
      "say(X)@N if neighbor(N), echo(X, _), not prev seen(X, N), X != a.\n"
      "alive(X) :- prev alive(X).\n"
      "seen(X, Y) if prev not seen(X, Y), say(X)@Y, Y = 007.\n"
      "leader(N) if neighbor(N), start@_, choice((), (N)).\n"
      "ack@S if say(_)@S.\n";
  Program a = parse_ok(src);
  std::string printed = to_text(a);
  Program b = parse_ok(printed);
  EXPECT_EQ(a, b) << printed;
  EXPECT_EQ(to_text(b), printed);
}

TEST(Printer, RoundTripOfNetworkNodeOrder) {
  for (const char* net : {"network { a. b - a. }", "network { a - b. c. }", "network { c. a - b. b - c. }"}) {
    Program a = parse_ok(net);
    Program b = parse_ok(to_text(a));
    EXPECT_EQ(a, b) << net << "\n" << to_text(a);
  }
}

// Random programs from the grammar: printing and re-parsing gives the same tree.
TEST(Printer, RoundTripOfRandomPrograms) {
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* preds[] = {"p", "q", "r", "s"};
  const char* vars[] = {"X", "Y", "Z", "_"};
  const char* consts[] = {"a", "b", "0", "12", "\"str\""};
  auto term = [&]() -> std::string { return pick(2) ? vars[pick(4)] : consts[pick(5)]; };
  auto atom = [&]() {
    std::string s = preds[pick(4)];
    int n = pick(3);
    for (int i = 0; i < n; ++i) s += (i ? ", " : "(") + term();
    if (n) s += ")";
    if (pick(3) == 0) s += "@" + term();
    return s;
  };
  for (int round = 0; round < 300; ++round) {
    std::string src;
    int rules = 1 + pick(5);
    for (int r = 0; r < rules; ++r) {
      src += atom();
      int body = pick(4);
      for (int i = 0; i < body; ++i) {
        src += i ? ", " : " if ";
        switch (pick(5)) {
          case 0: src += "not " + atom(); break;
          case 1: src += "prev " + atom(); break;
          case 2: src += term() + (pick(2) ? " = " : " != ") + term(); break;
          case 3: src += "choice((X), (Y))"; break;
          default: src += atom(); break;
        }
      }
      src += ".\n";
    }
    Program a = parse_ok(src);
    Program b = parse_ok(to_text(a));
    ASSERT_EQ(a, b) << src << "---\n" << to_text(a);
  }
}
