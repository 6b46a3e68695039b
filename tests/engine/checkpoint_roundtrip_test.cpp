// Resumed against uninterrupted explorations on random programs (the
// generator of the reference differential tests): a checkpoint taken at a
// random slice boundary, read back into a fresh graph and explored on
// (engine::explore_from), must give exactly the uninterrupted graph:
// every state's encoding, labels and edges, the cut-offs, the bound
// violation and the figures. Taking checkpoints must not change the run
// that takes them either.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/checkpoint.hpp"
#include "engine/d2c/system.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

// "" when state `id` is the same in both graphs.
std::string state_difference(const engine::StateGraph& a, const engine::StateGraph& b, engine::StateId id) {
  const std::string at = "state " + std::to_string(id) + ": ";
  if (a.bytes(id) != b.bytes(id)) return at + "different encoding";
  if (a.expanded(id) != b.expanded(id)) return at + "expanded in one graph only";
  auto x = a.edges(id), y = b.edges(id);
  if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return at + "different edges";
  for (uint32_t n = 0; n < a.num_nodes(); ++n)
    if (a.faulty(id, n) != b.faulty(id, n)) return at + "different fault label";
  for (uint32_t c = 0; c < a.num_arcs(); ++c)
    if (a.channel_empty(id, c) != b.channel_empty(id, c)) return at + "different channel label";
  return "";
}

TEST(CheckpointRoundTrip, ResumedExplorationsEqualUninterruptedOnes) {
  Rng rng(20261203);
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
  const std::string root = ddsmc::test::temp_dir() + "/roundtrip";
  int compared = 0, resumed_mid = 0, cut = 0, bound = 0;
  for (int attempt = 0; attempt < 1000 && compared < 120; ++attempt) {
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

    // The same run with a checkpoint at every slice boundary; the k-th is kept.
    int boundaries = 0;
    engine::ExploreOptions counting = eo;
    counting.checkpoint_due = [] { return true; };
    counting.checkpoint = [&](const engine::ExplorePoint&) { ++boundaries; };
    (void)engine::explore(system, counting);
    ASSERT_GE(boundaries, 1) << what;
    const int keep = static_cast<int>(uni(rng, 0, static_cast<uint32_t>(boundaries - 1)));
    const std::string dir = root + "-" + std::to_string(attempt);
    int call = 0;
    engine::ExploreOptions taking = eo;
    taking.checkpoint_due = [] { return true; };
    taking.checkpoint = [&](const engine::ExplorePoint& p) {
      if (call++ != keep) return;
      engine::CheckpointMeta meta = engine::checkpoint_meta(p);
      meta.identity = "roundtrip";
      meta.generation = static_cast<uint64_t>(attempt) + 1;
      engine::write_checkpoint_part(dir, 0, p, meta);
      engine::write_checkpoint_manifest(dir, meta);
    };
    const engine::ExploreResult taken = engine::explore(system, taking);
    EXPECT_EQ(taken.graph.num_states(), one.graph.num_states()) << "checkpoints changed the run; " << what;
    EXPECT_EQ(taken.graph.num_edges(), one.graph.num_edges()) << "checkpoints changed the run; " << what;

    const engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
    resumed_mid += meta.next > 0 && meta.next < one.graph.num_states();
    engine::ExploreResult resumed(cm.layout);
    std::vector<engine::StateId> gids;
    engine::read_checkpoint_part(dir, 0, meta, system, resumed.graph, gids);
    ASSERT_EQ(gids.size(), resumed.graph.num_states()) << what;
    for (size_t i = 0; i < gids.size(); ++i) ASSERT_EQ(gids[i], i) << what;
    resumed.pruned_states = meta.pruned_states;
    engine::explore_from(system, eo, resumed, static_cast<engine::StateId>(meta.next));
    std::filesystem::remove_all(dir);

    cut += one.incomplete_reason == "max-states";
    bound += one.violation.has_value();
    EXPECT_EQ(resumed.complete, one.complete) << what;
    EXPECT_EQ(resumed.incomplete_reason, one.incomplete_reason) << what;
    EXPECT_EQ(resumed.violating_state, one.violating_state) << what;
    EXPECT_EQ(resumed.violating_parent, one.violating_parent) << what;
    EXPECT_EQ(resumed.violation.has_value(), one.violation.has_value()) << what;
    EXPECT_EQ(resumed.pruned_states, one.pruned_states) << what;
    ASSERT_EQ(resumed.graph.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(resumed.graph.num_edges(), one.graph.num_edges()) << what;
    for (engine::StateId s = 0; s < one.graph.num_states(); ++s) {
      const std::string d = state_difference(one.graph, resumed.graph, s);
      if (!d.empty()) {
        ADD_FAILURE() << d << "; resumed at " << meta.next << "; " << what;
        break;
      }
    }
  }
  EXPECT_EQ(compared, 120);
  // The sample covers what it should.
  EXPECT_GE(resumed_mid, 30);
  EXPECT_GE(cut, 5);
  EXPECT_GE(bound, 3);
  std::printf("%d programs, %d resumed mid-exploration, %d cut by max-states, %d bound violations\n", compared,
              resumed_mid, cut, bound);
}

}  // namespace
}  // namespace ddsmc
