// The comparison itself, without mpiexec: a single-process run agrees with
// another single-process run of the same check, and a run of another check
// is told apart (so the distributed tests can fail).
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/dist/cli/dist_support.hpp"

using namespace ddsmc::test;

namespace {

// The messages of the failures `body` reports (intercepted: they do not fail
// this test).
std::vector<std::string> failures_of(const std::function<void()>& body) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    body();
  }
  std::vector<std::string> out;
  for (int i = 0; i < results.size(); ++i)
    if (results.GetTestPartResult(i).failed()) out.push_back(results.GetTestPartResult(i).message());
  return out;
}

// `body` fails, one of its messages mentioning `part`.
void expect_fails_on(const std::function<void()>& body, const std::string& part) {
  auto messages = failures_of(body);
  bool found = false;
  std::string all;
  for (const auto& m : messages) {
    found |= m.find(part) != std::string::npos;
    all += m.substr(0, 300) + "\n---\n";
  }
  EXPECT_TRUE(found) << messages.size() << " failures, none mentions '" << part << "':\n" << all;
}

TEST(DistCliHarness, SingleProcessAgreesWithItself) {
  for (const auto& args : {std::vector<std::string>{example("echo")},
                           std::vector<std::string>{example("relay"), "--network", "star:3"},
                           std::vector<std::string>{example("leader_election"), "--max-states", "777"}}) {
    SCOPED_TRACE(args[0]);
    CheckRun a = check_single(args);
    CheckRun b = check_single(args, 1);
    b.what = "single process, --threads 1";
    expect_same_check(a, b, {1, 1}, args[0]);
  }
}

TEST(DistCliHarness, AnotherCheckIsToldApart) {
  CheckRun ring4 = check_single({example("flooding")});
  CheckRun ring5 = check_single({example("flooding"), "--network", "ring:5"}, 1);
  expect_fails_on([&] { expect_same_check(ring4, ring5, {1, 1}, ""); }, "states");
  // Same counts and verdicts, other traces: fairness none finds other lassos.
  CheckRun fair = check_single({example("echo")});
  CheckRun unfair = check_single({example("echo"), "--fairness", "none"}, 1);
  expect_fails_on([&] { expect_same_check(fair, unfair, {1, 1}, ""); }, "--trace file");
  // Another limit: the same model cut at another state.
  CheckRun cut = check_single({example("leader_election"), "--max-states", "777"});
  CheckRun cut2 = check_single({example("leader_election"), "--max-states", "778"}, 1);
  expect_fails_on([&] { expect_same_check(cut, cut2, {1, 1}, ""); }, "states");
  // A statistic of the distributed run that does not fit the layout.
  CheckRun echo = check_single({example("echo")}, 1);
  expect_fails_on([&] { expect_same_check(fair, echo, {2, 1}, ""); }, "ranks");
}

}  // namespace
