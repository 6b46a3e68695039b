// `mpiexec ddsmc check` with the test-only id base (issue 21; dist/id_base.hpp):
// DDSMC_TEST_ID_BASE in the ranks' environment makes every global id inside
// the MPI engine the ordinary id + 2^32 + 12345, and the output must still
// be exactly the single-process run's (text, JSON, traces): a failing check
// with lassos, a bound violation's path, a --max-states cut-off, and a
// checkpoint written with the base and resumed with it or with another
// base (checkpoints hold ordinary ids). The single process ignores the
// variable; a base that leaves no room is refused.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/dist/cli/dist_support.hpp"

using namespace ddsmc::test;

namespace {

namespace fs = std::filesystem;

constexpr const char* kBase32 = "4294979641";     // 2^32 + 12345
constexpr const char* kBase40 = "1099511627783";  // 2^40 + 7

// DDSMC_TEST_ID_BASE=value for this process and what it starts (mpiexec
// passes its environment on to the ranks), while in scope.
class IdBase {
 public:
  explicit IdBase(const char* value) { setenv("DDSMC_TEST_ID_BASE", value, 1); }
  ~IdBase() { unsetenv("DDSMC_TEST_ID_BASE"); }
  IdBase(const IdBase&) = delete;
  IdBase& operator=(const IdBase&) = delete;
};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(DistIdBaseCli, SameResultWithIdsPast2To32) {
  const std::vector<std::vector<std::string>> checks = {
      {example("gossip")},                                        // failing properties: lassos
      {example("leader_election"), "--channel-bound", "1"},       // a bound exceeded: its path
      {example("leader_election"), "--max-states", "777"},        // a cut-off mid-level
  };
  for (const auto& check : checks) {
    SCOPED_TRACE(check[0] + (check.size() > 1 ? " " + check[1] + " " + check[2] : ""));
    const CheckRun single = check_single(check);
    ASSERT_TRUE(single.report.is_object()) << describe(single.run);
    IdBase base(kBase32);
    const Layout layout{3, 1};
    expect_same_check(single, check_mpi(layout, check), layout, check[0]);
  }
}

TEST(DistIdBaseCli, TheSingleProcessIgnoresTheBase) {
  const std::vector<std::string> check = {example("gossip")};
  const CheckRun plain = check_single(check, 1);
  IdBase base(kBase32);
  expect_same_check(plain, check_single(check, 1), {1, 1}, check[0]);
}

TEST(DistIdBaseCli, CheckpointResumedWithTheSameOrAnotherBase) {
  const std::vector<std::string> check = {example("gossip")};
  const CheckRun single = check_single(check, 1);
  const std::string ckpt = temp_dir() + "/dist-id-base/ckpt";
  fs::remove_all(ckpt);
  fs::create_directories(fs::path(ckpt).parent_path());
  {
    IdBase base(kBase32);
    const CliResult r =
        run_mpi(2, with({"check"}, with(check, {"--checkpoint", ckpt, "--checkpoint-every", "0", "--threads", "1"})));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "checkpoint of")) << describe(r);
  }
  for (const char* value : {kBase32, kBase40}) {
    SCOPED_TRACE(std::string("resumed with base ") + value);
    IdBase base(value);
    const CheckRun resumed = check_mpi({2, 1}, with(check, {"--resume", ckpt}));
    EXPECT_TRUE(contains(resumed.run.err, "resuming from")) << describe(resumed.run);
    expect_same_check(single, resumed, {2, 1}, check[0]);
  }
}

// (which also shows that the variable reaches the ranks; the parse is
// DistIdBase.ParsesDecimalNumbersOnly's)
TEST(DistIdBaseCli, ABaseThatLeavesNoRoomIsRefused) {
  IdBase base("9223372036854775807");  // 2^63 - 1
  const CliResult r = run_mpi(2, {"check", example("ping_pong")});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.err, "leaves no room")) << describe(r);
}

}  // namespace
