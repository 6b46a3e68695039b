// The distributed exploration and analysis against the single-process ones
// on random programs (the generator of the reference differential tests):
// every rank runs both in-process on the same program, then compares. Ids
// are agreed by discovery key, so the graphs must be identical, not merely
// isomorphic: every rank compares the states it owns (encodings, labels,
// edges, cut-offs) with the same ids of the single-process graph. Then the
// distributed analysis (every property, both fairness conditions) and the
// bound's path must give the single-process verdicts, nodes and lassos, on
// one worker per rank and on four.
// The programs take the placement rules (engine/placement.hpp) in turn.
// The second test does it all with a test-only id base past 2^32 added to
// every global id (dist/id_base.hpp), which it takes off before comparing.
// Only EXPECT_*: a rank that returned early would leave the others waiting.
#include <gtest/gtest.h>
#include <mpi.h>
#include <tbb/task_arena.h>

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

// The single-process ids of a distributed result numbered from `base`.
engine::ExploreResult& without_base(engine::ExploreResult& r, engine::StateId base) {
  if (r.violating_state != engine::kNoState) r.violating_state -= base;
  if (r.violating_parent != engine::kNoState) r.violating_parent -= base;
  return r;
}

// The same for a lasso (rank 0's).
void remove_base(std::optional<engine::Lasso>& lasso, engine::StateId base) {
  if (!lasso) return;
  for (engine::StateId& s : lasso->states) s -= base;
  for (engine::Edge& e : lasso->edges) e.target -= base;
}

const engine::PlacementRule kRules[] = {{3}, {1}, {0}, {2}};

struct Tally {
  int compared = 0, cut = 0, bound = 0, fresh = 0, analysed = 0;
};

// Compares the distributed exploration (numbered from `base`, dist/id_base.hpp)
// and analysis with the single-process ones on random programs of `seed`
// until `programs` were compared.
Tally compare_random_programs(uint64_t seed, int programs, engine::StateId base) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const bool root = rank_of(comm) == 0;
  RandomChecks checks(seed);  // the same programs on every rank
  Tally t;
  for (int attempt = 0; attempt < 800 && t.compared < programs; ++attempt) {
    const RandomChecks::Check c = checks.next();
    if (!c.model) continue;
    engine::CompiledModel cm = engine::compile(*c.model);
    engine::D2cSystem system(cm);
    engine::ExploreResult one = engine::explore(system, c.eo);
    if (RandomChecks::too_big(c, one)) continue;
    // Every placement rule in turn: the partition must not change a result.
    engine::ExploreOptions eo = c.eo;
    eo.placement = kRules[t.compared % std::size(kRules)];
    std::unique_ptr<dist::Shard> shard;
    engine::ExploreResult many = dist::explore(system, eo, comm, shard, nullptr, base);
    const std::string what = c.what + (base ? " (id base " + std::to_string(base) + ")" : "") + ", partition key " +
                             eo.placement.text();
    ++t.compared;
    t.cut += one.incomplete_reason == "max-states";
    t.bound += one.violation.has_value();
    t.fresh += system.may_have_fresh();
    if (base && many.violation) {
      EXPECT_GE(many.violating_state, base) << what;
    }
    EXPECT_EQ(test::outcome_difference(one, without_base(many, base)), "") << what;
    uint64_t owned = 0;
    for (uint64_t n : shard->figures().rank_states) owned += n;
    EXPECT_EQ(owned, one.graph.num_states()) << what;
    EXPECT_EQ(many.num_states(), one.graph.num_states()) << what;
    EXPECT_EQ(many.num_transitions(), one.graph.num_edges()) << what;
    // (collective: every rank calls it)
    if (const std::string d = test::shard_difference(one.graph, *shard, comm, base); !d.empty())
      ADD_FAILURE() << d << " (rank " << rank_of(comm) << "); " << what;

    // The analysis over the shards.
    shard->end_exploration();
    if (one.violation) {
      const auto a = engine::bfs_tree_path(one.graph, one.violating_state, one.violating_parent);
      auto b = dist::bfs_tree_path(*shard, one.violating_state + base,
                                   one.violating_parent == engine::kNoState ? engine::kNoState
                                                                            : one.violating_parent + base,
                                   engine::Cancellation::none(), comm);
      for (engine::StateId& s : b) {
        EXPECT_GE(s, base) << "the bound's path; " << what;
        s -= base;
      }
      EXPECT_EQ(a, b) << "the bound's path; " << what;
      continue;  // (nothing is analysed past a bound)
    }
    // On one worker per rank and on four (the passes' threaded walk, dist/owcty.cpp).
    for (int workers : {1, 4}) {
      for (auto f : {engine::Fairness::Channel, engine::Fairness::None})
        for (auto p : engine::kAllProperties) {
          const engine::Verdict a = engine::analyze(one.graph, p, f, one.complete);
          engine::Verdict b;
          tbb::task_arena(workers).execute([&] {
            b = dist::analyze(*shard, p, f, many.complete, engine::Cancellation::none(), comm);
          });
          const std::string which = std::string(engine::property_name(p)) +
                                    (f == engine::Fairness::None ? " (no fairness); " : "; ") +
                                    std::to_string(workers) + " worker(s); ";
          EXPECT_EQ(a.holds, b.holds) << which << what;
          EXPECT_EQ(a.node, b.node) << which << what;
          EXPECT_EQ(a.stats.survivors, b.stats.survivors) << which << what;
          if (root) {
            if (base && b.lasso) {
              for (engine::StateId s : b.lasso->states) EXPECT_GE(s, base) << which << what;
            }
            remove_base(b.lasso, base);
            EXPECT_EQ(lasso_difference(a.lasso, b.lasso), "") << which << what;
          }
          t.analysed += workers == 1 && a.lasso.has_value();
        }
    }
  }
  return t;
}

void print(const char* name, const Tally& t, engine::StateId base) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (rank == 0)
    std::cout << "[" << name << "] " << t.compared << " random programs compared at " << ranks << " rank(s), id base "
              << base << " (" << t.cut << " cut by --max-states, " << t.bound << " stopped at a bound, " << t.fresh
              << " with fresh constants; " << t.analysed << " lassos)\n";
}

TEST(DistExplore, RandomProgramsGiveTheOneProcessGraph) {
  const Tally t = compare_random_programs(20261202, 100, 0);
  EXPECT_GE(t.compared, 100);
  print("DistExplore", t, 0);
}

// Issue 21: the same with every global id past 2^32 (a test-only base
// added by the numbering, dist/id_base.hpp), on fewer programs (those with
// lassos, bound violations and cut-offs among them); two bases.
TEST(DistExplore, RandomProgramsWithIdsPast2To32GiveTheOneProcessGraph) {
  for (const engine::StateId base : {(engine::StateId{1} << 32) + 12345, (engine::StateId{1} << 40) + 7}) {
    const Tally t = compare_random_programs(20261202, 40, base);
    EXPECT_GE(t.compared, 40);
    EXPECT_GE(t.analysed, 1);
    EXPECT_GE(t.bound, 1);
    EXPECT_GE(t.cut, 1);
    print("DistExplore, id base", t, base);
  }
}

}  // namespace
}  // namespace ddsmc
