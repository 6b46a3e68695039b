// The network (docs/reference.md §2.5, §5.3): --network overrides the file's
// declaration, a generator or a `network { }` block. Node names become the
// first constants, so node_const[n] == n.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <variant>

#include "model/network.hpp"
#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

Loc network_loc(const NetworkDecl& n) {
  return std::visit([](const auto& d) { return d.loc; }, n);
}

std::optional<Network> from_generator(Resolution& r, const NetworkGenerator& gen) {
  std::string err;
  auto net = generate_network(gen.name, gen.args, &err);
  if (!net) {
    r.diag.error(gen.loc, fmt::format("bad network declaration: {}", err));
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

std::optional<Network> from_block(Resolution& r, const NetworkBlock& block) {
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
      r.diag.error(a.loc, fmt::format("network edge '{} - {}' joins a node to itself (every node already has its "
                                      "self-loop channel)",
                                      a.name, b.name));
      ok = false;
      continue;
    }
    auto [it, inserted] = seen.try_emplace(undirected_edge_key(x, y), a.loc);
    if (!inserted) {
      r.diag.error(a.loc, fmt::format("network edge '{} - {}' is written twice (first at {})", a.name, b.name,
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
    r.diag.error(block.loc, fmt::format("bad network declaration: {}", err));
    return std::nullopt;
  }
  if (net->description().empty()) net->set_description("block");
  return net;
}

}  // namespace

void resolve_network(Resolution& r) {
  for (size_t k = 1; k < r.prog.networks.size(); ++k)
    r.diag.error(network_loc(r.prog.networks[k]),
                 fmt::format("more than one network declaration (the first one is at {})",
                             loc_text(network_loc(r.prog.networks[0]))));
  std::optional<Network> net;
  if (r.ov.network_spec) {
    std::string err;
    net = network_from_spec(*r.ov.network_spec, &err);
    if (!net) r.diag.error(Loc{}, err.empty() ? fmt::format("bad --network '{}'", *r.ov.network_spec) : err);
  } else if (!r.prog.networks.empty()) {
    const NetworkDecl& decl = r.prog.networks[0];
    if (const auto* gen = std::get_if<NetworkGenerator>(&decl))
      net = from_generator(r, *gen);
    else
      net = from_block(r, std::get<NetworkBlock>(decl));
  } else {
    r.diag.error(Loc{}, "no network: give --network SPEC or a `network` declaration");
  }
  if (!net) return;
  r.m.network = std::move(*net);
  r.network_ok = true;
  // Node names are the first constants (so node_const[n] == n).
  r.m.node_const.reserve(r.m.network.num_nodes());
  for (NodeId n = 0; n < r.m.network.num_nodes(); ++n)
    r.m.node_const.push_back(r.m.constants.intern(r.m.network.name(n)));
}

}  // namespace ddsmc::model::resolver
