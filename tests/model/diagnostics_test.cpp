// The per-phase cap of model/diagnostics: at most kMaxShownPerPhase errors and
// as many warnings shown per phase, the rest counted and summed up in a last
// line; the lexer, the parser and the resolver all go through it.
#include "model/diagnostics.hpp"

#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "model/lexer.hpp"
#include "model/load.hpp"
#include "model/parser.hpp"

using namespace ddsmc::model;

namespace {

size_t count_lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

size_t shown(const Diagnostics& diag, Diagnostic::Severity s) {
  return static_cast<size_t>(std::count_if(diag.all().begin(), diag.all().end(),
                                           [&](const Diagnostic& d) { return d.severity == s; }));
}

}  // namespace

TEST(DiagnosticsCap, ErrorsAndWarningsPerPhase) {
  Diagnostics diag("t.d2c");
  diag.set_phase(Phase::Resolve);
  for (uint32_t i = 1; i <= 250; ++i) diag.error(Loc{i, 1}, fmt::format("error {}", i));
  for (uint32_t i = 1; i <= 130; ++i) diag.warning(Loc{i, 2}, fmt::format("warning {}", i));
  // Another phase has its own cap.
  for (uint32_t i = 1; i <= 5; ++i) diag.error(Phase::Parse, Loc{i, 3}, "syntax");
  EXPECT_EQ(diag.error_count(), 255u);
  EXPECT_EQ(diag.warning_count(), 130u);
  EXPECT_EQ(shown(diag, Diagnostic::Severity::Error), kMaxShownPerPhase + 5);
  EXPECT_EQ(shown(diag, Diagnostic::Severity::Warning), kMaxShownPerPhase);
  EXPECT_TRUE(diag.phase_full(Phase::Resolve));
  EXPECT_FALSE(diag.phase_full(Phase::Parse));
  // The first ones are the ones shown, in order.
  EXPECT_EQ(diag.all()[0].message, "error 1");
  EXPECT_EQ(diag.all()[99].message, "error 100");
  EXPECT_EQ(diag.all()[100].message, "warning 1");
  const std::string all = diag.format_all();
  EXPECT_EQ(count_lines(all), 2 * kMaxShownPerPhase + 5 + 1);
  EXPECT_NE(all.find("\nt.d2c: 150 more errors and 30 more warnings while resolving not shown (at most 100 of each "
                     "per phase)\n"),
            std::string::npos)
      << all.substr(all.size() - 300);
}

TEST(DiagnosticsCap, NoSummaryLineUnderTheCap) {
  Diagnostics diag("t.d2c");
  for (uint32_t i = 1; i <= kMaxShownPerPhase; ++i) diag.error(Loc{i, 1}, "e");
  EXPECT_EQ(count_lines(diag.format_all()), kMaxShownPerPhase);
  EXPECT_EQ(diag.format_all().find("not shown"), std::string::npos);
  diag.error(Loc{1, 1}, "one more");
  EXPECT_NE(diag.format_all().find("t.d2c: 1 more error while reading not shown"), std::string::npos);
}

TEST(DiagnosticsCap, StopIsShownPastTheCap) {
  Diagnostics diag("t.d2c");
  for (uint32_t i = 1; i <= kMaxShownPerPhase; ++i) diag.error(Phase::Lex, Loc{i, 1}, "bad");
  ASSERT_TRUE(diag.phase_full(Phase::Lex));
  diag.stop(Phase::Lex, Loc{101, 1}, "giving up");
  EXPECT_EQ(diag.error_count(), kMaxShownPerPhase + 1);
  EXPECT_EQ(diag.all().back().message, "giving up");
  EXPECT_EQ(diag.format_all().find("not shown"), std::string::npos);
}

TEST(DiagnosticsCap, LexerStopsAtTheCap) {
  Diagnostics diag("t.d2c");
  lex(std::string(100000, '#'), diag);
  EXPECT_EQ(diag.error_count(), kMaxShownPerPhase + 1);
  EXPECT_NE(diag.all().back().message.find("too many lexical errors; giving up"), std::string::npos);
  EXPECT_EQ(diag.all().back().loc, (Loc{1, kMaxShownPerPhase + 1}));
}

TEST(DiagnosticsCap, ParserStopsAtTheCap) {
  std::string src;
  for (int i = 0; i < 5000; ++i) src += "p if .\n";
  Diagnostics diag("t.d2c");
  parse_program(src, diag);
  EXPECT_EQ(diag.error_count(), kMaxShownPerPhase + 1);
  EXPECT_NE(diag.all().back().message.find("too many syntax errors; giving up"), std::string::npos);
}

// The resolver reports every error to the cap: a file of 10,000 undeclared
// predicates shows 100 and counts the rest (it used to print all of them).
TEST(DiagnosticsCap, ResolverErrorsAreCapped) {
  constexpr size_t kUndeclared = 10000;
  std::string src = "state p/0.\nnetwork ring(1).\np if prev p.\n";
  for (size_t i = 0; i < kUndeclared; ++i) src += fmt::format("p if q{}.\n", i);
  Diagnostics diag("t.d2c");
  auto m = load_model_text(src, "t.d2c", Overrides{}, diag);
  EXPECT_FALSE(m.has_value());
  EXPECT_EQ(diag.error_count(), kUndeclared);
  EXPECT_EQ(diag.all().size(), kMaxShownPerPhase);
  EXPECT_EQ(diag.all()[0].format(), "t.d2c:4:6: error: undeclared predicate 'q0' in rule 'p if q0.'");
  const std::string all = diag.format_all();
  EXPECT_EQ(count_lines(all), kMaxShownPerPhase + 1);
  EXPECT_NE(all.find("t.d2c: 9900 more errors while resolving not shown"), std::string::npos);
}

TEST(DiagnosticsCap, ResolverWarningsAreCapped) {
  std::string src = "state p/0.\nnetwork ring(1).\np if prev p.\n";
  for (int i = 0; i < 300; ++i) src += fmt::format("state unused{}/0.\n", i);
  Diagnostics diag("t.d2c");
  auto m = load_model_text(src, "t.d2c", Overrides{}, diag);
  ASSERT_TRUE(m.has_value()) << diag.format_all();
  EXPECT_EQ(diag.warning_count(), 300u);
  EXPECT_EQ(diag.all().size(), kMaxShownPerPhase);
  EXPECT_NE(diag.format_all().find("t.d2c: 200 more warnings while resolving not shown"), std::string::npos);
}
