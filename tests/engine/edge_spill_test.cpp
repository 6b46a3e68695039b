// The edge rows on disk (EdgeStore::spill_to, engine/spill_file.hpp): rows
// spilled in batches as they are added, and the rest at the end, read back
// exactly as the same rows kept in memory, with the edge cases of the index
// (rows filling a chunk, longer than a chunk, empty ones) among them; a
// file that cannot be written (a file-size limit) stops the spilling, not
// the store. And a whole StateGraph's roots, labels and edges read back
// after end_exploration() as in a graph kept in memory.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <random>
#include <vector>

#include "engine/edge_store.hpp"
#include "engine/spill_file.hpp"
#include "engine/state_graph.hpp"
#include "tests/test_support.hpp"

namespace ddsmc::engine {
namespace {

constexpr uint32_t kArcs = 40;
constexpr uint64_t kChunk = ChunkedArena<uint8_t>::kChunk;

// Rows for sources [0, n): mostly about ten edges, one in 500 empty, one
// (source `huge`) longer than a chunk.
std::vector<std::vector<Edge>> rows_for(size_t n, size_t huge, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Edge>> rows(n);
  for (size_t s = 0; s < n; ++s) {
    if (s % 500 == 7) continue;
    const size_t k = s == huge ? 400000 : 1 + rng() % 20;
    for (size_t i = 0; i < k; ++i) {
      const uint32_t arc = static_cast<uint32_t>(rng() % (kArcs + 1));
      rows[s].emplace_back(rng() % (4 * n), arc == kArcs ? kIdleArc : arc, rng() & 1);
    }
    std::sort(rows[s].begin(), rows[s].end(),
              [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
    rows[s].erase(std::unique(rows[s].begin(), rows[s].end()), rows[s].end());
  }
  return rows;
}

// Adds the rows in batches of `batch` (each add() then its encodes), as the
// exploration's slices do.
void fill(EdgeStore& s, const std::vector<std::vector<Edge>>& rows, size_t batch) {
  for (size_t first = 0; first < rows.size(); first += batch) {
    const size_t last = std::min(rows.size(), first + batch);
    std::vector<uint32_t> sizes;
    for (size_t i = first; i < last; ++i) sizes.push_back(s.encoded_size(static_cast<StateId>(i), rows[i]));
    s.add(static_cast<StateId>(first), sizes);
    for (size_t i = first; i < last; ++i) s.encode(static_cast<StateId>(i), rows[i]);
  }
}

void expect_rows(const EdgeStore& s, const std::vector<std::vector<Edge>>& rows) {
  ASSERT_EQ(s.rows(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto src = static_cast<StateId>(i);
    std::vector<Edge> got(s.row(src).begin(), s.row(src).end());
    ASSERT_EQ(got, rows[i]) << "source " << i;
    std::vector<Edge> cursor;
    EdgeCursor c;
    for (Edge e; s.next(src, c, e);) cursor.push_back(e);
    ASSERT_EQ(cursor, rows[i]) << "source " << i;
  }
}

TEST(EdgeSpill, SpilledRowsReadBackAsInMemory) {
  const auto rows = rows_for(300000, 123456, 5);
  EdgeStore memory(kArcs), disk(kArcs);
  auto file = std::make_shared<SpillFile>(test::temp_dir());
  disk.spill_to(file);
  fill(memory, rows, 5000);
  fill(disk, rows, 5000);
  // Batches went while the rows were added: the disk store holds at most
  // the last few chunks in memory.
  EXPECT_GT(disk.disk_bytes(), 0u);
  EXPECT_LT(disk.row_bytes(), memory.row_bytes());
  expect_rows(disk, rows);
  disk.spill_rest();
  // Every chunk moved: what stays is the table of chunks, the same in both.
  EXPECT_EQ(disk.disk_bytes() + disk.row_bytes(), memory.row_bytes());
  EXPECT_LT(disk.row_bytes(), kChunk);  // only the table of chunks
  EXPECT_TRUE(disk.spill_error().empty()) << disk.spill_error();
  EXPECT_GE(file->bytes(), memory.row_bytes() - memory.row_bytes() / 4);
  expect_rows(disk, rows);
  expect_rows(memory, rows);
  // Nothing can be added after spill_rest() into its last, now read-only,
  // chunk.
  const uint32_t size = disk.encoded_size(static_cast<StateId>(rows.size()), {});
  EXPECT_THROW(disk.add(static_cast<StateId>(rows.size()), {&size, 1}), std::logic_error);
}

TEST(EdgeSpill, MappedPagesReleasedStillReadBack) {
  const auto rows = rows_for(100000, 99999999, 6);
  EdgeStore disk(kArcs);
  disk.spill_to(std::make_shared<SpillFile>(test::temp_dir()));
  fill(disk, rows, 7000);
  disk.spill_rest();
  ASSERT_TRUE(SpillFile::any_mapped());
  expect_rows(disk, rows);
  SpillFile::release_all();  // (what the memory watch does while readers read)
  expect_rows(disk, rows);
}

TEST(EdgeSpill, AFileSizeLimitStopsTheSpillingNotTheStore) {
  // `ulimit -f` at 3 MiB: the first batch (4 chunks) cannot be written. The
  // rows stay in memory and read back; the error names the directory.
  rlimit had{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &had), 0);
  const std::string dir = test::temp_dir();
  auto file = std::make_shared<SpillFile>(dir);  // (ignores SIGXFSZ from now on)
  rlimit low = had;
  low.rlim_cur = 3 << 20;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &low), 0);
  const auto rows = rows_for(300000, 42, 7);
  EdgeStore disk(kArcs);
  disk.spill_to(file);
  fill(disk, rows, 5000);
  disk.spill_rest();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &had), 0);
  EXPECT_FALSE(disk.spilling());
  EXPECT_NE(disk.spill_error().find(dir), std::string::npos) << disk.spill_error();
  EXPECT_NE(disk.spill_error().find("File too large"), std::string::npos) << disk.spill_error();
  EXPECT_EQ(disk.disk_bytes(), 0u);
  expect_rows(disk, rows);
}

TEST(EdgeSpill, ScratchDirectoriesDescribedOrRefused) {
  const ScratchInfo info = describe_scratch(test::temp_dir());
  EXPECT_FALSE(info.filesystem.empty());
  EXPECT_GT(info.free_bytes, 0u);
  EXPECT_THROW(describe_scratch("/nonexistent/ddsmc-scratch"), SpillError);
  EXPECT_THROW(describe_scratch(test::temp_file("x", ".txt")), SpillError);  // a file, not a directory
  EXPECT_THROW(SpillFile("/nonexistent/ddsmc-scratch"), SpillError);
  EXPECT_THROW(SpillFile("/proc"), SpillError);  // no files can be made there, even by root
}

TEST(GraphSpill, RootsLabelsAndEdgesReadBackAfterTheExploration) {
  // 1.5 M states in batches as slices commit them: roots (6 MiB) and labels
  // (45 bits each, 8 MiB) pass the 4 MiB batches while states are added;
  // end_exploration() moves the rest. Everything reads back as in a graph
  // kept in memory, and adding after the end is refused.
  hashing::StateLayout layout;
  layout.num_nodes = 9;
  layout.num_arcs = 36;
  StateGraph memory(layout), disk(layout);
  disk.spill_to(std::make_shared<SpillFile>(test::temp_dir()));
  std::mt19937_64 rng(9);
  constexpr size_t kStates = 1500000, kBatch = 40000;
  std::vector<uint64_t> labels(kStates);
  std::vector<uint32_t> roots(kStates);
  std::vector<std::vector<Edge>> rows(kStates);
  for (size_t first = 0; first < kStates; first += kBatch) {
    const size_t n = std::min(kBatch, kStates - first);
    for (StateGraph* g : {&memory, &disk}) {
      ASSERT_EQ(g->add_states(n), first);
      std::vector<uint32_t> counts, sizes;
      for (size_t s = first; s < first + n; ++s) {
        if (g == &memory) {
          labels[s] = rng() & ((uint64_t{1} << 45) - 1);
          roots[s] = static_cast<uint32_t>(rng());
          rows[s] = {Edge(s / 2, static_cast<uint32_t>(s % 36), s & 1), Edge(s + 7, kIdleArc, true)};
        }
        g->fill_state(static_cast<StateId>(s), roots[s], &labels[s]);
        counts.push_back(static_cast<uint32_t>(rows[s].size()));
        sizes.push_back(g->edge_bytes(static_cast<StateId>(s), rows[s]));
      }
      g->add_edges(static_cast<StateId>(first), counts, sizes);
      for (size_t s = first; s < first + n; ++s) g->write_edges(static_cast<StateId>(s), rows[s]);
    }
  }
  EXPECT_GT(disk.memory().disk, 0u);
  EXPECT_LT(disk.memory().roots + disk.memory().labels, memory.memory().roots + memory.memory().labels);
  memory.end_exploration();
  disk.end_exploration();
  EXPECT_TRUE(disk.spill_error().empty()) << disk.spill_error();
  EXPECT_LT(disk.memory().roots + disk.memory().labels + disk.memory().edge_rows, 4096u);  // (tables of chunks)
  SpillFile::release_all();
  std::vector<uint64_t> a(1), b(1);
  for (StateId s = 0; s < kStates; ++s) {
    ASSERT_EQ(disk.root(s), memory.root(s)) << s;
    disk.labels(s, a.data());
    memory.labels(s, b.data());
    ASSERT_EQ(a, b) << s;
    ASSERT_TRUE(std::ranges::equal(disk.edges(s), memory.edges(s))) << s;
  }
  EXPECT_THROW(disk.add_states(1), std::logic_error);
}

}  // namespace
}  // namespace ddsmc::engine
