// Comparing a rank's shard with the single-process graph: the shard's rows
// name targets by handle (dist/handles.hpp), the single process's by
// global id, so the rows are translated (every rank's global ids gathered)
// and sorted again before they are compared. With a test-only id base
// (dist/id_base.hpp) the shard's global ids are the single process's + the
// base: every one must be at least the base, and is compared without it.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "dist/handles.hpp"
#include "dist/shard.hpp"
#include "tests/engine/graph_compare.hpp"

namespace ddsmc::test {

// Every rank's global ids, by rank (collective).
inline std::vector<std::vector<engine::StateId>> all_gids(const dist::Shard& shard, MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const auto n = static_cast<int>(shard.gids().size());
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<engine::StateId> flat(static_cast<size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(shard.gids().data(), n, MPI_UINT64_T, flat.data(), counts.data(), offsets.data(), MPI_UINT64_T, comm);
  std::vector<std::vector<engine::StateId>> out(static_cast<size_t>(ranks));
  for (size_t r = 0; r < out.size(); ++r)
    out[r].assign(flat.begin() + offsets[r], flat.begin() + offsets[r] + counts[r]);
  return out;
}

// "" when the shard's states (local id l = its global id gids[l] - base)
// are the single-process graph's: bytes, expansion, labels, and rows once
// their handles are translated.
inline std::string shard_difference(const engine::StateGraph& one, const dist::Shard& shard, MPI_Comm comm,
                                    engine::StateId base = 0) {
  auto gids = all_gids(shard, comm);
  if (shard.initial() != base) return "the initial state's id is not the base";
  for (auto& rank : gids)
    for (engine::StateId& gid : rank) {
      if (gid < base) return "a global id " + std::to_string(gid) + " below the base";
      gid -= base;
    }
  const dist::Handles handles{static_cast<uint32_t>(gids.size()), 0};
  const engine::StateGraph& g = shard.graph();
  for (engine::StateId l = 0; l < shard.gids().size(); ++l) {
    const engine::StateId x = shard.gids()[l] - base;
    const std::string at = "state " + std::to_string(x) + ": ";
    if (x >= one.num_states()) return at + "in one graph only";
    if (one.bytes(x) != g.bytes(l)) return at + "different bytes";
    if (one.expanded(x) != g.expanded(l)) return at + "expanded in one graph only";
    std::vector<engine::Edge> row;
    for (engine::Edge e : g.edges(l)) {
      const auto& owner = gids[static_cast<size_t>(handles.owner(e.target))];
      if (handles.local(e.target) >= owner.size()) return at + "an edge to no state";
      e.target = owner[handles.local(e.target)];
      row.push_back(e);
    }
    std::sort(row.begin(), row.end(),
              [](const engine::Edge& a, const engine::Edge& b) { return std::tie(a.target, a.label) < std::tie(b.target, b.label); });
    auto e1 = one.edges(x);
    if (!std::equal(e1.begin(), e1.end(), row.begin(), row.end())) return at + "different edges";
    if (std::string d = label_difference(one, x, g, l); !d.empty()) return d;
  }
  return "";
}

}  // namespace ddsmc::test
