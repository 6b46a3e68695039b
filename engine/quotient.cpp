// The analysis of a quotient state graph (engine/quotient.hpp has the
// contract and the argument).
#include "engine/quotient.hpp"

#include "engine/owcty.hpp"
#include "engine/owcty_fixpoint.hpp"
#include "engine/subgraph.hpp"
#include "engine/tarjan.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ddsmc::engine {
namespace {

bool is_sometimes(Property p) { return p == Property::SometimesTotal || p == Property::SometimesPartial; }

// The graph one subgraph of one property examines, vertices by number:
// states, or (tracking) state * nodes + position.
struct View {
  const StateGraph& g;
  const hashing::SymmetryGroup& group;
  uint32_t arcs, nodes;
  bool tracking = false;
  bool stable_only = false;
  std::function<bool(StateId)> keep_state;  // (not tracking)
  Cancellation* cancel = nullptr;

  uint64_t size() const { return tracking ? g.num_states() * nodes : g.num_states(); }
  StateId state(uint64_t v) const { return tracking ? v / nodes : v; }
  QuotientVertex vertex(uint64_t v) const {
    return tracking ? QuotientVertex{v / nodes, static_cast<uint32_t>(v % nodes)} : QuotientVertex{v, 0};
  }
  uint64_t id(const QuotientVertex& q) const { return tracking ? q.state * nodes + q.tracked : q.state; }
  bool keep(uint64_t v) const { return tracking ? !g.faulty(v / nodes, v % nodes) : keep_state(v); }
  uint64_t target(uint64_t v, const Edge& e) const {
    if (!tracking) return e.target;
    const uint32_t m = static_cast<uint32_t>(v % nodes);
    return e.target * nodes + group.element(edge_element(e.arc(), arcs)).node[m];
  }
  // The next edge of v's row from c on that this view keeps, and its target vertex.
  bool next(uint64_t v, EdgeCursor& c, Edge& e, uint64_t& w) const {
    while (g.next_edge(state(v), c, e)) {
      if (stable_only && !e.stable()) continue;
      w = target(v, e);
      if (keep(w)) return true;
    }
    return false;
  }
  // As engine/tarjan.hpp walks it.
  using Vertex = uint64_t;
  using Cursor = EdgeCursor;
  bool next(uint64_t v, EdgeCursor& c, uint64_t& w) const {
    Edge e;
    return next(v, c, e, w);
  }
  void poll() const { cancel->poll(); }
};

// Union-find over the arcs.
struct ArcClasses {
  std::vector<uint32_t> parent;
  explicit ArcClasses(uint32_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

// Frames of an SCC's members: member -> τ (~0u until set).
using Frames = std::unordered_map<uint64_t, uint32_t>;

// Calls fn(edge, frame entry of its target) for every kept edge of x
// inside the SCC (the members are the frames' keys).
template <class Fn>
void for_each_internal_edge(const View& v, uint64_t x, Frames& tau, Fn&& fn) {
  EdgeCursor c;
  Edge e;
  uint64_t w = 0;
  while (v.next(x, c, e, w)) {
    auto it = tau.find(w);
    if (it != tau.end()) fn(e, *it);
  }
}

// τ along a BFS tree of the SCC's internal edges from its least member r
// (τ_r = id, τ_y = τ_x ∘ π_e⁻¹); whether it has an internal edge, and a
// non-stable one.
Frames frames(const View& v, const std::vector<uint64_t>& members, bool& edge, bool& unstable) {
  const auto& G = v.group;
  Frames tau;
  for (uint64_t m : members) tau.emplace(m, ~0u);
  const uint64_t r = *std::min_element(members.begin(), members.end());
  tau[r] = 0;
  std::deque<uint64_t> queue{r};
  while (!queue.empty()) {
    const uint64_t x = queue.front();
    queue.pop_front();
    const uint32_t tx = tau[x];
    for_each_internal_edge(v, x, tau, [&](const Edge& e, std::pair<const uint64_t, uint32_t>& y) {
      edge = true;
      unstable |= !e.stable();
      if (y.second != ~0u) return;
      y.second = G.compose(tx, G.inverse(edge_element(e.arc(), v.arcs)));
      queue.push_back(y.first);
    });
  }
  return tau;
}

// Whether every orbit of H = <s_e> on the arcs holds a covered arc
// (τ_x(b) for an internal edge of x serving b or an arc b empty in x).
bool orbits_covered(const View& v, const std::vector<uint64_t>& members, Frames& tau) {
  const auto& G = v.group;
  ArcClasses classes(v.arcs);
  std::vector<char> covered(v.arcs, 0);
  std::unordered_set<uint32_t> generators;
  for (uint64_t x : members) {
    const uint32_t tx = tau.at(x);
    const auto& px = G.element(tx);
    for (uint32_t b = 0; b < v.arcs; ++b)
      if (v.g.channel_empty(v.state(x), b)) covered[px.arc[b]] = 1;
    for_each_internal_edge(v, x, tau, [&](const Edge& e, std::pair<const uint64_t, uint32_t>& y) {
      const uint32_t arc = served_arc(e.arc(), v.arcs);
      if (arc != kIdleArc) covered[px.arc[arc]] = 1;
      const uint32_t s = G.compose(G.compose(tx, G.inverse(edge_element(e.arc(), v.arcs))), G.inverse(y.second));
      if (s == 0 || !generators.insert(s).second) return;
      const auto& ps = G.element(s);
      for (uint32_t a = 0; a < v.arcs; ++a) classes.join(a, ps.arc[a]);
    });
  }
  std::vector<char> class_covered(v.arcs, 0);
  for (uint32_t a = 0; a < v.arcs; ++a)
    if (covered[a]) class_covered[classes.find(a)] = 1;
  for (uint32_t a = 0; a < v.arcs; ++a)
    if (!class_covered[classes.find(a)]) return false;
  return true;
}

// Whether a maximal SCC of the view lifts to fair concrete SCCs (with an
// edge inside, and a non-stable one when `need_unstable`).
bool qualifies(const View& v, const std::vector<uint64_t>& members, Fairness f, bool need_unstable) {
  bool edge = false, unstable = false;
  Frames tau = frames(v, members, edge, unstable);
  if (!edge || (need_unstable && !unstable)) return false;
  return f == Fairness::None || orbits_covered(v, members, tau);
}

// A shortest path in the view from `from` to `to` (both kept), as vertices
// and edges.
void stem_path(const View& v, uint64_t from, uint64_t to, QuotientFinding& out) {
  // Breadth first, a parent per vertex (8 bytes each: no hash table).
  constexpr uint64_t kNone = ~uint64_t{0};
  std::vector<uint64_t> parent(v.size(), kNone), queue{from};
  parent[from] = from;
  for (size_t head = 0; head < queue.size() && parent[to] == kNone; ++head) {
    v.cancel->poll();
    EdgeCursor c;
    Edge e;
    uint64_t w = 0;
    while (v.next(queue[head], c, e, w))
      if (parent[w] == kNone) parent[w] = queue[head], queue.push_back(w);
  }
  if (parent[to] == kNone) throw std::logic_error("analysis: no stem to a fair SCC");
  std::vector<uint64_t> path{to};
  while (path.back() != from) path.push_back(parent[path.back()]);
  std::reverse(path.begin(), path.end());
  for (size_t i = 0; i + 1 < path.size(); ++i) {  // an edge of the view along each hop
    EdgeCursor c;
    Edge e;
    uint64_t w = 0;
    bool found = false;
    while (!found && v.next(path[i], c, e, w)) found = w == path[i + 1];
    out.stem_edges.push_back(e);
  }
  for (uint64_t x : path) out.stem.push_back(v.vertex(x));
}

// Per arc, the least arc of its orbit under the group.
std::vector<uint32_t> arc_orbits(const hashing::SymmetryGroup& G, uint32_t arcs) {
  std::vector<uint32_t> least(arcs);
  std::iota(least.begin(), least.end(), 0u);
  for (uint32_t i = 0; i < G.order(); ++i)
    for (uint32_t a = 0; a < arcs; ++a) least[a] = std::min(least[a], G.element(i).arc[a]);
  return least;
}

// For an untracked view: the OWCTY fixpoint (parallel, engine/owcty.hpp)
// with one acceptance set per orbit of the group on the arcs. Every state
// of an SCC whose lift is fair survives it (that lift serves or empties
// every arc, so the SCC seeds every orbit), so the SCCs need only be
// looked for among the survivors; an empty result decides at once.
std::vector<uint8_t> prefilter(const View& v, bool sometimes, Fairness f, AnalysisStats& stats) {
  const std::vector<uint32_t> orbits = arc_orbits(v.group, v.arcs);
  Subgraph h;
  h.keep_state = v.keep_state;
  h.stable_edges_only = v.stable_only;
  h.roots_everywhere = sometimes;
  h.need_unstable = !sometimes;
  h.cancel = v.cancel;
  h.arc_orbit = &orbits;
  OwctyResult z = owcty(v.g, h, f, *v.cancel);
  stats.rounds += z.rounds;
  stats.passes += z.passes;
  stats.survivors += z.survivors;
  for (uint8_t& x : z.flags) x = (x & kSurvives) ? 1 : 0;
  return std::move(z.flags);
}

// The finding of a qualifying SCC: its members and a stem to its least
// vertex (anywhere for sometimes-*, through the view `h` from `start` for
// always-*).
QuotientFinding finding_of(const View& h, const std::vector<uint64_t>& found, bool sometimes, uint64_t start) {
  QuotientFinding out;
  out.tracking = h.tracking;
  out.stable_edges_only = h.stable_only;
  out.need_unstable = !sometimes;
  for (uint64_t m : found) out.members.push_back(h.vertex(m));
  const uint64_t r = *std::min_element(found.begin(), found.end());
  if (sometimes) {
    View all = h;
    all.stable_only = false;
    all.keep_state = [](StateId) { return true; };
    stem_path(all, 0, r, out);
  } else {
    stem_path(h, start, r, out);
  }
  return out;
}

// The first qualifying SCC of the view (from every kept vertex, or from
// `start`; untracked views among the survivors of the prefilter only).
bool search(const View& v, Property p, Fairness f, uint64_t start, std::optional<QuotientFinding>* finding,
            AnalysisStats& stats) {
  const bool sometimes = is_sometimes(p);
  View in_z = v;
  std::vector<uint8_t> z;
  if (!v.tracking) {
    z = prefilter(v, sometimes, f, stats);
    in_z.keep_state = [&z](StateId s) { return z[s] != 0; };  // (Z lies in the view's states)
  }
  std::vector<uint64_t> found;
  Tarjan<View, uint64_t> tarjan(in_z);
  auto on_scc = [&](const std::vector<uint64_t>& members) {
    if (!qualifies(in_z, members, f, !sometimes)) return false;
    found = members;
    return true;
  };
  if (sometimes || !v.tracking) {  // (for always-*, Z holds only states reachable from `start`)
    for (uint64_t x = 0; x < in_z.size() && found.empty(); ++x) tarjan.run_from(x, on_scc);
  } else {
    tarjan.run_from(start, on_scc);
  }
  if (found.empty()) return false;
  if (finding) *finding = finding_of(v, found, sometimes, start);
  return true;
}

}  // namespace

std::vector<std::vector<StateId>> fair_sccs(const StateGraph& g, const hashing::SymmetryGroup& group, Fairness f,
                                            bool stable_only, Cancellation& cancel) {
  View v{g, group, g.num_arcs(), g.num_nodes(), false, stable_only, [](StateId) { return true; }, &cancel};
  std::vector<std::vector<StateId>> out;
  Tarjan<View, uint64_t> tarjan(v);
  for (uint64_t x = 0; x < v.size(); ++x)
    tarjan.run_from(x, [&](const std::vector<uint64_t>& members) {
      if (qualifies(v, members, f, false)) {
        out.emplace_back(members.begin(), members.end());
        std::sort(out.back().begin(), out.back().end());
      }
      return false;
    });
  return out;
}

namespace {

// The nodes always-partial examines, in ascending order: one per orbit of
// G on the nodes (its least node), tracked when some state makes a node of
// the orbit faulty; the orbits never faulty give one untracked subgraph
// (every state kept), examined at the first of them.
std::vector<std::pair<uint32_t, bool>> examined_nodes(const StateGraph& g, const hashing::SymmetryGroup& G,
                                                      Cancellation& cancel) {
  const uint32_t n = g.num_nodes();
  std::vector<char> ever(n, 0);
  for (StateId s = 0; s < g.num_states(); ++s) {
    cancel.poll();
    for (uint32_t m = 0; m < n && g.any_faulty(s); ++m) ever[m] |= g.faulty(s, m) ? 1 : 0;
  }
  std::vector<uint32_t> least(n);  // the least node of each node's orbit
  for (uint32_t m = 0; m < n; ++m) {
    least[m] = m;
    for (uint32_t i = 0; i < G.order(); ++i) least[m] = std::min(least[m], G.element(i).node[m]);
  }
  for (uint32_t m = 0; m < n; ++m) ever[least[m]] |= ever[m];
  std::vector<std::pair<uint32_t, bool>> out;
  bool clean = false;
  for (uint32_t m = 0; m < n; ++m) {
    if (least[m] != m || (!ever[m] && clean)) continue;
    clean |= !ever[m];
    out.push_back({m, ever[m] != 0});
  }
  return out;
}

}  // namespace

Verdict analyze_quotient(const StateGraph& g, const hashing::SymmetryGroup& group, Property p, Fairness f,
                         bool complete, Cancellation& cancel, std::optional<QuotientFinding>* finding) {
  Verdict verdict;
  verdict.property = p;
  View v{g, group, g.num_arcs(), g.num_nodes(), false, false, {}, &cancel};
  v.stable_only = is_sometimes(p);
  bool found = false;
  if (p != Property::AlwaysPartial) {
    if (p == Property::SometimesPartial) v.keep_state = [&g](StateId s) { return !g.all_faulty(s); };
    else v.keep_state = [&g](StateId s) { return !g.any_faulty(s); };
    ++verdict.stats.subgraphs;
    found = g.num_states() > 0 && search(v, p, f, 0, finding, verdict.stats);
  } else {
    for (auto [n, tracked] : examined_nodes(g, group, cancel)) {
      View h = v;
      h.tracking = tracked;
      h.keep_state = [](StateId) { return true; };
      ++verdict.stats.subgraphs;
      if (g.num_states() > 0 && search(h, p, f, tracked ? n : 0, finding, verdict.stats)) {
        found = true;
        verdict.node = n;
        break;
      }
    }
  }
  if (found) verdict.holds = is_sometimes(p);
  else if (complete) verdict.holds = !is_sometimes(p);
  return verdict;
}

}  // namespace ddsmc::engine
