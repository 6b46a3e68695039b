// Network symmetry under mpiexec (issue 23): `check --symmetry auto` over
// the ranks gives exactly the single-process symmetric result (states,
// verdicts, the very same concrete traces, which replay), on every bundled
// example whose system has a nontrivial group on its own network and on
// symmetric ones. (That the single-process symmetric verdicts are those
// without symmetry is tests/engine/symmetry_diff_test's, on the same
// examples and networks: together, the ranks' verdicts are too.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/models.hpp"
#include "tests/dist/cli/dist_support.hpp"

using namespace ddsmc::test;

namespace {

class DistSymmetryExample : public ::testing::TestWithParam<std::string> {};

TEST_P(DistSymmetryExample, SameResultAsOneProcess) {
  const std::string model = GetParam();
  int symmetric = 0;
  for (const std::string net : {"", "ring:4", "star:4", "complete:3"}) {
    std::vector<std::string> args{model};
    // (A cut in the middle of a level compares as exactly as a whole run.)
    if (!net.empty()) args.insert(args.end(), {"--network", net, "--max-states", "20000"});
    args.insert(args.end(), {"--symmetry", "auto"});
    SCOPED_TRACE(net.empty() ? "its own network" : net);
    const CheckRun single = check_single(args, 1);
    if (single.run.exit_code == 2) continue;  // (an example that needs its own network)
    if (!single.report.is_object() || !single.report["symmetry"].is_object()) continue;  // trivial group
    ++symmetric;
    const std::vector<Layout> layouts =
        net.empty() ? std::vector<Layout>{{2, 1}, {3, 2}} : std::vector<Layout>{{2, 1}};
    for (const Layout& layout : layouts) expect_same_check(single, check_mpi(layout, args), layout, model);
  }
  RecordProperty("symmetric_networks", symmetric);
}

INSTANTIATE_TEST_SUITE_P(Examples, DistSymmetryExample, ::testing::ValuesIn(example_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

// Enough of the examples have a group somewhere that the test above
// compares something: counted over all of them.
TEST(DistSymmetry, ExamplesWithAGroupAreCompared) {
  int symmetric = 0;
  for (const std::string& model : example_files())
    for (const std::string net : {"ring:4", "star:4"}) {
      const CheckRun r = check_single({model, "--network", net, "--symmetry", "auto", "--max-states", "1"}, 1);
      symmetric += r.report.is_object() && r.report["symmetry"].is_object();
    }
  EXPECT_GE(symmetric, 8);
}

}  // namespace
