#include "dist/analysis.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "dist/handles.hpp"
#include "dist/mailbox.hpp"
#include "dist/owcty.hpp"
#include "dist/stem.hpp"
#include "dist/mpi_types.hpp"
#include "dist/wire.hpp"
#include "engine/fair_scc.hpp"
#include "engine/lasso.hpp"
#include "engine/properties.hpp"

namespace ddsmc::dist {
namespace {

using engine::Edge;
using engine::StateId;

// What rank 0 tells the others after a step only it runs.
enum Status : int { kOk = 0, kFailed = 100 };

// Rank 0 runs `work`; every rank learns how it ended and throws alike.
template <class Work>
void on_root(MPI_Comm comm, int rank, Work&& work) {
  int status = kOk;
  std::string what;
  if (rank == 0) {
    try {
      status = static_cast<int>(stop_of(work));
    } catch (const std::exception& e) {
      status = kFailed;
      what = e.what();
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  if (status == kFailed) throw std::logic_error(rank == 0 ? what : "dist: the analysis failed on rank 0");
  if (status != kOk) throw engine::Cancelled(static_cast<engine::StopReason>(status));
}

void broadcast(std::vector<StateId>& v, MPI_Comm comm) {
  uint64_t n = v.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
  v.resize(n);
  MPI_Bcast(v.data(), static_cast<int>(n), mpi_type<StateId>(), 0, comm);
}

// H restricted to Z, on rank 0: Z's states renumbered by ascending global
// id (`gids`), with their labels and their edges into Z (the shards' rows
// name targets by handle: `by_handle` finds them).
struct ZGraph {
  explicit ZGraph(const hashing::StateLayout& layout) : graph(layout) {}
  engine::StateGraph graph;
  std::vector<StateId> gids;
  std::unordered_map<StateId, StateId> by_handle;  // handle -> index in Z
  StateId mini(StateId gid) const { return static_cast<StateId>(std::lower_bound(gids.begin(), gids.end(), gid) - gids.begin()); }
};

// This rank's states of Z: global id, handle, labels, edges.
void write_z(const Shard& shard, const engine::OwctyResult& z, const Handles& handles, std::vector<uint8_t>& out) {
  const engine::StateGraph& g = shard.graph();
  Writer w(out);
  std::vector<uint64_t> labels(g.label_words());
  for (StateId s = 0; s < g.num_states(); ++s) {
    if (!(z.flags[s] & engine::kSurvives)) continue;
    w.varint(shard.gids()[s]);
    w.varint(handles.of(s));
    g.labels(s, labels.data());
    for (uint64_t x : labels) w.u64(x);
    uint32_t n = 0;
    for (const Edge& e : g.edges(s)) (void)e, ++n;
    w.varint(n);
    for (const Edge& e : g.edges(s)) {
      w.varint(e.target);
      w.u32(e.label);
    }
  }
}

// Every rank's states of Z, on rank 0 (collective).
std::vector<uint8_t> gather_z(const Shard& shard, const engine::OwctyResult& z, MPI_Comm comm, int rank) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const Handles handles{static_cast<uint32_t>(ranks), static_cast<uint32_t>(rank)};
  std::vector<uint8_t> mine;
  agree_on_stop(comm, stop_of([&] { write_z(shard, z, handles, mine); }));
  std::vector<uint64_t> sizes(static_cast<size_t>(ranks));
  const uint64_t size = mine.size();
  MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm);
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  if (total > (uint64_t{1} << 31) - 1) throw std::length_error("dist: the survivors Z take over 2 GiB");
  std::vector<uint8_t> all;
  agree_on_stop(comm, stop_of([&] { all.resize(rank == 0 ? total : 0); }));
  std::vector<int> counts(sizes.begin(), sizes.end()), offsets(sizes.size(), 0);
  for (size_t r = 1; r < offsets.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  MPI_Gatherv(mine.data(), static_cast<int>(size), MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              comm);
  return all;
}

// H restricted to Z from the gathered bytes (rank 0).
void build_z(const std::vector<uint8_t>& all, uint32_t words, ZGraph& out) {
  struct Entry {
    StateId gid, handle;
    std::vector<uint64_t> labels;
    std::vector<Edge> edges;
  };
  std::vector<Entry> entries;
  Reader in(all);
  while (!in.done()) {
    Entry e;
    e.gid = in.varint();
    e.handle = in.varint();
    e.labels.resize(words);
    for (auto& x : e.labels) x = in.u64();
    const uint64_t n = in.varint();
    for (uint64_t i = 0; i < n; ++i) {
      Edge edge;
      edge.target = in.varint();
      edge.label = in.u32();
      e.edges.push_back(edge);
    }
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.gid < b.gid; });
  for (const Entry& e : entries) {
    out.by_handle.emplace(e.handle, static_cast<StateId>(out.gids.size()));
    out.gids.push_back(e.gid);
  }
  const StateId first = out.graph.add_states(entries.size());
  std::vector<uint32_t> counts_in_z, bytes;
  std::vector<std::vector<Edge>> rows(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    out.graph.fill_state(first + static_cast<StateId>(i), 0, entries[i].labels.data());
    for (const Edge& e : entries[i].edges)
      if (auto it = out.by_handle.find(e.target); it != out.by_handle.end()) {
        Edge m = e;
        m.target = it->second;
        rows[i].push_back(m);
      }
    std::sort(rows[i].begin(), rows[i].end(), [](const Edge& x, const Edge& y) {
      return std::tie(x.target, x.label) < std::tie(y.target, y.label);  // (by handle before)
    });
    counts_in_z.push_back(static_cast<uint32_t>(rows[i].size()));
    bytes.push_back(out.graph.edge_bytes(static_cast<StateId>(i), rows[i]));
  }
  if (!entries.empty()) out.graph.add_edges(0, counts_in_z, bytes);
  for (size_t i = 0; i < rows.size(); ++i) out.graph.write_edges(static_cast<StateId>(i), rows[i]);
}

class Analysis {
 public:
  Analysis(const Shard& shard, const hashing::StateLayout& layout, engine::Fairness f, engine::Cancellation& cancel,
           MPI_Comm comm)
      : shard_(shard), layout_(layout), f_(f), cancel_(cancel), comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
  }

  // True (on every rank) when H has a fair SCC; its lasso goes to `lasso` on rank 0.
  bool find_fair_scc(const engine::Subgraph& h, engine::AnalysisStats& stats, std::optional<engine::Lasso>& lasso) {
    ++stats.subgraphs;
    engine::OwctyResult z = owcty(shard_, h, f_, cancel_, comm_);
    stats.rounds += z.rounds;
    stats.passes += z.passes;
    stats.survivors += z.survivors;
    if (z.survivors == 0) return false;

    // Rank 0: the first qualifying SCC of H[Z], as the single-process search finds it.
    ZGraph zg(layout_);
    std::vector<uint8_t> gathered = gather_z(shard_, z, comm_, rank_);
    z.flags = {};
    engine::Subgraph inside = h;
    inside.keep_state = [](StateId) { return true; };
    inside.roots_everywhere = true;
    std::optional<engine::FairScc> scc;
    std::vector<StateId> members;
    on_root(comm_, rank_, [&] {
      build_z(gathered, shard_.graph().label_words(), zg);
      gathered = {};
      scc = engine::first_fair_scc(zg.graph, inside, f_);
      if (!scc) throw std::logic_error("analysis: the OWCTY fixpoint is not empty but holds no fair SCC");
      for (StateId m : scc->members) members.push_back(zg.gids[m]);
      std::sort(members.begin(), members.end());
    });
    broadcast(members, comm_);

    // The stem over the ranks, then (rank 0) the cycle inside the SCC.
    engine::Path stem = stem_path(shard_, engine::stem_states_of(h), members, cancel_, comm_);
    if (rank_ != 0) return true;
    std::vector<char> in_scc(zg.graph.num_states(), 0);
    engine::Path cycle = engine::build_cycle(zg.graph, inside, scc->members, scc->targets, zg.mini(stem.states.back()),
                                             in_scc, std::move(scc->buffer));
    for (StateId& s : cycle.states) s = zg.gids[s];
    for (Edge& e : cycle.edges) e.target = zg.gids[e.target];
    lasso = engine::join_lasso(stem, cycle);
    return true;
  }

  std::vector<char> ever_faulty_nodes() {
    const engine::StateGraph& g = shard_.graph();
    std::vector<int> seen(g.num_nodes(), 0);
    const engine::StopReason stop = stop_of([&] {
      for (StateId s = 0; s < g.num_states(); ++s) {
        if ((s & 1023) == 0) cancel_.poll();
        if (g.any_faulty(s))
          for (uint32_t n = 0; n < g.num_nodes(); ++n) seen[n] |= g.faulty(s, n);
      }
    });
    agree_on_stop(comm_, stop);
    MPI_Allreduce(MPI_IN_PLACE, seen.data(), static_cast<int>(seen.size()), MPI_INT, MPI_MAX, comm_);
    return std::vector<char>(seen.begin(), seen.end());
  }

 private:
  const Shard& shard_;
  const hashing::StateLayout& layout_;
  engine::Fairness f_;
  engine::Cancellation& cancel_;
  MPI_Comm comm_;
  int rank_ = 0;
};

}  // namespace

engine::Verdict analyze(const Shard& shard, const hashing::StateLayout& layout, engine::Property p,
                        engine::Fairness f, bool complete, engine::Cancellation& cancel, MPI_Comm comm) {
  Analysis a(shard, layout, f, cancel, comm);
  auto ever_faulty = [&] { return a.ever_faulty_nodes(); };
  auto find = [&](const engine::Subgraph& h, engine::AnalysisStats& stats, std::optional<engine::Lasso>& lasso) {
    return a.find_fair_scc(h, stats, lasso);
  };
  return engine::decide(shard.graph(), p, complete, cancel, ever_faulty, find);
}

std::vector<StateId> bfs_tree_path(const Shard& shard, StateId target, StateId target_parent,
                                   engine::Cancellation& cancel, MPI_Comm comm) {
  // The BFS tree's parent of a state is the least source with an edge to
  // it, which lies in the level before it: the stem rule's parent.
  const StateId goal = target_parent != engine::kNoState ? target_parent : target;
  engine::Path p = stem_path(shard, nullptr, {goal}, cancel, comm);
  if (goal != target) p.states.push_back(target);
  return p.states;
}

}  // namespace ddsmc::dist
