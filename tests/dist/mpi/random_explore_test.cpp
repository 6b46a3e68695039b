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
#include "dist/explore.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/d2c/system.hpp"
#include "tests/dist/mpi/shard_compare.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/random_checks.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
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
  RandomChecks checks(20261202);  // the same programs on every rank
  int compared = 0, cut = 0, bound = 0, fresh = 0, analysed = 0;
  for (int attempt = 0; attempt < 800 && compared < 100; ++attempt) {
    const RandomChecks::Check c = checks.next();
    if (!c.model) continue;
    engine::CompiledModel cm = engine::compile(*c.model);
    engine::D2cSystem system(cm);
    engine::ExploreResult one = engine::explore(system, c.eo);
    if (RandomChecks::too_big(c, one)) continue;
    std::unique_ptr<dist::Shard> shard;
    engine::ExploreResult many = dist::explore(system, c.eo, comm, shard);
    const std::string& what = c.what;
    ++compared;
    cut += one.incomplete_reason == "max-states";
    bound += one.violation.has_value();
    fresh += system.may_have_fresh();
    EXPECT_EQ(test::outcome_difference(one, many), "") << what;
    uint64_t owned = 0;
    for (uint64_t n : shard->figures().rank_states) owned += n;
    EXPECT_EQ(owned, one.graph.num_states()) << what;
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(many.num_transitions(), one.graph.num_edges()) << what;
    // (collective: every rank calls it)
    if (const std::string d = test::shard_difference(one.graph, *shard, comm); !d.empty())
      ADD_FAILURE() << d << " (rank " << rank_of(comm) << "); " << what;

    // The analysis over the shards.
    shard->end_exploration();
    if (one.violation) {
      const auto a = engine::bfs_tree_path(one.graph, one.violating_state, one.violating_parent);
      const auto b = dist::bfs_tree_path(*shard, one.violating_state, one.violating_parent,
                                         engine::Cancellation::none(), comm);
      EXPECT_EQ(a, b) << "the bound's path; " << what;
      continue;  // (nothing is analysed past a bound)
    }
    for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
      for (auto p : engine::kAllProperties) {
        const engine::Verdict a = engine::analyze(one.graph, p, f, one.complete);
        const engine::Verdict b = dist::analyze(*shard, cm.layout, p, f, many.complete,
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
