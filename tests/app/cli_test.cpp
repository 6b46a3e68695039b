// The ddsmc binary on bad input: every case runs the real executable (as a
// user would) and must end with exit code 2 and a located or clear message on
// stderr, never a crash (a signal shows as exit code >= 128), a sanitizer
// report, or a hang. Plus the command-line surface of `ddsmc lint` (docs/reference.md §5.4).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

using ddsmc::test::CliResult;
using ddsmc::test::run_ddsmc;
using ddsmc::test::temp_dir;
using ddsmc::test::temp_file;

namespace {

constexpr double kTimeout = 60;  // seconds; every case here should take well under one

// A small valid model: every construct the resolver checks, on a file network.
const char* const kValidModel =
    "% flooding: every node learns the token\n"
    "state seen/0.\n"
    "transport flood/0.\n"
    "network ring(3).\n"
    "init at n0 { seen. }\n"
    "seen if flood@_.\n"
    "seen if prev seen.\n"
    "flood@N if start@_, seen, neighbor(N).\n"
    "flood@N if flood@_, not prev seen, neighbor(N).\n";

std::string describe(const CliResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n--- stdout:\n" + r.out.substr(0, 4000) +
         "\n--- stderr:\n" + r.err.substr(0, 4000);
}

// Lines of stderr of the form "FILE:LINE:COL: error: ..." for this file; their line numbers.
std::vector<uint32_t> located_error_lines(const std::string& err, const std::string& file) {
  std::vector<uint32_t> lines;
  std::istringstream in(err);
  std::string line;
  const std::string prefix = file + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    size_t p = prefix.size();
    auto digits = [&](uint32_t& value) {
      size_t begin = p;
      value = 0;
      while (p < line.size() && line[p] >= '0' && line[p] <= '9') value = value * 10 + (line[p++] - '0');
      return p > begin;
    };
    uint32_t l = 0, c = 0;
    if (!digits(l) || p >= line.size() || line[p++] != ':') continue;
    if (!digits(c) || line.compare(p, 9, ": error: ") != 0) continue;
    if (l >= 1 && c >= 1) lines.push_back(l);
  }
  return lines;
}

// The common contract for bad input: a clean error exit with a message.
void expect_clean_error(const CliResult& r) {
  EXPECT_NE(r.exit_code, -2) << "hang (killed after the timeout)\n" << describe(r);
  EXPECT_LT(r.exit_code, 128) << "crashed with a signal\n" << describe(r);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("error"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << describe(r);
  // Messages are text: no raw control bytes from the input leak onto the terminal.
  for (char ch : r.err) {
    auto u = static_cast<unsigned char>(ch);
    if ((u < 0x20 && ch != '\n' && ch != '\t') || u == 0x7f) {
      ADD_FAILURE() << "control byte 0x" << std::hex << int(u) << " on stderr\n" << describe(r);
      break;
    }
  }
}

// A command-line error (CLI11's messages): exit code 2, a message, a pointer to --help.
void expect_usage_error(const CliResult& r) {
  EXPECT_NE(r.exit_code, -2) << "hang (killed after the timeout)\n" << describe(r);
  EXPECT_LT(r.exit_code, 128) << "crashed with a signal\n" << describe(r);
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("--help"), std::string::npos) << describe(r);
  EXPECT_TRUE(r.out.empty()) << describe(r);
}

CliResult lint(const std::string& path, std::vector<std::string> extra = {}, double timeout = kTimeout) {
  std::vector<std::string> args = {"lint", path};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_ddsmc(args, timeout);
}

}  // namespace

// ---- bad model files ---------------------------------------------------------

TEST(CliBadInput, EmptyFileHasNoNetwork) {
  std::string path = temp_file("");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find("no network"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find(path), std::string::npos) << describe(r);
}

TEST(CliBadInput, EmptyFileWithNetworkOverrideIsValid) {
  // With a network, the empty program is legal: nothing ever happens.
  CliResult r = lint(temp_file("% nothing\n"), {"--network", "ring:2"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

TEST(CliBadInput, BinaryGarbage) {
  std::mt19937 rng(20240611);
  std::string bytes(64 * 1024, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng() & 0xff);
  std::string path = temp_file(bytes);
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_FALSE(located_error_lines(r.err, path).empty()) << describe(r);
  EXPECT_LT(r.err.size(), 64u * 1024) << "error output should be capped";
}

TEST(CliBadInput, NulByteInValidFile) {
  std::string src = "state p/0.\np.\n";
  src += '\0';
  src += "p if p.\n";
  std::string path = temp_file(src);
  CliResult r = lint(path, {"--network", "ring:2"});
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path + ":3:1: error: unexpected character '\\x00'"), std::string::npos) << describe(r);
}

TEST(CliBadInput, ControlBytesInsideAString) {
  std::string src = "state p/1.\nnetwork ring(2).\np(\"a";
  src += '\x1b';
  src += "[2Jb\") if q.\n";
  std::string path = temp_file(src);
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_FALSE(located_error_lines(r.err, path).empty()) << describe(r);
}

TEST(CliBadInput, TokenSoup) {
  // Plausible tokens in random order: exercises the parser's recovery, not the lexer.
  const char* toks[] = {"state", "input", "transport", "p", "q/1", "X", "_", "(", ")", ",", ".", "if", ":-",
                        "not",   "prev",  "choice",    "@", "=", "!=", "{", "}", "network", "init", "at",
                        "bounds", "ring", "1", "\"s\"", "-", "/"};
  std::mt19937 rng(7);
  std::string src;
  for (int i = 0; i < 20000; ++i) {
    src += toks[rng() % (sizeof toks / sizeof toks[0])];
    src += (rng() % 8 == 0) ? "\n" : " ";
  }
  std::string path = temp_file(src);
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_FALSE(located_error_lines(r.err, path).empty()) << describe(r);
}

TEST(CliBadInput, UnterminatedString) {
  std::string path = temp_file("state p/1.\np(\"abc).\nnetwork ring(2).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path + ":2:3: error: unterminated string"), std::string::npos) << describe(r);
}

TEST(CliBadInput, UnterminatedStringAtEndOfFile) {
  std::string path = temp_file("state p/1.\np(\"abc\\");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path + ":2:3: error: unterminated string"), std::string::npos) << describe(r);
}

TEST(CliBadInput, StringOfManyBadEscapesIsOneError) {
  std::string bad;
  for (int i = 0; i < 100000; ++i) bad += "\\q\x01";
  std::string path = temp_file("state p/1.\nnetwork ring(2).\np(\"" + bad + "\").\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_EQ(located_error_lines(r.err, path), std::vector<uint32_t>{3}) << describe(r);
}

TEST(CliBadInput, TenThousandCharacterIdentifier) {
  std::string name(10000, 'a');
  std::string path = temp_file("state " + name + "/1.\n" + name + "(x).\nnetwork ring(2).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path + ":1:7: error: name of 10000 characters is longer than the limit"), std::string::npos)
      << describe(r);
  EXPECT_EQ(r.err.find(name), std::string::npos) << "the message should not echo a 10,000-character name";
}

TEST(CliBadInput, TenThousandDigitInteger) {
  std::string path = temp_file("state p/1.\np(" + std::string(10000, '9') + ").\nnetwork ring(2).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_EQ(located_error_lines(r.err, path), std::vector<uint32_t>{2}) << describe(r);
}

TEST(CliBadInput, PredicateOfArityThousand) {
  std::string atom = "p(";
  for (int i = 0; i < 1000; ++i) atom += i ? ", c" + std::to_string(i) : "c0";
  atom += ")";
  std::string path = temp_file("state p/1000.\n" + atom + ".\nnetwork ring(2).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  auto lines = located_error_lines(r.err, path);
  EXPECT_NE(std::find(lines.begin(), lines.end(), 1u), lines.end()) << "the declaration\n" << describe(r);
  EXPECT_NE(std::find(lines.begin(), lines.end(), 2u), lines.end()) << "the atom\n" << describe(r);
}

TEST(CliBadInput, ArityAboveThirtyTwoBits) {
  std::string path = temp_file("state p/4294967297.\nnetwork ring(2).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_EQ(located_error_lines(r.err, path), std::vector<uint32_t>{1}) << describe(r);
}

TEST(CliBadInput, MissingFile) {
  std::string path = temp_dir() + "/no-such-model.d2c";
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << describe(r);
}

TEST(CliBadInput, DirectoryAsModel) {
  CliResult r = lint(temp_dir());
  expect_clean_error(r);
  EXPECT_NE(r.err.find("directory"), std::string::npos) << describe(r);
}

TEST(CliBadInput, EndlessDeviceAsModel) {
  // Reading stops at the size limit instead of exhausting memory.
  CliResult r = lint("/dev/zero");
  expect_clean_error(r);
  EXPECT_NE(r.err.find("limit"), std::string::npos) << describe(r);
}

TEST(CliBadInput, DeeplyNestedParentheses) {
  std::string path = temp_file(std::string(100000, '('));
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_NE(r.err.find(path + ":1:1: error:"), std::string::npos) << describe(r);
}

TEST(CliBadInput, DeeplyNestedParenthesesInsideARule) {
  std::string path = temp_file("state p/1.\nnetwork ring(2).\np(X) if p" + std::string(100000, '(') + "X.\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_EQ(located_error_lines(r.err, path), std::vector<uint32_t>{3}) << describe(r);
}

TEST(CliBadInput, ManyErrorsInsideABlockAreCapped) {
  std::string src = "network {\n";
  for (int i = 0; i < 50000; ++i) src += "  a b.\n";
  src += "}\n";
  std::string path = temp_file(src);
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_LE(located_error_lines(r.err, path).size(), 102u);
  EXPECT_LT(r.err.size(), 64u * 1024) << "error output should be capped";
}

TEST(CliBadInput, MultipleIndependentSyntaxErrorsInOneRun) {
  std::string path = temp_file(
      "state p/1.\n"
      "p(X if p(X).\n"      // line 2: missing ')'
      "network ring(2).\n"
      "p(a) if , p(a).\n"   // line 4: missing literal
      "p(b).\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  EXPECT_EQ(located_error_lines(r.err, path), (std::vector<uint32_t>{2, 4})) << describe(r);
  EXPECT_NE(r.err.find("2 errors"), std::string::npos) << describe(r);
}

// Recovery from one broken line never swallows the next item: every line
// here has its own error, and each is reported.
TEST(CliBadInput, RecoveryReportsEveryBrokenLine) {
  std::string path = temp_file(
      "state p/1\n"                          // 1: missing '.' (reported at the start of line 2)
      "p(X if q(X).\n"                        // 2: missing ')'
      "p(_x).\n"                              // 3: bad name
      "\"unterminated\n"                      // 4
      "network { a - . b }\n"                 // 5: missing node name
      "init at { p(a). }\n"                   // 6: missing node name
      "bounds { memory 3. }\n"                // 7: unknown bound
      "p(X) if choice((X), (Y), Z).\n"        // 8: choice takes two lists
      "state q/\n"                            // 9: missing arity (reported at 'transport' on line 10)
      "transport m/1.\n");
  CliResult r = lint(path);
  expect_clean_error(r);
  auto lines = located_error_lines(r.err, path);
  for (uint32_t line : {2, 3, 4, 5, 6, 7, 8, 10})
    EXPECT_NE(std::find(lines.begin(), lines.end(), line), lines.end()) << "line " << line << "\n" << describe(r);
  EXPECT_NE(r.err.find(path + ":10:1: error: expected the arity of 'q'"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("10 errors"), std::string::npos) << describe(r);
}

TEST(CliBadInput, MultipleIndependentStaticErrorsInOneRun) {
  std::string path = temp_file(
      "state p/1.\n"
      "network ring(2).\n"
      "p(X) if q(X).\n"      // line 3: q is not declared
      "p(a).\n"
      "p(X) if p(X, Y).\n"); // line 5: wrong arity
  CliResult r = lint(path);
  expect_clean_error(r);
  auto lines = located_error_lines(r.err, path);
  EXPECT_NE(std::find(lines.begin(), lines.end(), 3u), lines.end()) << describe(r);
  EXPECT_NE(std::find(lines.begin(), lines.end(), 5u), lines.end()) << describe(r);
}

// 100,000 valid rules: the front end is linear and never recurses on input size.
TEST(CliBadInput, HundredThousandRulesAreValid) {
  std::string src = "state p/1, q/2.\nnetwork ring(3).\n";
  src.reserve(100000 * 40);
  for (int i = 0; i < 100000; ++i) src += "p(X) if prev p(X), q(X, c" + std::to_string(i) + ").\n";
  std::string path = temp_file(src);
  auto t0 = std::chrono::steady_clock::now();
  CliResult r = lint(path, {}, 300);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("rules: 100000"), std::string::npos) << describe(r);
  RecordProperty("seconds", std::to_string(seconds));
  std::printf("[ info     ] 100,000 rules linted in %.2f s\n", seconds);
  // Generous, because this also runs under the sanitizers on a shared machine.
  EXPECT_LT(seconds, 60.0);
}

// A dependency chain 100,000 predicates long: stratification must not recurse per predicate.
TEST(CliBadInput, HundredThousandPredicateChainIsValid) {
  const int n = 100000;
  std::string src = "network ring(2).\nstate p0/0";
  for (int i = 1; i <= n; ++i) src += ", p" + std::to_string(i) + "/0";
  src += ".\n";
  for (int i = 0; i < n; ++i) src += "p" + std::to_string(i) + " if p" + std::to_string(i + 1) + ".\n";
  CliResult r = lint(temp_file(src), {}, 300);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
}

// The same chain closed through a negation: a stratification error, not a stack overflow.
TEST(CliBadInput, HundredThousandPredicateNegativeCycle) {
  const int n = 100000;
  std::string src = "network ring(2).\nstate p0/0";
  for (int i = 1; i < n; ++i) src += ", p" + std::to_string(i) + "/0";
  src += ".\n";
  for (int i = 0; i + 1 < n; ++i) src += "p" + std::to_string(i) + " if p" + std::to_string(i + 1) + ".\n";
  src += "p" + std::to_string(n - 1) + " if not p0.\n";
  std::string path = temp_file(src);
  CliResult r = lint(path, {}, 300);
  expect_clean_error(r);
  EXPECT_FALSE(located_error_lines(r.err, path).empty()) << describe(r);
}

// ---- the command line ----------------------------------------------------------

TEST(CliOptions, ValidModelPrintsSummary) {
  std::string path = temp_file(kValidModel);
  CliResult r = lint(path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find(path + ": ok"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("rules: 4"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("network: "), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("3 nodes"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err.find("error"), std::string::npos) << describe(r);
}

TEST(CliOptions, ValidModelWithCrLfLineEndings) {
  std::string src;
  for (const char* p = kValidModel; *p; ++p) src += *p == '\n' ? std::string("\r\n") : std::string(1, *p);
  CliResult r = lint(temp_file(src));
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

TEST(CliOptions, NetworkOverride) {
  CliResult r = lint(temp_file(kValidModel), {"--network", "line:5"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("5 nodes"), std::string::npos) << describe(r);
}

TEST(CliOptions, NetworkOverrideFromEdgeListFile) {
  std::string net = temp_file("# a triangle\nn0 n1\nn1 n2\nn2 n0\n", ".net");
  CliResult r = lint(temp_file(kValidModel), {"--network", net});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("3 nodes"), std::string::npos) << describe(r);
}

TEST(CliOptions, BoundOverrides) {
  CliResult r = lint(temp_file(kValidModel), {"--input-bound", "2", "--state-bound", "4", "--channel-bound", "3"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("input 2, state 4, channel 3"), std::string::npos) << describe(r);
}

TEST(CliOptions, HelpExitsZero) {
  CliResult r = run_ddsmc({"--help"}, kTimeout);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("lint"), std::string::npos) << describe(r);
  CliResult sub = run_ddsmc({"lint", "--help"}, kTimeout);
  EXPECT_EQ(sub.exit_code, 0) << describe(sub);
  EXPECT_NE(sub.out.find("--network"), std::string::npos) << describe(sub);
}

TEST(CliOptions, UnknownOption) {
  expect_usage_error(run_ddsmc({"--frobnicate"}, kTimeout));
  expect_usage_error(lint(temp_file(kValidModel), {"--frobnicate"}));
  expect_usage_error(lint(temp_file(kValidModel), {"--frobnicate=3"}));
}

TEST(CliOptions, UnknownSubcommandAndNoSubcommand) {
  expect_usage_error(run_ddsmc({"frobnicate"}, kTimeout));
  expect_usage_error(run_ddsmc({}, kTimeout));
}

TEST(CliOptions, LintWithoutModel) { expect_usage_error(run_ddsmc({"lint"}, kTimeout)); }

TEST(CliOptions, LintWithTwoModels) {
  expect_usage_error(lint(temp_file(kValidModel), {temp_file(kValidModel)}));
}

TEST(CliOptions, OptionMissingItsValue) { expect_usage_error(lint(temp_file(kValidModel), {"--network"})); }

TEST(CliOptions, EmptyNetworkRing) {
  CliResult r = lint(temp_file(kValidModel), {"--network", "ring:0"});
  expect_clean_error(r);
  EXPECT_NE(r.err.find("network"), std::string::npos) << describe(r);
}

TEST(CliOptions, MalformedNetworkSpecs) {
  for (const char* spec : {"ring:", "ring:-1", "ring:x", "ring:99999999999999999999999", "grid:3", "grid:0x4",
                           "random:4:2", "complete:100000000", ""}) {
    SCOPED_TRACE(spec);
    expect_clean_error(lint(temp_file(kValidModel), {"--network", spec}));
  }
}

TEST(CliOptions, NetworkFileMissing) {
  CliResult r = lint(temp_file(kValidModel), {"--network", "nosuchfile"});
  expect_clean_error(r);
  EXPECT_NE(r.err.find("nosuchfile"), std::string::npos) << describe(r);
}

TEST(CliOptions, NetworkFileIsADirectoryOrDisconnected) {
  expect_clean_error(lint(temp_file(kValidModel), {"--network", temp_dir()}));
  std::string net = temp_file("a b\nc d\n", ".net");
  expect_clean_error(lint(temp_file(kValidModel), {"--network", net}));
}

TEST(CliOptions, NetworkFileOfBinaryGarbage) {
  std::mt19937 rng(99);
  std::string bytes(64 * 1024, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng() & 0xff);
  CliResult r = lint(temp_file(kValidModel), {"--network", temp_file(bytes, ".net")});
  expect_clean_error(r);
}

TEST(CliOptions, NetworkNotMatchingInitNode) {
  // The model's `init at n0` names a node a custom network does not have.
  std::string net = temp_file("x y\n", ".net");
  expect_clean_error(lint(temp_file(kValidModel), {"--network", net}));
}

TEST(CliOptions, BadBoundValues) {
  for (const char* bound : {"--input-bound", "--state-bound", "--channel-bound"}) {
    for (const char* value : {"abc", "-1", "99999999999", "1.5", "2x"}) {
      SCOPED_TRACE(std::string(bound) + " " + value);
      expect_usage_error(lint(temp_file(kValidModel), {bound, value}));
    }
  }
}
