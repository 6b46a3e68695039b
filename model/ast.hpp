// The syntax tree of a .d2c file, exactly as written (docs/reference.md §1-2).
// Names are still strings here; model/resolve turns this into a Model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ddsmc::model {

struct Loc {
  uint32_t line = 0;  // 1-based; 0 means "no location" (e.g. a command-line override)
  uint32_t col = 0;   // 1-based
  friend bool operator==(const Loc&, const Loc&) = default;
};

// A constant's identity is its canonical spelling: identifiers as written,
// integers without leading zeros ("007" is "7"), strings with their quotes
// and escapes ("\"a\"" differs from "a").
struct Term {
  enum class Kind : uint8_t { Var, Anon, Const };
  Kind kind = Kind::Const;
  std::string text;  // variable name, canonical constant spelling, or "_"
  Loc loc;
  bool is_var() const { return kind == Kind::Var; }
  bool is_anon() const { return kind == Kind::Anon; }
  bool is_const() const { return kind == Kind::Const; }
  friend bool operator==(const Term& a, const Term& b) { return a.kind == b.kind && a.text == b.text; }
};

struct Atom {
  std::string pred;
  std::vector<Term> args;
  std::optional<Term> at;  // the `@term` annotation, if written
  Loc loc;
  friend bool operator==(const Atom& a, const Atom& b) {
    return a.pred == b.pred && a.args == b.args && a.at == b.at;
  }
};

struct Literal {
  bool negated = false;
  bool prev = false;
  Atom atom;
  Loc loc;
  friend bool operator==(const Literal& a, const Literal& b) {
    return a.negated == b.negated && a.prev == b.prev && a.atom == b.atom;
  }
};

struct Constraint {
  Term lhs;
  bool equal = true;  // `=` when true, `!=` otherwise
  Term rhs;
  Loc loc;
  friend bool operator==(const Constraint& a, const Constraint& b) {
    return a.lhs == b.lhs && a.equal == b.equal && a.rhs == b.rhs;
  }
};

struct Choice {
  std::vector<Term> domain;  // the X variables: one pick per value of these
  std::vector<Term> picked;  // the Y variables: the value picked
  Loc loc;
  friend bool operator==(const Choice& a, const Choice& b) {
    return a.domain == b.domain && a.picked == b.picked;
  }
};

using BodyItem = std::variant<Literal, Constraint, Choice>;

struct Rule {
  Atom head;
  std::vector<BodyItem> body;
  Loc loc;
  friend bool operator==(const Rule& a, const Rule& b) { return a.head == b.head && a.body == b.body; }
};

enum class DeclKind : uint8_t { Input, State, Transport };

struct PredDecl {
  DeclKind kind = DeclKind::State;
  std::string name;
  uint32_t arity = 0;
  Loc loc;
  friend bool operator==(const PredDecl& a, const PredDecl& b) {
    return a.kind == b.kind && a.name == b.name && a.arity == b.arity;
  }
};

struct NetworkNode {
  std::string name;  // canonical constant spelling
  Loc loc;
  friend bool operator==(const NetworkNode& a, const NetworkNode& b) { return a.name == b.name; }
};

// `network { a - b. c. }`: nodes in order of first mention, edges as written.
struct NetworkBlock {
  std::vector<NetworkNode> nodes;
  std::vector<std::pair<NetworkNode, NetworkNode>> edges;
  Loc loc;
  friend bool operator==(const NetworkBlock& a, const NetworkBlock& b) {
    return a.nodes == b.nodes && a.edges == b.edges;
  }
};

// `network ring(4).` and the other generators.
struct NetworkGenerator {
  std::string name;
  std::vector<uint64_t> args;
  Loc loc;
  friend bool operator==(const NetworkGenerator& a, const NetworkGenerator& b) {
    return a.name == b.name && a.args == b.args;
  }
};

using NetworkDecl = std::variant<NetworkBlock, NetworkGenerator>;

struct InitBlock {
  std::optional<NetworkNode> at;  // `init at NODE { ... }`
  std::vector<Atom> facts;
  Loc loc;
  friend bool operator==(const InitBlock& a, const InitBlock& b) { return a.at == b.at && a.facts == b.facts; }
};

struct BoundDecl {
  std::string kind;  // "input", "state" or "channel"
  uint64_t value = 0;
  Loc loc;
  friend bool operator==(const BoundDecl& a, const BoundDecl& b) { return a.kind == b.kind && a.value == b.value; }
};

struct Program {
  std::string file;  // the path it was read from, for messages
  std::vector<PredDecl> decls;
  std::vector<Rule> rules;
  std::vector<NetworkDecl> networks;  // more than one is a resolve error
  std::vector<InitBlock> inits;
  std::vector<BoundDecl> bounds;
  friend bool operator==(const Program& a, const Program& b) {
    return a.decls == b.decls && a.rules == b.rules && a.networks == b.networks && a.inits == b.inits &&
           a.bounds == b.bounds;
  }
};

// Limits that keep hostile input from exhausting memory or the engine's encodings.
inline constexpr uint32_t kMaxArity = 64;
inline constexpr size_t kMaxNameLength = 1024;

}  // namespace ddsmc::model
