// `ddsmc check`: explore, analyse the four properties, report with traces.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>

#include "app/commands.hpp"
#include "app/report.hpp"
#include "app/runtime.hpp"
#include "engine/analysis.hpp"
#include "engine/explore.hpp"
#include "engine/workers.hpp"
#include "model/load.hpp"

namespace ddsmc::app {
namespace {

using nlohmann::json;

std::vector<engine::Property> selected_properties(const std::string& p) {
  if (p == "all") return {std::begin(engine::kAllProperties), std::end(engine::kAllProperties)};
  for (auto prop : engine::kAllProperties)
    if (p == engine::property_name(prop)) return {prop};
  return {};
}

void print_progress(const engine::ExploreProgress& p) {
  std::fprintf(stderr, "[%7.1fs] states %llu  transitions %llu  queue %llu  %.0f states/s  rss %.1f MiB\n",
               p.seconds, static_cast<unsigned long long>(p.states), static_cast<unsigned long long>(p.transitions),
               static_cast<unsigned long long>(p.queue), p.seconds > 0 ? p.states / p.seconds : 0.0,
               current_rss_bytes() / 1048576.0);
}

bool write_json_file(const std::string& path, const json& j) {
  if (path == "-") {
    std::fputs((j.dump(2) + "\n").c_str(), stdout);
    return true;
  }
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  return static_cast<bool>(out);
}

// The concrete run for a lasso or a parent path; an empty JSON on failure.
std::optional<engine::ConcreteRun> concrete(const engine::CompiledModel& cm, const engine::StateGraph& g,
                                            const std::vector<engine::Hop>& hops) {
  auto run = engine::lift(cm, g, hops);
  if (!run) std::fprintf(stderr, "ddsmc: internal error: a trace did not lift to a concrete run\n");
  return run;
}

}  // namespace

int run_check(const CheckOptions& opts) {
  model::Diagnostics diag(opts.model.path);
  auto m = model::load_model(opts.model.path, opts.model.overrides, diag);
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) return kExitUsage;
  auto properties = selected_properties(opts.property);
  if (properties.empty()) {
    std::fprintf(stderr, "ddsmc: unknown property '%s' (all, sometimes-total, sometimes-partial, always-total, always-partial)\n",
                 opts.property.c_str());
    return kExitUsage;
  }
  engine::Fairness fairness = opts.fairness == "none" ? engine::Fairness::None : engine::Fairness::Channel;
  engine::WorkerPool pool(opts.threads);

  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreOptions eo;
  eo.max_states = opts.max_states;
  eo.on_bound = opts.on_bound == "prune" ? engine::OnBound::Prune : engine::OnBound::Stop;
  eo.interrupted = &install_stop_handlers();
  eo.progress = print_progress;
  engine::ExploreResult res = engine::explore(cm, eo);
  const engine::StateGraph& g = res.graph;

  // Human output goes to stdout, unless the JSON does.
  FILE* human = opts.json_path && *opts.json_path == "-" ? stderr : stdout;
  bool pruned = eo.on_bound == engine::OnBound::Prune;
  json report;
  report["model"] = opts.model.path;
  report["network"] = m->network.description();
  report["network_spec"] = opts.model.overrides.network_spec ? json(*opts.model.overrides.network_spec) : json(nullptr);
  report["input_bound"] = opts.model.overrides.input_bound ? json(*opts.model.overrides.input_bound) : json(nullptr);
  report["states"] = g.num_states();
  report["transitions"] = g.num_edges();
  report["complete"] = res.complete;
  report["fairness"] = opts.fairness;
  report["within_bounds"] = pruned && !res.violation;  // the initial state over a bound stops even under prune
  report["bound_exceeded"] = nullptr;
  if (!res.complete) report["incomplete_reason"] = res.incomplete_reason;
  json traces = json::array();

  std::fprintf(human, "%s: network %s (%zu nodes, %zu arcs), fairness %s%s\n", opts.model.path.c_str(),
               m->network.description().c_str(), m->network.num_nodes(), m->network.num_arcs(), opts.fairness.c_str(),
               pruned ? ", states beyond the bounds pruned" : "");
  std::fprintf(human, "states %u, transitions %llu, %s, %.2f s\n", g.num_states(),
               static_cast<unsigned long long>(g.num_edges()),
               res.complete ? "complete" : ("INCOMPLETE (" + res.incomplete_reason + ")").c_str(), res.seconds);

  int exit_code = kExitHolds;
  if (res.violation) {
    const auto& v = *res.violation;
    bool state_kind = v.kind == engine::BoundViolation::Kind::State;
    std::string where = state_kind ? m->network.name(v.where)
                                   : fmt::format("{} -> {}", m->network.name(m->network.arc(v.where).src),
                                                 m->network.name(m->network.arc(v.where).dst));
    json bound = {{"kind", state_kind ? "state" : "channel"}, {"bound", v.bound}, {"value", v.value}};
    bound[state_kind ? "node" : "channel"] = where;
    std::fprintf(human, "%s bound %u exceeded at %s (%u %s): the system is not bounded as declared\n",
                 state_kind ? "state" : "channel", v.bound, where.c_str(), v.value,
                 state_kind ? "distinct constants" : "payloads");
    if (auto run = concrete(cm, g, engine::parent_path_hops(g, res.violating_state))) {
      bound["trace"] = run_to_json(cm, *run);
      std::fprintf(human, "shortest run to it (%zu steps):\n%s", run->steps.size(),
                   run_to_text(cm, *run, opts.trace_steps).c_str());
      traces.push_back({{"kind", "bound"}, {"trace", bound["trace"]}});
    }
    report["bound_exceeded"] = bound;
    exit_code = kExitIncomplete;
  }

  json props = json::object();
  bool any_fails = false, any_undecided = false;
  for (auto p : properties) {
    json pj = {{"holds", nullptr}, {"trace", nullptr}};
    if (res.violation) {
      props[engine::property_json_key(p)] = pj;
      any_undecided = true;
      continue;
    }
    engine::Verdict v = engine::analyze(g, p, fairness, res.complete);
    std::string verdict = !v.holds ? "undecided" : *v.holds ? "holds" : "FAILS";
    if (v.holds) pj["holds"] = *v.holds;
    any_fails |= v.holds == false;
    any_undecided |= !v.holds;
    std::string line = fmt::format("{:<18} {}{}", engine::property_name(p), verdict, pruned ? " (within bounds)" : "");
    if (v.lasso) {
      bool witness = p == engine::Property::SometimesTotal || p == engine::Property::SometimesPartial;
      auto run = concrete(cm, g, engine::lasso_hops(v.lasso->states, v.lasso->edges, v.lasso->loop_start));
      if (run) {
        run->loop_start = v.lasso->loop_start;
        pj["trace"] = run_to_json(cm, *run);
        if (v.node) pj["trace"]["never_faulty"] = m->network.name(*v.node);
        traces.push_back({{"kind", witness ? "witness" : "counterexample"}, {"property", engine::property_name(p)},
                          {"trace", pj["trace"]}});
        line += fmt::format("  {}: {} steps, loop from step {}", witness ? "witness" : "counterexample",
                            run->steps.size(), v.lasso->loop_start);
        if (v.node) line += fmt::format(", {} never faulty", m->network.name(*v.node));
        std::fprintf(human, "%s\n", line.c_str());
        if (!witness || opts.show_witnesses) std::fputs(run_to_text(cm, *run, opts.trace_steps).c_str(), human);
        props[engine::property_json_key(p)] = pj;
        continue;
      }
    }
    std::fprintf(human, "%s\n", line.c_str());
    props[engine::property_json_key(p)] = pj;
  }
  report["properties"] = props;
  report["stats"] = {{"seconds", res.seconds},
                     {"peak_rss_bytes", peak_rss_bytes()},
                     {"ranks", 1},
                     {"threads", 1},
                     {"bytes_per_state", g.num_states() ? double(g.memory_bytes()) / g.num_states() : 0.0},
                     {"canonical",
                      {{"calls", res.canonical.calls},
                       {"fast_path", res.canonical.fast_path},
                       {"refined", res.canonical.refined},
                       {"individualized", res.canonical.individualized},
                       {"nauty", res.canonical.nauty}}}};

  if (opts.json_path && !write_json_file(*opts.json_path, report)) {
    std::fprintf(stderr, "ddsmc: cannot write %s\n", opts.json_path->c_str());
    return kExitUsage;
  }
  if (opts.trace_path) {
    json tj = {{"model", opts.model.path}, {"network", m->network.description()},
                         {"network_spec", opts.model.overrides.network_spec ? nlohmann::json(*opts.model.overrides.network_spec) : nlohmann::json(nullptr)},
                         {"input_bound", report["input_bound"]},
                         {"fairness", opts.fairness},
                         {"traces", traces}};
    if (!write_json_file(*opts.trace_path, tj)) {
      std::fprintf(stderr, "ddsmc: cannot write %s\n", opts.trace_path->c_str());
      return kExitUsage;
    }
  }
  // A failure found is definite even in a partial graph; otherwise a check
  // that stopped early is incomplete whatever it could decide.
  if (any_fails) return kExitFails;
  if (exit_code != kExitHolds || any_undecided || !res.complete) return kExitIncomplete;
  return kExitHolds;
}

}  // namespace ddsmc::app
