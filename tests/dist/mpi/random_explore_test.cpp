// The distributed exploration against the single-process one on random
// programs (the generator of the reference differential tests): every rank
// runs both in-process on the same program, then compares. Ids are agreed
// by discovery key, so the graphs must be identical, not merely
// isomorphic: rank 0 compares the gathered graph (labels, edges, cut-offs)
// and every rank compares the encodings of the states it owns. Only
// EXPECT_*: a rank that returned early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <memory>

#include "dist/explore.hpp"
#include "engine/d2c/system.hpp"
#include "tests/engine/reference_support.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

// "" when the gathered graph `d` (no encodings) equals `s` but for them.
std::string structure_difference(const engine::StateGraph& s, const engine::StateGraph& d) {
  if (s.num_states() != d.num_states()) return "states " + std::to_string(s.num_states()) + " vs " + std::to_string(d.num_states());
  if (s.num_edges() != d.num_edges()) return "transitions " + std::to_string(s.num_edges()) + " vs " + std::to_string(d.num_edges());
  for (engine::StateId i = 0; i < s.num_states(); ++i) {
    const std::string at = "state " + std::to_string(i) + ": ";
    if (s.expanded(i) != d.expanded(i)) return at + "expanded in one graph only";
    auto a = s.edges(i), b = d.edges(i);
    if (!std::equal(a.begin(), a.end(), b.begin(), b.end())) return at + "different edges";
    for (uint32_t n = 0; n < s.num_nodes(); ++n)
      if (s.faulty(i, n) != d.faulty(i, n)) return at + "different fault label";
    for (uint32_t c = 0; c < s.num_arcs(); ++c)
      if (s.channel_empty(i, c) != d.channel_empty(i, c)) return at + "different channel label";
  }
  return "";
}

TEST(DistExplore, RandomProgramsGiveTheOneProcessGraph) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const bool root = rank_of(comm) == 0;
  Rng rng(20261202);  // the same programs on every rank
  GenOptions opt;
  opt.min_input = opt.max_input = 1;
  opt.max_input_arity = 1;
  opt.max_state = 2;
  opt.max_transport_arity = 1;
  opt.min_rules = 3;
  opt.max_rules = 6;
  ProgramGenerator gen(rng, opt);
  GenOptions plain = opt;  // no input: no fresh constants, the incremental (patched) path
  plain.min_input = plain.max_input = 0;
  ProgramGenerator gen_plain(rng, plain);
  const std::vector<std::string> networks = {"line:2", "ring:3", "line:3", "star:3", "ring:4"};
  int compared = 0, cut = 0, bound = 0, fresh = 0;
  for (int attempt = 0; attempt < 800 && compared < 100; ++attempt) {
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
    engine::ExploreResult one = engine::explore(system, eo);
    if (one.incomplete_reason == "max-states" && eo.max_states == 4000) continue;  // too big to bother
    std::unique_ptr<dist::Shard> shard;
    engine::ExploreResult many = dist::explore(system, eo, comm, shard);
    const std::string what = "program (network " + *ov.network_spec + ", threads " + std::to_string(eo.threads) +
                             ", max-states " + std::to_string(eo.max_states) + "):\n" + text;
    ++compared;
    cut += one.incomplete_reason == "max-states";
    bound += one.violation.has_value();
    fresh += system.may_have_fresh();
    EXPECT_EQ(many.complete, one.complete) << what;
    EXPECT_EQ(many.incomplete_reason, one.incomplete_reason) << what;
    EXPECT_EQ(many.violating_state, one.violating_state) << what;
    EXPECT_EQ(many.violating_parent, one.violating_parent) << what;
    EXPECT_EQ(many.violation.has_value(), one.violation.has_value()) << what;
    if (many.violation && one.violation) {
      EXPECT_EQ(many.violation->kind, one.violation->kind) << what;
      EXPECT_EQ(many.violation->where, one.violation->where) << what;
      EXPECT_EQ(many.violation->value, one.violation->value) << what;
    }
    EXPECT_EQ(many.pruned_states, one.pruned_states) << what;
    uint64_t owned = 0;
    for (uint64_t n : many.rank_states) owned += n;
    EXPECT_EQ(owned, one.graph.num_states()) << what;
    if (root) {
      EXPECT_EQ(structure_difference(one.graph, many.graph), "") << what;
    }
    for (size_t l = 0; l < shard->gids().size(); ++l) {
      const engine::StateId id = shard->gids()[l];
      if (id >= one.graph.num_states() || shard->bytes(id) != one.graph.bytes(id)) {
        ADD_FAILURE() << "state " << id << " owned by rank " << rank_of(comm) << " differs; " << what;
        break;
      }
    }
  }
  EXPECT_GE(compared, 100);
  if (root)
    std::cout << "[DistExplore] " << compared << " random programs compared (" << cut << " cut by --max-states, "
              << bound << " stopped at a bound, " << fresh << " with fresh constants)\n";
}

}  // namespace
}  // namespace ddsmc
