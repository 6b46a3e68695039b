// engine::EdgeStore, the compressed edges of the state graph: every edge list
// comes back as it was written (sorted, distinct), through the range and
// through the cursor, whatever its targets and labels, however the rows were
// added (one by one, in batches, skipping sources, filled from several
// threads), wherever they fall against the index's blocks of 64 rows and
// the 1 MiB chunks; the index takes about 4.1 bytes a row; and a failed
// allocation, or rows the index cannot hold, leave the store as it was.
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
      case 0: t = std::min(kMaxId, source + rng() % 64 - std::min<StateId>(source, 32)); break;
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

// In a store without arcs (1-bit labels), a row of `bytes` bytes: the idle
// self-loop, then the next targets one by one, one byte each.
std::vector<Edge> row_of_size(StateId source, size_t bytes) {
  std::vector<Edge> v;
  v.reserve(bytes);
  for (size_t i = 0; i < bytes; ++i) v.emplace_back(source + static_cast<StateId>(i), kIdleArc, true);
  return v;
}

// Every row reads back, through the range and the cursor, in its size.
void expect_rows(const EdgeStore& s, const std::vector<std::vector<Edge>>& rows) {
  ASSERT_EQ(s.rows(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto src = static_cast<StateId>(i);
    ASSERT_EQ(s.row(src).bytes(), s.encoded_size(src, rows[i])) << "source " << i;
    ASSERT_EQ(by_range(s, src), rows[i]) << "source " << i;
    ASSERT_EQ(by_cursor(s, src), rows[i]) << "source " << i;
  }
}

using Arena = engine::ChunkedArena<uint8_t>;
constexpr uint64_t kChunk = Arena::kChunk;

// Row sizes that put rows (of 0 arcs: row_of_size) where the index has its
// edge cases: over block boundaries (every 64 rows), filling a chunk to the
// byte, starting a new chunk, larger than a chunk (several chunk slots) and
// followed by small rows, empty at a block boundary and at a chunk start.
// The sizes' layout is checked with the arena's own arithmetic.
std::vector<size_t> edge_case_sizes() {
  std::vector<size_t> z(100, 1000);  // rows 0..99, over the boundary at 64
  z.push_back(kChunk - 100 * 1000);  // 100: fills chunk 0 to the byte
  z.push_back(0);                    // 101: empty, at the start of chunk 1 (not allocated yet)
  z.push_back(500);                  // 102: there
  z.resize(128, 10);                 // 103..127
  z.push_back(0);                    // 128: empty, first of block 2, before...
  z.push_back(kChunk - 500);         // 129: ... a row starting chunk 2 (the rest of 1 is too small)
  z.push_back(3 * kChunk + kChunk / 2);  // 130: larger than a chunk: chunk slots 3..6
  z.push_back(0);                    // 131: empty, after it (at chunk 7, not allocated yet)
  z.push_back(5);                    // 132: small, in chunk 7
  z.resize(191, 7);                  // 133..190
  z.push_back(kChunk + 1);           // 191: the last of block 2, two chunk slots (8, 9)
  z.push_back(0);                    // 192: empty, first of block 3, at the start of chunk 10
  z.push_back(kChunk);               // 193: a whole chunk, exactly
  z.resize(260, 3);                  // 194..259: over the boundary at 256
  z.push_back(kChunk / 2);           // 260
  z.push_back(kChunk / 2 + 1);       // 261: starts chunk 12
  z.resize(400, 1);
  return z;
}

// Where those rows begin, as the store places them.
std::vector<uint64_t> begins_of(const std::vector<size_t>& sizes) {
  std::vector<uint64_t> at;
  uint64_t end = 0;
  for (size_t n : sizes) {
    const Arena::Run r = Arena::fit(end, n);
    at.push_back(r.begin);
    end = r.end;
  }
  return at;
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

namespace {

// Encodes `row` of `src` with the code alone and decodes it back.
void expect_code_round_trip(const EdgeStore& code, StateId src, const std::vector<Edge>& row) {
  const uint32_t size = code.encoded_size(src, row);
  std::vector<uint8_t> buf(size);
  ASSERT_EQ(code.write_row(src, row, buf.data()), buf.data() + size);
  const EdgeStore::Row r(buf.data(), buf.data() + size, src, code.label_bits());
  ASSERT_TRUE(std::ranges::equal(r, row)) << "source " << src;
}

}  // namespace

TEST(EdgeStore, CodeRoundTripsAtAnySource) {
  // The store holds an offset per source from 0, so sources near 2^32 are
  // tried on the code alone.
  std::mt19937_64 rng(8);
  const EdgeStore code(kMaxArcs);
  for (StateId base : {StateId{0}, StateId{1} << 31, kMaxId - 500}) {
    for (StateId src = base; src < base + 500; ++src) {
      const auto row = random_row(rng, src, src % 50 == 0 ? 300 : 12);
      expect_code_round_trip(code, src, row);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(EdgeStore, CodeRoundTripsWithIdsPast2To32) {
  // State ids are 64-bit: rows of sources past 2^32, 2^40 and 2^51, with
  // targets near them and below 2^32 (deltas up to 2^51 both ways: 53
  // bits zigzagged, and 11-bit labels: 64 bits).
  std::mt19937_64 rng(9);
  const EdgeStore code(1000);
  for (StateId base : {(StateId{1} << 32) - 250, StateId{1} << 40, StateId{1} << 51}) {
    for (StateId src = base; src < base + 500; ++src) {
      auto row = random_row(rng, src, src % 50 == 0 ? 300 : 12, 1000);
      for (size_t i = 0; i < row.size(); i += 2) row[i].target = src + rng() % 1000 - 500;  // near the source
      sort_unique(row);
      expect_code_round_trip(code, src, row);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(EdgeStore, TargetsTooFarForTheirLabelsAreRefused) {
  // 31-bit labels leave 33 bits for the delta: a target 2^40 states away
  // is refused, never cut.
  const EdgeStore code(kMaxArcs);
  const std::vector<Edge> row = {Edge(0, 1, true)};
  EXPECT_THROW((void)code.encoded_size(StateId{1} << 40, row), std::length_error);
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

TEST(EdgeStore, EdgeCasesOfTheIndex) {
  const std::vector<size_t> sizes = edge_case_sizes();
  const std::vector<uint64_t> at = begins_of(sizes);
  // The layout is the one described.
  EXPECT_EQ(at[101], kChunk);
  EXPECT_EQ(at[102], kChunk);
  EXPECT_EQ(at[129], 2 * kChunk);
  EXPECT_EQ(at[130], 3 * kChunk);
  EXPECT_EQ(at[131], 7 * kChunk);
  EXPECT_EQ(at[132], 7 * kChunk);
  EXPECT_EQ(at[191], 8 * kChunk);
  EXPECT_EQ(at[192], 10 * kChunk);
  EXPECT_EQ(at[194], 11 * kChunk);
  EXPECT_EQ(at[261], 12 * kChunk);
  std::vector<std::vector<Edge>> rows;
  for (size_t i = 0; i < sizes.size(); ++i) rows.push_back(row_of_size(static_cast<StateId>(i), sizes[i]));
  EdgeStore s(0);
  std::vector<uint32_t> sz;
  for (size_t i = 0; i < rows.size(); ++i) sz.push_back(s.encoded_size(static_cast<StateId>(i), rows[i]));
  ASSERT_EQ(std::vector<size_t>(sz.begin(), sz.end()), sizes);
  s.add(0, sz);
  for (size_t i = 0; i < rows.size(); ++i) s.encode(static_cast<StateId>(i), rows[i]);
  expect_rows(s, rows);
  // The rows take 13 chunk slots: 7 chunks of 1 MiB, and the large rows
  // one allocation each (3.5 MiB in slots 3..6, 1 MiB + 1 in 8..9).
  const uint64_t chunks = 7 * kChunk + (3 * kChunk + kChunk / 2) + (kChunk + 1);
  EXPECT_GE(s.row_bytes(), chunks);
  EXPECT_LT(s.row_bytes(), chunks + 1024);
}

TEST(EdgeStore, BatchesSkipsAndOneBatchGiveTheSameRows) {
  // The edge-case rows, then random ones, added at once and in batches of
  // 0 to 100 rows, some after skipped sources (which the one batch holds as
  // empty rows): the same rows, in the same bytes, and the same index.
  std::mt19937_64 rng(13);
  std::vector<std::vector<Edge>> rows;
  for (size_t n : edge_case_sizes()) rows.push_back(row_of_size(static_cast<StateId>(rows.size()), n));
  for (size_t i = 0; i < 20000; ++i) {
    const auto src = static_cast<StateId>(rows.size());
    rows.push_back(i % 5000 == 0 ? row_of_size(src, kChunk - 1 - rng() % 100) : random_row(rng, src, 12, 0));
  }
  std::vector<bool> skipped(rows.size(), false);
  EdgeStore one(0), many(0);
  for (size_t first = 0; first < rows.size();) {
    size_t n = 1 + rng() % 100;
    if (rng() % 5 == 0) {  // skip up to 70 sources: their rows are empty
      const size_t skip = std::min<size_t>(rng() % 70, rows.size() - first);
      for (size_t i = first; i < first + skip; ++i) {
        rows[i].clear();
        skipped[i] = true;
      }
      first += skip;
    }
    n = std::min(n, rows.size() - first);
    std::vector<uint32_t> sizes;
    for (size_t i = first; i < first + n; ++i) sizes.push_back(many.encoded_size(static_cast<StateId>(i), rows[i]));
    many.add(static_cast<StateId>(first), sizes);
    for (size_t i = first; i < first + n; ++i) many.encode(static_cast<StateId>(i), rows[i]);
    first += n;
  }
  std::vector<uint32_t> sizes;
  for (size_t i = 0; i < rows.size(); ++i) sizes.push_back(one.encoded_size(static_cast<StateId>(i), rows[i]));
  one.add(0, sizes);
  for (size_t i = 0; i < rows.size(); ++i) one.encode(static_cast<StateId>(i), rows[i]);
  ASSERT_GT(std::count(skipped.begin(), skipped.end(), true), 1000);
  expect_rows(many, rows);
  for (size_t i = 0; i < many.rows(); ++i) {
    const auto src = static_cast<StateId>(i);
    ASSERT_TRUE(std::ranges::equal(one.row(src), many.row(src))) << i;
  }
  EXPECT_EQ(one.index_bytes(), many.index_bytes());
}

TEST(EdgeStore, IndexTakesAbout4BytesPerRow) {
  // Per 64 rows one 8-byte base and 64 4-byte offsets: 4.125 B per row,
  // and a little more while the last chunk of the index is not full.
  EdgeStore s(0);
  EXPECT_EQ(s.index_bytes(), 0u);
  constexpr StateId kRows = 1000000;
  std::vector<uint32_t> sizes(5000);
  for (StateId first = 0; first < kRows; first += static_cast<StateId>(sizes.size())) {
    for (size_t i = 0; i < sizes.size(); ++i) sizes[i] = (first + i) % 4;
    s.add(first, sizes);
  }
  ASSERT_EQ(s.rows(), kRows);
  const double per_row = double(s.index_bytes()) / kRows;
  EXPECT_GE(per_row, 4.125);
  EXPECT_LE(per_row, 4.2);
  // The rows take 1.5 bytes each: 2 chunks and their table.
  EXPECT_EQ(s.row(kRows - 1).bytes(), 3u);
  EXPECT_GE(s.row_bytes(), 2 * kChunk);
  EXPECT_LT(s.row_bytes(), 2 * kChunk + 1024);
}

TEST(EdgeStore, RefusesBlocksSpanning4GiB) {
  // Offsets within a block take 32 bits: rows that would need more are
  // refused before anything changes (nothing is allocated: the plan is
  // arithmetic).
  std::mt19937_64 rng(17);
  EdgeStore s(kMaxArcs);
  const auto rows = random_rows(rng, 0, 70);
  for (size_t i = 0; i < rows.size(); ++i) add_row(s, static_cast<StateId>(i), rows[i]);
  const uint64_t bytes = s.memory_bytes();
  const std::vector<uint32_t> two_large = {0xfffffff0u, 100};  // the second begins 4 GiB past the block's base
  const std::vector<uint32_t> ends_past = {10, 0xfffffff0u};   // the second starts a chunk and ends past 4 GiB
  EXPECT_THROW(s.add(128, two_large), std::length_error);
  EXPECT_THROW(s.add(70, ends_past), std::length_error);
  EXPECT_THROW(s.add(75, std::vector<uint32_t>(60, 1u << 27)), std::length_error);  // 32 rows of 128 MiB do it
  EXPECT_EQ(s.rows(), 70u);
  EXPECT_EQ(s.memory_bytes(), bytes);
  expect_rows(s, rows);
  const std::vector<Edge> more = {Edge(3, 1, true)};
  add_row(s, 70, more);
  EXPECT_EQ(by_range(s, 70), more);
  EXPECT_EQ(by_range(s, 69), rows[69]);
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
  // Then a row that starts a new chunk: the row before it now ends at the
  // used end of its chunk, which the failed add had moved (100 bytes) and
  // rolled back.
  std::vector<Edge> big;  // 5 bytes an edge (31 label bits): not in the rest of the chunk
  for (StateId t = 0; t < 209000; ++t) big.emplace_back(5000 + t, 1, true);
  add_row(s, 3000, big);
  same = same && s.rows() == 3001 && by_range(s, 3000) == big;
  // Again, the batch's first row starting a new chunk: the end of the last
  // row, kept in the slot of the next, is overwritten, then restored; the
  // chunk allocated for that row is freed (the table of chunks may have
  // grown).
  const uint64_t bytes_before = s.memory_bytes();
  threw = false;
  try {
    s.add(3001, std::vector<uint32_t>{1u << 20, 1u << 30});
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  same = same && threw && s.rows() == 3001 && by_range(s, 3000) == big && s.memory_bytes() < bytes_before + 1024;
  const std::vector<Edge> more = {Edge(1, 1, true)};
  add_row(s, 3001, more);
  same = same && s.rows() == 3002 && by_range(s, 3001) == more && by_range(s, 3000) == big;
  for (size_t i = 0; same && i < rows.size(); ++i) same = by_range(s, static_cast<StateId>(i)) == rows[i];
  return same ? 0 : 1;
}

}  // namespace

TEST(EdgeStoreDeathTest, FailedAddLeavesTheStoreAsItWas) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(failed_add_child()), ::testing::ExitedWithCode(0), "");
}
#endif
