// The distributed exploration and analysis against the single-process ones
// on random programs (the generator of the reference differential tests):
// every rank runs both in-process on the same program, then compares. Ids
// are agreed by discovery key, so the graphs must be identical, not merely
// isomorphic: every rank compares the states it owns (encodings, labels,
// edges, cut-offs) with the same ids of the single-process graph. Then the
// distributed analysis (every property, both fairness conditions) and the
// bound's path must give the single-process verdicts, nodes and lassos.
// Only EXPECT_*: a rank that returned early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <memory>

#include "dist/analysis.hpp"
#include "dist/directory.hpp"
#include "dist/explore.hpp"
#include "engine/bfs_tree.hpp"
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

// "" when local state `l` of the shard equals state `id` of `s`.
std::string state_difference(const engine::StateGraph& s, engine::StateId id, const dist::Shard& shard,
                             engine::StateId l) {
  const engine::StateGraph& d = shard.graph();
  const std::string at = "state " + std::to_string(id) + ": ";
  if (id >= s.num_states()) return at + "not in the one-process graph";
  if (shard.bytes(id) != s.bytes(id)) return at + "different encoding";
  if (s.expanded(id) != d.expanded(l)) return at + "expanded in one graph only";
  auto a = s.edges(id), b = d.edges(l);
  if (!std::equal(a.begin(), a.end(), b.begin(), b.end())) return at + "different edges";
  for (uint32_t n = 0; n < s.num_nodes(); ++n)
    if (s.faulty(id, n) != d.faulty(l, n)) return at + "different fault label";
  for (uint32_t c = 0; c < s.num_arcs(); ++c)
    if (s.channel_empty(id, c) != d.channel_empty(l, c)) return at + "different channel label";
  return "";
}

// "" when the lassos are the same.
std::string lasso_difference(const std::optional<engine::Lasso>& a, const std::optional<engine::Lasso>& b) {
  if (a.has_value() != b.has_value()) return "a lasso in one analysis only";
  if (!a) return "";
  if (a->states != b->states) return "different lasso states";
  if (a->loop_start != b->loop_start) return "different loop start";
  if (!std::equal(a->edges.begin(), a->edges.end(), b->edges.begin(), b->edges.end())) return "different lasso edges";
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
  int compared = 0, cut = 0, bound = 0, fresh = 0, analysed = 0;
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
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(many.num_transitions(), one.graph.num_edges()) << what;
    for (size_t l = 0; l < shard->gids().size(); ++l) {
      const std::string d = state_difference(one.graph, shard->gids()[l], *shard, static_cast<engine::StateId>(l));
      if (!d.empty()) {
        ADD_FAILURE() << d << " (rank " << rank_of(comm) << "); " << what;
        break;
      }
    }

    // The analysis over the shards.
    shard->end_exploration();
    dist::Directory dir(shard->gids(), static_cast<engine::StateId>(many.num_states()), comm);
    if (one.violation) {
      const auto a = engine::bfs_tree_path(one.graph, one.violating_state, one.violating_parent);
      const auto b = dist::bfs_tree_path(*shard, dir, one.violating_state, one.violating_parent,
                                         engine::Cancellation::none(), comm);
      EXPECT_EQ(a, b) << "the bound's path; " << what;
      continue;  // (nothing is analysed past a bound)
    }
    for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
      for (auto p : engine::kAllProperties) {
        const engine::Verdict a = engine::analyze(one.graph, p, f, one.complete);
        const engine::Verdict b = dist::analyze(*shard, dir, cm.layout, p, f, many.complete,
                                                engine::Cancellation::none(), comm);
        const std::string which = std::string(engine::property_name(p)) +
                                  (f == engine::Fairness::None ? " (no fairness); " : "; ");
        EXPECT_EQ(a.holds, b.holds) << which << what;
        EXPECT_EQ(a.node, b.node) << which << what;
        EXPECT_EQ(a.stats.survivors, b.stats.survivors) << which << what;
        if (root) {
          EXPECT_EQ(lasso_difference(a.lasso, b.lasso), "") << which << what;
        }
        analysed += a.lasso.has_value();
      }
  }
  EXPECT_GE(compared, 100);
  if (root)
    std::cout << "[DistExplore] " << compared << " random programs compared (" << cut << " cut by --max-states, "
              << bound << " stopped at a bound, " << fresh << " with fresh constants; " << analysed
              << " lassos)\n";
}

}  // namespace
}  // namespace ddsmc
