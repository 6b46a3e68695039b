// Checkpoints of the distributed exploration against the uninterrupted
// one-process exploration on random programs: every rank writes its part
// at a random slice boundary (the same on every rank), rank 0 the
// manifest; then every rank reads its part back, and dist::explore goes
// on from the restored shards. The resumed graph must be the one-process
// graph exactly: every rank compares the states it owns (encodings,
// labels, edges) and the figures, cut-offs and bound violations.
// Only EXPECT_*: a rank that returned early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "dist/explore.hpp"
#include "engine/checkpoint.hpp"
#include "engine/d2c/system.hpp"
#include "tests/engine/reference_support.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

// "" when local state `l` of `shard` is state `id` of the one-process graph.
std::string owned_difference(const engine::StateGraph& s, engine::StateId id, const dist::Shard& shard,
                             engine::StateId l) {
  const engine::StateGraph& d = shard.graph();
  const std::string at = "state " + std::to_string(id) + ": ";
  if (id >= s.num_states()) return at + "not in the one-process graph";
  if (d.bytes(l) != s.bytes(id)) return at + "different encoding";
  if (s.expanded(id) != d.expanded(l)) return at + "expanded in one graph only";
  auto a = s.edges(id), b = d.edges(l);
  if (!std::equal(a.begin(), a.end(), b.begin(), b.end())) return at + "different edges";
  for (uint32_t n = 0; n < s.num_nodes(); ++n)
    if (s.faulty(id, n) != d.faulty(l, n)) return at + "different fault label";
  for (uint32_t c = 0; c < s.num_arcs(); ++c)
    if (s.channel_empty(id, c) != d.channel_empty(l, c)) return at + "different channel label";
  return "";
}

TEST(DistCheckpoint, ResumedShardsGiveTheOneProcessGraph) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // One directory for all ranks: rank 0's pid names it.
  long id = static_cast<long>(getpid());
  MPI_Bcast(&id, 1, MPI_LONG, 0, comm);
  const std::string root =
      (std::filesystem::temp_directory_path() / ("ddsmc-dist-roundtrip-" + std::to_string(id))).string();
  Rng rng(20261204);  // the same programs and boundaries on every rank
  GenOptions opt;
  opt.min_input = opt.max_input = 1;
  opt.max_input_arity = 1;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  opt.min_rules = 3;
  opt.max_rules = 6;
  ProgramGenerator gen(rng, opt);
  GenOptions plain = opt;
  plain.min_input = plain.max_input = 0;
  ProgramGenerator gen_plain(rng, plain);
  const std::vector<std::string> networks = {"line:2", "ring:3", "line:3", "star:3", "ring:4"};
  int compared = 0, resumed_mid = 0;
  for (int attempt = 0; attempt < 800 && compared < 60; ++attempt) {
    const bool with_input = coin(rng, 0.45);
    const std::string text = with_input ? gen.generate_explore() : gen_plain.generate();
    model::Overrides ov;
    ov.network_spec = pick(rng, networks);
    ov.state_bound = uni(rng, 1, 2);
    ov.channel_bound = uni(rng, 1, 2);
    if (with_input) ov.input_bound = 1;
    engine::ExploreOptions eo;
    eo.threads = uni(rng, 1, 2);
    eo.on_bound = coin(rng, 0.5) ? engine::OnBound::Prune : engine::OnBound::Stop;
    eo.max_states = coin(rng, 0.3) ? uni(rng, 1, 300) : 4000;
    auto m = load_text(text, ov);
    if (!m) continue;
    engine::CompiledModel cm = engine::compile(*m);
    engine::D2cSystem system(cm);
    const engine::ExploreResult one = engine::explore(system, eo);
    if (one.incomplete_reason == "max-states" && eo.max_states == 4000) continue;
    const std::string what = "program (network " + *ov.network_spec + ", threads " + std::to_string(eo.threads) +
                             ", max-states " + std::to_string(eo.max_states) + "):\n" + text;
    ++compared;

    // How many slice boundaries the distributed run has, then the run
    // that keeps the checkpoint of a random one.
    int boundaries = 0;
    engine::ExploreOptions counting = eo;
    counting.checkpoint_due = [] { return true; };
    counting.checkpoint = [&](const engine::ExplorePoint&) { ++boundaries; };
    {
      std::unique_ptr<dist::Shard> shard;
      (void)dist::explore(system, counting, comm, shard);
    }
    EXPECT_GE(boundaries, 1) << what;
    const int keep = static_cast<int>(uni(rng, 0, static_cast<uint32_t>(std::max(boundaries, 1) - 1)));
    const std::string dir = root + "-" + std::to_string(attempt);
    int call = 0;
    engine::ExploreOptions taking = eo;
    taking.checkpoint_due = [] { return true; };
    taking.checkpoint = [&](const engine::ExplorePoint& p) {
      if (call++ != keep) return;
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
      (void)dist::explore(system, taking, comm, shard);
    }

    const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
    resumed_mid += meta.next > 0 && meta.next < one.graph.num_states();
    engine::StateGraph graph(cm.layout);
    std::vector<engine::StateId> gids;
    engine::read_checkpoint_part(dir, static_cast<uint32_t>(rank), meta, system, graph, gids);
    auto shard = std::make_unique<dist::Shard>(std::move(graph), std::move(gids));
    const dist::Resumed at{meta.pruned_states, {}, meta.seconds};
    const engine::ExploreResult many = dist::explore(system, eo, comm, shard, &at);
    MPI_Barrier(comm);
    if (rank == 0) std::filesystem::remove_all(dir);

    EXPECT_EQ(many.complete, one.complete) << what;
    EXPECT_EQ(many.incomplete_reason, one.incomplete_reason) << what;
    EXPECT_EQ(many.violating_state, one.violating_state) << what;
    EXPECT_EQ(many.violating_parent, one.violating_parent) << what;
    EXPECT_EQ(many.violation.has_value(), one.violation.has_value()) << what;
    EXPECT_EQ(many.pruned_states, one.pruned_states) << what;
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(many.num_transitions(), one.graph.num_edges()) << what;
    for (size_t l = 0; l < shard->gids().size(); ++l) {
      const std::string d = owned_difference(one.graph, shard->gids()[l], *shard, static_cast<engine::StateId>(l));
      if (!d.empty()) {
        ADD_FAILURE() << d << " (rank " << rank << ", resumed at " << meta.next << "); " << what;
        break;
      }
    }
  }
  EXPECT_EQ(compared, 60);
  EXPECT_GE(resumed_mid, 15);
  if (rank == 0)
    std::cout << "[DistCheckpoint] " << compared << " random programs resumed (" << resumed_mid
              << " mid-exploration) at " << ranks << " rank(s)\n";
}

}  // namespace
}  // namespace ddsmc
