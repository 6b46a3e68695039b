// The patched encoding (the explorer's fast path) must equal the plain one.
#include <gtest/gtest.h>

#include <random>

#include "hashing/state.hpp"

using namespace ddsmc::hashing;

TEST(PatchedEncoding, EqualsPlainEncodingAfterLocalChanges) {
  std::mt19937 rng(7);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  for (int round = 0; round < 2000; ++round) {
    StateLayout layout;
    layout.arity = {1, 0, 2};
    layout.num_nodes = 1 + pick(4);
    layout.num_arcs = 1 + pick(6);
    layout.num_fixed = 50;
    auto random_facts = [&](bool channel) {
      std::vector<Word> w;
      int n = static_cast<int>(pick(4));
      for (int i = 0; i < n; ++i) {
        Word p = pick(3);
        w.push_back(p);
        for (uint32_t a = 0; a < layout.arity[p]; ++a) w.push_back(pick(300));  // some take 2-byte varints
        if (channel) w.push_back(1 + pick(200));
      }
      channel ? normalize_channel(w, layout) : normalize_db(w, layout);
      return w;
    };
    GlobalState s;
    for (uint32_t n = 0; n < layout.num_nodes; ++n) s.dbs.push_back(random_facts(false));
    for (uint32_t a = 0; a < layout.num_arcs; ++a) s.channels.push_back(random_facts(true));
    SegmentedEncoding base;
    encode_segmented(s, layout, base);
    ASSERT_EQ(base.bytes, encode(s, layout));
    ASSERT_EQ(base.begin.back(), base.bytes.size());
    GlobalState t = s;
    std::vector<uint32_t> changed;
    uint32_t parts = layout.num_nodes + layout.num_arcs;
    for (int k = 0, n = static_cast<int>(pick(4)); k < n; ++k) changed.push_back(pick(parts));
    std::sort(changed.begin(), changed.end());
    for (uint32_t part : changed) {
      if (part < layout.num_nodes)
        t.dbs[part] = random_facts(false);
      else
        t.channels[part - layout.num_nodes] = random_facts(true);
    }
    std::string patched;
    encode_patched(base, t, layout, changed.data(), changed.size(), patched);
    ASSERT_EQ(patched, encode(t, layout)) << "round " << round;
  }
}
