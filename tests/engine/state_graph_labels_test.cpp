// The state graph's labels are packed end to end (nodes + arcs bits per
// state, a state's bits spanning two words where they fall so): states
// filled from several threads at once read back exactly, for label widths
// below, at and above one word.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "engine/state_graph.hpp"

using ddsmc::engine::StateGraph;
using ddsmc::engine::StateId;

TEST(StateGraphLabels, PackedLabelsFilledFromThreadsReadBack) {
  for (auto [nodes, arcs] : {std::pair{1u, 0u}, {5u, 9u}, {3u, 61u}, {64u, 0u}, {70u, 3u}, {40u, 100u}}) {
    ddsmc::hashing::StateLayout layout;
    layout.num_nodes = nodes;
    layout.num_arcs = arcs;
    StateGraph g(layout);
    const uint32_t words = g.label_words(), bits = nodes + arcs;
    std::mt19937_64 rng(nodes * 1000 + arcs);
    std::vector<std::vector<uint64_t>> want;
    for (int batch = 0; batch < 3; ++batch) {  // several additions: words shared across batches
      const size_t n = 1000 + 37 * batch;
      const StateId first = g.add_states(n);
      for (size_t i = 0; i < n; ++i) {
        std::vector<uint64_t> l(words);
        for (uint32_t b = 0; b < bits; ++b)
          if (rng() % 3 == 0) l[b / 64] |= uint64_t{1} << (b % 64);
        want.push_back(l);
      }
      std::vector<std::thread> threads;
      for (uint32_t t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
          for (size_t i = t; i < n; i += 4) g.fill_state(first + static_cast<StateId>(i), 0, want[first + i].data());
        });
      for (auto& th : threads) th.join();
    }
    for (StateId s = 0; s < g.num_states(); ++s) {
      bool any = false, all = true;
      for (uint32_t b = 0; b < nodes; ++b) {
        const bool set = (want[s][b / 64] >> (b % 64)) & 1u;
        ASSERT_EQ(g.faulty(s, b), set) << nodes << "+" << arcs << " state " << s << " node " << b;
        any |= set;
        all &= set;
      }
      for (uint32_t a = 0; a < arcs; ++a)
        ASSERT_EQ(g.channel_empty(s, a), bool((want[s][(nodes + a) / 64] >> ((nodes + a) % 64)) & 1u))
            << nodes << "+" << arcs << " state " << s << " arc " << a;
      ASSERT_EQ(g.any_faulty(s), any);
      ASSERT_EQ(g.all_faulty(s), all);
    }
  }
}
