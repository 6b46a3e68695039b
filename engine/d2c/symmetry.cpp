// The symmetry group of a D2C system: nauty's automorphism group of the
// network, coloured by the named nodes and the initial facts
// (engine/d2c/symmetry.hpp has the contract and the graph).
#include "engine/d2c/symmetry.hpp"

#include <fmt/format.h>
#include <nauty/nausparse.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ddsmc::engine {

namespace {

// nauty reports automorphisms through a plain function pointer.
thread_local std::vector<std::vector<uint32_t>>* g_generators = nullptr;
thread_local uint32_t g_nodes = 0;

void on_automorphism(int, int* perm, int*, int, int, int) {
  std::vector<uint32_t> p(g_nodes);
  for (uint32_t n = 0; n < g_nodes; ++n) p[n] = static_cast<uint32_t>(perm[n]);
  g_generators->push_back(std::move(p));
}

// A vertex-coloured undirected graph for sparsenauty.
struct ColouredGraph {
  std::vector<std::vector<uint64_t>> colour;  // per vertex: its colour key
  std::vector<std::pair<int, int>> edges;
  int add(std::vector<uint64_t> key) {
    colour.push_back(std::move(key));
    return static_cast<int>(colour.size()) - 1;
  }
};

struct Automorphisms {
  std::vector<std::vector<uint32_t>> generators;  // on the first `nodes` vertices
  double order = 1;
};

Automorphisms automorphisms(const ColouredGraph& g, uint32_t nodes) {
  const size_t n = g.colour.size();
  std::vector<int> d(n, 0), e;
  std::vector<size_t> v(n);
  for (auto [a, b] : g.edges) ++d[a], ++d[b];
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) v[i] = at, at += d[i];
  e.resize(std::max<size_t>(at, 1));
  std::fill(d.begin(), d.end(), 0);
  for (auto [a, b] : g.edges) {
    e[v[a] + d[a]++] = b;
    e[v[b] + d[b]++] = a;
  }
  std::vector<int> lab(n), ptn(n), orbits(n);
  for (size_t i = 0; i < n; ++i) lab[i] = static_cast<int>(i);
  std::sort(lab.begin(), lab.end(), [&](int a, int b) { return g.colour[a] < g.colour[b]; });
  for (size_t i = 0; i < n; ++i) ptn[i] = (i + 1 < n && g.colour[lab[i]] == g.colour[lab[i + 1]]) ? 1 : 0;
  sparsegraph sg;
  SG_INIT(sg);
  sg.nv = static_cast<int>(n);
  sg.nde = at;
  sg.v = v.data();
  sg.d = d.data();
  sg.e = e.data();
  sg.vlen = sg.dlen = n;
  sg.elen = e.size();
  DEFAULTOPTIONS_SPARSEGRAPH(options);
  options.defaultptn = FALSE;
  options.userautomproc = on_automorphism;
  statsblk stats;
  Automorphisms out;
  g_generators = &out.generators;
  g_nodes = nodes;
  sparsenauty(&sg, lab.data(), ptn.data(), orbits.data(), &options, &stats, nullptr);
  g_generators = nullptr;
  nauty_freedyn();
  nautil_freedyn();
  nausparse_freedyn();
  out.order = stats.grpsize1 * std::pow(10.0, stats.grpsize2);
  return out;
}

constexpr uint64_t kNode = 0, kFact = 1, kArg = 2;

// Node vertices 0..N-1 and the network's edges.
ColouredGraph network_graph(const model::Model& m, const std::vector<char>& named) {
  ColouredGraph g;
  for (uint32_t n = 0; n < m.network.num_nodes(); ++n)
    g.add({kNode, named[n] ? uint64_t{m.node_const[n]} + 1 : 0});
  for (const auto& a : m.network.arcs())
    if (a.src < a.dst) g.edges.push_back({static_cast<int>(a.src), static_cast<int>(a.dst)});
  return g;
}

// Adds the initial facts (built-ins aside) as coloured vertices.
void add_initial_facts(const model::Model& m, ColouredGraph& g) {
  std::map<model::ConstId, uint32_t> node_of;
  for (uint32_t n = 0; n < m.node_const.size(); ++n) node_of[m.node_const[n]] = n;
  for (uint32_t n = 0; n < m.init_facts.size(); ++n) {
    for (const auto& f : m.init_facts[n]) {
      if (f.pred == model::kMyName || f.pred == model::kNeighbor) continue;
      std::vector<uint64_t> key{kFact, f.pred};
      for (auto c : f.args) key.push_back(node_of.count(c) ? ~uint64_t{0} : c);
      const int fv = g.add(key);
      g.edges.push_back({fv, static_cast<int>(n)});
      for (size_t i = 0; i < f.args.size(); ++i) {
        auto it = node_of.find(f.args[i]);
        if (it == node_of.end()) continue;
        std::vector<uint64_t> akey = key;
        akey[0] = kArg;
        akey.push_back(i);
        const int av = g.add(std::move(akey));
        g.edges.push_back({fv, av});
        g.edges.push_back({av, static_cast<int>(it->second)});
      }
    }
  }
}

// Nodes whose names appear as constants in the rules.
std::vector<char> named_nodes(const model::Model& m) {
  std::vector<char> named(m.network.num_nodes(), 0);
  std::map<model::ConstId, uint32_t> node_of;
  for (uint32_t n = 0; n < m.node_const.size(); ++n) node_of[m.node_const[n]] = n;
  auto see = [&](const model::RTerm& t) {
    if (t.is_var) return;
    auto it = node_of.find(t.id);
    if (it != node_of.end()) named[it->second] = 1;
  };
  auto see_atom = [&](const model::RAtom& a) {
    for (const auto& t : a.args) see(t);
    if (a.at) see(*a.at);
  };
  for (const auto& r : m.rules) {
    see_atom(r.head);
    for (const auto& l : r.body) see_atom(l.atom);
    for (const auto& c : r.constraints) see(c.lhs), see(c.rhs);
  }
  return named;
}

std::string node_list(const model::Model& m, const std::vector<uint32_t>& nodes) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < 4; ++i) out += (i ? ", " : "") + m.network.name(nodes[i]);
  if (nodes.size() > 4) out += fmt::format(" and {} more", nodes.size() - 4);
  return out;
}

// Why the initial facts break symmetry: the nodes with facts of their own.
std::string initial_facts_reason(const model::Model& m) {
  std::map<model::Fact, size_t> count;
  for (const auto& facts : m.init_facts)
    for (const auto& f : facts)
      if (f.pred != model::kMyName && f.pred != model::kNeighbor) ++count[f];
  std::vector<uint32_t> own;
  std::string example;
  for (uint32_t n = 0; n < m.init_facts.size(); ++n)
    for (const auto& f : m.init_facts[n])
      if (f.pred != model::kMyName && f.pred != model::kNeighbor && count[f] < m.init_facts.size()) {
        if (own.empty()) example = m.fact_to_string(f);
        if (own.empty() || own.back() != n) own.push_back(n);
      }
  if (own.empty()) return "the initial facts name particular nodes";
  return fmt::format("{} {} initial facts the other nodes lack ({} has `{}`)", node_list(m, own),
                     own.size() == 1 ? "has" : "have", m.network.name(own[0]), example);
}

}  // namespace

hashing::NetworkShape network_shape(const model::Model& m) {
  hashing::NetworkShape s;
  s.num_nodes = static_cast<uint32_t>(m.network.num_nodes());
  for (const auto& a : m.network.arcs()) s.arcs.push_back({a.src, a.dst});
  s.node_const.assign(m.node_const.begin(), m.node_const.end());
  s.num_fixed = static_cast<uint32_t>(m.constants.size());
  return s;
}

SystemSymmetry system_symmetry(const model::Model& m, size_t max_order) {
  const hashing::NetworkShape shape = network_shape(m);
  const auto nodes = static_cast<uint32_t>(m.network.num_nodes());
  SystemSymmetry out{hashing::SymmetryGroup(shape), 1, 1, {}, {}};
  const std::vector<char> none(nodes, 0), named = named_nodes(m);
  out.network_order = automorphisms(network_graph(m, none), nodes).order;
  ColouredGraph g = network_graph(m, named);
  const double named_order = automorphisms(g, nodes).order;
  add_initial_facts(m, g);
  Automorphisms sys = automorphisms(g, nodes);
  out.system_order = sys.order;
  std::vector<std::string> why;
  if (named_order < out.network_order) {
    std::vector<uint32_t> list;
    for (uint32_t n = 0; n < nodes; ++n)
      if (named[n]) list.push_back(n);
    why.push_back(fmt::format("the rules name {}", node_list(m, list)));
  }
  if (sys.order < named_order) why.push_back(initial_facts_reason(m));
  if (sys.order > static_cast<double>(max_order)) {
    why.push_back(fmt::format("its {:.4g} elements are more than the {} this version enumerates", sys.order,
                              max_order));
    sys.generators.clear();
  }
  try {
    out.group = hashing::SymmetryGroup::generate(shape, sys.generators, max_order);
  } catch (const std::length_error&) {
    why.push_back(fmt::format("it has more than the {} elements this version enumerates", max_order));
    out.group = hashing::SymmetryGroup(shape);
  }
  for (size_t i = 0; i < why.size(); ++i) out.why_smaller += (i ? "; " : "") + why[i];
  for (uint32_t gen : out.group.generators())
    out.generator_text.push_back(out.group.cycles(gen, [&](uint32_t n) { return m.network.name(n); }));
  return out;
}

std::string symmetry_text(const SystemSymmetry& s) {
  if (s.network_order <= 1 && s.group.trivial()) return "none (the network has no automorphism but the identity)";
  if (s.group.trivial())
    return fmt::format("none (the network's group has order {:.6g}, but {})", s.network_order, s.why_smaller);
  std::string gens;
  for (const auto& g : s.generator_text) gens += (gens.empty() ? "" : ", ") + g;
  const std::string of = static_cast<double>(s.group.order()) < s.network_order
                             ? fmt::format(" of the network's {:.6g}: {}", s.network_order, s.why_smaller)
                             : " (the network's whole group)";
  return fmt::format("group of order {}{}; generated by {}", s.group.order(), of, gens);
}

}  // namespace ddsmc::engine
