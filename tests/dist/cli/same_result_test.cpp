// `mpiexec -np R ddsmc check ...` gives exactly the single-process result:
// exit code, states, transitions, completeness, verdicts, bound violations
// and the very same traces (state numbering does not depend on the ranks),
// at 1..4 ranks and with two threads per rank. Every bundled example on the
// networks and fairness modes the other example tests use, bounds exceeded
// (the violating state owned by rank 0 or not), --max-states cut-offs in
// the middle of a BFS level, and degenerate graphs of one or two states.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/models.hpp"
#include "tests/dist/cli/dist_support.hpp"

using namespace ddsmc::test;
using nlohmann::json;

namespace {

std::string cli_model(const std::string& name) { return source_path("tests/dist/cli/" + name + ".d2c"); }

// The networks of the `% hand-count` lines of an example (examples_test).
std::vector<std::string> hand_count_networks(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  static const std::regex re(R"(^% hand-count network=(\S+) )");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) out.push_back(m[1]);
  return out;
}

class DistExample : public ::testing::TestWithParam<std::string> {};

// Its own network, fairness channel: every layout. Fairness none changes
// only the analysis (other lassos): two layouts. The hand-counted networks:
// two layouts.
TEST_P(DistExample, SameResultAsOneProcess) {
  const std::string model = GetParam();
  CheckRun single = expect_same_everywhere({model}, all_layouts());
  ASSERT_TRUE(single.run.exit_code == 0 || single.run.exit_code == 1) << describe(single.run);
  expect_same_everywhere({model, "--fairness", "none"}, {{2, 1}, {3, 1}});
  for (const auto& net : hand_count_networks(model)) {
    SCOPED_TRACE("network " + net);
    expect_same_everywhere({model, "--network", net}, {{2, 1}, {3, 1}});
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, DistExample, ::testing::ValuesIn(example_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

// Larger graphs (tens of thousands of states, many levels, full batches).
// Four threads per rank take the analysis's threaded walk (dist/owcty.cpp)
// over several of its segments, with levels and sweeps; gossip fails its
// always-* properties (lassos), token_ring fails all four.
TEST(DistCheck, LargerGraphs) {
  expect_same_everywhere({example("flooding"), "--network", "ring:6"}, {{2, 1}, {3, 1}, {2, 2}, {2, 4}});
  expect_same_everywhere({example("gossip"), "--network", "ring:5"}, {{2, 1}, {4, 1}, {2, 4}});
  expect_same_everywhere({example("token_ring"), "--network", "ring:6"}, {{3, 4}});
}

// ---------------------------------------------------------------------------
// A bound exceeded: the check stops at the first state over a bound in BFS
// order; which rank owns it must not matter.

void expect_same_bound(const std::vector<std::string>& args, const std::string& kind) {
  SCOPED_TRACE(args[0] + (args.size() > 1 ? " " + args[1] + " " + args[2] : ""));
  CheckRun single = expect_same_everywhere(args, {{2, 1}, {3, 1}, {2, 2}});
  // The case tests what it claims to.
  EXPECT_EQ(single.run.exit_code, 3) << describe(single.run);
  ASSERT_TRUE(single.report.is_object());
  ASSERT_TRUE(single.report["bound_exceeded"].is_object()) << single.report.dump().substr(0, 500);
  EXPECT_EQ(single.report["bound_exceeded"].value("kind", json()), kind);
  EXPECT_EQ(single.report.value("incomplete_reason", json()), "bound");
}

TEST(DistCheckBounds, ChannelBoundOfLeaderElection) {
  expect_same_bound({example("leader_election"), "--channel-bound", "1"}, "channel");
}

TEST(DistCheckBounds, StateBoundDeepInALargeGraph) {
  // About 12 000 states before the state bound 5 is exceeded.
  expect_same_bound({example("leader_election"), "--network", "ring:4"}, "state");
}

TEST(DistCheckBounds, ChannelBoundOfRelayOnAStar) {
  expect_same_bound({example("relay"), "--network", "star:3"}, "channel");
}

TEST(DistCheckBounds, StateBoundAtTheSecondLevel) {
  expect_same_bound({example("relay"), "--network", "line:3", "--state-bound", "0"}, "state");
  expect_same_bound({example("echo"), "--network", "line:3"}, "state");
}

TEST(DistCheckBounds, PruneDecidesOnTheStatesWithinBounds) {
  for (const auto& args : {std::vector<std::string>{example("relay"), "--network", "star:3", "--on-bound", "prune"},
                           std::vector<std::string>{example("leader_election"), "--network", "ring:4", "--on-bound",
                                                    "prune", "--max-states", "30000"}}) {
    SCOPED_TRACE(args[0]);
    CheckRun single = expect_same_everywhere(args, {{2, 1}, {3, 1}});
    ASSERT_TRUE(single.report.is_object());
    EXPECT_TRUE(single.report["bound_exceeded"].is_null());
  }
}

// ---------------------------------------------------------------------------
// --max-states N: the check stops after exactly N states, in the middle of a
// BFS level for most N; which N states (and so the partial graph, its
// verdicts and traces) must not depend on the ranks.

TEST(DistCheckMaxStates, CutOffMidLevel) {
  for (const char* n : {"1", "2", "10", "777", "12345"}) {
    SCOPED_TRACE(std::string("--max-states ") + n);
    // (Without symmetry: leader election's quotient on ring:3 has fewer than 12345 states.)
    CheckRun single =
        expect_same_everywhere({example("leader_election"), "--symmetry", "none", "--max-states", n}, {{2, 1}, {3, 1}});
    ASSERT_TRUE(single.report.is_object());
    EXPECT_EQ(single.run.exit_code, 3) << describe(single.run);
    EXPECT_EQ(single.report.value("states", json()), json(std::stoull(n)));
    EXPECT_EQ(single.report.value("incomplete_reason", json()), "max-states");
  }
  // A witness found in the partial graph (exit 3, sometimes-total decided).
  expect_same_everywhere({example("relay"), "--max-states", "20"}, {{2, 1}, {3, 1}, {2, 2}});
  // A limit at the state count is not hit.
  CheckRun at = expect_same_everywhere({example("ping_pong"), "--max-states", "10"}, {{2, 1}, {3, 1}});
  EXPECT_EQ(at.report.value("complete", json()), json(true));
}

// A cut-off inside one huge expansion (160,000 successors of the initial
// state): each rank ends its share of the expansion once it claimed more
// than the room left, and the 50 states kept are the one process's.
TEST(DistCheckMaxStates, CutOffInsideOneHugeExpansion) {
  const std::string model = temp_file(fan_out_model());
  CheckRun single = expect_same_everywhere({model, "--max-states", "50"}, {{2, 2}});
  ASSERT_TRUE(single.report.is_object());
  EXPECT_EQ(single.report.value("states", json()), json(50));
  CheckRun two = check_mpi({2, 1}, {model, "--max-states", "50"});
  ASSERT_TRUE(two.report.is_object()) << describe(two.run);
  EXPECT_LT(two.report["stats"]["canonical"]["calls"].get<uint64_t>(), 5000u) << "the expansion was cut";
}

// ---------------------------------------------------------------------------
// Degenerate graphs: most ranks own no state at all.

TEST(DistCheckSmall, InitialStateWithOneStepToASelfLoop) {
  CheckRun single = expect_same_everywhere({cli_model("one_step")}, {{2, 1}, {3, 1}, {4, 1}, {2, 2}});
  ASSERT_TRUE(single.report.is_object());
  EXPECT_EQ(single.report.value("states", json()), 2);
  EXPECT_EQ(single.report.value("transitions", json()), 2);
}

TEST(DistCheckSmall, InitialStateWithoutSuccessors) {
  CheckRun single = expect_same_everywhere({cli_model("dead_start"), "--on-bound", "prune"}, {{2, 1}, {4, 1}});
  ASSERT_TRUE(single.report.is_object());
  EXPECT_EQ(single.report.value("states", json()), 1);
  EXPECT_EQ(single.report.value("transitions", json()), 0);
  CheckRun stop = expect_same_everywhere({cli_model("dead_start")}, {{2, 1}, {3, 1}});
  EXPECT_EQ(stop.run.exit_code, 3) << describe(stop.run);
}

}  // namespace
