// engine/source_scc.hpp's search in one process (engine::mark_source_scc,
// whose split is a Tarjan): on random graphs, random sets Z and both kinds
// of subgraph edges, it marks exactly the SCC the search's definition
// gives (simulated here on reachability computed state by state), and that
// is a source SCC of H[Z]: not empty, inside Z, strongly connected, and
// reached from no other state of Z (so also maximal). (The ranks' walk
// splits by closures; DistMpi compares their lassos with these.)
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/fair_scc.hpp"
#include "engine/source_scc.hpp"
#include "tests/engine/analysis_support.hpp"

using namespace ddsmc;
using antest::HandState;
using engine::Edge;
using engine::StateId;

namespace {

// reach[a][b]: b is reachable from a inside Z along H's edges (a reaches itself).
std::vector<std::vector<char>> reachability(const engine::StateGraph& g, const engine::Subgraph& h,
                                            const std::vector<char>& in_z) {
  const size_t n = g.num_states();
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
  for (StateId a = 0; a < n; ++a) {
    if (!in_z[a]) continue;
    std::vector<StateId> queue{a};
    reach[a][a] = 1;
    for (size_t i = 0; i < queue.size(); ++i)
      for (const Edge& e : g.edges(queue[i]))
        if (h.kind_kept(e) && in_z[e.target] && !reach[a][e.target]) {
          reach[a][e.target] = 1;
          queue.push_back(e.target);
        }
  }
  return reach;
}

// The search's answer from the reachability inside Z (inside C it is the
// same: C is closed under predecessors in Z).
std::vector<char> defined_scc(const std::vector<std::vector<char>>& reach, const std::vector<char>& in_z) {
  const size_t n = in_z.size();
  std::vector<char> c = in_z, b(n), f(n);
  for (;;) {
    const StateId p = static_cast<StateId>(std::find(c.begin(), c.end(), 1) - c.begin());
    bool rest = false;
    for (StateId s = 0; s < n; ++s) {
      b[s] = c[s] && reach[s][p];
      f[s] = b[s] && reach[p][s];
      rest = rest || (b[s] && !f[s]);
    }
    if (!rest) return f;
    for (StateId s = 0; s < n; ++s) c[s] = b[s] && !f[s];
  }
}

}  // namespace

TEST(SourceScc, RandomGraphsAndSetsGiveASourceSccOfHRestrictedToZ) {
  std::mt19937 rng(2026);
  for (int round = 0; round < 600; ++round) {
    const uint32_t n = 1 + rng() % 40;
    std::vector<HandState> states(n);
    for (HandState& s : states) {
      const uint32_t out = rng() % 4;
      for (uint32_t k = 0; k < out; ++k) s.edges.emplace_back(rng() % n, rng() % 2, rng() % 2 == 0);
    }
    const engine::StateGraph g = antest::build_graph(1, 2, states);
    engine::Subgraph h;
    h.keep_state = [](StateId) { return true; };
    h.stable_edges_only = round % 3 == 0;
    std::vector<char> in_z(n, 0);
    const uint32_t density = 1 + rng() % 4;  // Z holds about density/4 of the states
    for (uint32_t s = 0; s < n; ++s) in_z[s] = rng() % 4 < density;
    in_z[rng() % n] = 1;
    std::vector<uint8_t> flags(n, 0);
    for (uint32_t s = 0; s < n; ++s) flags[s] = in_z[s] ? engine::kInC : 0;

    engine::mark_source_scc(g, h, flags);

    const auto reach = reachability(g, h, in_z);
    const std::vector<char> want = defined_scc(reach, in_z);
    for (StateId s = 0; s < n; ++s)
      ASSERT_EQ((flags[s] & engine::kInF) != 0, want[s] != 0) << "round " << round << ", state " << s;
    std::vector<StateId> f;
    for (StateId s = 0; s < n; ++s)
      if (flags[s] & engine::kInF) f.push_back(s);
    ASSERT_FALSE(f.empty()) << "round " << round;
    for (StateId a : f) {
      ASSERT_TRUE(in_z[a]) << "round " << round << ": state " << a << " is not in Z";
      for (StateId b : f) EXPECT_TRUE(reach[a][b]) << "round " << round << ": " << a << " does not reach " << b;
    }
    for (StateId s = 0; s < n; ++s) {
      if (!in_z[s] || (flags[s] & engine::kInF)) continue;
      for (StateId a : f) EXPECT_FALSE(reach[s][a]) << "round " << round << ": " << s << " outside reaches " << a;
    }
  }
}
