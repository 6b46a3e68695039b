// The check's backend in one process (engine/local_backend.hpp), which
// `ddsmc check` drives (app/check_command.cpp): its exploration, verdicts,
// bound path and encodings are engine::explore's, engine::analyze's,
// engine::bfs_tree_path's and the graph's; its collectives are those of
// one process; it reports no rank figures (the report reads its own). The
// CLI tests compare its reports with the MPI backend's (DistCli).
#include <gtest/gtest.h>

#include "engine/bfs_tree.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/local_backend.hpp"
#include "model/load.hpp"

using namespace ddsmc;

namespace {

// An example compiled (the compiled model refers to its model, kept here).
struct Example {
  explicit Example(const std::string& name, model::Overrides ov = {}) {
    model::Diagnostics diag;
    model = model::load_model(std::string(DDSMC_SOURCE_DIR) + "/examples/" + name, ov, diag);
    EXPECT_TRUE(model.has_value()) << diag.format_all();
    cm.emplace(engine::compile(*model));
  }
  std::optional<model::Model> model;
  std::optional<engine::CompiledModel> cm;
};

TEST(LocalBackend, ProcessesAreOne) {
  engine::LocalProcesses one;
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  EXPECT_TRUE(one.root());
  EXPECT_EQ(one.on_node(), 1);
  EXPECT_EQ(one.worst(2), 2);
  EXPECT_EQ(one.all(7), std::vector<uint64_t>{7});
  EXPECT_EQ(one.from_root(9u), 9u);
  EXPECT_FALSE(one.disagreement(std::nullopt));
}

TEST(LocalBackend, IsTheEngineOnOneGraph) {
  const Example flooding("flooding.d2c");
  const engine::D2cSystem system(*flooding.cm);
  engine::Cancellation& cancel = engine::Cancellation::none();
  int checkpoints = 0;
  engine::LocalProcesses one;
  auto backend = one.backend(engine::Fairness::Channel, cancel,
                             [&](const engine::ExploreResult& res, const engine::StateGraph& g,
                                 const std::vector<engine::StateId>* gids, const std::vector<engine::Verdict>& d) {
                               EXPECT_EQ(&g, &res.graph);
                               EXPECT_EQ(gids, nullptr);
                               EXPECT_EQ(d.size(), 1u);
                               ++checkpoints;
                             });
  const engine::ExploreResult direct = engine::explore(system, {});
  const engine::ExploreResult& res = backend->explore(system, {}, std::nullopt);
  ASSERT_TRUE(res.complete);
  EXPECT_EQ(res.num_states(), direct.num_states());
  EXPECT_EQ(res.num_transitions(), direct.num_transitions());
  EXPECT_EQ(&backend->graph(), &res.graph);
  EXPECT_EQ(backend->gids(), nullptr);
  backend->end_exploration(1);
  const engine::RankFigures f = backend->figures();
  EXPECT_EQ(f.ranks, 1u);
  EXPECT_TRUE(f.rank_states.empty() && f.rank_peak_rss.empty() && f.rank_seconds.empty());
  const int code = backend->lead([&] {
    for (engine::Property p : engine::kAllProperties) {
      const engine::Verdict a = backend->analyze(p, true), b = engine::analyze(direct.graph, p, engine::Fairness::Channel, true);
      EXPECT_EQ(a.holds, b.holds);
      EXPECT_EQ(a.lasso.has_value(), b.lasso.has_value());
      if (a.lasso && b.lasso) {
        EXPECT_EQ(a.lasso->states, b.lasso->states);
      }
    }
    const engine::StateBytes bytes = backend->encodings({0, 1});
    EXPECT_EQ(bytes(1), direct.graph.bytes(1));
    backend->checkpoint_analysis({engine::Verdict{}});
    return 5;
  });
  EXPECT_EQ(code, 5);
  EXPECT_EQ(checkpoints, 1);
}

TEST(LocalBackend, BoundPathIsTheBfsTreePath) {
  model::Overrides ov;
  ov.state_bound = 0;  // exceeded two steps from the initial state
  const Example relay("relay.d2c", ov);
  const engine::D2cSystem system(*relay.cm);
  engine::Cancellation& cancel = engine::Cancellation::none();
  engine::LocalProcesses one;
  auto backend = one.backend(engine::Fairness::Channel, cancel, {});
  const engine::ExploreResult& res = backend->explore(system, {}, std::nullopt);
  ASSERT_TRUE(res.violation.has_value());
  backend->end_exploration(1);
  const std::vector<engine::StateId> path = backend->bound_path(res.violating_state, res.violating_parent);
  EXPECT_EQ(path.size(), 3u);
  EXPECT_EQ(path, engine::bfs_tree_path(res.graph, res.violating_state, res.violating_parent));
}

}  // namespace
