// The lock-free visited set: one insertion per key whatever the number of
// threads racing for it, fingerprint collisions told apart by the caller's
// comparison, TableFull at the load limit, and growth and rebinding that
// keep every entry. Runs under ThreadSanitizer in scripts/test.
#include "hashing/concurrent_table.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using ddsmc::hashing::ConcurrentTable;
using ddsmc::hashing::Fingerprint;

namespace {

// Keys whose fingerprints collide on purpose: the low word (the probe key)
// repeats every 7 keys, the high word's top half every 3.
Fingerprint print_of(uint32_t key) { return {uint64_t{key % 7} * 0x9e3779b97f4a7c15ull, uint64_t{key % 3} << 32}; }

TEST(ConcurrentTable, OneInsertionPerKeyAcrossThreads) {
  constexpr uint32_t kKeys = 20000;
  constexpr int kThreads = 4;
  ConcurrentTable table(64);
  table.reserve(kKeys);
  // ref -> key, written by the inserting thread before the entry is visible.
  std::vector<std::atomic<uint32_t>> key_of_ref(kKeys);
  std::atomic<uint32_t> next_ref{0};
  std::vector<std::vector<uint32_t>> found(kThreads, std::vector<uint32_t>(kKeys));
  std::atomic<uint64_t> inserted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < kKeys; ++i) {
        const uint32_t key = (t % 2 ? kKeys - 1 - i : i);  // half the threads go backwards
        auto r = table.find_or_put(
            print_of(key), [&](uint32_t ref) { return key_of_ref[ref].load(std::memory_order_relaxed) == key; },
            [&] {
              const uint32_t ref = next_ref.fetch_add(1);
              key_of_ref[ref].store(key, std::memory_order_relaxed);
              return ref;
            });
        if (r.inserted) inserted.fetch_add(1);
        found[t][key] = r.ref;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(inserted.load(), kKeys);
  EXPECT_EQ(table.size(), kKeys);
  for (uint32_t key = 0; key < kKeys; ++key) {
    EXPECT_EQ(key_of_ref[found[0][key]].load(), key);
    for (int t = 1; t < kThreads; ++t) ASSERT_EQ(found[t][key], found[0][key]) << key;
  }
}

TEST(ConcurrentTable, FullAtTheLoadLimitThenGrowsKeepingEveryEntry) {
  ConcurrentTable table(64);
  std::vector<uint32_t> key_of_ref;
  auto put = [&](uint32_t key) {
    return table.find_or_put(
        print_of(key), [&](uint32_t ref) { return key_of_ref[ref] == key; },
        [&] {
          key_of_ref.push_back(key);
          return static_cast<uint32_t>(key_of_ref.size() - 1);
        });
  };
  uint32_t key = 0;
  EXPECT_THROW(
      {
        for (;; ++key) put(key);
      },
      ConcurrentTable::TableFull);
  EXPECT_EQ(key, static_cast<uint32_t>(64 * ConcurrentTable::kMaxLoad));
  EXPECT_EQ(table.size(), key);
  table.grow();
  EXPECT_EQ(table.capacity(), 128u);
  for (uint32_t k = 0; k < key; ++k) {
    auto r = put(k);
    EXPECT_FALSE(r.inserted) << k;
    EXPECT_EQ(r.ref, k);
  }
  EXPECT_TRUE(put(key).inserted);
}

TEST(ConcurrentTable, RebindMovesOneEntryOfCollidingOnes) {
  ConcurrentTable table(256);
  std::vector<uint32_t> key_of_ref(1000, ~0u);
  auto put = [&](uint32_t key, uint32_t ref) {
    return table.find_or_put(
        print_of(key), [&](uint32_t r) { return key_of_ref[r] == key; },
        [&] {
          key_of_ref[ref] = key;
          return ref;
        });
  };
  for (uint32_t k = 0; k < 21; ++k) ASSERT_TRUE(put(k, k).inserted);
  // Keys 0, 7 and 14 share the whole probe key; move key 7 to ref 500.
  key_of_ref[500] = 7;
  table.rebind(print_of(7), 7, 500);
  EXPECT_EQ(put(7, 999).ref, 500u);
  EXPECT_EQ(put(0, 999).ref, 0u);
  EXPECT_EQ(put(14, 999).ref, 14u);
  EXPECT_THROW(table.rebind(print_of(30), 30, 31), std::logic_error);
}

TEST(ConcurrentTable, AFailedMakeLeavesNoVisibleEntry) {
  ConcurrentTable table(64);
  auto same = [](uint32_t) { return true; };
  EXPECT_THROW(table.find_or_put(print_of(1), same, []() -> uint32_t { throw std::runtime_error("no"); }),
               std::runtime_error);
  auto r = table.find_or_put(print_of(1), same, [] { return 5u; });
  EXPECT_TRUE(r.inserted);
  EXPECT_EQ(r.ref, 5u);
}

}  // namespace
