// `ddsmc simulate MODEL [--steps N] [--seed S]`: prints one random run.
#include <cstdio>

#include "app/commands.hpp"
#include "app/report.hpp"
#include "engine/simulate.hpp"
#include "model/load.hpp"

namespace ddsmc::app {

int run_simulate(const SimulateOptions& opts) {
  model::Diagnostics diag(opts.model.path);
  auto m = model::load_model(opts.model.path, opts.model.overrides, diag);
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) return kExitUsage;
  engine::CompiledModel cm = engine::compile(*m);
  engine::ConcreteRun run = engine::simulate(cm, opts.steps, opts.seed);
  std::printf("%s: network %s, seed %llu\n", opts.model.path.c_str(), m->network.description().c_str(),
              static_cast<unsigned long long>(opts.seed));
  std::fputs(run_to_text(cm, run, 0).c_str(), stdout);
  bool idle = !run.steps.empty() && run.steps.back().arc == engine::kIdleArc;
  std::printf("%zu steps%s\n", run.steps.size(), idle ? ": every channel is empty, the run has converged" : "");
  if (opts.trace_path) {
    nlohmann::json spec = opts.model.overrides.network_spec ? nlohmann::json(*opts.model.overrides.network_spec) : nlohmann::json();
    nlohmann::json tj = {{"model", opts.model.path}, {"network", m->network.description()}, {"network_spec", spec},
                         {"input_bound", opts.model.overrides.input_bound ? nlohmann::json(*opts.model.overrides.input_bound)
                                                                          : nlohmann::json()},
                         {"traces", {{{"kind", "simulation"}, {"trace", run_to_json(cm, run)}}}}};
    std::FILE* f = std::fopen(opts.trace_path->c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "ddsmc: cannot write %s\n", opts.trace_path->c_str());
      return kExitUsage;
    }
    std::fputs((tj.dump(2) + "\n").c_str(), f);
    std::fclose(f);
  }
  return kExitHolds;
}

}  // namespace ddsmc::app
