// The self-contained HTML page of `check --html` and `view --html` (issue
// 24; docs/charts.md): the report's figures and verdicts, then one section
// per trace with its message-sequence chart (app/chart_svg) and a small
// inline script to step through the run and see the whole global state at
// any point. Nothing is loaded from outside the file (no CDN, no web
// fonts, no images), so it opens on a login node or as a mail attachment.
//
// The script rebuilds the states from the initial state and the steps'
// changes (a copy of each trace as JSON in the page); on load it replays
// every trace to its end and reports on the console, as an error, a step
// that takes a message its channel does not hold or a final state whose
// messages in flight differ from the chart's dashed arrows, so the browser
// test (tests/app/browser_test.py) catches a chart and a script that
// disagree.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::app {

struct PageTrace {
  std::string title;                         // "always-total counterexample, n0 never faulty"
  const engine::ConcreteRun* run = nullptr;  // concrete, as check lifted it or replay re-executed it
};

// `report`: a --json report (figures and verdicts are shown when present;
// a --trace document has only model, network and fairness). Throws
// std::invalid_argument for a run that is not one of the model's.
std::string html_page(const engine::CompiledModel& cm, const nlohmann::json& report,
                      const std::vector<PageTrace>& traces);

}  // namespace ddsmc::app
