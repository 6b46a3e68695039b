// One fuzz input through the whole front end (lex, parse, resolve; and the
// edge-list reader), with the invariants that must hold for every input.
// Shared by the libFuzzer target (tests/fuzz/parse_fuzzer.cpp), which traps
// on a violation, and by the regression test
// (tests/model/fuzz_regression_test.cpp), which replays the seeds and the
// saved reproducers in the ordinary test build.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/lexical.hpp"
#include "model/load.hpp"
#include "model/network.hpp"
#include "model/parser.hpp"
#include "model/printer.hpp"

namespace ddsmc::fuzz {

// Generated networks the fuzzer may build without an override: bigger ones
// are legal (up to model::kMaxGeneratedNodes) but would only make the fuzzer
// slow, not find bugs in the front end.
inline constexpr uint64_t kMaxFuzzNetworkSize = 256;

namespace detail {

// Lines of a text: LF, CR and CRLF each end one.
inline size_t count_lines(std::string_view text) {
  size_t lines = 1;
  for (size_t i = 0; i < text.size(); ++i)
    lines += text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'));
  return lines;
}

// The same bytes as an edge-list file: either a network whose node names are
// constants (each one lexes back to itself as one identifier, integer or
// string), or one error, "fuzz.net:LINE:COL: ..." inside the text or
// "fuzz.net: ..." for the whole graph, printable and UTF-8.
inline std::string check_edge_list(const std::string& text) {
  std::string error;
  auto net = model::network_from_edge_list_text(text, "fuzz.net", &error);
  if (!net) {
    if (error.rfind("fuzz.net: ", 0) == 0) return {};
    unsigned long line = 0, col = 0;
    if (std::sscanf(error.c_str(), "fuzz.net:%lu:%lu: ", &line, &col) != 2 || line == 0 || col == 0)
      return "edge list: an error without FILE:LINE:COL: " + error;
    if (line > count_lines(text)) return "edge list: an error located after the last line: " + error;
    if (!model::is_valid_utf8(error)) return "edge list: an error that is not UTF-8";
    for (char c : error)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "edge list: a raw control byte in: " + error;
    return {};
  }
  for (const std::string& name : net->names()) {
    if (name.empty() || !model::starts_name(name[0])) return "edge list: node name '" + name + "' is no constant";
    model::Scanner scan(name);
    model::LexError lex_error;
    model::Token t = model::lex_name(scan, &lex_error);
    const bool constant = t.kind == model::Tok::Ident || t.kind == model::Tok::Int || t.kind == model::Tok::String;
    if (!constant || !scan.at_end() || t.text != name)
      return "edge list: node name '" + name + "' does not lex back to itself";
  }
  return {};
}

inline std::string check_diagnostics(const model::Diagnostics& diag, std::string_view text, bool have_model,
                                     const char* what) {
  if (have_model == diag.has_errors())
    return std::string(what) + (have_model ? ": a model came back along with errors" : ": no model but no error");
  // Locations must point into the text (or be unset).
  const size_t lines = count_lines(text);
  for (const auto& d : diag.all()) {
    if (d.message.empty()) return std::string(what) + ": empty diagnostic message";
    if (!model::is_valid_utf8(d.message)) return std::string(what) + ": a message that is not UTF-8: " + d.format();
    for (char c : d.message) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f)
        return std::string(what) + ": raw control byte in a message: " + d.format();
    }
    if (d.loc.line > lines || (d.loc.line == 0) != (d.loc.col == 0))
      return std::string(what) + ": location outside the text: " + d.format();
  }
  return {};
}

inline bool small_networks_only(const model::Program& prog) {
  for (const auto& n : prog.networks) {
    const auto* g = std::get_if<model::NetworkGenerator>(&n);
    if (!g) continue;
    uint64_t size = 1;
    size_t counted = g->name == "random" ? 2 : g->args.size();  // random(N, D, SEED): the seed is free
    for (size_t i = 0; i < g->args.size() && i < counted; ++i) {
      if (g->args[i] > kMaxFuzzNetworkSize) return false;
      size *= g->args[i];
      if (size > kMaxFuzzNetworkSize) return false;
    }
  }
  return true;
}

// Structural invariants of a resolved model (model/model.hpp). Returns the
// first violation, or "".
inline std::string check_model(const model::Model& m) {
  using namespace model;
  auto bad = [](const std::string& what) { return "model invariant: " + what; };
  if (m.preds.size() < kNumBuiltins || m.preds[kMyName].name != "my_name" || m.preds[kNeighbor].name != "neighbor" ||
      m.preds[kError].name != "error" || m.preds[kStart].name != "start")
    return bad("built-in predicates are not ids 0..3");
  for (PredId p = 0; p < m.preds.size(); ++p) {
    if (m.find_pred(m.preds[p].name) != p) return bad("find_pred does not find '" + m.preds[p].name + "'");
    if (m.preds[p].arity > kMaxArity) return bad("arity above the limit");
  }
  const size_t nodes = m.network.num_nodes();
  if (nodes == 0) return bad("empty network");
  if (m.node_const.size() != nodes) return bad("node_const has the wrong size");
  for (NodeId n = 0; n < nodes; ++n) {
    if (m.node_const[n] >= m.constants.size() || m.constants.spelling(m.node_const[n]) != m.network.name(n))
      return bad("node_const does not name the node");
    auto [b, e] = m.network.arcs_from(n);
    bool self = false;
    for (ArcId a = b; a < e; ++a) {
      if (m.network.arc(a).src != n) return bad("arcs_from gives an arc of another node");
      self = self || m.network.arc(a).dst == n;
    }
    if (!self) return bad("a node without its self-loop arc");
  }
  for (ConstId c = 0; c < m.constants.size(); ++c) {
    if (m.constants.find(m.constants.spelling(c)) != c) return bad("constant table is not a bijection");
    // Constants reach the JSON reports and traces, which must be UTF-8.
    if (!is_valid_utf8(m.constants.spelling(c))) return bad("a constant that is not UTF-8");
  }

  auto term_ok = [&](const RTerm& t, const RRule& r) {
    return t.is_var ? t.id < r.num_vars() : t.id < m.constants.size();
  };
  auto atom_ok = [&](const RAtom& a, const RRule& r) {
    if (a.pred >= m.preds.size() || a.args.size() != m.preds[a.pred].arity) return false;
    for (const RTerm& t : a.args)
      if (!term_ok(t, r)) return false;
    return !a.at || term_ok(*a.at, r);
  };
  // Which component each state predicate is in (kNoComp: none).
  constexpr size_t kNoComp = static_cast<size_t>(-1);
  std::vector<size_t> comp_of(m.preds.size(), kNoComp);
  for (size_t k = 0; k < m.components.size(); ++k)
    for (PredId p : m.components[k].preds) {
      if (p >= m.preds.size() || m.preds[p].kind != PredKind::State) return bad("a component holds a non-state pred");
      if (comp_of[p] != kNoComp) return bad("a predicate is in two components");
      comp_of[p] = k;
    }
  std::vector<int> placed(m.rules.size(), 0);
  for (size_t k = 0; k < m.components.size(); ++k) {
    for (uint32_t i : m.components[k].choice_rules) {
      if (i >= m.rules.size() || !m.rules[i].choice) return bad("a non-choice rule listed as a choice rule");
      ++placed[i];
    }
    for (uint32_t i : m.components[k].rules) {
      if (i >= m.rules.size() || m.rules[i].choice) return bad("a choice rule listed as an ordinary rule");
      ++placed[i];
    }
  }
  std::vector<int> in_transport(m.rules.size(), 0);
  for (uint32_t i : m.transport_rules) {
    if (i >= m.rules.size()) return bad("transport rule index out of range");
    ++in_transport[i];
  }
  for (uint32_t i = 0; i < m.rules.size(); ++i) {
    const RRule& r = m.rules[i];
    const std::string where = " in rule " + std::to_string(i) + " '" + r.text + "'";
    if (r.index != i) return bad("rule index" + where);
    if (r.var_names.size() != r.var_anonymous.size()) return bad("variable tables" + where);
    if (!atom_ok(r.head, r)) return bad("head" + where);
    const Predicate& hp = m.preds[r.head.pred];
    if (hp.kind == PredKind::Input || r.head.pred == kMyName || r.head.pred == kNeighbor || r.head.pred == kStart)
      return bad("forbidden head" + where);
    if ((hp.kind == PredKind::Transport) != r.head.at.has_value()) return bad("head annotation" + where);
    if (hp.kind == PredKind::Transport) {
      if (in_transport[i] != 1 || placed[i] != 0) return bad("transport rule not listed once" + where);
    } else if (placed[i] != 1 || in_transport[i] != 0 || comp_of[r.head.pred] == kNoComp) {
      return bad("state rule not in exactly one component" + where);
    }
    std::vector<char> bound(r.num_vars(), 0);
    for (const RLiteral& l : r.body) {
      if (!atom_ok(l.atom, r)) return bad("body atom" + where);
      const Predicate& bp = m.preds[l.atom.pred];
      if ((bp.kind == PredKind::Transport) != l.atom.at.has_value()) return bad("body annotation" + where);
      if (l.prev && bp.kind != PredKind::State) return bad("prev on a non-state atom" + where);
      if (!l.negated) {
        for (const RTerm& t : l.atom.args)
          if (t.is_var) bound[t.id] = 1;
        if (l.atom.at && l.atom.at->is_var) bound[l.atom.at->id] = 1;
      }
      // Evaluation order: a state predicate read now is complete before this
      // rule runs (strictly before it when negated or read by a choice rule).
      if (hp.kind == PredKind::State && bp.kind == PredKind::State && !l.prev && comp_of[l.atom.pred] != kNoComp) {
        size_t hk = comp_of[r.head.pred], bk = comp_of[l.atom.pred];
        if (bk > hk) return bad("a rule reads a later component" + where);
        if (bk == hk && (l.negated || r.choice)) return bad("negation or choice within a component" + where);
      }
    }
    auto must_be_bound = [&](const RTerm& t) { return !t.is_var || r.var_anonymous[t.id] || bound[t.id]; };
    for (const RTerm& t : r.head.args)
      if (!must_be_bound(t) || (t.is_var && r.var_anonymous[t.id])) return bad("unsafe head" + where);
    if (r.head.at && !must_be_bound(*r.head.at)) return bad("unsafe head annotation" + where);
    for (const RLiteral& l : r.body)
      if (l.negated)
        for (const RTerm& t : l.atom.args)
          if (!must_be_bound(t)) return bad("unsafe negated literal" + where);
    for (const RConstraint& c : r.constraints) {
      if (!term_ok(c.lhs, r) || !term_ok(c.rhs, r)) return bad("constraint term" + where);
      if (!must_be_bound(c.lhs) || !must_be_bound(c.rhs)) return bad("unsafe constraint" + where);
    }
    if (r.choice) {
      for (VarId v : r.choice->domain)
        if (v >= r.num_vars() || !bound[v]) return bad("unsafe choice" + where);
      for (VarId v : r.choice->picked)
        if (v >= r.num_vars() || !bound[v]) return bad("unsafe choice" + where);
    }
  }
  if (m.init_facts.size() != nodes) return bad("init_facts has the wrong size");
  for (NodeId n = 0; n < nodes; ++n) {
    const auto& facts = m.init_facts[n];
    for (size_t k = 0; k < facts.size(); ++k) {
      if (k && !(facts[k - 1] < facts[k])) return bad("init facts not sorted and unique");
      const Fact& f = facts[k];
      if (f.pred >= m.preds.size() || m.preds[f.pred].kind != PredKind::State ||
          f.args.size() != m.preds[f.pred].arity)
        return bad("an init fact of a wrong predicate or arity");
      for (ConstId c : f.args)
        if (c >= m.constants.size()) return bad("an init fact with an unknown constant");
    }
    if (!std::binary_search(facts.begin(), facts.end(), Fact{kMyName, {m.node_const[n]}}))
      return bad("a node without its my_name fact");
    size_t neighbors = 0;
    for (const Fact& f : facts) neighbors += f.pred == kNeighbor;
    if (neighbors != m.network.neighbors(n).size()) return bad("neighbor facts do not match the network");
  }
  return {};
}

// Everything of a model except locations and the file name, as text: two
// loads of the same program (one of them printed and re-parsed) must agree.
inline std::string model_fingerprint(const model::Model& m) {
  std::string out;
  for (const auto& p : m.preds)
    out += p.name + "/" + std::to_string(p.arity) + model::pred_kind_name(p.kind) + ";";
  out += "\n";
  for (model::ConstId c = 0; c < m.constants.size(); ++c) out += m.constants.spelling(c) + ";";
  out += "\n";
  for (const auto& r : m.rules) out += r.text + "\n";
  for (const auto& c : m.components) {
    out += "{";
    for (auto p : c.preds) out += std::to_string(p) + ",";
    out += "|";
    for (auto i : c.choice_rules) out += std::to_string(i) + ",";
    out += "|";
    for (auto i : c.rules) out += std::to_string(i) + ",";
    out += c.recursive ? "}*" : "}";
  }
  out += "\n";
  for (auto i : m.transport_rules) out += std::to_string(i) + ",";
  out += "\n" + m.network.description() + ":";
  for (const auto& a : m.network.arcs()) out += std::to_string(a.src) + ">" + std::to_string(a.dst) + ",";
  out += "\n";
  for (const auto& facts : m.init_facts) {
    for (const auto& f : facts) out += m.fact_to_string(f) + ",";
    out += "\n";
  }
  out += std::to_string(m.bounds.input) + "," + (m.bounds.state ? std::to_string(*m.bounds.state) : "-") + "," +
         (m.bounds.channel ? std::to_string(*m.bounds.channel) : "-");
  out += m.uses_prev ? " prev" : "";
  out += m.uses_input ? " input" : "";
  return out;
}

}  // namespace detail

// Returns an empty string when every invariant holds, else what went wrong.
inline std::string check_front_end(std::string_view text) {
  const std::string file = "fuzz.d2c";
  std::string src(text);

  // 0. The bytes as an edge-list network file.
  if (auto e = detail::check_edge_list(src); !e.empty()) return e;

  // 1. Parse, and print-then-parse must give the same tree (and the same text).
  model::Diagnostics pdiag(file);
  model::Program prog = model::parse_program(src, pdiag);
  if (auto e = detail::check_diagnostics(pdiag, src, !pdiag.has_errors(), "parse"); !e.empty()) return e;
  // The lexer and the parser each stop after about 100 errors.
  if (pdiag.error_count() > 210) return "parse: " + std::to_string(pdiag.error_count()) + " errors, past the caps";
  if (!pdiag.has_errors()) {
    std::string printed = model::to_text(prog);
    model::Diagnostics rdiag(file);
    model::Program again = model::parse_program(printed, rdiag);
    if (rdiag.has_errors()) return "printed program does not parse:\n" + printed + "\n" + rdiag.format_all();
    if (!(again == prog)) return "print-then-parse changed the program:\n" + printed;
    if (model::to_text(again) != printed) return "printing is not stable:\n" + printed;
  }

  // 2. The whole load with a fixed network override, and 3. with the file's
  // own network (when it is small). A valid model satisfies the invariants,
  // and the printed program loads to the same model (or fails the same way).
  auto load = [&](const model::Overrides& ov, const char* what) -> std::string {
    model::Diagnostics diag(file);
    auto m = model::load_model_text(src, file, ov, diag);
    if (auto e = detail::check_diagnostics(diag, src, m.has_value(), what); !e.empty()) return e;
    if (m) {
      if (auto e = detail::check_model(*m); !e.empty()) return std::string(what) + ": " + e;
      if (ov.network_spec && m->network.num_nodes() != 3) return std::string(what) + ": the network is not ring:3";
    }
    if (pdiag.has_errors()) return {};
    std::string printed = model::to_text(prog);
    model::Diagnostics pdiag2(file);
    auto m2 = model::load_model_text(printed, file, ov, pdiag2);
    if (m.has_value() != m2.has_value())
      return std::string(what) + ": the printed program " + (m ? "fails to load" : "loads") + ":\n" + printed +
             "\n" + pdiag2.format_all() + "--- original:\n" + diag.format_all();
    if (diag.error_count() != pdiag2.error_count())
      return std::string(what) + ": the printed program has a different number of errors:\n" + printed + "\n" +
             pdiag2.format_all() + "--- original:\n" + diag.format_all();
    if (m && detail::model_fingerprint(*m) != detail::model_fingerprint(*m2))
      return std::string(what) + ": the printed program loads to a different model:\n" + printed;
    return {};
  };
  model::Overrides ring3;
  ring3.network_spec = "ring:3";
  if (auto e = load(ring3, "load with --network ring:3"); !e.empty()) return e;
  if (!pdiag.has_errors() && !detail::small_networks_only(prog)) return {};
  return load(model::Overrides{}, "load");
}

}  // namespace ddsmc::fuzz
