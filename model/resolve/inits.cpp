// Initial facts (docs/reference.md §2.6): `init { }` facts for every node, `init at
// n { }` for one, ground state facts only; each node's initial DB adds its
// built-ins my_name and neighbor, sorted and without duplicates.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

std::string node_list(const Resolution& r) {
  const size_t n = r.m.network.num_nodes(), shown = std::min<size_t>(n, 8);
  std::string out;
  for (size_t k = 0; k < shown; ++k) out += fmt::format("{}{}", k ? ", " : "", r.m.network.name(k));
  if (n > shown) out += fmt::format(", ... ({} more)", n - shown);
  return out;
}

std::optional<Fact> init_fact(Resolution& r, const Atom& a) {
  PredId p = lookup(r, a, kNone);
  bool ok = p != kNoPred && a.args.size() == r.m.preds[p].arity;
  if (p != kNoPred) {
    const Predicate& pred = r.m.preds[p];
    r.usage[p].in_init = true;
    if (p == kMyName || p == kNeighbor) {
      r.diag.error(a.loc,
                   fmt::format("'{}' facts are built in (fixed by the network) and cannot be given in an init block",
                               pred.name));
      ok = false;
    } else if (pred.kind != PredKind::State) {
      r.diag.error(a.loc, fmt::format("init facts are state facts, but '{}' is {} {} predicate", pred.name,
                                      pred.kind == PredKind::Input ? "an" : "a", pred_kind_name(pred.kind)));
      ok = false;
    }
  }
  if (a.at) {
    r.diag.error(a.at->loc, fmt::format("init fact '{}' cannot carry an '@' annotation", a.pred));
    ok = false;
  }
  for (const Term& t : a.args) {
    if (t.is_const()) continue;
    r.diag.error(t.loc, fmt::format("init facts must be ground, but '{}' in '{}' is a variable", t.text, a.pred));
    ok = false;
  }
  if (!ok) return std::nullopt;
  Fact f{p, {}};
  for (const Term& t : a.args) f.args.push_back(r.m.constants.intern(t.text));
  return f;
}

}  // namespace

void resolve_inits(Resolution& r) {
  std::vector<Fact> everywhere;
  std::vector<std::vector<Fact>> at_node(r.network_ok ? r.m.network.num_nodes() : 0);
  for (const InitBlock& block : r.prog.inits) {
    std::optional<NodeId> target;
    bool keep = true;
    if (block.at) {
      if (!r.network_ok) {
        keep = false;  // cannot check it; the network error is reported already
      } else if ((target = r.m.network.find(block.at->name)); !target) {
        r.diag.error(block.at->loc, fmt::format("init at '{}': no such node in the network (nodes: {})", block.at->name,
                                                node_list(r)));
        keep = false;
      }
    }
    for (const Atom& a : block.facts) {
      std::optional<Fact> f = init_fact(r, a);
      if (!f || !keep) continue;
      (target ? at_node[*target] : everywhere).push_back(std::move(*f));
    }
  }
  if (!r.network_ok) return;
  const size_t nodes = r.m.network.num_nodes();
  r.m.init_facts.resize(nodes);
  for (NodeId n = 0; n < nodes; ++n) {
    std::vector<Fact>& facts = r.m.init_facts[n];
    facts = everywhere;
    facts.insert(facts.end(), at_node[n].begin(), at_node[n].end());
    facts.push_back(Fact{kMyName, {r.m.node_const[n]}});
    for (NodeId nb : r.m.network.neighbors(n)) facts.push_back(Fact{kNeighbor, {r.m.node_const[nb]}});
    std::sort(facts.begin(), facts.end());
    facts.erase(std::unique(facts.begin(), facts.end()), facts.end());
  }
}

}  // namespace ddsmc::model::resolver
