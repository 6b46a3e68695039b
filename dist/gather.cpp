#include "dist/gather.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "dist/wire.hpp"
#include "engine/parallel.hpp"

namespace ddsmc::dist {
namespace {

using engine::Edge;
using engine::StateId;

// Ids per gather: about 10 MiB per rank at 100-byte states with 10 edges.
inline constexpr StateId kChunk = StateId{1} << 16;

// One state as rank 0 receives it.
struct Incoming {
  StateId gid = 0;
  std::vector<uint64_t> labels;
  bool expanded = false;
  std::vector<Edge> edges;
};

void write_state(const engine::StateGraph& g, StateId local, StateId gid, std::vector<uint64_t>& labels, Writer& out) {
  out.u32(gid);
  g.labels(local, labels.data());
  for (uint64_t w : labels) out.u64(w);
  const bool expanded = g.expanded(local);
  out.u8(expanded);
  if (!expanded) return;
  uint32_t n = 0;
  for (const Edge& e : g.edges(local)) (void)e, ++n;
  out.varint(n);
  for (const Edge& e : g.edges(local)) {
    out.u32(e.target);
    out.u32(e.label);
  }
}

// The rest of a state whose id was read (into a reused Incoming).
void read_state(Reader& in, uint32_t words, Incoming& s) {
  s.labels.resize(words);
  for (auto& w : s.labels) w = in.u64();
  s.expanded = in.u8() != 0;
  s.edges.clear();
  if (!s.expanded) return;
  const uint64_t n = in.varint();
  for (uint64_t i = 0; i < n; ++i) {
    Edge e;
    e.target = in.u32();
    e.label = in.u32();
    s.edges.push_back(e);
  }
}

}  // namespace

void gather_graph(const engine::StateGraph& local, const std::vector<StateId>& gids, StateId states, MPI_Comm comm,
                  engine::ExploreResult& res) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool root = rank == 0;
  engine::StateGraph& g = res.graph;
  const uint32_t words = local.label_words();

  std::vector<uint8_t> mine, all;
  std::vector<int> sizes(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  std::vector<uint64_t> labels(words);
  std::vector<Incoming> chunk;
  std::vector<uint32_t> counts, row_bytes;
  size_t next = 0;  // the next local state to send
  for (StateId a = 0; a < states; a += std::min<StateId>(kChunk, states - a)) {
    const StateId b = a + std::min<StateId>(kChunk, states - a);
    mine.clear();
    Writer out(mine);
    for (; next < gids.size() && gids[next] < b; ++next) write_state(local, static_cast<StateId>(next), gids[next], labels, out);
    if (mine.size() > size_t{1} << 30) throw std::length_error("dist: a gather chunk over 1 GiB");
    const int size = static_cast<int>(mine.size());
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
    size_t total = 0;
    if (root) {
      for (size_t r = 0; r < sizes.size(); ++r) {
        offsets[r] = static_cast<int>(total);
        total += static_cast<size_t>(sizes[r]);
        if (total > size_t{1} << 31) throw std::length_error("dist: a gather chunk over 2 GiB");
      }
      all.resize(total);
    }
    MPI_Gatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0, comm);
    if (!root) continue;

    // Each rank's states come in id order: merge them.
    chunk.resize(b - a);
    for (Incoming& s : chunk) s.gid = engine::kNoState;
    for (int r = 0; r < ranks; ++r) {
      Reader in({all.data() + offsets[size_t(r)], size_t(sizes[size_t(r)])});
      while (!in.done()) {
        const StateId gid = in.u32();
        if (gid < a || gid >= b) throw std::logic_error("dist: a gathered state out of its chunk");
        Incoming& s = chunk[gid - a];  // its vectors keep their room from chunk to chunk
        s.gid = gid;
        read_state(in, words, s);
      }
    }
    const StateId base = g.add_states(b - a);
    if (base != a) throw std::logic_error("dist: gathered states out of order");
    for (StateId i = 0; i < b - a; ++i)
      if (chunk[i].gid != a + i) throw std::logic_error("dist: a state missing from the gather");
    engine::parallel_for(StateId{0}, b - a, 1024, [&](const tbb::blocked_range<StateId>& r) {
      for (StateId i = r.begin(); i < r.end(); ++i) g.fill_state(a + i, 0, chunk[i].labels.data());
    });
    // The expanded states are a prefix of the ids.
    StateId rows = 0;
    while (rows < b - a && chunk[rows].expanded) ++rows;
    counts.assign(rows, 0);
    row_bytes.assign(rows, 0);
    engine::parallel_for(StateId{0}, rows, 256, [&](const tbb::blocked_range<StateId>& r) {
      for (StateId i = r.begin(); i < r.end(); ++i) {
        counts[i] = static_cast<uint32_t>(chunk[i].edges.size());
        row_bytes[i] = g.edge_bytes(a + i, chunk[i].edges);
      }
    });
    if (rows) g.add_edges(a, counts, row_bytes);
    engine::parallel_for(StateId{0}, rows, 256, [&](const tbb::blocked_range<StateId>& r) {
      for (StateId i = r.begin(); i < r.end(); ++i) g.write_edges(a + i, chunk[i].edges);
    });
    all.clear();
  }

  uint64_t owned = local.num_states();
  res.rank_states.assign(static_cast<size_t>(ranks), 0);
  MPI_Allgather(&owned, 1, MPI_UINT64_T, res.rank_states.data(), 1, MPI_UINT64_T, comm);
  // The graph's memory is the shards' (the gathered copy is the interim
  // analysis's, docs/dist.md).
  const engine::StateGraph::Memory m = local.memory();
  std::array<uint64_t, 7> sum{m.tree_nodes, m.tree_leaves, m.visited, m.roots, m.labels, m.edge_rows, m.edge_index};
  MPI_Allreduce(MPI_IN_PLACE, sum.data(), 7, MPI_UINT64_T, MPI_SUM, comm);
  res.memory = {sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6]};
}

}  // namespace ddsmc::dist
