#include "model/parser.hpp"

#include <fmt/format.h>

#include <deque>

#include "model/lexer.hpp"

namespace ddsmc::model {
namespace {

// Thrown to abandon the current item; the error is already reported.
struct SyntaxError {};

class Parser {
 public:
  Parser(std::string_view src, Diagnostics& diag) : lexer_(src, diag), diag_(diag) {}

  Program run() {
    Program prog;
    prog.file = diag_.file();
    while (!at(Tok::End)) {
      if (diag_.phase_full(Phase::Parse)) {
        diag_.stop(Phase::Parse, cur().loc, "too many syntax errors; giving up");
        break;
      }
      size_t start = consumed_;
      try {
        top_level_item(prog);
      } catch (const SyntaxError&) {
        recover_top_level(start);
      }
    }
    return prog;
  }

 private:
  // ---- token helpers -------------------------------------------------------
  // Tokens are pulled from the lexer on demand into a small lookahead queue
  // (the grammar needs one token of lookahead beyond the current one).
  // References from cur()/peek() stay valid until that token is taken.
  const Token& peek(size_t ahead) {
    while (lookahead_.size() <= ahead) lookahead_.push_back(lexer_.next());  // End repeats at the end
    return lookahead_[ahead];
  }
  const Token& cur() { return peek(0); }
  bool at(Tok k) { return cur().kind == k; }
  bool at_keyword(std::string_view w) { return cur().kind == Tok::Keyword && cur().text == w; }
  Token take() {
    Token t = cur();
    if (t.kind != Tok::End) {
      lookahead_.pop_front();
      ++consumed_;
      last_line_ = t.loc.line;
    }
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    take();
    return true;
  }
  [[noreturn]] void fail(Loc loc, std::string msg) {
    // A Bad token has had its lexical error reported already; don't pile on.
    if (cur().kind != Tok::Bad) diag_.error(Phase::Parse, loc, std::move(msg));
    throw SyntaxError{};
  }
  [[noreturn]] void fail_expected(std::string_view what) {
    const Token& t = cur();
    std::string found = t.kind == Tok::End ? "end of file" : fmt::format("'{}'", t.text);
    fail(t.loc, fmt::format("expected {}, found {}", what, found));
  }
  Token expect(Tok k, std::string_view what) {
    if (!at(k)) fail_expected(what);
    return take();
  }

  // Blocks recover item by item; once the phase is full, abandon the block so
  // that the top level gives up (a block of 50,000 bad lines is one report
  // of at most kMaxShownPerPhase errors, not 50,000).
  void give_up_if_too_many_errors() {
    if (diag_.phase_full(Phase::Parse)) throw SyntaxError{};
  }

  // Skip what is left of a broken top-level item: to just after its '.',
  // over a whole `{ ... }` block (and the '.' after it), or to just before a
  // keyword that starts a new item at the beginning of a line (so that a
  // missing '.' or '}' does not swallow the next declaration or block).
  void recover_top_level(size_t start) {
    int depth = 0;
    while (!at(Tok::End)) {
      if (consumed_ != start && starts_new_item(depth == 0)) return;
      Token t = take();
      if (t.kind == Tok::LBrace) {
        ++depth;
      } else if (t.kind == Tok::RBrace) {
        if (depth > 0) --depth;
        if (depth == 0) {
          accept(Tok::Dot);
          return;
        }
      } else if (t.kind == Tok::Dot && depth == 0) {
        return;
      }
    }
  }
  // A top-level keyword first on its line. `input` and `state` also name
  // bounds inside a `bounds { }` block, so they count only outside braces.
  bool starts_new_item(bool outside_braces) {
    const Token& t = cur();
    if (t.kind != Tok::Keyword || t.loc.line <= last_line_) return false;
    if (t.text == "network" || t.text == "init" || t.text == "bounds" || t.text == "transport") return true;
    return outside_braces && (t.text == "input" || t.text == "state");
  }
  // Inside a block: skip to after the next '.', stopping before '}'.
  void recover_in_block() {
    while (!at(Tok::End) && !at(Tok::RBrace)) {
      if (take().kind == Tok::Dot) return;
    }
  }

  // ---- top level -----------------------------------------------------------
  void top_level_item(Program& prog) {
    if (at_keyword("input") || at_keyword("state") || at_keyword("transport")) return declaration(prog);
    if (at_keyword("network")) return network(prog);
    if (at_keyword("init")) return init(prog);
    if (at_keyword("bounds")) return bounds(prog);
    prog.rules.push_back(rule());
  }

  void declaration(Program& prog) {
    const Token& kw = take();
    DeclKind kind = kw.text == "input" ? DeclKind::Input : kw.text == "state" ? DeclKind::State : DeclKind::Transport;
    do {
      PredDecl d;
      d.kind = kind;
      const Token& name = expect(Tok::Ident, fmt::format("a predicate name in the {} declaration", kw.text));
      d.name = name.text;
      d.loc = name.loc;
      expect(Tok::Slash, fmt::format("'/' and the arity after '{}'", d.name));
      const Token& ar = expect(Tok::Int, fmt::format("the arity of '{}'", d.name));
      uint64_t arity = number(ar);
      if (arity > kMaxArity)
        fail(ar.loc, fmt::format("'{}' has arity {}, more than the limit of {}", d.name, ar.text, kMaxArity));
      d.arity = static_cast<uint32_t>(arity);
      prog.decls.push_back(std::move(d));
    } while (accept(Tok::Comma));
    // A declaration is one line: a missing '.' before the next line is
    // reported without skipping that line, which is most likely the next item.
    if (!at(Tok::Dot) && cur().kind != Tok::Bad && cur().loc.line > last_line_) {
      diag_.error(Phase::Parse, cur().loc,
                  fmt::format("expected ',' or '.' in the declaration, found '{}' on the next line "
                              "(missing '.' at the end of line {}?)",
                              cur().kind == Tok::End ? "end of file" : cur().text, last_line_));
      return;
    }
    expect(Tok::Dot, "',' or '.' in the declaration");
  }

  uint64_t number(const Token& t) {
    if (t.text.size() > 19) fail(t.loc, fmt::format("number '{}' is too large", t.text));
    return std::stoull(t.text);
  }

  NetworkNode node_name(std::string_view context) {
    if (at(Tok::Ident) || at(Tok::Int) || at(Tok::String)) {
      const Token& t = take();
      return NetworkNode{t.text, t.loc};
    }
    fail_expected(fmt::format("a node name {}", context));
  }

  void network(Program& prog) {
    Loc loc = take().loc;
    if (at(Tok::Ident)) {
      NetworkGenerator g;
      g.name = cur().text;
      g.loc = cur().loc;
      take();
      expect(Tok::LParen, fmt::format("'(' after the generator '{}'", g.name));
      do {
        g.args.push_back(number(expect(Tok::Int, fmt::format("a number in {}(...)", g.name))));
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "',' or ')'");
      expect(Tok::Dot, fmt::format("'.' after {}(...)", g.name));
      prog.networks.emplace_back(std::move(g));
      return;
    }
    NetworkBlock block;
    block.loc = loc;
    expect(Tok::LBrace, "'{' or a generator such as ring(4) after 'network'");
    auto mention = [&](const NetworkNode& n) {
      for (const auto& m : block.nodes)
        if (m.name == n.name) return;
      block.nodes.push_back(n);
    };
    while (!at(Tok::RBrace)) {
      give_up_if_too_many_errors();
      if (at(Tok::End)) fail_expected("'}' to close the network block");
      try {
        NetworkNode a = node_name("in the network block");
        mention(a);
        if (accept(Tok::Minus)) {
          NetworkNode b = node_name(fmt::format("after '{} -'", a.name));
          mention(b);
          block.edges.emplace_back(a, b);
        }
        expect(Tok::Dot, "'-' or '.' after a node name (edges are written 'a - b.')");
      } catch (const SyntaxError&) {
        recover_in_block();
      }
    }
    take();
    accept(Tok::Dot);
    prog.networks.emplace_back(std::move(block));
  }

  void init(Program& prog) {
    InitBlock block;
    block.loc = take().loc;
    if (at_keyword("at")) {
      take();
      block.at = node_name("after 'init at'");
    }
    expect(Tok::LBrace, block.at ? "'{' after the node name" : "'{' or 'at NODE' after 'init'");
    while (!at(Tok::RBrace)) {
      give_up_if_too_many_errors();
      if (at(Tok::End)) fail_expected("'}' to close the init block");
      try {
        Atom a = atom("an initial fact");
        if (at(Tok::At)) fail(cur().loc, "initial facts are state facts and carry no '@'");
        expect(Tok::Dot, "'.' after the initial fact");
        block.facts.push_back(std::move(a));
      } catch (const SyntaxError&) {
        recover_in_block();
      }
    }
    take();
    accept(Tok::Dot);
    prog.inits.push_back(std::move(block));
  }

  void bounds(Program& prog) {
    take();
    expect(Tok::LBrace, "'{' after 'bounds'");
    while (!at(Tok::RBrace)) {
      give_up_if_too_many_errors();
      if (at(Tok::End)) fail_expected("'}' to close the bounds block");
      try {
        if (!(at(Tok::Keyword) || at(Tok::Ident))) fail_expected("'input', 'state' or 'channel'");
        BoundDecl b;
        b.kind = cur().text;
        b.loc = cur().loc;
        if (b.kind != "input" && b.kind != "state" && b.kind != "channel")
          fail(b.loc, fmt::format("unknown bound '{}': the bounds are input, state and channel", b.kind));
        take();
        b.value = number(expect(Tok::Int, fmt::format("a number after '{}'", b.kind)));
        expect(Tok::Dot, "'.' after the bound");
        prog.bounds.push_back(std::move(b));
      } catch (const SyntaxError&) {
        recover_in_block();
      }
    }
    take();
    accept(Tok::Dot);
  }

  // ---- rules ---------------------------------------------------------------
  Rule rule() {
    Rule r;
    r.loc = cur().loc;
    r.head = atom("a rule head or a declaration");
    if (accept(Tok::At)) r.head.at = term("a destination after '@'");
    if (accept(Tok::Dot)) return r;
    expect(Tok::If, "'if', ':-' or '.' after the rule head");
    do {
      r.body.push_back(body_item());
    } while (accept(Tok::Comma));
    expect(Tok::Dot, "',' or '.' in the rule body");
    return r;
  }

  BodyItem body_item() {
    Loc loc = cur().loc;
    if (at_keyword("choice")) return choice();
    bool negated = false, prev = false;
    if (at_keyword("not")) {
      take();
      negated = true;
      if (at_keyword("prev")) {
        take();
        prev = true;
      }
    } else if (at_keyword("prev")) {
      take();
      prev = true;
      if (at_keyword("not")) {
        take();
        negated = true;
      }
    }
    if (!negated && !prev) {
      // A term followed by '=' or '!=' is a constraint; a name alone is an atom.
      bool term_start = at(Tok::Var) || at(Tok::Anon) || at(Tok::Int) || at(Tok::String) || at(Tok::Ident);
      if (term_start && (peek(1).kind == Tok::Eq || peek(1).kind == Tok::Neq)) {
        Constraint c;
        c.loc = loc;
        c.lhs = term("a term");
        c.equal = take().kind == Tok::Eq;
        c.rhs = term(c.equal ? "a term after '='" : "a term after '!='");
        return c;
      }
      if (at(Tok::Var) || at(Tok::Anon) || at(Tok::Int) || at(Tok::String))
        fail(cur().loc, fmt::format("expected a literal or a constraint, found '{}' with no '=' or '!=' after it",
                                    cur().text));
    }
    Literal lit;
    lit.loc = loc;
    lit.negated = negated;
    lit.prev = prev;
    lit.atom = atom("a body literal");
    if (accept(Tok::At)) lit.atom.at = term("a source after '@'");
    return lit;
  }

  BodyItem choice() {
    Choice c;
    c.loc = take().loc;
    expect(Tok::LParen, "'((' after 'choice'");
    c.domain = var_list("choice");
    expect(Tok::Comma, "',' between the two variable lists of choice");
    c.picked = var_list("choice");
    expect(Tok::RParen, "')' to close choice");
    return c;
  }

  std::vector<Term> var_list(std::string_view what) {
    std::vector<Term> vars;
    expect(Tok::LParen, fmt::format("'(' to open a variable list of {}", what));
    if (accept(Tok::RParen)) return vars;
    do {
      if (!at(Tok::Var) && !at(Tok::Anon)) fail_expected(fmt::format("a variable in the {} list", what));
      vars.push_back(term("a variable"));
    } while (accept(Tok::Comma));
    expect(Tok::RParen, "',' or ')' in the variable list");
    return vars;
  }

  Atom atom(std::string_view what) {
    if (!at(Tok::Ident)) {
      if (at(Tok::Keyword))
        fail(cur().loc, fmt::format("'{}' is a reserved word and cannot name a predicate", cur().text));
      fail_expected(what);
    }
    Atom a;
    a.pred = cur().text;
    a.loc = cur().loc;
    take();
    if (accept(Tok::LParen)) {
      if (at(Tok::RParen))
        fail(cur().loc, fmt::format("empty argument list: write '{}' for a predicate of arity 0", a.pred));
      do {
        if (a.args.size() == kMaxArity)
          fail(cur().loc, fmt::format("'{}' has more than {} arguments, the arity limit", a.pred, kMaxArity));
        a.args.push_back(term(fmt::format("an argument of '{}'", a.pred)));
      } while (accept(Tok::Comma));
      expect(Tok::RParen, fmt::format("',' or ')' in the arguments of '{}'", a.pred));
    }
    return a;
  }

  Term term(std::string_view what) {
    const Token& t = cur();
    Term out;
    out.loc = t.loc;
    out.text = t.text;
    switch (t.kind) {
      case Tok::Var: out.kind = Term::Kind::Var; break;
      case Tok::Anon: out.kind = Term::Kind::Anon; break;
      case Tok::Ident:
      case Tok::Int:
      case Tok::String: out.kind = Term::Kind::Const; break;
      default: fail_expected(what);
    }
    take();
    return out;
  }

  Lexer lexer_;
  std::deque<Token> lookahead_;
  size_t consumed_ = 0;   // tokens taken so far
  uint32_t last_line_ = 0;  // line of the last token taken
  Diagnostics& diag_;
};

}  // namespace

Program parse_program(std::string_view src, Diagnostics& diag) { return Parser(src, diag).run(); }

}  // namespace ddsmc::model
