// Helpers of the CLI tests that run `check`, `simulate` and `replay`: the
// result of a run in words, JSON files in and out, and the shape of
// `replay`'s output when every trace is accepted.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace ddsmc::test {

using nlohmann::json;

inline constexpr double kCliTimeout = 60;  // seconds; every run here takes well under a few

inline std::string example(const std::string& name) { return source_path("examples/" + name + ".d2c"); }

inline std::string describe(const CliResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n--- stdout:\n" + r.out.substr(0, 6000) + "\n--- stderr:\n" +
         r.err.substr(0, 6000);
}

inline CliResult cli(const std::vector<std::string>& args) { return run_ddsmc(args, kCliTimeout); }

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline json load_json(const std::string& path) {
  std::ifstream in(path);
  json j = json::parse(in, nullptr, false);
  return j;
}

inline void save_json(const std::string& path, const json& j) { std::ofstream(path) << j.dump(1) << "\n"; }

inline std::string scratch(const std::string& suffix = ".json") { return temp_file("", suffix); }

// `ddsmc check ARGS --json J`: the result and the parsed report.
struct Checked {
  CliResult run;
  json report;
};

inline Checked check_json(std::vector<std::string> args) {
  const std::string path = scratch();
  args.insert(args.begin(), "check");
  args.push_back("--json");
  args.push_back(path);
  Checked c{cli(args), json()};
  c.report = load_json(path);
  return c;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// "trace K (LABEL): N steps replay[, and the loop closes at step L][; CLAIM]"
// for every trace, nothing wrong.
inline void expect_all_replay(const CliResult& r, size_t traces) {
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  size_t ok = 0;
  for (const auto& line : lines_of(r.out)) {
    static const std::regex re(
        R"(^trace [0-9]+( \([a-z -]+\))?: [0-9]+ steps replay(, and the loop closes at step [0-9]+)?(; [^;]+)?$)");
    if (std::regex_match(line, re))
      ++ok;
    else
      ADD_FAILURE() << "unexpected replay line: " << line << "\n" << describe(r);
  }
  EXPECT_EQ(ok, traces) << describe(r);
}

// The always-total counterexample of ping_pong, as a --trace file.
struct PingPongTrace {
  std::string model = example("ping_pong");
  json file;
  json& trace() { return file["traces"][0]["trace"]; }
};

inline PingPongTrace ping_pong_trace() {
  PingPongTrace p;
  std::string path = scratch();
  CliResult r = cli({"check", p.model, "--property", "always-total", "--trace", path});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  p.file = load_json(path);
  EXPECT_TRUE(p.file.is_object() && p.file["traces"].size() == 1) << p.file.dump().substr(0, 500);
  return p;
}

inline CliResult replay_json(const std::string& model, const json& doc) {
  std::string path = scratch();
  save_json(path, doc);
  return cli({"replay", model, path});
}

// The first step (from `from`) that has a non-empty `key`.
inline size_t first_step_with(const json& trace, const char* key, size_t from = 0) {
  const json& steps = trace["steps"];
  for (size_t i = from; i < steps.size(); ++i)
    if (steps[i].contains(key) && !steps[i][key].empty()) return i;
  return steps.size();
}

inline void expect_wrong_step(const CliResult& r, size_t step) {
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_TRUE(contains(r.out, "step " + std::to_string(step) + " is wrong")) << "expected step " << step << "\n"
                                                                             << describe(r);
}

}  // namespace ddsmc::test
