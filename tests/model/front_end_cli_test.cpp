// The front end's hardening seen from the command line (the real binary, as a
// user runs it): line endings, UTF-8, edge-list node names, the input-bound
// limit and the error cap. Each case is a bad input that used to pass the
// front end and give a wrong or late answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using ddsmc::test::CliResult;
using ddsmc::test::read_text;
using ddsmc::test::run_ddsmc;
using ddsmc::test::temp_dir;
using ddsmc::test::temp_file;

namespace {

constexpr double kTimeout = 120;

std::string describe(const CliResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n--- stdout:\n" + r.out.substr(0, 3000) +
         "\n--- stderr:\n" + r.err.substr(0, 3000);
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// One node toggling `a` for ever: it never converges, so sometimes-total fails.
// It starts with a comment line, as in the report of the bug.
const char* const kToggle =
    "% toggles for ever\n"
    "state a/0.\n"
    "transport t/0.\n"
    "network ring(1).\n"
    "a if not prev a, t@_.\n"
    "t@N if t@_, my_name(N).\n"
    "t@N if start@_, my_name(N).\n";

std::string with_line_ends(const std::string& lf_text, const std::string& eol) {
  std::string out;
  for (char c : lf_text) out += c == '\n' ? eol : std::string(1, c);
  return out;
}

// The lines of `check` output that carry the counts and verdicts: the first line (it names
// the file) is dropped, and so is the run time, which differs from run to run.
std::string verdicts(const std::string& out) {
  const std::string rest = out.substr(std::min(out.size(), out.find('\n')));
  return std::regex_replace(rest, std::regex(", [0-9.]+ s\n"), "\n");
}

// A flooding program; the network comes from --network.
const char* const kFlooding =
    "state seen/0.\n"
    "transport flood/0.\n"
    "seen if flood@_.\n"
    "seen if prev seen.\n"
    "flood@N if start@_, neighbor(N), not prev seen.\n"
    "flood@N if flood@_, not prev seen, neighbor(N).\n";

}  // namespace

TEST(FrontEndCli, CrOnlyModelReadsLikeLf) {
  const CliResult lf = run_ddsmc({"check", temp_file(kToggle)}, kTimeout);
  ASSERT_EQ(lf.exit_code, 1) << describe(lf);
  ASSERT_TRUE(contains(lf.out, "sometimes-total    FAILS")) << describe(lf);
  for (const char* eol : {"\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    const std::string path = temp_file(with_line_ends(kToggle, eol));
    const CliResult lint = run_ddsmc({"lint", path}, kTimeout);
    EXPECT_EQ(lint.exit_code, 0) << describe(lint);
    EXPECT_TRUE(contains(lint.out, "rules: 3 (2 with transport heads")) << describe(lint);
    const CliResult check = run_ddsmc({"check", path}, kTimeout);
    EXPECT_EQ(check.exit_code, lf.exit_code) << describe(check);
    EXPECT_EQ(verdicts(check.out), verdicts(lf.out)) << describe(check);
  }
}

TEST(FrontEndCli, ErrorOnLineThreeOfCrAndCrLfFiles) {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    const std::string path = temp_file(with_line_ends("% comment\nstate a/0.\na if  b.\n", eol));
    const CliResult r = run_ddsmc({"lint", path, "--network", "ring:1"}, kTimeout);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, path + ":3:7: error: undeclared predicate 'b'")) << describe(r);
  }
}

TEST(FrontEndCli, InvalidUtf8IsALoadError) {
  const std::string dir = temp_dir();
  const std::string model = temp_file("state p/1.\nnetwork ring(1).\ninit { p(\"a\xff" "b\"). }\np(X) if prev p(X).\n");
  const CliResult r = run_ddsmc({"check", model, "--json", dir + "/r.json"}, kTimeout);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, model + ":3:12: error: invalid UTF-8 in a string: the bytes '\\xff'")) << describe(r);
  EXPECT_FALSE(contains(r.err, "internal error")) << describe(r);

  const std::string net = temp_file("a \"b\xc0\xaf\"\n", ".net");
  const CliResult n = run_ddsmc({"lint", temp_file(kFlooding), "--network", net}, kTimeout);
  EXPECT_EQ(n.exit_code, 2) << describe(n);
  EXPECT_TRUE(contains(n.err, net + ":1:5: invalid UTF-8 in a string: the bytes '\\xc0\\xaf'")) << describe(n);
}

TEST(FrontEndCli, ValidUtf8ReachesTheJsonAndReplays) {
  const std::string dir = temp_dir();
  const std::string model = temp_file(
      "state p/1.\ntransport t/0.\nnetwork ring(1).\n"
      "init { p(\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\x8d\"). }\n"
      "p(X) if prev p(X), t@_.\n"
      "t@N if start@_, my_name(N).\nt@N if t@_, my_name(N).\n");
  const std::string report = dir + "/r.json", trace = dir + "/t.json";
  const CliResult r = run_ddsmc({"check", model, "--json", report, "--trace", trace}, kTimeout);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto doc = nlohmann::json::parse(read_text(report));
  EXPECT_EQ(doc["properties"]["sometimes_total"]["trace"]["initial"]["n0"][0],
            "p(\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\x8d\")");
  const CliResult replay = run_ddsmc({"replay", model, trace}, kTimeout);
  EXPECT_EQ(replay.exit_code, 0) << describe(replay);
}

TEST(FrontEndCli, EdgeListNamesAreConstantsAndTheirTracesReplay) {
  // Quoted names with a space and a '#', an integer written with leading
  // zeros, CR and CRLF line ends.
  const std::string net = temp_file("# names\n\"node one\" 007\r\n7 \"x#y\" # comment\r\"x#y\" b\n", ".net");
  const std::string model = temp_file(kFlooding);
  const std::string dir = temp_dir();
  const CliResult lint = run_ddsmc({"lint", model, "--network", net}, kTimeout);
  ASSERT_EQ(lint.exit_code, 0) << describe(lint);
  EXPECT_TRUE(contains(lint.out, "4 nodes, 3 edges")) << describe(lint);
  const std::string trace = dir + "/t.json", report = dir + "/r.json";
  const CliResult check = run_ddsmc({"check", model, "--network", net, "--trace", trace, "--json", report}, kTimeout);
  ASSERT_EQ(check.exit_code, 0) << describe(check);
  const std::string text = read_text(trace);
  EXPECT_TRUE(contains(text, "\"node\": \"\\\"node one\\\"\"")) << text.substr(0, 2000);
  EXPECT_TRUE(contains(text, "\"node\": \"7\"")) << text.substr(0, 2000);
  for (const std::string& file : {trace, report}) {
    const CliResult replay = run_ddsmc({"replay", model, file}, kTimeout);
    EXPECT_EQ(replay.exit_code, 0) << describe(replay);
    EXPECT_TRUE(contains(replay.out, " steps replay")) << describe(replay);
  }
}

TEST(FrontEndCli, BadEdgeListNamesAreLocatedErrors) {
  const std::string model = temp_file(kFlooding);
  const std::pair<std::string, std::string> cases[] = {
      {"a b\nx,y\n", ":2:2: unexpected character ',' after the node name 'x'"},
      {"a X\n", ":1:3: 'X' is not a node name"},
      {"_a b\n", ":1:1: '_a': a name cannot start with '_'"},
      {"a " + std::string(2 << 20, 'n') + "\n", ":1:3: name of 2097152 characters is longer than the limit of 1024"},
  };
  for (const auto& [text, want] : cases) {
    const std::string net = temp_file(text, ".net");
    const CliResult r = run_ddsmc({"lint", model, "--network", net}, kTimeout);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, net + want)) << describe(r);
  }
}

TEST(FrontEndCli, InputBoundTooLargeIsRefused) {
  const std::string model = temp_file(
      "input in/2.\nstate s/2.\ntransport t/0.\nnetwork ring(1).\n"
      "s(X, Y) if in(X, Y).\nt@N if start@_, my_name(N).\nt@N if t@_, my_name(N).\n");
  // With a small bound always-total fails (the inputs change the DB for ever) ...
  const CliResult small = run_ddsmc({"check", model, "--input-bound", "1", "--property", "always-total"}, kTimeout);
  EXPECT_EQ(small.exit_code, 1) << describe(small);
  // ... and 2^31 is refused rather than wrapped to 0 (which said "holds").
  const CliResult big = run_ddsmc({"check", model, "--input-bound", "2147483648", "--property", "always-total"},
                                  kTimeout);
  EXPECT_EQ(big.exit_code, 2) << describe(big);
  EXPECT_TRUE(contains(big.err, model + ": error: input bound 2147483648 is too large: input DBs of 2147483648 "
                                        "facts of 'in' (arity 2) may hold 4294967296 fresh constants; with 1 fixed "
                                        "constant that exceeds the limit of 2147483648 constant ids"))
      << describe(big);
  EXPECT_TRUE(big.out.empty()) << describe(big);
}

TEST(FrontEndCli, ResolverErrorsAreCappedPerPhase) {
  constexpr int kUndeclared = 100000;
  std::string src = "state p/0.\nnetwork ring(1).\np if prev p.\n";
  for (int i = 0; i < kUndeclared; ++i) src += "p if q" + std::to_string(i) + ".\n";
  const std::string model = temp_file(src);
  const CliResult r = run_ddsmc({"lint", model}, kTimeout);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  // 100 errors, the "more" line and the total.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 102) << describe(r);
  EXPECT_TRUE(contains(r.err, model + ": 99900 more errors while resolving not shown (at most 100 of each per "
                                      "phase)\n"))
      << describe(r);
  EXPECT_TRUE(contains(r.err, model + ": 100000 errors\n")) << describe(r);
}
