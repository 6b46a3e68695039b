// Models that make the binary run long or run out of memory, shared by the
// signal, output and memory tests of tests/app.
#pragma once

#include <string>

namespace ddsmc::test {

// One node takes three quick steps (pos(0) -> pos(3)); the fourth step's
// join enumerates 300^4 substitutions (about 10^10, minutes of work) and
// derives nothing. So the 4 states before it are found at once, and then
// the binary is inside one step for a long time.
inline std::string long_step_model() {
  std::string facts;
  for (int i = 0; i < 300; ++i) facts += "e(" + std::to_string(i) + "). ";
  return "state e/1, pos/1, big/0.\n"
         "transport tick/0.\n"
         "network { a. }\n"
         "init { " + facts + "pos(0). }\n"
         "e(X) if prev e(X).\n"
         "tick@N if start@_, my_name(N).\n"
         "tick@N if tick@_, my_name(N).\n"
         "pos(1) if prev pos(0).\n"
         "pos(2) if prev pos(1).\n"
         "pos(3) if prev pos(2).\n"
         "big if prev pos(3), prev e(X), prev e(Y), prev e(Z), prev e(W), W = X, W != X.\n"
         "big if prev big.\n";
}

// One node takes five quick steps (pos(0) -> pos(5)); the sixth derives
// big(X, Y, Z) for every triple of 1000 constants: 10^9 facts, more than
// any memory limit of the tests allows.
inline std::string memory_bomb_model() {
  std::string facts;
  for (int i = 0; i < 1000; ++i) facts += "e(" + std::to_string(i) + "). ";
  std::string rules;
  for (int i = 0; i < 5; ++i)
    rules += "pos(" + std::to_string(i + 1) + ") if prev pos(" + std::to_string(i) + ").\n";
  return "state e/1, pos/1, big/3.\n"
         "transport tick/0.\n"
         "network { a. }\n"
         "init { " + facts + "pos(0). }\n"
         "e(X) if prev e(X).\n"
         "tick@N if start@_, my_name(N).\n"
         "tick@N if tick@_, my_name(N).\n" +
         rules + "big(X, Y, Z) if prev pos(5), prev e(X), prev e(Y), prev e(Z).\n";
}

// One node whose start message picks a value for each of `rules` state
// predicates among `values` constants (one choice rule each): the initial
// state has values^rules successors, all distinct, each a dead end. A fan-out
// of one expansion for --max-states to cut (20^4 = 160,000).
inline std::string fan_out_model(int values = 20, int rules = 4) {
  std::string facts, decls = "state e/1", picks;
  for (int i = 0; i < values; ++i) facts += "e(" + std::to_string(i) + "). ";
  for (int r = 0; r < rules; ++r) {
    const std::string p = "p" + std::to_string(r);
    decls += ", " + p + "/1";
    picks += p + "(X) if prev e(X), start@_, choice((),(X)).\n";
  }
  return decls + ".\nnetwork { a. }\ninit { " + facts + "}\ne(X) if prev e(X).\n" + picks;
}

// A run that never converges (flip toggles for ever), one line per step.
inline constexpr const char* kToggleForEver =
    "state flip/0.\n"
    "transport tick/0.\n"
    "network { a. }\n"
    "tick@N if start@_, my_name(N).\n"
    "tick@N if tick@_, my_name(N).\n"
    "flip if tick@_, not prev flip.\n";

}  // namespace ddsmc::test
