// `ddsmc simulate MODEL [--steps N] [--seed S] [--trace FILE]`: one random
// run, streamed: each step is printed, and appended to the trace file, as it
// is taken. The trace file is a valid, replayable trace of the steps taken
// whenever the run ends (--steps, convergence, a signal, memory).
#include <fmt/format.h>

#include <cstdio>

#include "app/commands.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "app/runtime.hpp"
#include "engine/d2c/simulate.hpp"
#include "model/load.hpp"

namespace ddsmc::app {
namespace {

using nlohmann::json;

// The trace document up to the first step: {..., "traces": [{"kind":
// "simulation", "trace": {"initial": {...}, "steps": [
std::string trace_head(const SimulateOptions& opts, const model::Model& m, const engine::CompiledModel& cm) {
  const auto& ov = opts.model.overrides;
  json head = {{"model", opts.model.path},
               {"network", m.network.description()},
               {"network_spec", ov.network_spec ? json(*ov.network_spec) : json(nullptr)},
               {"input_bound", ov.input_bound ? json(*ov.input_bound) : json(nullptr)}};
  std::string out = dump_json(head);
  out.pop_back();  // the closing brace: the traces follow
  return out + ", \"traces\": [{\"kind\": \"simulation\", \"trace\": {\"initial\": " +
         dump_json(initial_to_json(cm, engine::initial_state(cm))) + ", \"steps\": [";
}

// Closes the steps, the trace and the document; says why a run stopped early.
std::string trace_tail(engine::StopReason stopped) {
  std::string out = "\n], \"loop_start\": null}}]";
  if (stopped != engine::StopReason::None)
    out += fmt::format(", \"incomplete_reason\": \"{}\"", engine::stop_reason_name(stopped));
  return out + "}\n";
}

}  // namespace

int run_simulate(const SimulateOptions& opts) {
  model::Diagnostics diag(opts.model.path);
  auto m = model::load_model(opts.model.path, opts.model.overrides, diag);
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) return kExitUsage;
  std::vector<std::unique_ptr<Output>> files;
  std::string error;
  std::vector<Output*> outputs = Output::open_all({opts.trace_path}, files, error);
  if (outputs.empty()) {
    std::fprintf(stderr, "ddsmc: %s\n", error.c_str());
    return kExitUsage;
  }
  Output* trace = outputs[0];
  engine::CompiledModel cm = engine::compile(*m);
  // The run for people goes to stdout, unless the trace does (`--trace -`).
  Output& out = trace == &Output::standard() ? Output::standard_error() : Output::standard();
  out.write(fmt::format("{}: network {}, seed {}\n", opts.model.path, m->network.description(), opts.seed));
  if (trace) trace->write(trace_head(opts, *m, cm));

  engine::Cancellation cancel(stop_requests());
  begin_graceful_stop();
  auto on_step = [&](const engine::ConcreteStep& step, uint64_t index) {
    // Both texts first: a step is written everywhere or nowhere.
    std::string line = step_to_text(cm, step, index);
    std::string js = trace ? (index ? ",\n" : "\n") + dump_json(step_to_json(cm, step, index)) : std::string();
    out.write(line);
    if (trace) trace->write(js);
  };
  engine::SimulateResult r = engine::simulate(cm, opts.steps, opts.seed, on_step, cancel);

  if (trace) trace->write(trace_tail(r.stopped));
  std::string why = r.converged ? ": every channel is empty, the run has converged"
                    : r.stopped != engine::StopReason::None
                        ? fmt::format(": stopped early ({})", engine::stop_reason_name(r.stopped))
                        : "";
  out.write(fmt::format("{} steps{}\n", r.steps, why));
  int code = r.stopped == engine::StopReason::None ? kExitHolds : kExitIncomplete;
  if (r.stopped != engine::StopReason::None)
    std::fprintf(stderr, "ddsmc: the run stopped after %llu steps (%s)\n", static_cast<unsigned long long>(r.steps),
                 engine::stop_reason_name(r.stopped));
  for (const auto& f : files)
    if (!f->deliver()) code = kExitIncomplete;
  return code;
}

}  // namespace ddsmc::app
