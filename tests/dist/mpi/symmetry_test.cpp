// Network symmetry over the ranks (issue 23) against one process, on
// random programs whose system has a nontrivial group (the generator of
// the reference differential tests): every rank explores the quotient both
// in-process and distributed (dist::explore, its successors placed by
// their form under the group), and the shards must be the one process's
// graph, state by state and edge by edge (arcs carrying the elements).
// Then dist::gather_graph must give rank 0 that whole graph, and the
// analysis on it (engine::analyze_symmetric, what MpiBackend runs) the
// single-process verdicts, nodes and concrete lassos; a bound's path on it
// must be the single-process one. Only EXPECT_*: a rank that returned
// early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>
#include <memory>

#include "dist/explore.hpp"
#include "dist/gather.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/d2c/symmetry.hpp"
#include "engine/d2c/system.hpp"
#include "engine/quotient_lasso.hpp"
#include "tests/dist/mpi/shard_compare.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/random_checks.hpp"

namespace ddsmc {
namespace {

using namespace reftest;

std::string concrete_difference(const std::optional<engine::ConcreteLasso>& a,
                                const std::optional<engine::ConcreteLasso>& b) {
  if (a.has_value() != b.has_value()) return "a concrete trace in one analysis only";
  if (!a) return "";
  if (a->states.empty()) return "a trace that does not lift";
  if (a->states != b->states || a->loop_start != b->loop_start) return "different concrete states";
  if (!std::equal(a->edges.begin(), a->edges.end(), b->edges.begin(), b->edges.end()))
    return "different concrete edges";
  return "";
}

struct Tally {
  int compared = 0, bound = 0, cut = 0, traces = 0;
};

// Rank 0's checks of the gathered graph `g` against the one process's.
void compare_gathered(const engine::D2cSystem& system, const engine::ExploreResult& one, const engine::StateGraph& g,
                      const std::string& what, Tally& t) {
  EXPECT_EQ(test::graph_difference(one.graph, g), "") << "gathered; " << what;
  if (one.violation) {
    EXPECT_EQ(engine::bfs_tree_path(one.graph, one.violating_state, one.violating_parent),
              engine::bfs_tree_path(g, one.violating_state, one.violating_parent))
        << "the bound's path; " << what;
    return;
  }
  for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
    for (auto p : engine::kAllProperties) {
      engine::Cancellation& none = engine::Cancellation::none();
      const engine::Verdict a = engine::analyze_symmetric(system, one.graph, p, f, one.complete, none);
      const engine::Verdict b = engine::analyze_symmetric(system, g, p, f, one.complete, none);
      const std::string which = std::string(engine::property_name(p)) + (f == engine::Fairness::None ? " (none); " : "; ");
      EXPECT_EQ(a.holds, b.holds) << which << what;
      EXPECT_EQ(a.node, b.node) << which << what;
      EXPECT_EQ(concrete_difference(a.concrete, b.concrete), "") << which << what;
      t.traces += a.concrete.has_value();
    }
}

TEST(DistSymmetry, RandomProgramsGiveTheOneProcessQuotient) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  RandomChecks checks(20261207);  // the same programs on every rank
  Tally t;
  for (int attempt = 0; attempt < 600 && t.compared < 80; ++attempt) {
    RandomChecks::Check c = checks.next();
    if (!c.model) continue;
    engine::SystemSymmetry sym = engine::system_symmetry(*c.model);
    if (sym.group.trivial()) continue;
    engine::CompiledModel cm = engine::compile(*c.model);
    engine::D2cSystem system(cm);
    system.set_symmetry(std::make_shared<hashing::SymmetryGroup>(std::move(sym.group)));
    engine::ExploreResult one = engine::explore(system, c.eo);
    if (RandomChecks::too_big(c, one)) continue;
    std::unique_ptr<dist::Shard> shard;
    engine::ExploreResult many = dist::explore(system, c.eo, comm, shard);
    ++t.compared;
    t.bound += one.violation.has_value();
    t.cut += one.incomplete_reason == "max-states";
    EXPECT_EQ(test::outcome_difference(one, many), "") << c.what;
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << c.what;
    if (const std::string d = test::shard_difference(one.graph, *shard, comm); !d.empty())
      ADD_FAILURE() << d << " (rank " << rank << "); " << c.what;
    shard->end_exploration();
    std::optional<engine::StateGraph> g = dist::gather_graph(*shard, system, 0, comm);
    EXPECT_EQ(g.has_value(), rank == 0);
    if (g) compare_gathered(system, one, *g, c.what, t);
  }
  EXPECT_GE(t.compared, 80);
  if (rank == 0) {
    EXPECT_GE(t.traces, 5);
    std::cout << "[DistSymmetry] " << t.compared << " symmetric random programs at " << ranks << " rank(s) ("
              << t.bound << " stopped at a bound, " << t.cut << " cut by --max-states; " << t.traces
              << " concrete traces)\n";
  }
}

}  // namespace
}  // namespace ddsmc
