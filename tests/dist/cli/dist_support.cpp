#include "tests/dist/cli/dist_support.hpp"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>

namespace ddsmc::test {

using nlohmann::json;

std::string mpiexec() { return DDSMC_MPIEXEC; }

std::vector<std::string> mpiexec_args(int np, const std::vector<std::string>& ddsmc_args) {
  std::vector<std::string> args{"--oversubscribe", "--allow-run-as-root", DDSMC_MPIEXEC_NUMPROC_FLAG,
                                std::to_string(np), ddsmc_binary()};
  args.insert(args.end(), ddsmc_args.begin(), ddsmc_args.end());
  return args;
}

namespace {
SpawnOptions launcher_options() {
  SpawnOptions o;
  o.new_process_group = true;
  o.null_stdin = true;
  return o;
}
}  // namespace

CliResult run_mpi(int np, const std::vector<std::string>& ddsmc_args, double timeout) {
  return run_program(mpiexec(), mpiexec_args(np, ddsmc_args), timeout, launcher_options());
}

Spawned spawn_mpi(int np, const std::vector<std::string>& ddsmc_args, const std::vector<std::string>& mpiexec_options) {
  std::vector<std::string> args = mpiexec_options;
  for (const std::string& a : mpiexec_args(np, ddsmc_args)) args.push_back(a);
  return spawn_program(mpiexec(), args, launcher_options());
}

std::vector<Layout> all_layouts() { return {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {2, 2}}; }

namespace {

json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json();
  json j = json::parse(in, nullptr, false);
  return j.is_discarded() ? json() : j;
}

CheckRun check_with(const std::string& what, const std::vector<std::string>& args, int np, int threads) {
  CheckRun c;
  c.what = what;
  const std::string report = scratch();
  c.trace_path = scratch();
  std::vector<std::string> full{"check"};
  full.insert(full.end(), args.begin(), args.end());
  if (threads > 0) {
    full.push_back("--threads");
    full.push_back(std::to_string(threads));
  }
  for (const std::string& a : {std::string("--json"), report, std::string("--trace"), c.trace_path}) full.push_back(a);
  c.run = np > 0 ? run_mpi(np, full) : cli(full);
  c.report = parse_file(report);
  c.traces = parse_file(c.trace_path);
  return c;
}

}  // namespace

CheckRun check_single(const std::vector<std::string>& args, int threads) {
  return check_with("single process", args, 0, threads);
}

CheckRun check_mpi(const Layout& layout, const std::vector<std::string>& args) {
  return check_with(layout.name(), args, layout.ranks, layout.threads);
}

json without_stats(json j) {
  if (j.is_object()) {
    j.erase("stats");
    j.erase("seconds");
    j.erase("analysis_seconds");
    for (auto& [key, value] : j.items()) value = without_stats(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_stats(value);
  }
  return j;
}

std::string without_times(const std::string& text) {
  static const std::regex seconds(R"(\b[0-9]+(\.[0-9]+)? s\b)");
  return std::regex_replace(text, seconds, "T s");
}

namespace {

// The first differing path of two JSON values, for a readable message.
std::string first_difference(const json& a, const json& b, const std::string& path = "") {
  if (a.type() != b.type()) return path + ": " + a.dump().substr(0, 200) + " vs " + b.dump().substr(0, 200);
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return path + "/" + it.key() + ": missing in the distributed run";
      std::string d = first_difference(it.value(), b[it.key()], path + "/" + it.key());
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) return path + "/" + it.key() + ": only in the distributed run";
    return "";
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " elements";
    for (size_t i = 0; i < a.size(); ++i) {
      std::string d = first_difference(a[i], b[i], path + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : path + ": " + a.dump().substr(0, 200) + " vs " + b.dump().substr(0, 200);
}

// Equal JSON, or a failure naming the first difference (not both documents,
// which may be megabytes of traces).
void expect_same_json(const json& single, const json& dist, const std::string& what) {
  EXPECT_TRUE(single == dist) << what << " differs at " << first_difference(single, dist)
                              << " (single process vs distributed)";
}

// Equal text, or a failure showing the first differing line.
void expect_same_text(const std::string& single, const std::string& dist, const std::string& what) {
  if (single == dist) return;
  auto a = lines_of(single), b = lines_of(dist);
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  ADD_FAILURE() << what << " differs at line " << i + 1 << " (" << a.size() << " vs " << b.size()
                << " lines):\n  single process: " << (i < a.size() ? a[i].substr(0, 300) : "<end>")
                << "\n  distributed:    " << (i < b.size() ? b[i].substr(0, 300) : "<end>");
}

const char* const kPropertyKeys[] = {"sometimes_total", "sometimes_partial", "always_total", "always_partial"};

}  // namespace

void expect_same_check(const CheckRun& single, const CheckRun& dist, const Layout& layout, const std::string& model) {
  SCOPED_TRACE(dist.what);
  const json& a = single.report;
  const json& b = dist.report;
  ASSERT_TRUE(a.is_object()) << "no single-process report\n" << describe(single.run);
  // The core result.
  EXPECT_EQ(dist.run.exit_code, single.run.exit_code) << "single process:\n"
                                                      << describe(single.run) << "\ndistributed:\n"
                                                      << describe(dist.run);
  ASSERT_TRUE(b.is_object()) << "the distributed run wrote no report, or not one JSON document\n"
                             << describe(dist.run);
  EXPECT_EQ(b.value("states", json()), a.value("states", json()));
  EXPECT_EQ(b.value("transitions", json()), a.value("transitions", json()));
  EXPECT_EQ(b.value("complete", json()), a.value("complete", json()));
  EXPECT_EQ(b.value("incomplete_reason", json()), a.value("incomplete_reason", json()));
  EXPECT_EQ(b.value("within_bounds", json()), a.value("within_bounds", json()));
  expect_same_json(without_stats(a.value("bound_exceeded", json())), without_stats(b.value("bound_exceeded", json())),
                   "bound_exceeded");
  const json pa = a.value("properties", json::object());
  const json pb = b.value("properties", json::object());
  for (const char* key : kPropertyKeys) {
    if (!pa.contains(key)) continue;
    ASSERT_TRUE(pb.contains(key)) << key;
    EXPECT_EQ(pb[key].value("holds", json("missing")), pa[key].value("holds", json())) << key;
  }
  // The traces: the same runs, step by step (state numbering, hence the
  // choice of shortest paths and lassos, is the same by design).
  for (const char* key : kPropertyKeys) {
    if (!pa.contains(key) || !pb.contains(key)) continue;
    expect_same_json(pa[key].value("trace", json()), pb[key].value("trace", json("missing")),
                     std::string(key) + " trace");
  }
  EXPECT_TRUE(dist.traces.is_object()) << "no --trace file, or not one JSON document";
  expect_same_json(without_stats(single.traces), without_stats(dist.traces), "--trace file");
  // Everything else in the report (model, network, bounds, fairness, ...).
  expect_same_json(without_stats(a), without_stats(b), "report");
  // Only rank 0 writes stdout: the same text report, once.
  expect_same_text(without_times(single.run.out), without_times(dist.run.out), "stdout");

  // The statistics a distributed run adds.
  const json sa = a.value("stats", json::object());
  const json sb = b.value("stats", json::object());
  if (sa.contains("ranks")) {
    EXPECT_EQ(sa["ranks"], 1);
  }
  if (sa.contains("bytes_sent")) {
    EXPECT_EQ(sa["bytes_sent"], 0u);
  }
  if (sa.contains("rank_states")) {
    EXPECT_EQ(sa["rank_states"], json::array({a["states"]}));
  }
  if (sa.contains("rank_memory")) {
    EXPECT_EQ(sa["rank_memory"], json::array({sa["memory"]}));
  }
  if (sb.contains("ranks")) {
    EXPECT_EQ(sb["ranks"], layout.ranks) << sb.dump();
  }
  if (sb.contains("threads")) {
    EXPECT_EQ(sb["threads"], layout.threads) << sb.dump();
  }
  if (sb.contains("bytes_sent")) {
    EXPECT_TRUE(sb["bytes_sent"].is_number_unsigned()) << sb.dump();
    if (layout.ranks == 1) {
      EXPECT_EQ(sb["bytes_sent"], 0u) << "one rank sends nothing";
    }
  }
  if (sa.contains("crossing_successors")) {
    EXPECT_EQ(sa["successors"], 0u) << "one process counts no successors by rank";
    EXPECT_EQ(sa["crossing_successors"], 0u);
  }
  if (sb.contains("crossing_successors")) {
    const auto all = sb["successors"].get<uint64_t>(), crossing = sb["crossing_successors"].get<uint64_t>();
    EXPECT_LE(crossing, all) << sb.dump();
    EXPECT_LE(sb["rank0_successors"].get<uint64_t>(), all) << sb.dump();
    EXPECT_LE(sb["rank0_crossing_successors"].get<uint64_t>(), crossing) << sb.dump();
    EXPECT_LE(sb["rank0_offers_processed"].get<uint64_t>(), crossing) << sb.dump();
    if (layout.ranks == 1) {
      EXPECT_EQ(crossing, 0u) << "one rank owns every successor";
    }
  }
  if (sb.contains("rank_states")) {
    const json& rs = sb["rank_states"];
    ASSERT_TRUE(rs.is_array()) << sb.dump();
    EXPECT_EQ(rs.size(), static_cast<size_t>(layout.ranks)) << rs.dump();
    uint64_t sum = 0;
    for (const auto& n : rs) sum += n.is_number_unsigned() ? n.get<uint64_t>() : 0;
    EXPECT_EQ(json(sum), b.value("states", json())) << "rank_states " << rs.dump();
  }
  if (sb.contains("rank_memory")) {
    // One entry per rank, each by part, and `memory` is their sum part by part.
    const json& rm = sb["rank_memory"];
    ASSERT_TRUE(rm.is_array()) << sb.dump();
    EXPECT_EQ(rm.size(), static_cast<size_t>(layout.ranks)) << rm.dump();
    const json memory = sb.value("memory", json::object());
    for (auto it = memory.begin(); it != memory.end(); ++it) {
      uint64_t sum = 0;
      for (const auto& r : rm) sum += r.value(it.key(), uint64_t{0});
      EXPECT_EQ(json(sum), it.value()) << "rank_memory's " << it.key() << ": " << rm.dump();
    }
  }

  // replay accepts the distributed run's traces.
  if (!model.empty() && single.traces.is_object() && dist.traces.is_object()) {
    // (replay refuses a file without traces: exit 2, "the file holds no trace")
    const size_t traces = single.traces.value("traces", json::array()).size();
    if (traces > 0) expect_all_replay(cli({"replay", model, dist.trace_path}), traces);
  }
}

CheckRun expect_same_everywhere(const std::vector<std::string>& args, const std::vector<Layout>& layouts) {
  CheckRun single = check_single(args);
  EXPECT_TRUE(single.report.is_object()) << describe(single.run);
  for (const Layout& layout : layouts) {
    CheckRun dist = check_mpi(layout, args);
    expect_same_check(single, dist, layout, args.empty() ? std::string() : args[0]);
  }
  return single;
}

// ---------------------------------------------------------------------------
// /proc

bool process_info(pid_t pid, ProcessInfo& info) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice threads
  // itrealvalue starttime ..."; comm may hold spaces and parentheses.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  info.pid = pid;
  rest >> info.state >> info.parent >> info.group;
  std::string skip;
  for (int field = 6; field < 22; ++field) rest >> skip;  // session .. itrealvalue
  rest >> info.start_time;
  return static_cast<bool>(rest);
}

std::vector<ProcessInfo> descendants(pid_t root) {
  std::multimap<pid_t, ProcessInfo> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ProcessInfo p;
    if (process_info(static_cast<pid_t>(std::stol(name)), p)) children.emplace(p.parent, p);
  }
  std::vector<ProcessInfo> out;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    pid_t parent = todo.back();
    todo.pop_back();
    auto [lo, hi] = children.equal_range(parent);
    for (auto it = lo; it != hi; ++it) {
      if (it->second.state == 'Z') continue;
      out.push_back(it->second);
      todo.push_back(it->second.pid);
    }
  }
  return out;
}

namespace {
std::vector<std::string> nul_separated(const std::string& path) {
  std::string text = read_text(path);
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}
}  // namespace

std::string process_argv0(pid_t pid) {
  auto argv = nul_separated("/proc/" + std::to_string(pid) + "/cmdline");
  return argv.empty() ? std::string() : argv[0];
}

std::string process_env(pid_t pid, const std::string& name) {
  for (const auto& var : nul_separated("/proc/" + std::to_string(pid) + "/environ"))
    if (var.size() > name.size() && var.compare(0, name.size(), name) == 0 && var[name.size()] == '=')
      return var.substr(name.size() + 1);
  return "";
}

bool still_running(const ProcessInfo& p) {
  ProcessInfo now;
  return process_info(p.pid, now) && now.start_time == p.start_time && now.state != 'Z';
}

}  // namespace ddsmc::test
