// `ddsmc view` and `check --html` end to end (issue 24): a trace that does
// not replay gets replay's own lines and exit code and no picture; the
// charts `view` draws from a saved file are the charts `check --html` drew
// from the runs it lifted (the replayed run is the same run); the options'
// errors exit 2. What a browser makes of the pages: tests/app/browser_test.py.
#include <gtest/gtest.h>

#include <filesystem>
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
