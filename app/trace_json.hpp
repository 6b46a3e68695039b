// Reading traces back from JSON (the inverse of report.cpp's run_to_json),
// for `ddsmc replay`. Constants are looked up by spelling; #k names the k-th
// fresh constant of the run. Every field ddsmc writes for a step is
// required; what the file says of a trace (its kind and property, or the
// report's verdict and bound) becomes the claim that replay checks.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/d2c/replay.hpp"

namespace ddsmc::app {

struct ParsedTrace {
  std::string label;  // "trace 2 (always-total counterexample)", "trace 1 (bound)", "trace 1"
  std::vector<engine::ReplayStep> steps;
  std::optional<size_t> loop_start;
  std::optional<std::vector<std::vector<engine::Word>>> initial;  // per node, when recorded
  engine::TraceClaim claim;
};

// Every trace in a file written by `check --trace`, `check --json`,
// `simulate --trace`, or a bare trace. Returns false with a message in
// `error` (naming the trace and the step) when the JSON does not fit.
bool parse_traces(const engine::CompiledModel& cm, const nlohmann::json& doc, std::vector<ParsedTrace>& out,
                  std::string& error);

}  // namespace ddsmc::app
