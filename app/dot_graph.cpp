#include "app/dot_graph.hpp"

#include <fmt/format.h>

#include <vector>

#include "app/report.hpp"
#include "engine/quotient.hpp"
#include "engine/system.hpp"

namespace ddsmc::app {
namespace {

using engine::StateId;

// A DOT double-quoted string's contents; "\l" ends a left-justified line.
std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string arc_name(const engine::CompiledModel& cm, uint32_t arc) {
  if (arc == engine::kIdleArc) return "idle";
  const model::Arc a = cm.model->network.arc(arc);
  return cm.model->network.name(a.src) + "\u2192" + cm.model->network.name(a.dst);
}

// "n0: a, b(#1)" per node with facts, "n0→n1: tok ×2" per non-empty channel.
std::string state_label(const engine::CompiledModel& cm, const engine::StateGraph& g, StateId s) {
  hashing::GlobalState st;
  std::string out = fmt::format("s{}\\l", s);
  if (!hashing::decode(g.bytes(s), cm.layout, st)) return out + "(undecodable)\\l";
  for (model::NodeId n = 0; n < st.dbs.size(); ++n) {
    if (st.dbs[n].empty()) continue;
    std::string facts;
    for (const auto& f : facts_text(cm, st.dbs[n])) facts += (facts.empty() ? "" : ", ") + f;
    out += dot_escape(cm.model->network.name(n) + ": " + facts) + "\\l";
  }
  for (uint32_t a = 0; a < st.channels.size(); ++a) {
    const auto& ch = st.channels[a];
    std::string msgs;
    for (size_t i = 0; i < ch.size();) {
      const size_t words = cm.layout.fact_words(ch[i]);
      msgs += (msgs.empty() ? "" : ", ") + fact_text(cm, &ch[i]) + (ch[i + words] > 1 ? fmt::format(" \u00d7{}", ch[i + words]) : "");
      i += words + 1;
    }
    if (!msgs.empty()) out += dot_escape(arc_name(cm, a) + ": " + msgs) + "\\l";
  }
  return out;
}

// Per state: 0 none, else 1 + the index of its fair SCC (of all edges).
std::vector<uint32_t> scc_of(size_t states, const std::vector<std::vector<StateId>>& sccs) {
  std::vector<uint32_t> out(states, 0);
  for (size_t k = 0; k < sccs.size(); ++k)
    for (StateId s : sccs[k]) out[s] = static_cast<uint32_t>(k + 1);
  return out;
}

std::string node_line(const DotInput& in, StateId s, bool converging, bool in_fair) {
  std::string attrs = fmt::format("label=\"{}\"", state_label(in.cm, in.graph, s));
  if (s == 0) attrs += ", peripheries=2";
  if (!in.graph.expanded(s)) attrs += ", style=dotted";
  if (in_fair) attrs += converging ? ", style=filled, fillcolor=\"#c8f0c8\"" : ", style=filled, fillcolor=\"#ffe2a8\"";
  return fmt::format("  s{} [{}];\n", s, attrs);
}

std::string edges_of(const DotInput& in, StateId s) {
  std::string out;
  engine::EdgeCursor c;
  engine::Edge e;
  while (in.graph.next_edge(s, c, e)) {
    const uint32_t arc = engine::served_arc(e.arc(), in.graph.num_arcs());
    out += fmt::format("  s{} -> s{} [label=\"{}\", color=\"{}\"{}];\n", s, e.target, dot_escape(arc_name(in.cm, arc)),
                       e.stable() ? "#208020" : "#808080", e.stable() ? ", penwidth=1.6" : "");
  }
  return out;
}

}  // namespace

std::string dot_graph(const DotInput& in, engine::Cancellation& cancel) {
  const auto& g = in.graph;
  const auto fair = engine::fair_sccs(g, in.group, in.fairness, false, cancel);
  const auto converging = engine::fair_sccs(g, in.group, in.fairness, true, cancel);
  const std::vector<uint32_t> fair_of = scc_of(g.num_states(), fair), conv_of = scc_of(g.num_states(), converging);
  std::string out = "digraph ddsmc {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                    "  edge [fontname=\"monospace\", fontsize=9];\n";
  out += fmt::format(
      "  label=\"{}\\l{} fair SCCs (dashed clusters; filled green: a fair SCC of the stable edges, where a run "
      "converges); green edges are stable\\l\";\n  labelloc=t;\n",
      dot_escape(in.title), fair.size());
  for (size_t k = 0; k < fair.size(); ++k) {
    out += fmt::format("  subgraph cluster_fair{} {{\n  label=\"fair SCC {}\"; style=dashed;\n", k + 1, k + 1);
    for (StateId s : fair[k]) out += node_line(in, s, conv_of[s] != 0, true);
    out += "  }\n";
  }
  for (StateId s = 0; s < g.num_states(); ++s)
    if (!fair_of[s]) out += node_line(in, s, false, false);
  for (StateId s = 0; s < g.num_states(); ++s) out += edges_of(in, s);
  return out + "}\n";
}

std::string dot_refusal(uint64_t states, uint64_t max_states) {
  return fmt::format(
      "digraph ddsmc {{\n  refused [shape=note, label=\"not drawn: the graph has {} states, more than "
      "--dot-max-states ({})\"];\n}}\n",
      states, max_states);
}

}  // namespace ddsmc::app
