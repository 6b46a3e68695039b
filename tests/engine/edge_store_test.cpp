// engine::EdgeStore, the compressed edges of the state graph: every edge list
// comes back as it was written (sorted, distinct), through the range and
// through the cursor, whatever its targets and labels, however the rows were
// added (one by one, in batches, skipping sources, filled from several
// threads), and a failed allocation leaves the store as it was.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/edge_store.hpp"
#include "engine/state_graph.hpp"

using namespace ddsmc;
using engine::Edge;
using engine::EdgeCursor;
using engine::EdgeStore;
using engine::kIdleArc;
using engine::StateId;

namespace {

constexpr StateId kMaxId = 0xfffffffeu;  // kNoState (2^32 - 1) is never a target
constexpr uint32_t kMaxArcs = (uint32_t{1} << 30) - 1;  // the most a store takes

void sort_unique(std::vector<Edge>& v) {
  std::sort(v.begin(), v.end(),
            [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// A random row of `source`: targets near it (both sides), anywhere, at
// the extremes; arcs (below num_arcs) small, the largest and idle; the same
// target repeated with other labels, and exact duplicates (removed).
std::vector<Edge> random_row(std::mt19937_64& rng, StateId source, size_t max_edges, uint32_t num_arcs = kMaxArcs) {
  std::vector<Edge> v;
  const size_t n = rng() % (max_edges + 1);
  for (size_t i = 0; i < n; ++i) {
    StateId t = 0;
    switch (rng() % 6) {
      case 0: t = static_cast<StateId>(std::clamp<int64_t>(int64_t{source} + int64_t(rng() % 64) - 32, 0, kMaxId)); break;
      case 1: t = static_cast<StateId>(rng() % (uint64_t{kMaxId} + 1)); break;
      case 2: t = kMaxId - static_cast<StateId>(rng() % 4); break;
      case 3: t = static_cast<StateId>(rng() % 4); break;
      case 4: t = v.empty() ? source : v[rng() % v.size()].target; break;  // same target, maybe another label
      default: t = source; break;                                           // self-loop
    }
    uint32_t arc = kIdleArc;
    if (num_arcs > 0) {
      switch (rng() % 4) {
        case 0: break;
        case 1: arc = num_arcs - 1 - static_cast<uint32_t>(rng() % std::min<uint32_t>(num_arcs, 3)); break;
        default: arc = static_cast<uint32_t>(rng() % std::min<uint32_t>(num_arcs, 200)); break;
      }
    }
    v.emplace_back(t, arc, rng() % 2 == 0);
    if (rng() % 8 == 0) v.push_back(v.back());
  }
  sort_unique(v);
  return v;
}

std::vector<Edge> by_range(const EdgeStore& s, StateId source) {
  std::vector<Edge> out;
  for (const Edge& e : s.row(source)) out.push_back(e);
  return out;
}

std::vector<Edge> by_cursor(const EdgeStore& s, StateId source) {
  std::vector<Edge> out;
  EdgeCursor c;
  for (Edge e; s.next(source, c, e);) out.push_back(e);
  return out;
}

void add_row(EdgeStore& s, StateId source, const std::vector<Edge>& edges) {
  const uint32_t size = s.encoded_size(source, edges);
  s.add(source, {&size, 1});
  s.encode(source, edges);
}

// Rows for sources [first, first + n), some empty, some with many edges.
std::vector<std::vector<Edge>> random_rows(std::mt19937_64& rng, StateId first, size_t n,
                                           uint32_t num_arcs = kMaxArcs) {
  std::vector<std::vector<Edge>> rows(n);
  for (size_t i = 0; i < n; ++i)
    rows[i] = random_row(rng, first + static_cast<StateId>(i), i % 97 == 0 ? 400 : 12, num_arcs);
  return rows;
}

}  // namespace

TEST(EdgeStore, RoundTripsRandomRows) {
  std::mt19937_64 rng(7);
  for (uint32_t arcs : {0u, 1u, 30u, 1000u, kMaxArcs}) {
    EdgeStore s(arcs);
    const auto rows = random_rows(rng, 0, 4000, arcs);
    for (size_t i = 0; i < rows.size(); ++i) add_row(s, static_cast<StateId>(i), rows[i]);
    EXPECT_EQ(s.rows(), 4000u);
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(by_range(s, static_cast<StateId>(i)), rows[i]) << arcs << " arcs, source " << i;
      ASSERT_EQ(by_cursor(s, static_cast<StateId>(i)), rows[i]) << arcs << " arcs, source " << i;
    }
  }
}

TEST(EdgeStore, CodeRoundTripsAtAnySource) {
  // The store holds an offset per source from 0, so sources near 2^32 are
  // tried on the code alone.
  std::mt19937_64 rng(8);
  const EdgeStore code(kMaxArcs);
  for (StateId base : {StateId{0}, StateId{1} << 31, kMaxId - 500}) {
    for (StateId src = base; src < base + 500; ++src) {
      const auto row = random_row(rng, src, src % 50 == 0 ? 300 : 12);
      const uint32_t size = code.encoded_size(src, row);
      std::vector<uint8_t> buf(size);
      ASSERT_EQ(code.write_row(src, row, buf.data()), buf.data() + size);
      const EdgeStore::Row r(buf.data(), buf.data() + size, src, code.label_bits());
      ASSERT_TRUE(std::ranges::equal(r, row)) << "source " << src;
    }
  }
}

TEST(EdgeStore, ExtremeTargetsAndLabels) {
  // The largest deltas both ways, the idle arc, the largest arc.
  const std::vector<Edge> down = {Edge(0, 0, false), Edge(0, kIdleArc, true), Edge(kMaxId, kMaxArcs - 1, true)};
  const std::vector<Edge> up = {Edge(kMaxId, kIdleArc, false), Edge(kMaxId, 3, true)};
  const EdgeStore code(kMaxArcs);
  EXPECT_EQ(code.label_bits(), 31u);
  const uint32_t size = code.encoded_size(kMaxId, down);
  // 64 bits (zigzag 2^33 - 5 over 31 label bits): 10 bytes; delta 0 and
  // idle: 1 byte; delta 2^32 - 2 and the largest arc, 63 bits: 9 bytes.
  EXPECT_EQ(size, 10u + 1 + 9);
  std::vector<uint8_t> buf(size);
  code.write_row(kMaxId, down, buf.data());
  EXPECT_TRUE(std::ranges::equal(EdgeStore::Row(buf.data(), buf.data() + size, kMaxId, 31), down));
  EdgeStore t(kMaxArcs);
  add_row(t, 0, up);
  EXPECT_EQ(by_range(t, 0), up);
  EXPECT_EQ(by_cursor(t, 0), up);
  EXPECT_EQ(by_range(t, 0)[0].arc(), kIdleArc);
  // A short row is short: with 30 arcs (6-bit labels) an edge to the
  // source or next to the previous target takes one byte.
  const EdgeStore small(30);
  EXPECT_EQ(small.label_bits(), 6u);
  EXPECT_EQ(small.encoded_size(9, std::vector<Edge>{Edge(9, 5, true), Edge(10, 29, false), Edge(10, kIdleArc, true)}), 3u);
  EXPECT_EQ(small.encoded_size(9, std::vector<Edge>{}), 0u);
  // Labels past the graph's arcs, and more arcs than the code holds, are refused.
  EXPECT_THROW((void)small.encoded_size(9, std::vector<Edge>{Edge(9, 30, true)}), std::logic_error);
  EXPECT_THROW(EdgeStore(kMaxArcs + 1), std::length_error);
}

TEST(EdgeStore, SkippedAndEmptyRows) {
  EdgeStore s(8);
  EXPECT_EQ(s.rows(), 0u);
  EXPECT_TRUE(s.row(0).empty());
  add_row(s, 3, {});  // rows 0..2 skipped, row 3 empty: still no chunk
  EXPECT_EQ(s.rows(), 4u);
  const std::vector<Edge> five = {Edge(1, 2, true), Edge(5, kIdleArc, true)};
  add_row(s, 5, five);
  add_row(s, 6, {});
  EXPECT_EQ(s.rows(), 7u);
  for (StateId src : {0u, 1u, 2u, 3u, 4u, 6u, 7u, 100u}) {
    EXPECT_TRUE(s.row(src).empty()) << src;
    EXPECT_TRUE(by_cursor(s, src).empty()) << src;
  }
  EXPECT_EQ(by_range(s, 5), five);
  EXPECT_THROW(add_row(s, 4, five), std::logic_error);  // rows go in id order
  EXPECT_EQ(s.rows(), 7u);
}

TEST(EdgeStore, RejectsUnsortedRowsAndWrongRoom) {
  EdgeStore s(8);
  const std::vector<Edge> unsorted = {Edge(5, 0, true), Edge(4, 0, true)};
  EXPECT_THROW((void)s.encoded_size(0, unsorted), std::logic_error);
  const uint32_t one = 1;
  s.add(0, {&one, 1});
  EXPECT_THROW(s.encode(0, std::vector<Edge>{Edge(0, 7, true), Edge(1, 7, true)}), std::logic_error);
}

TEST(EdgeStore, RowsAcrossChunksAndLargerThanOne) {
  // At two bytes at least per edge, 600,000 edges are larger than a chunk;
  // thousands of rows around it cross chunk boundaries.
  std::mt19937_64 rng(11);
  EdgeStore s(kMaxArcs);
  std::vector<std::vector<Edge>> rows = random_rows(rng, 0, 20000);
  for (size_t i = 0; i < 600000; ++i) rows[777].emplace_back(static_cast<StateId>(rng() % kMaxId), 1, true);
  sort_unique(rows[777]);
  std::vector<uint32_t> sizes(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) sizes[i] = s.encoded_size(static_cast<StateId>(i), rows[i]);
  ASSERT_GT(sizes[777], 1u << 20);
  s.add(0, sizes);
  for (size_t i = 0; i < rows.size(); ++i) s.encode(static_cast<StateId>(i), rows[i]);
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(by_range(s, static_cast<StateId>(i)), rows[i]) << i;
    ASSERT_EQ(s.row(static_cast<StateId>(i)).bytes(), sizes[i]) << i;
  }
}

TEST(EdgeStore, ParallelFillEqualsSequential) {
  std::mt19937_64 rng(3);
  EdgeStore seq(kMaxArcs), par(kMaxArcs);
  StateId next = 0;
  for (int batch = 0; batch < 6; ++batch) {
    next += static_cast<StateId>(rng() % 3);  // sometimes a skipped source
    const auto rows = random_rows(rng, next, 5000 + batch * 3000);
    std::vector<uint32_t> sizes(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      sizes[i] = par.encoded_size(next + static_cast<StateId>(i), rows[i]);
      add_row(seq, next + static_cast<StateId>(i), rows[i]);
    }
    par.add(next, sizes);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {  // interleaved, last to first
        for (size_t i = rows.size(); i-- > 0;)
          if (i % 4 == t) par.encode(next + static_cast<StateId>(i), rows[i]);
      });
    for (auto& th : threads) th.join();
    next += static_cast<StateId>(rows.size());
  }
  ASSERT_EQ(par.rows(), seq.rows());
  for (StateId s = 0; s < seq.rows(); ++s) ASSERT_EQ(by_range(par, s), by_range(seq, s)) << s;
}

TEST(EdgeStore, GraphSetEdgesSortsAndCounts) {
  // StateGraph over the store: set_edges keeps rows sorted and distinct,
  // num_edges counts them, expanded() tells rows from unexpanded states.
  hashing::StateLayout layout;
  layout.num_arcs = 3;
  engine::StateGraph g(layout);
  std::vector<Edge> row = {Edge(9, 1, true), Edge(2, kIdleArc, false), Edge(9, 1, true), Edge(9, 0, true)};
  g.set_edges(0, row);
  g.set_edges(2, {});
  sort_unique(row);
  std::vector<Edge> got;
  for (const Edge& e : g.edges(0)) got.push_back(e);
  EXPECT_EQ(got, row);
  EXPECT_EQ(g.num_edges(), 3u);
  EXPECT_TRUE(g.expanded(1));
  EXPECT_TRUE(g.edges(1).empty());
  EXPECT_TRUE(g.expanded(2));
  EXPECT_FALSE(g.expanded(3));
  EXPECT_TRUE(std::ranges::equal(g.edges(0), row));
  EXPECT_GT(g.memory_bytes(), 0u);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
namespace {

// In a process whose address space is then capped, a batch whose second
// row needs a chunk of 1 GiB cannot be allocated: add() throws
// std::bad_alloc, and every row, the row count and the memory are as
// before; the store then takes more rows. Returns the exit code.
int failed_add_child() {
  std::mt19937_64 rng(5);
  EdgeStore s(kMaxArcs);
  const auto rows = random_rows(rng, 0, 3000);
  for (size_t i = 0; i < rows.size(); ++i) add_row(s, static_cast<StateId>(i), rows[i]);
  const uint64_t bytes = s.memory_bytes();
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t cap = static_cast<rlim_t>(pages) * 4096 + (rlim_t{256} << 20);
  const rlimit lim{cap, cap};
  if (setrlimit(RLIMIT_AS, &lim) != 0) return 2;
  const std::vector<uint32_t> sizes = {100, 1u << 30, 3};
  bool threw = false;
  try {
    s.add(3002, sizes);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  if (!threw) return 3;
  bool same = s.rows() == 3000 && s.memory_bytes() == bytes;
  for (size_t i = 0; same && i < rows.size(); ++i) same = by_range(s, static_cast<StateId>(i)) == rows[i];
  const std::vector<Edge> more = {Edge(1, 1, true)};
  add_row(s, 3000, more);
  same = same && s.rows() == 3001 && by_range(s, 3000) == more && by_range(s, 2999) == rows[2999];
  return same ? 0 : 1;
}

}  // namespace

TEST(EdgeStoreDeathTest, FailedAddLeavesTheStoreAsItWas) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(failed_add_child()), ::testing::ExitedWithCode(0), "");
}
#endif
