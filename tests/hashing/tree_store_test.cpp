// The tree-compressed state store: byte-exact round trips, equal bytes iff
// equal roots under heavy sharing, incremental interns equal to full ones,
// threads racing on overlapping states agreeing on every id, TableFull and
// growth keeping every id, and the edge cases of the shape (1 and 2 parts,
// empty and large parts). The threaded test is meant for ThreadSanitizer
// too (scripts/test's TSan stage selects suites by name: add TreeStore).
#include "hashing/tree_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <atomic>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "random_states.hpp"

using ddsmc::hashing::SegmentedEncoding;
using ddsmc::hashing::TreeStore;
using ddsmc::hashing::tree_detail::IdTable;
namespace h = ddsmc::hashing;
namespace t = ddsmc::hashing::test;

namespace {

SegmentedEncoding from_parts(const std::vector<std::string>& parts) {
  SegmentedEncoding s;
  for (const auto& p : parts) {
    s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
    s.bytes += p;
  }
  s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
  return s;
}

std::string random_bytes(t::Rng& rng, size_t max_len) {
  std::string b(t::uniform(rng, 0, static_cast<uint32_t>(max_len)), '\0');
  for (auto& c : b) c = static_cast<char>(t::uniform(rng, 0, 255));
  return b;
}

std::string materialized(const TreeStore& store, uint32_t root) {
  std::string out;
  store.materialize(root, out);
  return out;
}

// A pool of states over `parts` parts, each part drawn from a few variants:
// many states share most of their parts, and many repeat.
std::vector<SegmentedEncoding> shared_states(t::Rng& rng, uint32_t parts, size_t count, uint32_t variants) {
  std::vector<std::vector<std::string>> pool(parts);
  for (auto& p : pool)
    for (uint32_t v = 0; v < variants; ++v) p.push_back(random_bytes(rng, 6));
  std::vector<std::string> cur(parts);
  for (uint32_t p = 0; p < parts; ++p) cur[p] = pool[p][0];
  std::vector<SegmentedEncoding> out;
  for (size_t i = 0; i < count; ++i) {
    // Mostly a one-part change of the previous state, sometimes a jump.
    if (t::uniform(rng, 0, 9) == 0)
      for (uint32_t p = 0; p < parts; ++p) cur[p] = pool[p][t::uniform(rng, 0, variants - 1)];
    const uint32_t p = t::uniform(rng, 0, parts - 1);
    cur[p] = pool[p][t::uniform(rng, 0, variants - 1)];
    out.push_back(from_parts(cur));
  }
  return out;
}

TEST(TreeStore, ShapeIsPostOrderWithTheRootLast) {
  TreeStore s4(4);
  EXPECT_EQ(s4.tree_size(), 7u);
  EXPECT_EQ(s4.children(4), std::make_pair(0u, 1u));
  EXPECT_EQ(s4.children(5), std::make_pair(2u, 3u));
  EXPECT_EQ(s4.children(6), std::make_pair(4u, 5u));
  TreeStore s3(3);  // the left half takes the middle part
  EXPECT_EQ(s3.children(3), std::make_pair(0u, 1u));
  EXPECT_EQ(s3.children(4), std::make_pair(3u, 2u));
  for (uint32_t parts : {2u, 5u, 9u, 36u, 100u}) {
    TreeStore s(parts);
    std::vector<int> seen(s.tree_size(), 0);
    for (uint32_t j = parts; j < s.tree_size(); ++j) {
      const auto [l, r] = s.children(j);
      ASSERT_LT(l, j);
      ASSERT_LT(r, j);
      ++seen[l];
      ++seen[r];
    }
    for (uint32_t j = 0; j < s.root_position(); ++j) EXPECT_EQ(seen[j], 1) << parts << " " << j;
    EXPECT_EQ(seen[s.root_position()], 0);
  }
  EXPECT_THROW(TreeStore(0), std::invalid_argument);
}

TEST(TreeStore, CountsNewLeavesAndNodesOfAOnePartChange) {
  TreeStore store(4);
  std::vector<uint32_t> a(7), b(7);
  // Leaves a..d get ids 0..3: (a, b) = (0, 1) is node 0, (c, d) = (2, 3)
  // node 1, and the root (node 0, node 1) = (0, 1) is node 0 again: one
  // node table for every position, the shape telling the meanings apart.
  const uint32_t ra = store.intern(from_parts({"a", "b", "c", "d"}), a.data());
  EXPECT_EQ(a, (std::vector<uint32_t>{0, 1, 2, 3, 0, 1, 0}));
  EXPECT_EQ(store.leaves(), 4u);
  EXPECT_EQ(store.nodes(), 2u);
  EXPECT_EQ(materialized(store, ra), "abcd");
  const uint32_t rb = store.intern(from_parts({"a", "b", "c", "e"}), b.data());
  EXPECT_NE(ra, rb);
  EXPECT_EQ(store.leaves(), 5u);  // "e"
  EXPECT_EQ(store.nodes(), 4u);   // (c, e) and the root
  EXPECT_EQ(a[4], b[4]);          // (a, b) shared
  EXPECT_EQ(materialized(store, rb), "abce");
  // Equal bytes in different parts are one leaf.
  std::vector<uint32_t> c(7);
  store.intern(from_parts({"x", "x", "x", "x"}), c.data());
  EXPECT_EQ(c[0], c[3]);
  EXPECT_EQ(c[4], c[5]);  // (x, x) at two positions: one node
  EXPECT_EQ(store.leaves(), 6u);
  EXPECT_EQ(store.nodes(), 6u);
  EXPECT_GT(store.memory_bytes(), 0u);
}

TEST(TreeStore, RoundTripsRandomStatesByteExact) {
  t::Rng rng(11);
  t::LayoutLimits lim;
  lim.max_nodes = 8;
  lim.max_arcs = 16;
  for (int round = 0; round < 100; ++round) {
    const h::StateLayout layout = t::random_layout(rng, lim);
    TreeStore store(layout.num_nodes + layout.num_arcs, 64, 64);
    store.reserve(2000, 2000);
    std::vector<std::pair<SegmentedEncoding, uint32_t>> seen;
    for (int i = 0; i < 20; ++i) {
      SegmentedEncoding s;
      h::encode_segmented(t::random_state(rng, layout), layout, s);
      std::vector<uint32_t> tree(store.tree_size()), back(store.tree_size());
      const uint32_t root = store.intern(s, tree.data());
      ASSERT_EQ(root, tree[store.root_position()]);
      ASSERT_EQ(materialized(store, root), s.bytes);
      SegmentedEncoding m;
      store.materialize(root, m);
      ASSERT_EQ(m.bytes, s.bytes);
      ASSERT_EQ(m.begin, s.begin);
      store.tree_of(root, back.data());
      ASSERT_EQ(back, tree);
      ASSERT_EQ(store.intern(s), root);
      seen.emplace_back(std::move(s), root);
    }
    for (const auto& [s, root] : seen) ASSERT_EQ(materialized(store, root), s.bytes);
  }
}

TEST(TreeStore, EqualBytesIffEqualRootsUnderHeavySharing) {
  t::Rng rng(5);
  for (uint32_t parts : {2u, 3u, 7u, 18u, 36u}) {
    const auto states = shared_states(rng, parts, 4000, parts <= 3 ? 64 : 4);
    TreeStore store(parts, 64, 64);
    std::map<std::string, uint32_t> root_of;
    std::map<uint32_t, std::string> bytes_of;
    for (const auto& s : states) {
      uint32_t root;
      for (;;) {
        try {
          root = store.intern(s);
          break;
        } catch (const TreeStore::TableFull&) {
          store.grow();
        }
      }
      auto [it, fresh] = root_of.emplace(s.bytes, root);
      ASSERT_EQ(it->second, root) << "equal bytes, different roots";
      auto [jt, fresh_root] = bytes_of.emplace(root, s.bytes);
      ASSERT_EQ(jt->second, s.bytes) << "different bytes, one root";
      ASSERT_EQ(fresh, fresh_root);
    }
    EXPECT_GT(root_of.size(), 1000u) << parts;
    for (const auto& [root, bytes] : bytes_of) ASSERT_EQ(materialized(store, root), bytes);
    // Sharing: far fewer nodes than a tree per distinct state would take.
    if (parts >= 18) {
      EXPECT_LT(store.nodes(), root_of.size() * (parts - 1) / 2) << parts;
    }
    EXPECT_LE(store.leaves(), size_t{parts} * (parts <= 3 ? 64 : 4));
  }
}

TEST(TreeStore, PatchedInternEqualsFullIntern) {
  t::Rng rng(9);
  for (bool permuted : {false, true})
  for (uint32_t parts : {1u, 2u, 5u, 36u, 300u}) {  // 300: a tree of 599 positions
    // Parts at their own positions, or at a random permutation of them.
    std::vector<uint32_t> position;
    if (permuted) {
      for (uint32_t p = 0; p < parts; ++p) position.push_back(p);
      std::shuffle(position.begin(), position.end(), rng);
    }
    TreeStore store(parts, position);
    std::vector<std::string> cur(parts);
    for (auto& p : cur) p = random_bytes(rng, 5);
    std::vector<uint32_t> tree(store.tree_size()), out(store.tree_size()), full(store.tree_size());
    store.intern(from_parts(cur), tree.data());
    for (int step = 0; step < 500; ++step) {
      std::vector<uint32_t> changed;
      for (uint32_t k = t::uniform(rng, 0, 3); k > 0; --k) changed.push_back(t::uniform(rng, 0, parts - 1));
      std::sort(changed.begin(), changed.end());
      const std::vector<std::string> before = cur;
      for (uint32_t p : changed) {
        // Sometimes back to a value seen before, sometimes unchanged.
        const uint32_t pick = t::uniform(rng, 0, 3);
        cur[p] = pick == 0 ? before[p] : pick == 1 ? std::string("shared") : random_bytes(rng, 5);
      }
      const SegmentedEncoding s = from_parts(cur);
      const uint32_t want = store.intern(s, full.data());
      if (step % 2) {
        ASSERT_EQ(store.intern_patched(tree.data(), s, changed.data(), changed.size(), out.data()), want);
        ASSERT_EQ(out, full);
        tree = out;
      } else {  // in place, parts given as views, one part listed twice with its final bytes last
        std::vector<TreeStore::Part> ps;
        if (!changed.empty()) ps.push_back({changed[0], "decoy"});
        for (uint32_t p : changed) ps.push_back({p, cur[p]});
        ASSERT_EQ(store.intern_patched(tree.data(), ps, tree.data()), want);
        ASSERT_EQ(tree, full);
      }
      ASSERT_EQ(materialized(store, want), s.bytes);
      std::string from_tree;
      store.materialize_tree(full.data(), from_tree);
      ASSERT_EQ(from_tree, s.bytes);
    }
  }
}

// A successor given as its source's whole encoding and the changed parts,
// interned in a store that never saw the source: the root of its whole
// encoding, sharing one cache among the successors of a source, and no
// node or leaf beyond the successors' own.
TEST(TreeStore, OverlayInternEqualsFullIntern) {
  t::Rng rng(17);
  for (bool permuted : {false, true})
  for (uint32_t parts : {1u, 2u, 5u, 27u, 300u}) {
    std::vector<uint32_t> position;
    if (permuted) {
      for (uint32_t p = 0; p < parts; ++p) position.push_back(p);
      std::shuffle(position.begin(), position.end(), rng);
    }
    TreeStore overlay(parts, position, 1 << 19, 1 << 17);
    std::set<std::string> leaf_set;
    std::set<std::pair<uint32_t, std::string>> subtree_set;
    // The parts under position j, each with its length.
    std::vector<uint32_t> part_at(parts);
    for (uint32_t p = 0; p < parts; ++p) part_at[overlay.position(p)] = p;
    auto subtree = [&](const TreeStore& st, const std::vector<std::string>& cur, uint32_t j) {
      std::string out;
      auto walk = [&](auto& self, uint32_t k) -> void {
        if (k < st.parts()) {
          out += std::to_string(cur[part_at[k]].size()) + ":" + cur[part_at[k]];
          return;
        }
        self(self, st.children(k).first);
        self(self, st.children(k).second);
      };
      walk(walk, j);
      return out;
    };
    for (int source = 0; source < 40; ++source) {
      std::vector<std::string> base(parts);
      for (auto& p : base) p = t::uniform(rng, 0, 2) == 0 ? std::string("shared") : random_bytes(rng, 5);
      const SegmentedEncoding b = from_parts(base);
      std::vector<uint32_t> cache(overlay.tree_size(), TreeStore::kUnknown);
      for (int step = 0; step < 12; ++step) {
        std::vector<std::string> cur = base;
        std::vector<TreeStore::Part> ps;
        const bool whole = t::uniform(rng, 0, 9) == 0;
        if (whole) {  // every part listed: the base is not read
          for (uint32_t p = 0; p < parts; ++p) {
            if (t::uniform(rng, 0, 1)) cur[p] = random_bytes(rng, 5);
            ps.push_back({p, cur[p]});
          }
        } else {
          for (uint32_t k = t::uniform(rng, 0, 3); k > 0; --k) {
            const uint32_t p = t::uniform(rng, 0, parts - 1);
            const uint32_t pick = t::uniform(rng, 0, 3);  // sometimes unchanged, sometimes shared
            if (t::uniform(rng, 0, 3) == 0) ps.push_back({p, "decoy"});  // then its final bytes, last
            cur[p] = pick == 0 ? base[p] : pick == 1 ? std::string("shared") : random_bytes(rng, 5);
            ps.push_back({p, cur[p]});
          }
        }
        const SegmentedEncoding s = from_parts(cur);
        const uint32_t got = whole ? overlay.intern_overlay({}, nullptr, cache.data(), ps)
                                   : overlay.intern_overlay(b.bytes, b.begin.data(), cache.data(), ps);
        ASSERT_EQ(materialized(overlay, got), s.bytes);
        const size_t nodes = overlay.nodes(), leaves = overlay.leaves();
        ASSERT_EQ(overlay.intern(s), got);  // finds every leaf and node: the overlay made them all
        ASSERT_EQ(overlay.nodes(), nodes);
        ASSERT_EQ(overlay.leaves(), leaves);
        for (const auto& p : cur) leaf_set.insert(p);
        for (uint32_t j = parts; j < overlay.tree_size(); ++j) subtree_set.insert({j, subtree(overlay, cur, j)});
      }
    }
    // Every leaf and node the overlay made is one of the successors' (the
    // sources were never interned): as many leaves as distinct successor
    // parts, and no more nodes than distinct successor subtrees (fewer when
    // two positions share a pair).
    EXPECT_EQ(overlay.leaves(), leaf_set.size());
    EXPECT_LE(overlay.nodes(), subtree_set.size());
  }
}

TEST(TreeStore, LeafPositionsMustBeAPermutation) {
  EXPECT_THROW(TreeStore(3, std::vector<uint32_t>{0, 1}), std::invalid_argument);
  EXPECT_THROW(TreeStore(3, std::vector<uint32_t>{0, 1, 1}), std::invalid_argument);
  EXPECT_THROW(TreeStore(3, std::vector<uint32_t>{0, 1, 3}), std::invalid_argument);
  TreeStore store(3, std::vector<uint32_t>{2, 0, 1});
  EXPECT_EQ(store.position(0), 2u);
  std::vector<uint32_t> tree(store.tree_size());
  const uint32_t root = store.intern(from_parts({"x", "yy", "zzz"}), tree.data());
  EXPECT_EQ(store.leaf(tree[2]), "x");  // part 0 at position 2
  EXPECT_EQ(store.leaf(tree[0]), "yy");
  EXPECT_EQ(materialized(store, root), "xyyzzz");
}

TEST(TreeStore, EdgeCasesOfShapeAndParts) {
  {  // one part: the root is the leaf
    TreeStore store(1);
    const uint32_t a = store.intern(from_parts({"abc"}));
    const uint32_t e = store.intern(from_parts({""}));
    EXPECT_NE(a, e);
    EXPECT_EQ(store.intern(from_parts({"abc"})), a);
    EXPECT_EQ(store.nodes(), 0u);
    EXPECT_EQ(store.leaves(), 2u);
    EXPECT_EQ(materialized(store, a), "abc");
    EXPECT_EQ(materialized(store, e), "");
    std::vector<uint32_t> tree(1);
    TreeStore::Part p{0, "xyz"};
    const uint32_t x = store.intern_patched(&a, {&p, 1}, tree.data());
    EXPECT_EQ(tree[0], x);
    EXPECT_EQ(materialized(store, x), "xyz");
  }
  {  // two parts; empty parts are not confused with each other's neighbours
    TreeStore store(2);
    const uint32_t r1 = store.intern(from_parts({"ab", ""}));
    const uint32_t r2 = store.intern(from_parts({"", "ab"}));
    const uint32_t r3 = store.intern(from_parts({"a", "b"}));
    const uint32_t r4 = store.intern(from_parts({"", ""}));
    EXPECT_EQ(std::set<uint32_t>({r1, r2, r3, r4}).size(), 4u);
    SegmentedEncoding m;
    store.materialize(r2, m);
    EXPECT_EQ(m.bytes, "ab");
    EXPECT_EQ(m.begin, (std::vector<uint32_t>{0, 0, 2}));
    store.materialize(r4, m);
    EXPECT_EQ(m.bytes, "");
    EXPECT_EQ(m.begin, (std::vector<uint32_t>{0, 0, 0}));
  }
  {  // large parts: past the arena's first chunks, and a state of empty parts
    t::Rng rng(3);
    TreeStore store(5);
    // 1 MiB + 1: past the arena's 1 MiB chunk, into the 2 MiB one; 192 KiB:
    // past the first chunks.
    std::string big1((1 << 20) + 1, 'x'), big2(192 << 10, 'y');
    for (size_t i = 0; i < big2.size(); i += 4093) big2[i] = static_cast<char>(i);
    std::vector<std::pair<std::string, uint32_t>> roots;
    for (int i = 0; i < 8; ++i) {
      auto s = from_parts({random_bytes(rng, 300), i % 2 ? big1 : "", big2, random_bytes(rng, 70000), ""});
      roots.emplace_back(s.bytes, store.intern(s));
    }
    auto empty = from_parts({"", "", "", "", ""});
    roots.emplace_back(empty.bytes, store.intern(empty));
    for (const auto& [bytes, root] : roots) ASSERT_EQ(materialized(store, root), bytes);
    EXPECT_GE(store.leaf_bytes(), big1.size() + big2.size());
  }
  TreeStore store(3);
  EXPECT_THROW(store.intern(from_parts({"a", "b"})), std::invalid_argument);
}

TEST(TreeStore, TableFullThenGrowKeepsEveryId) {
  t::Rng rng(21);
  TreeStore store(4, 40, 40);  // tables of 64 slots: 51 entries each before TableFull
  ASSERT_EQ(store.node_capacity(), 64u);
  ASSERT_EQ(store.leaf_capacity(), 64u);
  std::vector<std::pair<std::string, uint32_t>> roots;
  std::vector<SegmentedEncoding> pending;
  auto fresh_state = [&] {
    return from_parts({random_bytes(rng, 4) + "a", random_bytes(rng, 4) + "b", "c", "d"});
  };
  // Fill until a table overflows; everything interned before stays valid.
  bool full = false;
  while (!full) {
    SegmentedEncoding s = fresh_state();
    try {
      roots.emplace_back(s.bytes, store.intern(s));
    } catch (const TreeStore::TableFull&) {
      full = true;
      pending.push_back(s);
    }
  }
  EXPECT_LE(store.nodes(), IdTable::limit_for(64));
  EXPECT_LE(store.leaves(), IdTable::limit_for(64));
  const size_t node_cap = store.node_capacity(), leaf_cap = store.leaf_capacity();
  store.grow();
  EXPECT_GT(store.node_capacity() + store.leaf_capacity(), node_cap + leaf_cap);
  for (const auto& [bytes, root] : roots) ASSERT_EQ(materialized(store, root), bytes);
  // Interning again finds the same ids; the state that threw goes in now.
  for (const auto& [bytes, root] : roots) {
    SegmentedEncoding again;
    store.materialize(root, again);
    ASSERT_EQ(store.intern(again), root);
  }
  const uint32_t late = store.intern(pending[0]);
  EXPECT_EQ(materialized(store, late), pending[0].bytes);
  // Keep going through several growths of both tables.
  for (int i = 0; i < 3000; ++i) {
    SegmentedEncoding s = fresh_state();
    for (;;) {
      try {
        roots.emplace_back(s.bytes, store.intern(s));
        break;
      } catch (const TreeStore::TableFull&) {
        store.grow();
      }
    }
  }
  for (const auto& [bytes, root] : roots) ASSERT_EQ(materialized(store, root), bytes);
  EXPECT_GE(store.leaf_capacity(), 4096u);
  // reserve() makes room ahead: no TableFull.
  store.reserve(3 * 1000, 2 * 1000);
  for (int i = 0; i < 1000; ++i) EXPECT_NO_THROW(store.intern(fresh_state()));
}

TEST(TreeStore, ThreadsInterningOverlappingStatesAgree) {
  constexpr int kThreads = 4;
  t::Rng rng(77);
  const uint32_t parts = 12;
  const auto states = shared_states(rng, parts, 6000, 5);
  // Each thread: a random 3/4 of the states, in its own order.
  std::vector<std::vector<uint32_t>> order(kThreads);
  for (auto& o : order) {
    for (uint32_t i = 0; i < states.size(); ++i)
      if (t::uniform(rng, 0, 3)) o.push_back(i);
    std::shuffle(o.begin(), o.end(), rng);
  }
  TreeStore store(parts, 40, 40);  // small: several rounds end in TableFull
  std::vector<std::vector<uint32_t>> root(kThreads, std::vector<uint32_t>(states.size(), ~0u));
  std::atomic<uint64_t> mismatches{0};
  constexpr size_t kRound = 500;
  int growths = 0;
  for (size_t begin = 0;;) {
    std::atomic<bool> full{false};
    bool more = false;
    std::vector<std::thread> threads;
    for (int th = 0; th < kThreads; ++th) {
      more |= begin < order[th].size();
      threads.emplace_back([&, th] {
        std::string back;
        const size_t end = std::min(order[th].size(), begin + kRound);
        try {
          for (size_t k = begin; k < end; ++k) {
            const uint32_t i = order[th][k];
            root[th][i] = store.intern(states[i]);
            // Read back at once, while the others intern.
            store.materialize(root[th][i], back);
            if (back != states[i].bytes) mismatches.fetch_add(1);
          }
        } catch (const TreeStore::TableFull&) {
          full.store(true);
        }
      });
    }
    for (auto& th : threads) th.join();
    if (!more) break;
    if (full.load()) {  // redo the round after growing
      store.grow();
      ++growths;
      continue;
    }
    begin += kRound;
  }
  EXPECT_EQ(mismatches.load(), 0u);
  EXPECT_GT(growths, 2);
  std::map<std::string, uint32_t> root_of;
  std::set<uint32_t> roots;
  for (uint32_t i = 0; i < states.size(); ++i) {
    uint32_t r = ~0u;
    for (int th = 0; th < kThreads; ++th) {
      if (root[th][i] == ~0u) continue;
      if (r == ~0u) r = root[th][i];
      ASSERT_EQ(root[th][i], r) << "state " << i;
    }
    if (r == ~0u) continue;
    auto [it, fresh] = root_of.emplace(states[i].bytes, r);
    ASSERT_EQ(it->second, r);
    if (fresh) roots.insert(r);
    ASSERT_EQ(materialized(store, r), states[i].bytes);
  }
  EXPECT_EQ(roots.size(), root_of.size());  // different bytes, different roots
  // No pair and no leaf was interned twice.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> pairs;
  for (uint32_t id = 0; id < store.nodes(); ++id) {
    auto [it, fresh] = pairs.emplace(store.node(id), id);
    ASSERT_TRUE(fresh) << "node " << id << " repeats node " << it->second;
  }
  std::set<std::string> leaves;
  for (uint32_t id = 0; id < store.leaves(); ++id) ASSERT_TRUE(leaves.emplace(store.leaf(id)).second) << id;
  // Ids are dense and none was wasted: every leaf and node lies in the tree
  // of some state. (Counts may differ from a sequential store's: a pair
  // shared by two positions depends on how the ids were numbered.)
  std::vector<bool> node_used(store.nodes()), leaf_used(store.leaves());
  std::vector<uint32_t> tree(store.tree_size());
  for (const auto& [bytes, r] : root_of) {
    store.tree_of(r, tree.data());
    for (uint32_t p = 0; p < parts; ++p) leaf_used[tree[p]] = true;
    for (uint32_t j = parts; j < store.tree_size(); ++j) node_used[tree[j]] = true;
  }
  EXPECT_EQ(std::count(node_used.begin(), node_used.end(), false), 0);
  EXPECT_EQ(std::count(leaf_used.begin(), leaf_used.end(), false), 0);
}

// The index under the store: colliding hashes told apart by the data, and a
// failed make() leaving no visible entry.
TEST(TreeStoreIdTable, CollisionsAndAFailedMake) {
  IdTable table(64);
  std::vector<uint32_t> key_of_id;
  auto put = [&](uint32_t key, uint64_t hash) {
    return table.find_or_put(
        hash, [&](uint32_t id) { return key_of_id[id] == key; },
        [&] {
          key_of_id.push_back(key);
          return static_cast<uint32_t>(key_of_id.size() - 1);
        });
  };
  const uint64_t same_hash = 0x123456789abcdef0ull;
  for (uint32_t k = 0; k < 10; ++k) EXPECT_TRUE(put(k, same_hash).inserted);
  for (uint32_t k = 0; k < 10; ++k) {
    auto r = put(k, same_hash);
    EXPECT_FALSE(r.inserted);
    EXPECT_EQ(r.id, k);
  }
  EXPECT_THROW(table.find_or_put(
                   7, [](uint32_t) { return true; }, []() -> uint32_t { throw std::runtime_error("no"); }),
               std::runtime_error);
  auto r = table.find_or_put(7, [](uint32_t) { return true; }, [] { return 40u; });
  EXPECT_TRUE(r.inserted);
  EXPECT_EQ(r.id, 40u);
  EXPECT_EQ(table.size(), 12u);  // the abandoned slot still counts until a rebuild
  EXPECT_EQ(IdTable::capacity_for(51), 64u);
  EXPECT_EQ(IdTable::capacity_for(52), 128u);
}

}  // namespace

namespace {

// A byte buffer with the checkpoint streams' calls (engine/checkpoint_io.hpp).
struct Buffer {
  std::string data;
  size_t at = 0;
  void bytes(const void* p, size_t n) { data.append(static_cast<const char*>(p), n); }
  void u64(uint64_t v) { bytes(static_cast<const void*>(&v), sizeof v); }
  void varint(uint64_t v) {
    do {
      const auto b = static_cast<uint8_t>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      data.push_back(static_cast<char>(b));
      v >>= 7;
    } while (v);
  }
  void bytes(void* p, size_t n) {
    if (at + n > data.size()) throw std::runtime_error("truncated");
    std::memcpy(p, data.data() + at, n);
    at += n;
  }
  uint64_t u64() {
    uint64_t v;
    bytes(&v, sizeof v);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      uint8_t b;
      bytes(&b, 1);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
};

// Interns every state, growing the store when it is full (one thread).
std::vector<uint32_t> intern_all(TreeStore& store, const std::vector<SegmentedEncoding>& states) {
  std::vector<uint32_t> roots;
  for (const auto& s : states)
    for (;;) try {
        roots.push_back(store.intern(s));
        break;
      } catch (const TreeStore::TableFull&) {
        store.grow();
      }
  return roots;
}

}  // namespace

TEST(TreeStore, SaveAndLoadKeepEveryIdAndRebuildTheIndex) {
  t::Rng rng(42);
  for (uint32_t parts : {1u, 3u, 12u, 40u}) {
    const std::vector<uint32_t> order = [&] {
      std::vector<uint32_t> o(parts);
      for (uint32_t p = 0; p < parts; ++p) o[p] = parts - 1 - p;  // not the identity
      return o;
    }();
    TreeStore a(parts, order, 16, 16);
    const auto states = shared_states(rng, parts, 3000, 5);
    const std::vector<uint32_t> roots = intern_all(a, states);
    Buffer buf;
    a.save(buf);
    TreeStore b(parts, order, 16, 16);
    b.load(buf);
    EXPECT_EQ(buf.at, buf.data.size());
    ASSERT_EQ(b.nodes(), a.nodes());
    ASSERT_EQ(b.leaves(), a.leaves());
    EXPECT_TRUE(b.check_trees(roots.size(), [&](size_t i) { return roots[i]; }));
    // The same states are found under the same ids, nothing new is made ...
    EXPECT_EQ(intern_all(b, states), roots) << parts << " parts";
    EXPECT_EQ(b.nodes(), a.nodes());
    EXPECT_EQ(b.leaves(), a.leaves());
    for (size_t i = 0; i < states.size(); i += 97) EXPECT_EQ(materialized(b, roots[i]), states[i].bytes);
    // ... and new states get the ids the first store gives them.
    const auto more = shared_states(rng, parts, 500, 9);
    EXPECT_EQ(intern_all(b, more), intern_all(a, more)) << parts << " parts";
    EXPECT_EQ(b.nodes(), a.nodes());
  }
}

TEST(TreeStore, LoadRefusesWhatItCannotHoldAndCheckTreesCatchesBadIds) {
  t::Rng rng(7);
  TreeStore a(6);
  const auto states = shared_states(rng, 6, 200, 4);
  const std::vector<uint32_t> roots = intern_all(a, states);
  Buffer whole;
  a.save(whole);
  // Cut short: the reader runs out (the checkpoint's reader throws CheckpointError).
  Buffer cut{whole.data.substr(0, whole.data.size() - 3)};
  TreeStore b(6);
  EXPECT_THROW(b.load(cut), std::runtime_error);
  // A store that holds states already is refused.
  Buffer again{whole.data};
  EXPECT_THROW(a.load(again), std::logic_error);
  // A pair naming a node that does not exist: the trees through it fail.
  Buffer bad{whole.data};
  const size_t last_pair = bad.data.size() - 8;
  const uint64_t wild = uint64_t{0xfffff} << 32 | 0xfffff;
  std::memcpy(bad.data.data() + last_pair, &wild, 8);
  TreeStore c(6);
  c.load(bad);
  EXPECT_FALSE(c.check_trees(roots.size(), [&](size_t i) { return roots[i]; }));
  EXPECT_FALSE(c.check_trees(1, [&](size_t) { return uint32_t(c.nodes()); }));  // a root past the nodes
  TreeStore d(6);
  Buffer good{whole.data};
  d.load(good);
  EXPECT_TRUE(d.check_trees(roots.size(), [&](size_t i) { return roots[i]; }));
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <sys/resource.h>

#include <fstream>

namespace {

// In a process whose address space is then capped, a reserve() whose new
// node table cannot be allocated throws std::bad_alloc (the old table was
// freed first, IdTable::rebuild): a table of the old size is rebuilt from
// the pairs, every state reads back and interns to its old root, and once
// the cap is lifted the store grows and takes new states. Returns the exit
// code.
int failed_growth_child() {
  t::Rng rng(31);
  TreeStore store(8, 64, 64);
  const auto states = shared_states(rng, 8, 20000, 50);
  const std::vector<uint32_t> roots = intern_all(store, states);
  const size_t nodes = store.nodes(), capacity = store.node_capacity();
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  rlimit had{};
  if (getrlimit(RLIMIT_AS, &had) != 0) return 2;
  const rlim_t cap = static_cast<rlim_t>(pages) * 4096 + (rlim_t{64} << 20);
  const rlimit lim{cap, had.rlim_max};
  if (setrlimit(RLIMIT_AS, &lim) != 0) return 2;
  bool threw = false;
  try {
    store.reserve(size_t{1} << 30, 0);  // a table of 2^31 slots: 8 GiB
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  if (!threw) return 3;
  bool same = store.nodes() == nodes && store.node_capacity() == capacity;
  for (size_t i = 0; same && i < states.size(); ++i) {
    same = materialized(store, roots[i]) == states[i].bytes;
    SegmentedEncoding again;
    store.materialize(roots[i], again);
    same = same && store.intern(again) == roots[i];
  }
  if (setrlimit(RLIMIT_AS, &had) != 0) return 2;
  const auto more = shared_states(rng, 8, 20000, 50);
  const std::vector<uint32_t> more_roots = intern_all(store, more);
  for (size_t i = 0; same && i < more.size(); ++i) same = materialized(store, more_roots[i]) == more[i].bytes;
  for (size_t i = 0; same && i < states.size(); ++i) same = materialized(store, roots[i]) == states[i].bytes;
  return same ? 0 : 1;
}

}  // namespace

TEST(TreeStoreDeathTest, AGrowthThatCannotBeAllocatedKeepsEveryId) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(failed_growth_child()), ::testing::ExitedWithCode(0), "");
}
#endif
