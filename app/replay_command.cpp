// `ddsmc replay MODEL TRACE`: re-executes every trace in the file.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "app/commands.hpp"
#include "app/report.hpp"
#include "app/trace_json.hpp"
#include "model/load.hpp"

namespace ddsmc::app {

int run_replay(const ReplayOptions& opts) {
  std::ifstream in(opts.trace_path);
  if (!in) {
    std::fprintf(stderr, "%s: error: cannot open the trace file\n", opts.trace_path.c_str());
    return kExitUsage;
  }
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) {
    std::fprintf(stderr, "%s: error: not valid JSON\n", opts.trace_path.c_str());
    return kExitUsage;
  }
  // A trace file records the --network it was made with; the command line still wins.
  model::Overrides overrides = opts.model.overrides;
  if (!overrides.network_spec && doc.is_object() && doc.contains("network_spec") && doc["network_spec"].is_string())
    overrides.network_spec = doc["network_spec"].get<std::string>();
  // Likewise the --input-bound (replay checks every step's input against it).
  if (!overrides.input_bound && doc.is_object() && doc.contains("input_bound") && doc["input_bound"].is_number_unsigned() &&
      doc["input_bound"].get<uint64_t>() <= UINT32_MAX)
    overrides.input_bound = doc["input_bound"].get<uint32_t>();
  model::Diagnostics diag(opts.model.path);
  auto m = model::load_model(opts.model.path, overrides, diag);
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) return kExitUsage;
  engine::CompiledModel cm = engine::compile(*m);

  std::vector<ParsedTrace> traces;
  std::string error;
  if (!parse_traces(cm, doc, traces, error)) {
    std::fprintf(stderr, "%s: error: %s\n", opts.trace_path.c_str(), error.c_str());
    return kExitUsage;
  }
  if (traces.empty()) {
    std::fprintf(stderr, "%s: error: the file holds no trace\n", opts.trace_path.c_str());
    return kExitUsage;
  }
  bool all_ok = true;
  for (const auto& t : traces) {
    engine::ReplayResult r = engine::replay(cm, t.steps, t.loop_start, t.initial ? &*t.initial : nullptr);
    if (r.ok) {
      std::printf("%s: %zu steps replay%s\n", t.label.c_str(), t.steps.size(),
                  t.loop_start ? fmt::format(", and the loop closes at step {}", *t.loop_start).c_str() : "");
      continue;
    }
    all_ok = false;
    if (r.steps_ok < t.steps.size())
      std::printf("%s: step %zu is wrong: %s\n", t.label.c_str(), r.steps_ok, r.problem.c_str());
    else
      std::printf("%s: %s\n", t.label.c_str(), r.problem.c_str());
    if (r.computed) {
      std::string added, removed;
      for (const auto& f : facts_text(cm, r.computed->added)) added += " +" + f;
      for (const auto& f : facts_text(cm, r.computed->removed)) removed += " -" + f;
      std::printf("  the program computes (first outcome):%s%s%s\n", added.c_str(), removed.c_str(),
                  added.empty() && removed.empty() ? " no DB change" : "");
    }
  }
  return all_ok ? kExitHolds : kExitFails;
}

}  // namespace ddsmc::app
