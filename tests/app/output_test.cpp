// Results are delivered or the binary says they were not: an output path
// that cannot be written is refused before any work (exit 2, nothing
// created or emptied); a write that fails at the end (/dev/full, for --json,
// --trace and standard output) gives a message and exit 3, never a silent 0;
// and JSON is written even for a model path that is not UTF-8.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/models.hpp"
#include "tests/test_support.hpp"

using ddsmc::test::CliResult;
using ddsmc::test::long_step_model;
using ddsmc::test::summary;
using ddsmc::test::read_text;
using ddsmc::test::run_ddsmc;
using ddsmc::test::source_path;
using ddsmc::test::temp_dir;
using ddsmc::test::temp_file;
using nlohmann::json;

namespace {

constexpr double kTimeout = 60;

std::string example(const std::string& name) { return source_path("examples/" + name + ".d2c"); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

CliResult cli(const std::vector<std::string>& args) { return run_ddsmc(args, kTimeout); }

// The long-step model keeps a check busy for minutes: refusing its output
// before exploring is the only way to finish in time.
TEST(Output, UnwritableJsonPathIsRefusedBeforeExploring) {
  std::string missing_dir = temp_dir() + "/no-such-dir/report.json";
  CliResult r = run_ddsmc({"check", temp_file(long_step_model()), "--json", missing_dir}, 20);
  EXPECT_EQ(r.exit_code, 2) << summary(r);
  EXPECT_TRUE(contains(r.err, "cannot write " + missing_dir + ": No such file or directory")) << summary(r);
  EXPECT_EQ(r.out, "") << "nothing explored";
}

TEST(Output, UnwritableTracePathLeavesTheOtherOutputsAlone) {
  // --json names a file that exists, --trace a directory: refused before
  // anything is written, and the existing file keeps its content.
  std::string existing = temp_file("keep me\n", ".json");
  std::string fresh = temp_dir() + "/fresh-report.json";
  std::string dir = temp_dir();
  CliResult r = run_ddsmc({"check", temp_file(long_step_model()), "--json", existing, "--trace", dir}, 20);
  EXPECT_EQ(r.exit_code, 2) << summary(r);
  EXPECT_TRUE(contains(r.err, "cannot write " + dir + ": Is a directory")) << summary(r);
  EXPECT_EQ(read_text(existing), "keep me\n");
  r = run_ddsmc({"check", temp_file(long_step_model()), "--json", fresh, "--trace", dir}, 20);
  EXPECT_EQ(r.exit_code, 2) << summary(r);
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "a file created for the refused run is removed";
  CliResult sim = run_ddsmc({"simulate", temp_file(long_step_model()), "--steps", "5", "--trace", dir}, 20);
  EXPECT_EQ(sim.exit_code, 2) << summary(sim);
  EXPECT_EQ(sim.out, "") << "nothing simulated";
}

TEST(Output, FullDeviceForJsonTraceOrStdoutIsNotSuccess) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  std::string model = example("flooding");  // every property holds: exit 0 when delivered
  ASSERT_EQ(cli({"check", model}).exit_code, 0);
  for (const auto& args : std::vector<std::vector<std::string>>{{"check", model, "--json", "/dev/full"},
                                                                {"check", model, "--trace", "/dev/full"},
                                                                {"simulate", model, "--trace", "/dev/full"}}) {
    CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 3) << args.back() << "\n" << summary(r);
    EXPECT_TRUE(contains(r.err, "cannot write /dev/full: No space left on device")) << summary(r);
  }
}

// Standard output is the result too: `ddsmc ... > /dev/full`.
TEST(Output, FullDeviceAsStandardOutputIsNotSuccess) {
  int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "no /dev/full here";
  std::string model = example("flooding");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", model}, {"check", model, "--json", "-"}, {"simulate", model}, {"lint", model}}) {
    CliResult r = run_ddsmc(args, kTimeout, {0, full});
    EXPECT_EQ(r.exit_code, 3) << args[0] << " " << args.back() << "\n" << summary(r);
    EXPECT_TRUE(contains(r.err, "cannot write standard output: No space left on device")) << summary(r);
  }
  close(full);
}

// ulimit -f: past the limit a write fails with EFBIG (SIGXFSZ would kill
// the binary with a cut report and no word): said, and exit 3.
TEST(Output, FileSizeLimitIsAWriteError) {
  std::string report = temp_file("", ".json");
  ddsmc::test::SpawnOptions limited;
  limited.file_size_limit = 4000;  // the text report (about 1 KB) fits, the JSON (about 7.5 KB) does not
  CliResult r = run_ddsmc({"check", example("ping_pong"), "--backend", "interpreted", "--json", report}, kTimeout, limited);
  EXPECT_EQ(r.exit_code, 3) << summary(r);
  EXPECT_TRUE(contains(r.err, "cannot write " + report + ": File too large")) << summary(r);
}

// --json and --trace in one file would interleave two documents: refused
// before any work (the long-step model would take minutes), whatever names
// the file has; an existing file keeps its content.
TEST(Output, OneFileForTwoOutputsIsRefusedBeforeExploring) {
  const std::string model = temp_file(long_step_model());
  const std::string existing = temp_file("keep me\n", ".json");
  const std::string link = temp_dir() + "/link.json";
  std::filesystem::create_symlink(existing, link);
  for (const auto& outputs : std::vector<std::vector<std::string>>{{"--json", existing, "--trace", existing},
                                                                   {"--json", existing, "--trace", link},
                                                                   {"--json", "-", "--trace", "/dev/stdout"},
                                                                   {"--json", "/dev/stdout", "--trace", "-"},
                                                                   {"--json", "-", "--trace", "-"},
                                                                   {"--json", "/dev/stdout"}}) {
    std::vector<std::string> args{"check", model};
    args.insert(args.end(), outputs.begin(), outputs.end());
    SCOPED_TRACE(outputs[1] + " " + (outputs.size() > 2 ? outputs[3] : ""));
    CliResult r = run_ddsmc(args, 20);
    EXPECT_EQ(r.exit_code, 2) << summary(r);
    EXPECT_TRUE(contains(r.err, "are the same file")) << summary(r);
    EXPECT_EQ(r.out, "") << "nothing explored";
    EXPECT_EQ(read_text(existing), "keep me\n");
  }
  CliResult sim = run_ddsmc({"simulate", model, "--steps", "5", "--trace", "/dev/stdout"}, 20);
  EXPECT_EQ(sim.exit_code, 2) << summary(sim);
  // Standard output for the trace, the text on standard error: accepted.
  CliResult ok = run_ddsmc({"check", example("ping_pong"), "--trace", "-"}, kTimeout);
  EXPECT_EQ(ok.exit_code, 1) << summary(ok);
  EXPECT_TRUE(json::parse(ok.out, nullptr, false).is_object()) << summary(ok);
}

TEST(Output, FailingVerdictWithAGoodJsonStillExitsOne) {
  std::string report = temp_file("", ".json");
  CliResult r = cli({"check", example("ping_pong"), "--json", report});
  EXPECT_EQ(r.exit_code, 1) << summary(r);
  std::ifstream in(report);
  json j = json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["properties"]["always_total"]["holds"], json(false));
}

// nlohmann::json refuses to print invalid UTF-8; the report must not depend
// on the model's file name being valid UTF-8.
TEST(Output, ModelPathThatIsNotUtf8StillGivesAJsonReport) {
  std::string path = temp_dir() + "/bad-\xff-name.d2c";
  std::ofstream(path) << read_text(example("flooding"));
  std::string report = temp_file("", ".json"), traces = temp_file("", ".json");
  CliResult r = cli({"check", path, "--json", report, "--trace", traces});
  EXPECT_EQ(r.exit_code, 0) << summary(r);
  for (const auto& file : {report, traces}) {
    std::ifstream in(file);
    json j = json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << read_text(file).substr(0, 500);
    EXPECT_EQ(j["model"], json(temp_dir() + "/bad-\xEF\xBF\xBD-name.d2c")) << "invalid bytes become U+FFFD";
  }
}

}  // namespace
