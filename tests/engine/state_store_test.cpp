// The visited set over the tree store: threads racing to claim the roots of
// overlapping states agree on one reference per state and make exactly one
// claim each; a make() that throws withdraws its claim; growth keeps every
// reference. Run under ThreadSanitizer too (scripts/test selects StateStore).
#include "engine/state_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using ddsmc::engine::StateStore;
using ddsmc::hashing::SegmentedEncoding;
using ddsmc::hashing::TreeStoreFull;

namespace {

// Three parts: one node, two arcs.
ddsmc::hashing::StateLayout layout3() {
  ddsmc::hashing::StateLayout l;
  l.num_nodes = 1;
  l.num_arcs = 2;
  return l;
}

// State i of a family with much sharing: 3 parts, the first two drawn from
// few values.
SegmentedEncoding state(uint32_t i) {
  SegmentedEncoding s;
  for (const std::string& p : {std::to_string(i % 7), std::string(i % 3, 'x'), std::to_string(i / 5)}) {
    s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
    s.bytes += p;
  }
  s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
  return s;
}

uint32_t intern(StateStore& store, const SegmentedEncoding& s) {
  for (;;) {
    try {
      return store.tree().intern(s);
    } catch (const TreeStoreFull&) {
      store.grow();  // single-threaded use only
    }
  }
}

}  // namespace

TEST(StateStore, LeafPositionsPutEachNodeBesideItsOutgoingChannels) {
  ddsmc::hashing::StateLayout l;
  l.num_nodes = 3;
  l.num_arcs = 4;
  l.arc_from = {2, 0, 2, 1};  // parts 3..6
  // Positions: node 0, arc 1 (part 4), node 1, arc 3 (part 6), node 2, arcs 0 and 2 (parts 3, 5).
  EXPECT_EQ(StateStore::leaf_positions(l), (std::vector<uint32_t>{0, 2, 4, 5, 1, 6, 3}));
  l.arc_from.clear();
  EXPECT_TRUE(StateStore::leaf_positions(l).empty());  // unknown: the identity
  // Whatever the positions, bytes read back are the encoding.
  l.arc_from = {2, 0, 2, 1};
  StateStore store(l);
  SegmentedEncoding s;
  for (const char* p : {"a", "bb", "", "ccc", "d", "ee", "f"}) {
    s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
    s.bytes += p;
  }
  s.begin.push_back(static_cast<uint32_t>(s.bytes.size()));
  std::string back;
  store.tree().materialize(intern(store, s), back);
  EXPECT_EQ(back, s.bytes);
}

TEST(StateStore, ThreadsAgreeOnOneReferencePerState) {
  constexpr uint32_t kStates = 20000, kThreads = 4;
  StateStore store(layout3(), 1 << 16);
  // Roots first (the tree's own races are TreeStore's tests), then the race on claims.
  std::vector<uint32_t> roots(kStates);
  for (uint32_t i = 0; i < kStates; ++i) roots[i] = intern(store, state(i));
  std::atomic<uint32_t> next_ref{0};
  std::vector<std::vector<uint32_t>> seen(kThreads, std::vector<uint32_t>(kStates));
  std::vector<uint32_t> claims(kThreads, 0);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (uint32_t k = 0; k < kStates; ++k) {
        static constexpr uint64_t kStride[kThreads] = {7919, 7927, 7933, 7937};  // primes: coprime to kStates
        const auto i = static_cast<uint32_t>(k * kStride[t] % kStates);    // a different order per thread
        auto c = store.find_or_claim(roots[i], [&] { return next_ref.fetch_add(1); });
        seen[t][i] = c.ref;
        claims[t] += c.inserted;
      }
    });
  for (auto& th : threads) th.join();
  uint32_t total = 0;
  for (uint32_t c : claims) total += c;
  EXPECT_EQ(total, kStates);  // every state once (the family has no repeats)
  EXPECT_EQ(next_ref.load(), kStates);
  for (uint32_t i = 0; i < kStates; ++i) {
    for (uint32_t t = 1; t < kThreads; ++t) ASSERT_EQ(seen[t][i], seen[0][i]) << "state " << i;
    EXPECT_EQ(store.find(roots[i]), seen[0][i]);
  }
}

TEST(StateStore, EqualStatesShareAReference) {
  StateStore store(layout3());
  const uint32_t a = intern(store, state(12)), b = intern(store, state(12)), c = intern(store, state(13));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_TRUE(store.find_or_claim(a, [] { return 5u; }).inserted);
  auto again = store.find_or_claim(b, [] { return 6u; });
  EXPECT_FALSE(again.inserted);
  EXPECT_EQ(again.ref, 5u);
  EXPECT_EQ(store.find(c), StateStore::kNoRef);
  store.bind(a, 9);
  EXPECT_EQ(store.find(b), 9u);
}

TEST(StateStore, AFailedClaimIsWithdrawn) {
  StateStore store(layout3());
  const uint32_t r = intern(store, state(4));
  EXPECT_THROW(store.find_or_claim(r, []() -> uint32_t { throw std::length_error("x"); }), std::length_error);
  EXPECT_EQ(store.find(r), StateStore::kNoRef);
  auto c = store.find_or_claim(r, [] { return 1u; });
  EXPECT_TRUE(c.inserted);
  EXPECT_EQ(c.ref, 1u);
}

TEST(StateStore, GrowthKeepsEveryReference) {
  StateStore store(layout3(), 64);  // grows many times below
  std::vector<uint32_t> roots;
  for (uint32_t i = 0; i < 5000; ++i) {
    roots.push_back(intern(store, state(i)));
    store.find_or_claim(roots.back(), [&] { return i; });
  }
  EXPECT_GT(store.tree().node_capacity(), 64u);
  for (uint32_t i = 0; i < 5000; ++i) {
    EXPECT_EQ(store.find(roots[i]), i);
    std::string bytes;
    store.tree().materialize(roots[i], bytes);
    EXPECT_EQ(bytes, state(i).bytes);
  }
}

TEST(StateStore, EndOfExplorationKeepsStatesAndTheirIds) {
  // After end_exploration the states read back as before; the visited set
  // refuses lookups; an intern rebuilds the tree's index first and finds the
  // same roots (no second id for a state), and new states still intern.
  StateStore store(layout3(), 64);
  std::vector<uint32_t> roots;
  std::vector<std::string> bytes;
  for (uint32_t i = 0; i < 3000; ++i) {
    roots.push_back(intern(store, state(i)));
    store.find_or_claim(roots.back(), [&] { return i; });
    bytes.emplace_back();
    store.tree().materialize(roots.back(), bytes.back());
  }
  const size_t before = store.memory_bytes();
  store.end_exploration();
  EXPECT_FALSE(store.exploring());
  EXPECT_LT(store.memory_bytes(), before);
  for (uint32_t i = 0; i < 3000; i += 7) {
    std::string again;
    store.tree().materialize(roots[i], again);
    EXPECT_EQ(again, bytes[i]) << i;
  }
  EXPECT_THROW(store.find(roots[0]), std::logic_error);
  EXPECT_THROW(store.find_or_claim(roots[0], [] { return 0u; }), std::logic_error);
  EXPECT_THROW(store.tree().intern(state(5)), TreeStoreFull);
  const size_t nodes = store.tree().nodes();
  for (uint32_t i = 0; i < 3000; i += 3) EXPECT_EQ(intern(store, state(i)), roots[i]) << i;
  EXPECT_EQ(store.tree().nodes(), nodes) << "no state got a second id";
  const uint32_t fresh = intern(store, state(100000));
  EXPECT_EQ(std::find(roots.begin(), roots.end(), fresh), roots.end());
}
