// Checkpoints of the distributed exploration against the uninterrupted
// one-process exploration on random programs: every rank writes its part
// at a random slice boundary (the same on every rank), rank 0 the
// manifest; then every rank reads its part back, and dist::explore goes
// on from the restored shards. The resumed graph must be the one-process
// graph exactly: every rank compares the states it owns (encodings,
// labels, edges) and the figures, cut-offs and bound violations.
// The second test does it with a test-only id base past 2^32 added to every
// global id (dist/id_base.hpp), also resuming with another base than the
// one written with (checkpoints hold ordinary ids).
// Only EXPECT_*: a rank that returned early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <utility>

#include "dist/explore.hpp"
#include "engine/checkpoint.hpp"
#include "engine/d2c/system.hpp"
#include "tests/dist/mpi/shard_compare.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/random_checks.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

struct Tally {
  int compared = 0, resumed_mid = 0;
};

// Runs `programs` random programs of `seed`, each written at a random
// boundary by an exploration numbered from `write_base` and resumed from
// the checkpoint with `read_base` (dist/id_base.hpp: checkpoints hold
// ordinary ids, so the two may differ).
Tally roundtrip_random_programs(uint64_t seed, int programs, engine::StateId write_base, engine::StateId read_base) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // One directory for all ranks: rank 0's pid names it.
  long id = static_cast<long>(getpid());
  MPI_Bcast(&id, 1, MPI_LONG, 0, comm);
  const std::string root = (std::filesystem::temp_directory_path() /
                            ("ddsmc-dist-roundtrip-" + std::to_string(id) + "-" + std::to_string(read_base)))
                               .string();
  RandomChecks checks(seed);  // the same programs and boundaries on every rank
  Tally t;
  for (int attempt = 0; attempt < 800 && t.compared < programs; ++attempt) {
    const RandomChecks::Check c = checks.next();
    if (!c.model) continue;
    engine::CompiledModel cm = engine::compile(*c.model);
    engine::D2cSystem system(cm);
    const engine::ExploreResult one = engine::explore(system, c.eo);
    if (RandomChecks::too_big(c, one)) continue;
    const engine::ExploreOptions& eo = c.eo;
    const std::string what =
        c.what + " (id bases " + std::to_string(write_base) + ", " + std::to_string(read_base) + ")";
    ++t.compared;

    // How many slice boundaries the distributed run has, then the run
    // that keeps the checkpoint of a random one.
    int boundaries = 0;
    engine::ExploreOptions counting = eo;
    counting.checkpoint_due = [] { return true; };
    counting.checkpoint = [&](const engine::ExplorePoint&) { ++boundaries; };
    {
      std::unique_ptr<dist::Shard> shard;
      (void)dist::explore(system, counting, comm, shard, nullptr, write_base);
    }
    EXPECT_GE(boundaries, 1) << what;
    const int keep = static_cast<int>(uni(checks.rng(), 0, static_cast<uint32_t>(std::max(boundaries, 1) - 1)));
    const std::string dir = root + "-" + std::to_string(attempt);
    int call = 0;
    engine::ExploreOptions taking = eo;
    taking.checkpoint_due = [] { return true; };
    taking.checkpoint = [&](const engine::ExplorePoint& p) {
      if (call++ != keep) return;
      // (a checkpoint holds ordinary ids, whatever the base)
      for (engine::StateId gid : *p.gids) EXPECT_LT(gid, p.states) << what;
      engine::CheckpointMeta meta = engine::checkpoint_meta(p);
      meta.identity = "roundtrip";
      meta.ranks = static_cast<uint32_t>(ranks);
      meta.generation = static_cast<uint64_t>(attempt) + 1;
      engine::write_checkpoint_part(dir, static_cast<uint32_t>(rank), p, meta);
      MPI_Barrier(comm);
      if (rank == 0) engine::write_checkpoint_manifest(dir, meta);
      MPI_Barrier(comm);
    };
    {
      std::unique_ptr<dist::Shard> shard;
      (void)dist::explore(system, taking, comm, shard, nullptr, write_base);
    }

    const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
    t.resumed_mid += meta.next > 0 && meta.next < one.graph.num_states();
    engine::StateGraph graph(cm.layout);
    std::vector<engine::StateId> gids;
    engine::read_checkpoint_part(dir, static_cast<uint32_t>(rank), meta, system, graph, gids);
    auto shard = std::make_unique<dist::Shard>(std::move(graph), std::move(gids));
    const dist::Resumed at{meta.pruned_states, {}, {meta.sizes[0], meta.sizes[1], meta.sizes[2]}, meta.seconds};
    engine::ExploreResult many = dist::explore(system, eo, comm, shard, &at, read_base);
    MPI_Barrier(comm);
    if (rank == 0) std::filesystem::remove_all(dir);

    if (many.violating_state != engine::kNoState) many.violating_state -= read_base;
    if (many.violating_parent != engine::kNoState) many.violating_parent -= read_base;
    EXPECT_EQ(test::outcome_difference(one, many), "") << what;
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(many.num_transitions(), one.graph.num_edges()) << what;
    // (collective: every rank calls it)
    if (const std::string d = test::shard_difference(one.graph, *shard, comm, read_base); !d.empty())
      ADD_FAILURE() << d << " (rank " << rank << ", resumed at " << meta.next << "); " << what;
  }
  if (rank == 0)
    std::cout << "[DistCheckpoint] " << t.compared << " random programs resumed (" << t.resumed_mid
              << " mid-exploration) at " << ranks << " rank(s), id bases " << write_base << ", " << read_base << "\n";
  return t;
}

TEST(DistCheckpoint, ResumedShardsGiveTheOneProcessGraph) {
  const Tally t = roundtrip_random_programs(20261204, 60, 0, 0);
  EXPECT_EQ(t.compared, 60);
  EXPECT_GE(t.resumed_mid, 15);
}

// Issue 21: with every global id past 2^32 (dist/id_base.hpp), written and
// resumed with the same base, and resumed with another one (the files hold
// ordinary ids), on fewer programs.
TEST(DistCheckpoint, ResumedShardsWithIdsPast2To32GiveTheOneProcessGraph) {
  const engine::StateId b32 = (engine::StateId{1} << 32) + 12345, b40 = (engine::StateId{1} << 40) + 7;
  for (const auto& [write_base, read_base] : {std::pair{b32, b32}, std::pair{b32, b40}, std::pair{b40, engine::StateId{0}}}) {
    const Tally t = roundtrip_random_programs(20261204, 20, write_base, read_base);
    EXPECT_EQ(t.compared, 20);
    EXPECT_GE(t.resumed_mid, 4);
  }
}

}  // namespace
}  // namespace ddsmc
