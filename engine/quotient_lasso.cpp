// The concrete lasso of a quotient finding (engine/quotient_lasso.hpp has
// the construction).
#include "engine/quotient_lasso.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/fair_scc.hpp"
#include "engine/subgraph.hpp"
#include "hashing/canonical.hpp"
#include "hashing/symmetry.hpp"

namespace ddsmc::engine {
namespace {

// Canonical forms of concrete states: under renaming alone (how the lift
// names a concrete state), and under the group (its representative).
class Forms {
 public:
  explicit Forms(const System& system)
      : layout_(system.layout()), group_(*system.symmetry()), plain_(layout_), sym_(layout_, group_) {}
  std::string plain(const hashing::GlobalState& s) {
    plain_.canonicalize(s, form_);
    return form_.bytes;
  }
  // The encoding up to renaming of g(s), g the group's element `element`.
  std::string moved(const hashing::GlobalState& s, uint32_t element) {
    if (element == 0) return plain(s);
    hashing::permute(s, layout_, group_.element(element), moved_);
    return plain(moved_);
  }
  // The representative's encoding, and the element that takes s to it.
  std::pair<std::string, uint32_t> representative(const hashing::GlobalState& s) {
    uint32_t element = 0;
    sym_.canonicalize(s, form_, &element);
    return {form_.bytes, element};
  }
  // The elements fixing the representative of encoding `rep` up to
  // renaming (its stabiliser; the identity first), computed once per
  // representative: with them, every element taking a state to `rep`.
  const std::vector<uint32_t>& stabiliser(const std::string& rep) {
    auto [it, added] = stabilisers_.try_emplace(rep);
    if (!added) return it->second;
    hashing::GlobalState s;
    if (!hashing::decode(rep, layout_, s)) throw std::logic_error("stored state does not decode");
    const std::string self = plain(s);
    for (uint32_t g = 0; g < group_.order(); ++g)
      if (g == 0 || moved(s, g) == self) it->second.push_back(g);
    return it->second;
  }

 private:
  const hashing::StateLayout& layout_;
  const hashing::SymmetryGroup& group_;
  hashing::Canonicalizer plain_;
  hashing::SymmetricCanonicalizer sym_;
  hashing::CanonicalForm form_;
  hashing::GlobalState moved_;
  std::unordered_map<std::string, std::vector<uint32_t>> stabilisers_;
};

hashing::GlobalState decoded(const StateGraph& g, StateId s, const hashing::StateLayout& layout) {
  hashing::GlobalState out;
  if (!hashing::decode(g.bytes(s), layout, out)) throw std::logic_error("stored state does not decode");
  return out;
}

// g(e): the edge with its served arc moved by the element (no element in it).
Edge moved_edge(const hashing::SymmetryGroup& group, uint32_t element, uint32_t arc, bool stable) {
  return Edge(0, arc == kIdleArc ? kIdleArc : group.element(element).arc[arc], stable);
}

// A quotient path (states, and the edges between them) lifted: the
// concrete states and edges appended to `out`; returns τ_k.
uint32_t lift_path(const System& system, const StateGraph& g, const std::vector<StateId>& path,
                   const std::vector<Edge>& edges, Forms& forms, ConcreteLasso& out) {
  const hashing::SymmetryGroup& group = *system.symmetry();
  const uint32_t arcs = system.layout().num_arcs;
  uint32_t tau = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) {
      const Edge& e = edges[i - 1];
      out.edges.push_back(moved_edge(group, tau, served_arc(e.arc(), arcs), e.stable()));
      tau = group.compose(tau, group.inverse(edge_element(e.arc(), arcs)));
    }
    out.states.push_back(forms.moved(decoded(g, path[i], system.layout()), tau));
  }
  return tau;
}

// The concrete SCC of r (f.stem.back()) explored into `mini` (state 0: r),
// with the concrete states by mini id.
std::vector<hashing::GlobalState> explore_lift(const System& system, const StateGraph& g, const QuotientFinding& f,
                                               Forms& forms, StateGraph& mini, Cancellation& cancel) {
  std::set<std::pair<std::string, uint32_t>> members;  // (representative, tracked position)
  for (const QuotientVertex& m : f.members) members.insert({g.bytes(m.state), f.tracking ? m.tracked : 0});
  const uint32_t tracked = f.stem.back().tracked;  // the tracked node, in every concrete state of D
  std::vector<hashing::GlobalState> states{decoded(g, f.stem.back().state, system.layout())};
  std::unordered_map<std::string, StateId> ids{{forms.plain(states[0]), 0}};
  mini.add_state(ids.begin()->first, states[0], system);
  // Whether a concrete successor is in the lift: its representative with
  // the tracked node's position there a member. A representative with a
  // stabiliser S is reached by every element of S∘ρ, which put the tracked
  // node at different positions (one concrete situation): any of them.
  const hashing::SymmetryGroup& group = *system.symmetry();
  auto is_member = [&](const hashing::GlobalState& succ) {
    const auto [rep, element] = forms.representative(succ);
    if (!f.tracking) return members.count({rep, 0}) > 0;
    for (uint32_t s : forms.stabiliser(rep))
      if (members.count({rep, group.element(group.compose(s, element)).node[tracked]})) return true;
    return false;
  };
  auto gen = system.generator();
  gen->set_cancellation(&cancel);
  std::vector<Edge> row;
  for (StateId s = 0; s < states.size(); ++s) {
    row.clear();
    hashing::GlobalState current = states[s];
    gen->successors(current, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo&) {
      if (f.stable_edges_only && !label.stable) return;
      if (!is_member(succ)) return;
      std::string bytes = forms.plain(succ);
      auto [it, added] = ids.emplace(std::move(bytes), static_cast<StateId>(states.size()));
      if (added) {
        states.push_back(succ);
        mini.add_state(it->first, succ, system);
      }
      row.emplace_back(it->second, label);
    });
    std::sort(row.begin(), row.end(), [](const Edge& a, const Edge& b) {
      return a.target != b.target ? a.target < b.target : a.label < b.label;
    });
    row.erase(std::unique(row.begin(), row.end()), row.end());
    mini.set_edges(s, row);
  }
  return states;
}

}  // namespace

std::optional<ConcreteLasso> concrete_lasso(const System& system, const StateGraph& g, const QuotientFinding& f,
                                            Fairness fairness, Cancellation& cancel) {
  Forms forms(system);
  ConcreteLasso out;
  std::vector<StateId> stem;
  for (const QuotientVertex& v : f.stem) stem.push_back(v.state);
  const uint32_t tau = lift_path(system, g, stem, f.stem_edges, forms, out);
  StateGraph mini(system.layout());
  const std::vector<hashing::GlobalState> states = explore_lift(system, g, f, forms, mini, cancel);
  Subgraph sub;
  sub.keep_state = [](StateId) { return true; };
  sub.stable_edges_only = f.stable_edges_only;
  sub.roots_everywhere = false;
  sub.need_unstable = f.need_unstable;
  sub.cancel = &cancel;
  AnalysisStats stats;
  const std::optional<Lasso> lasso = find_fair_scc(mini, sub, fairness, false, stats);
  if (!lasso || lasso->states.empty() || lasso->states[0] != 0) return std::nullopt;
  for (size_t j = 1; j < lasso->states.size(); ++j) out.states.push_back(forms.moved(states[lasso->states[j]], tau));
  for (const Edge& e : lasso->edges) out.edges.push_back(moved_edge(*system.symmetry(), tau, e.arc(), e.stable()));
  out.loop_start = f.stem.size() - 1 + lasso->loop_start;
  return out;
}

namespace {

// The last hop of a bound path, whose source's edges were not recorded
// (the exploration stopped while expanding it): a concrete successor of
// the path's last concrete state in the target's orbit, found by stepping.
bool append_unrecorded_hop(const System& system, const StateGraph& g, StateId target, Forms& forms,
                           ConcreteLasso& out, Cancellation& cancel) {
  hashing::GlobalState current;
  if (!hashing::decode(out.states.back(), system.layout(), current)) return false;
  const std::string want = g.bytes(target);
  auto gen = system.generator();
  gen->set_cancellation(&cancel);
  bool found = false;
  gen->successors(current, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepInfo&) {
    if (found || forms.representative(succ).first != want) return;
    out.edges.push_back(Edge(0, label));
    out.states.push_back(forms.plain(succ));
    found = true;
  });
  return found;
}

}  // namespace

std::optional<ConcreteLasso> concrete_path(const System& system, const StateGraph& g,
                                           const std::vector<StateId>& path, Cancellation& cancel) {
  std::vector<Edge> edges;
  for (size_t i = 1; i < path.size(); ++i) {
    cancel.poll();
    bool found = false;
    for (const Edge& e : g.edges(path[i - 1]))
      if (e.target == path[i]) {
        edges.push_back(e);
        found = true;
        break;
      }
    if (!found && (i + 1 < path.size() || (g.expanded(path[i - 1]) && !g.edges(path[i - 1]).empty())))
      return std::nullopt;
    if (!found) break;
  }
  Forms forms(system);
  ConcreteLasso out;
  std::vector<StateId> lifted(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(edges.size() + 1));
  lift_path(system, g, lifted, edges, forms, out);
  if (lifted.size() < path.size() && !append_unrecorded_hop(system, g, path.back(), forms, out, cancel))
    return std::nullopt;
  return out;
}

Verdict analyze_symmetric(const System& system, const StateGraph& g, Property p, Fairness fairness, bool complete,
                          Cancellation& cancel) {
  std::optional<QuotientFinding> finding;
  Verdict v = analyze_quotient(g, *system.symmetry(), p, fairness, complete, cancel, &finding);
  if (finding) v.concrete = concrete_lasso(system, g, *finding, fairness, cancel).value_or(ConcreteLasso{});
  return v;
}

}  // namespace ddsmc::engine
