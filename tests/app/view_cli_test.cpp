// `ddsmc view` and `check --html` end to end (issue 24): a trace that does
// not replay gets replay's own lines and exit code and no picture; the
// charts `view` draws from a saved file are the charts `check --html` drew
// from the runs it lifted (the replayed run is the same run); the options'
// errors exit 2. What a browser makes of the pages: tests/app/browser_test.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc::test;

namespace {

// Every <svg class="chart" ...>...</svg> of a page, in order.
std::vector<std::string> charts_of(const std::string& page) {
  std::vector<std::string> out;
  for (size_t at = page.find("<svg class=\"chart\""); at != std::string::npos;
       at = page.find("<svg class=\"chart\"", at + 1)) {
    const size_t end = page.find("</svg>", at);
    // The element's id names its place in the page (trace-K-chart); the rest must agree.
    out.push_back(std::regex_replace(page.substr(at, end - at), std::regex(" id=\"trace-[^\"]*\""), "",
                                     std::regex_constants::format_first_only));
  }
  return out;
}

struct Saved {
  std::string page = scratch(".html"), trace = scratch(".json"), report = scratch(".json");
};

Saved check_token_ring() {
  Saved s;
  CliResult r = cli({"check", example("token_ring"), "--html", s.page, "--trace", s.trace, "--json", s.report});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  return s;
}

TEST(ViewCli, ViewDrawsTheChartsCheckDrewFromEitherFile) {
  Saved s = check_token_ring();
  const auto from_check = charts_of(read_text(s.page));
  ASSERT_EQ(from_check.size(), 2u);
  for (const std::string& file : {s.trace, s.report}) {
    const std::string page = scratch(".html");
    CliResult r = cli({"view", example("token_ring"), file, "--html", page});
    expect_all_replay(r, 2);
    EXPECT_EQ(charts_of(read_text(page)), from_check) << file;
  }
  // One trace as an SVG file: the same chart.
  const std::string svg = scratch(".svg");
  CliResult r = cli({"view", example("token_ring"), s.trace, "--svg", svg, "--index", "2"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const std::string text = read_text(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u) << text.substr(0, 200);
  const std::regex svg_head("<svg class=\"chart\"[^>]*>");
  std::smatch head;
  ASSERT_TRUE(std::regex_search(text, head, svg_head));
  const std::string body = text.substr(text.find("<defs>"));
  EXPECT_NE(from_check[1].find(body.substr(0, body.find("</svg>"))), std::string::npos)
      << "the SVG file's chart differs from the page's second chart";
}

TEST(ViewCli, ATamperedTraceGetsReplaysMessageAndExitCodeAndNoPicture) {
  Saved s = check_token_ring();
  json doc = load_json(s.trace);
  doc["traces"][0]["trace"]["steps"][4]["added"] = json::array();  // step 4 adds flip
  const std::string bad = scratch();
  save_json(bad, doc);
  CliResult replayed = cli({"replay", example("token_ring"), bad});
  ASSERT_EQ(replayed.exit_code, 1) << describe(replayed);
  ASSERT_TRUE(contains(replayed.out, "trace 1 (always-total counterexample): step 4 is wrong")) << describe(replayed);
  const std::string page = temp_dir() + "/page.html", svg = temp_dir() + "/one.svg";
  for (const std::vector<std::string>& out : {std::vector<std::string>{"--html", page},
                                              std::vector<std::string>{"--svg", svg, "--index", "1"}}) {
    std::vector<std::string> args{"view", example("token_ring"), bad};
    args.insert(args.end(), out.begin(), out.end());
    CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, replayed.exit_code) << describe(r);
    EXPECT_EQ(r.out, replayed.out);
    EXPECT_TRUE(contains(r.err, "no picture was written")) << describe(r);
  }
  EXPECT_FALSE(std::filesystem::exists(page));
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST(ViewCli, OptionErrorsExitTwo) {
  Saved s = check_token_ring();
  CliResult none = cli({"view", example("token_ring"), s.trace});
  EXPECT_EQ(none.exit_code, 2) << describe(none);
  EXPECT_TRUE(contains(none.err, "view needs --html FILE or --svg FILE")) << describe(none);
  CliResult which = cli({"view", example("token_ring"), s.trace, "--svg", scratch(".svg")});
  EXPECT_EQ(which.exit_code, 2) << describe(which);
  EXPECT_TRUE(contains(which.err, "holds 2 traces; --svg draws one: choose it with --index 1..2")) << describe(which);
  CliResult beyond = cli({"view", example("token_ring"), s.trace, "--svg", scratch(".svg"), "--index", "3"});
  EXPECT_EQ(beyond.exit_code, 2) << describe(beyond);
  EXPECT_TRUE(contains(beyond.err, "--index 3, but")) << describe(beyond);
  CliResult missing = cli({"view", example("token_ring"), temp_dir() + "/none.json", "--html", scratch(".html")});
  EXPECT_EQ(missing.exit_code, 2) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "cannot open the trace file")) << describe(missing);
}

TEST(ViewCli, CheckRefusesAnUnwritableHtmlPathBeforeExploring) {
  CliResult r = cli({"check", example("token_ring"), "--html", temp_dir() + "/no/such/dir/page.html"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_FALSE(contains(r.out, "states ")) << describe(r);
}

TEST(ViewCli, APageWithoutTracesSaysSo) {
  const std::string page = scratch(".html");
  CliResult r = cli({"check", example("flooding"), "--property", "always-partial", "--html", page});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const std::string text = read_text(page);
  EXPECT_TRUE(contains(text, "No trace:")) << text.substr(0, 2000);
  EXPECT_TRUE(charts_of(text).empty());
  EXPECT_TRUE(contains(text, "<tr class=\"holds\"><th>always-partial</th><td>holds</td></tr>")) << text.substr(0, 3000);
}

}  // namespace

namespace {

// What a --dot file says: its states (with their fair cluster, 0 for none,
// and whether they are filled green) and its edges.
struct DotFile {
  struct State {
    int cluster = 0;
    bool converging = false;
  };
  std::map<uint64_t, State> states;
  struct Arrow {
    uint64_t from, to;
    bool stable;
  };
  std::vector<Arrow> edges;
  int clusters = 0;
};

DotFile parse_dot(const std::string& text) {
  DotFile d;
  int cluster = 0;
  static const std::regex node(R"(^  s([0-9]+) \[label=)"), edge(R"re(^  s([0-9]+) -> s([0-9]+) \[.*color="(#[0-9a-f]+)")re");
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (line.rfind("  subgraph cluster_fair", 0) == 0) cluster = ++d.clusters;
    else if (line == "  }") cluster = 0;
    else if (std::regex_search(line, m, edge))
      d.edges.push_back({std::stoull(m[1]), std::stoull(m[2]), m[3] == "#208020"});
    else if (std::regex_search(line, m, node))
      d.states[std::stoull(m[1])] = {cluster, contains(line, "fillcolor=\"#c8f0c8\"")};
  }
  return d;
}

// For models without faulty states, the pictures' marks are the analysis:
// sometimes-total holds iff some state is in a fair SCC of the stable edges
// (filled green), and always-total fails iff some fair SCC has a non-stable
// edge inside. Also: one node per state, one edge per transition.
TEST(DotCli, TheMarksAgreeWithTheVerdictsOnEveryExampleWithoutFaults) {
  for (const char* name : {"echo", "flooding", "gossip", "ping_pong", "relay", "retry_ack", "token_ring"}) {
    for (const char* symmetry : {"auto", "none"}) {
      SCOPED_TRACE(std::string(name) + " --symmetry " + symmetry);
      const std::string dot = scratch(".dot");
      Checked c = check_json({example(name), "--symmetry", symmetry, "--dot", dot});
      ASSERT_TRUE(c.run.exit_code == 0 || c.run.exit_code == 1) << describe(c.run);
      DotFile d = parse_dot(read_text(dot));
      EXPECT_EQ(d.states.size(), c.report["states"].get<uint64_t>());
      EXPECT_EQ(d.edges.size(), c.report["transitions"].get<uint64_t>());
      bool converging = false, unstable_cycle = false;
      for (const auto& [id, s] : d.states) converging |= s.converging;
      for (const auto& e : d.edges) {
        const int k = d.states[e.from].cluster;
        unstable_cycle |= k != 0 && d.states[e.to].cluster == k && !e.stable;
      }
      EXPECT_EQ(converging, c.report["properties"]["sometimes_total"]["holds"].get<bool>());
      EXPECT_EQ(unstable_cycle, !c.report["properties"]["always_total"]["holds"].get<bool>());
    }
  }
}

TEST(DotCli, ALargerGraphIsRefusedWithAMessage) {
  const std::string dot = scratch(".dot");
  CliResult r = cli({"check", example("token_ring"), "--dot", dot, "--dot-max-states", "100"});
  EXPECT_EQ(r.exit_code, 1) << describe(r);  // the verdicts stand
  EXPECT_TRUE(contains(r.err, "--dot: not drawn: the graph has 150 states, more than --dot-max-states (100)"))
      << describe(r);
  EXPECT_TRUE(contains(read_text(dot), "not drawn")) << read_text(dot);
}

}  // namespace
