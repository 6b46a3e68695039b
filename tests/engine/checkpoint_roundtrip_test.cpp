// Resumed against uninterrupted explorations on random programs (the
// generator of the reference differential tests): a checkpoint taken at a
// random slice boundary, read back into a fresh graph and explored on
// (engine::explore_from), must give exactly the uninterrupted graph:
// every state's encoding, labels and edges, the cut-offs, the bound
// violation and the figures. Taking checkpoints must not change the run
// that takes them either.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <cstdio>
#include <filesystem>

#include "engine/checkpoint.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "model/load.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/random_checks.hpp"
#include "tests/test_support.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

// Runs `eo` with a checkpoint at every slice boundary; writes the one at
// boundary `keep` (if any) to dir. Returns the number of boundaries.
int explore_with_checkpoint(const engine::System& system, engine::ExploreOptions eo, int keep,
                            const std::string& dir, uint64_t generation) {
  int call = 0;
  eo.checkpoint_due = [] { return true; };
  eo.checkpoint = [&](const engine::ExplorePoint& p) {
    if (call++ != keep) return;
    engine::CheckpointMeta meta = engine::checkpoint_meta(p);
    meta.identity = "roundtrip";
    meta.generation = generation;
    engine::write_checkpoint_part(dir, 0, p, meta);
    engine::write_checkpoint_manifest(dir, meta);
  };
  const engine::ExploreResult r = engine::explore(system, eo);
  (void)r;
  return call;
}

TEST(CheckpointRoundTrip, ResumedExplorationsEqualUninterruptedOnes) {
  RandomChecks checks(20261203);
  const std::string root = ddsmc::test::temp_dir() + "/roundtrip";
  int compared = 0, resumed_mid = 0, cut = 0, bound = 0;
  for (int attempt = 0; attempt < 1000 && compared < 120; ++attempt) {
    const RandomChecks::Check c = checks.next();
    if (!c.model) continue;
    engine::CompiledModel cm = engine::compile(*c.model);
    engine::D2cSystem system(cm);
    const engine::ExploreResult one = engine::explore(system, c.eo);
    if (RandomChecks::too_big(c, one)) continue;
    ++compared;
    cut += one.incomplete_reason == "max-states";
    bound += one.violation.has_value();

    // A checkpoint at a random slice boundary (taking them changes nothing).
    const std::string dir = root + "-" + std::to_string(attempt);
    const int boundaries = explore_with_checkpoint(system, c.eo, -1, dir, 0);
    ASSERT_GE(boundaries, 1) << c.what;
    const int keep = static_cast<int>(uni(checks.rng(), 0, static_cast<uint32_t>(boundaries - 1)));
    explore_with_checkpoint(system, c.eo, keep, dir, static_cast<uint64_t>(attempt) + 1);

    const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
    resumed_mid += meta.next > 0 && meta.next < one.graph.num_states();
    engine::ExploreResult resumed(cm.layout);
    std::vector<engine::StateId> gids;
    engine::read_checkpoint_part(dir, 0, meta, system, resumed.graph, gids);
    ASSERT_EQ(gids.size(), resumed.graph.num_states()) << c.what;
    for (size_t i = 0; i < gids.size(); ++i) ASSERT_EQ(gids[i], i) << c.what;
    resumed.pruned_states = meta.pruned_states;
    resumed.sizes = {meta.sizes[0], meta.sizes[1], meta.sizes[2]};
    engine::explore_from(system, c.eo, resumed, static_cast<engine::StateId>(meta.next));
    std::filesystem::remove_all(dir);
    EXPECT_EQ(test::result_difference(one, resumed), "") << "resumed at " << meta.next << "; " << c.what;
  }
  EXPECT_EQ(compared, 120);
  // The sample covers what it should.
  EXPECT_GE(resumed_mid, 30);
  EXPECT_GE(cut, 5);
  EXPECT_GE(bound, 3);
  std::printf("%d programs, %d resumed mid-exploration, %d cut by max-states, %d bound violations\n", compared,
              resumed_mid, cut, bound);
}


// A restore into a store with room for 64 tree nodes grows it many times
// while the workers intern (the batch is redone with its states not done
// yet, engine/redo.hpp): the restored graph, explored on, is the
// uninterrupted one, at one thread and two.
TEST(CheckpointRoundTrip, RestoreGrowsATinyStore) {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = "ring:5";
  auto m = model::load_model(test::source_path("examples/flooding.d2c"), ov, diag);
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  engine::D2cSystem system(cm);
  engine::ExploreOptions eo;
  const engine::ExploreResult one = engine::explore(system, eo);
  const std::string dir = ddsmc::test::temp_dir() + "/tiny-store";
  const int boundaries = explore_with_checkpoint(system, eo, -1, dir, 0);
  ASSERT_GE(boundaries, 2);
  explore_with_checkpoint(system, eo, boundaries - 1, dir, 1);  // the last boundary: the most states
  const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
  ASSERT_GT(meta.states, 1000u);
  for (int threads : {1, 2}) {
    engine::ExploreResult resumed(cm.layout, 64);
    std::vector<engine::StateId> gids;
    tbb::task_arena arena(threads);
    arena.execute([&] { engine::read_checkpoint_part(dir, 0, meta, system, resumed.graph, gids); });
    ASSERT_EQ(gids.size(), meta.states);
    resumed.pruned_states = meta.pruned_states;
    resumed.sizes = {meta.sizes[0], meta.sizes[1], meta.sizes[2]};
    eo.threads = static_cast<size_t>(threads);
    engine::explore_from(system, eo, resumed, static_cast<engine::StateId>(meta.next));
    EXPECT_EQ(test::result_difference(one, resumed), "") << threads << " threads";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ddsmc
