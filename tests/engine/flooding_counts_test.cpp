// State and transition counts of the flooding example: hand-derived on
// line:2, and the figures SPIN and Rumur agree on for ring:4.
#include <gtest/gtest.h>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

std::pair<uint64_t, uint64_t> count(const std::string& example, const std::string& network) {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = network;
  auto m = model::load_model(test::source_path(example), ov, diag);
  EXPECT_TRUE(m.has_value()) << diag.format_all();
  if (!m) return {0, 0};
  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreResult r = engine::explore(cm, {});
  EXPECT_TRUE(r.complete) << r.incomplete_reason;
  return {r.graph.num_states(), r.graph.num_edges()};
}

}  // namespace

TEST(FloodingCounts, Line2ByHand) { EXPECT_EQ(count("examples/flooding.d2c", "line:2"), (std::pair<uint64_t, uint64_t>{8, 11})); }

TEST(FloodingCounts, Ring4MatchesSpinAndRumur) {
  EXPECT_EQ(count("examples/flooding.d2c", "ring:4"), (std::pair<uint64_t, uint64_t>{784, 3361}));
}
