#include "model/printer.hpp"

#include <fmt/format.h>

namespace ddsmc::model {
namespace {

std::string join_terms(const std::vector<Term>& ts) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) out += ", ";
    out += to_text(ts[i]);
  }
  return out;
}

const char* decl_keyword(DeclKind k) {
  switch (k) {
    case DeclKind::Input: return "input";
    case DeclKind::State: return "state";
    case DeclKind::Transport: return "transport";
  }
  return "?";
}

std::string network_text(const NetworkDecl& n) {
  if (const auto* g = std::get_if<NetworkGenerator>(&n)) {
    std::string args;
    for (size_t i = 0; i < g->args.size(); ++i) args += fmt::format("{}{}", i ? ", " : "", g->args[i]);
    return fmt::format("network {}({}).\n", g->name, args);
  }
  const auto& b = std::get<NetworkBlock>(n);
  // Node order is the order of first mention. Print the edges first and the
  // lone nodes after them when that reproduces the order; otherwise list
  // every node before the edges, so that the round trip is exact.
  std::vector<std::string> natural;
  auto mention = [&](const std::string& name) {
    for (const auto& m : natural)
      if (m == name) return;
    natural.push_back(name);
  };
  for (const auto& [a, c] : b.edges) {
    mention(a.name);
    mention(c.name);
  }
  size_t in_edges = natural.size();
  for (const auto& node : b.nodes) mention(node.name);
  bool natural_order = natural.size() == b.nodes.size();
  for (size_t i = 0; natural_order && i < natural.size(); ++i) natural_order = natural[i] == b.nodes[i].name;
  std::string out = "network {\n";
  if (!natural_order)
    for (const auto& node : b.nodes) out += fmt::format("  {}.\n", node.name);
  for (const auto& [a, c] : b.edges) out += fmt::format("  {} - {}.\n", a.name, c.name);
  if (natural_order)
    for (size_t i = in_edges; i < natural.size(); ++i) out += fmt::format("  {}.\n", natural[i]);
  out += "}\n";
  return out;
}

}  // namespace

std::string to_text(const Term& t) { return t.text; }

std::string to_text(const Atom& a) {
  std::string out = a.pred;
  if (!a.args.empty()) out += "(" + join_terms(a.args) + ")";
  if (a.at) out += "@" + to_text(*a.at);
  return out;
}

std::string to_text(const BodyItem& item) {
  if (const auto* l = std::get_if<Literal>(&item)) {
    std::string out;
    if (l->negated) out += "not ";
    if (l->prev) out += "prev ";
    return out + to_text(l->atom);
  }
  if (const auto* c = std::get_if<Constraint>(&item))
    return fmt::format("{} {} {}", to_text(c->lhs), c->equal ? "=" : "!=", to_text(c->rhs));
  const auto& ch = std::get<Choice>(item);
  return fmt::format("choice(({}), ({}))", join_terms(ch.domain), join_terms(ch.picked));
}

std::string to_text(const Rule& r) {
  std::string out = to_text(r.head);
  if (!r.body.empty()) {
    out += " if ";
    for (size_t i = 0; i < r.body.size(); ++i) {
      if (i) out += ", ";
      out += to_text(r.body[i]);
    }
  }
  return out + ".";
}

std::string to_text(const Program& p) {
  std::string out;
  for (const auto& d : p.decls) out += fmt::format("{} {}/{}.\n", decl_keyword(d.kind), d.name, d.arity);
  for (const auto& n : p.networks) out += network_text(n);
  for (const auto& init : p.inits) {
    out += init.at ? fmt::format("init at {} {{\n", init.at->name) : std::string("init {\n");
    for (const auto& f : init.facts) out += "  " + to_text(f) + ".\n";
    out += "}\n";
  }
  if (!p.bounds.empty()) {
    out += "bounds {";
    for (const auto& b : p.bounds) out += fmt::format(" {} {}.", b.kind, b.value);
    out += " }\n";
  }
  for (const auto& r : p.rules) out += to_text(r) + "\n";
  return out;
}

}  // namespace ddsmc::model
