#include "app/check_report.hpp"

#include <fmt/format.h>

#include "app/html_page.hpp"
#include "app/report.hpp"
#include "app/runtime.hpp"
#include "engine/placement.hpp"

namespace ddsmc::app {
namespace {

// Why a verdict is undecided when its trace did not lift (check_exit_code: 3).
constexpr const char* kNoLift = "internal error: its trace did not lift to a concrete run";

using nlohmann::json;

bool is_witness(engine::Property p) {
  return p == engine::Property::SometimesTotal || p == engine::Property::SometimesPartial;
}

json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<uint32_t>& v) { return v ? json(*v) : json(nullptr); }

// "state bound 3 at a" / "channel bound 2 at a -> b".
struct BoundWhere {
  bool state_kind;
  std::string where;
};

BoundWhere bound_where(const CheckOutcome& o) {
  const auto& v = *o.explored.violation;
  const auto& net = o.model.network;
  bool state_kind = v.kind == engine::BoundViolation::Kind::State;
  return {state_kind, state_kind ? net.name(v.where)
                                 : fmt::format("{} -> {}", net.name(net.arc(v.where).src),
                                               net.name(net.arc(v.where).dst))};
}

// Bytes of each table and index of the graph (they sum to the
// bytes_per_state figure times the states).
json memory_json(const engine::StateGraph::Memory& m) {
  return {{"tree_nodes", m.tree_nodes}, {"tree_leaves", m.tree_leaves}, {"visited", m.visited},
          {"roots", m.roots},           {"labels", m.labels},
          {"edge_rows", m.edge_rows},   {"edge_index", m.edge_index},   {"total", m.total()},
          {"disk", m.disk}};
}

// Where the edge rows went.
json scratch_json(const CheckOutcome& o) {
  auto text = [](const std::string& t) { return t.empty() ? json(nullptr) : json(t); };
  json j = {{"dir", nullptr}, {"filesystem", nullptr}, {"free_bytes", nullptr}, {"disk_bytes", o.disk_bytes},
            {"kept_in_memory", text(o.scratch_note)}, {"error", text(o.spill_error)}};
  if (o.scratch) {
    j["dir"] = o.scratch->dir;
    j["filesystem"] = o.scratch->filesystem;
    j["free_bytes"] = o.scratch->free_bytes;
  }
  return j;
}

// Each rank's graph by part (one process: its own graph's).
json rank_memory_json(const CheckOutcome& o) {
  if (o.figures.rank_memory.empty()) return json::array({memory_json(o.explored.memory)});
  json ranks = json::array();
  for (const auto& m : o.figures.rank_memory) ranks.push_back(memory_json(m));
  return ranks;
}

json property_json(const CheckOutcome& o, const PropertyOutcome& p) {
  json pj = {{"holds", nullptr}, {"trace", nullptr}};
  if (p.stopped == engine::StopReason::InternalError) pj["reason"] = kNoLift;
  if (p.verdict.holds) pj["holds"] = *p.verdict.holds;
  if (p.run) {
    pj["trace"] = run_to_json(o.cm, *p.run);
    if (p.verdict.node) pj["trace"]["never_faulty"] = o.model.network.name(*p.verdict.node);
  }
  return pj;
}

json rank_seconds_json(const engine::RankFigures& f) {
  json j = json::object();
  for (const auto& [part, seconds] : f.rank_seconds) j[part] = seconds;
  return j;
}

// The header's two lines: what is checked, and the exploration's figures.
std::string header_lines(const CheckOutcome& o) {
  const auto& net = o.model.network;
  const auto& res = o.explored;
  return fmt::format("{}: network {} ({} nodes, {} arcs), fairness {}{}\n", o.opts.model.path, net.description(),
                     net.num_nodes(), net.num_arcs(), o.opts.fairness,
                     o.pruned() ? ", states beyond the bounds pruned" : "") +
         fmt::format("states {}, transitions {}{}, {}, {:.2f} s\n", res.num_states(), res.num_transitions(),
                     o.symmetry_order > 1 ? fmt::format(" (orbits under a group of order {})", o.symmetry_order) : "",
                     res.complete ? "complete" : "INCOMPLETE (" + res.incomplete_reason + ")", res.seconds);
}

// The largest sizes met, beside the bounds that limit them (a complete run).
std::string sizes_text(const CheckOutcome& o) {
  const auto& z = o.explored.sizes;
  const auto& b = o.model.bounds;
  auto bound = [](const std::optional<uint32_t>& v, const char* kind) {
    return v ? fmt::format("{} bound {}", kind, *v) : fmt::format("no {} bound", kind);
  };
  auto count = [](uint32_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  return fmt::format("largest: {} and {} in a node's DB ({}), {} in a channel ({})\n", count(z.db_facts, "fact"),
                     count(z.db_constants, "constant"), bound(b.state, "state"), count(z.channel_messages, "message"),
                     bound(b.channel, "channel"));
}

}  // namespace

std::string header_text(const CheckOutcome& o) {
  return header_lines(o) + (o.explored.complete ? sizes_text(o) : "");
}

std::string bound_text(const CheckOutcome& o) {
  const auto& v = *o.explored.violation;
  BoundWhere w = bound_where(o);
  const char* kind = w.state_kind ? "state" : "channel";
  std::string out = fmt::format("{} bound {} exceeded at {} ({} {}): the system is not bounded as declared\n",
                                kind, v.bound, w.where, v.value, w.state_kind ? "distinct constants" : "payloads");
  // Bound advice: the least bound this run needs (later states may need more).
  const bool initial = o.explored.violating_state == 0;  // (pruning cannot drop the initial state)
  out += initial ? fmt::format("the initial state needs --{}-bound {} or more\n", kind, v.value)
                 : fmt::format("this run needs --{}-bound {} or more; --on-bound prune checks within {} instead\n",
                               kind, v.value, v.bound);
  if (o.bound_run)
    out += fmt::format("shortest run to it ({} steps):\n{}", o.bound_run->steps.size(),
                       run_to_text(o.cm, *o.bound_run, o.opts.trace_steps));
  else if (o.bound_run_stopped == engine::StopReason::InternalError)
    out += fmt::format("({})\n", kNoLift);
  else if (o.bound_run_stopped != engine::StopReason::None)
    out += fmt::format("(its run was not built: {})\n", engine::stop_reason_name(o.bound_run_stopped));
  return out;
}

std::string property_text(const CheckOutcome& o, const PropertyOutcome& p) {
  const auto& v = p.verdict;
  std::string verdict = !v.holds ? "undecided" : *v.holds ? "holds" : "FAILS";
  std::string line = fmt::format("{:<18} {}{}", engine::property_name(p.property), verdict,
                                 o.pruned() ? " (within bounds)" : "");
  if (p.stopped == engine::StopReason::InternalError) return line + fmt::format(" ({})\n", kNoLift);
  if (p.stopped != engine::StopReason::None)
    return line + fmt::format(" ({} before it was decided)\n", engine::stop_reason_name(p.stopped));
  if (!p.run) return line + "\n";
  bool witness = is_witness(p.property);
  line += fmt::format("  {}: {} steps, loop from step {}", witness ? "witness" : "counterexample", p.run->steps.size(),
                      p.run->loop_start.value_or(0));
  if (v.node) line += fmt::format(", {} never faulty", o.model.network.name(*v.node));
  line += "\n";
  if (!witness || o.opts.show_witnesses) line += run_to_text(o.cm, *p.run, o.opts.trace_steps);
  return line;
}

json report_json(const CheckOutcome& o) {
  const auto& res = o.explored;
  const auto& f = o.figures;
  const auto& ov = o.opts.model.overrides;
  json report;
  report["model"] = o.opts.model.path;
  report["network"] = o.model.network.description();
  report["network_spec"] = optional_json(ov.network_spec);
  report["input_bound"] = optional_json(ov.input_bound);
  report["state_bound"] = optional_json(ov.state_bound);
  report["channel_bound"] = optional_json(ov.channel_bound);
  report["states"] = res.num_states();
  report["transitions"] = res.num_transitions();
  report["complete"] = res.complete;
  report["fairness"] = o.opts.fairness;
  report["within_bounds"] = o.pruned() && !res.violation;  // the initial state over a bound stops even under prune
  report["bound_exceeded"] = nullptr;
  if (!res.complete) report["incomplete_reason"] = res.incomplete_reason;
  if (o.analysis_stopped != engine::StopReason::None)
    report["analysis_stopped"] = engine::stop_reason_name(o.analysis_stopped);
  if (res.violation) {
    const auto& v = *res.violation;
    BoundWhere w = bound_where(o);
    json bound = {{"kind", w.state_kind ? "state" : "channel"}, {"bound", v.bound}, {"value", v.value}};
    bound[w.state_kind ? "node" : "channel"] = w.where;
    bound["trace"] = o.bound_run ? run_to_json(o.cm, *o.bound_run) : json(nullptr);
    report["bound_exceeded"] = bound;
  }
  json props = json::object();
  for (const auto& p : o.properties) props[engine::property_json_key(p.property)] = property_json(o, p);
  report["properties"] = props;
  report["symmetry"] = o.symmetry_order > 1 ? json{{"order", o.symmetry_order}, {"generators", o.symmetry_generators}}
                                            : json(nullptr);
  report["stats"] = {{"seconds", res.seconds},
                     {"largest",
                      {{"db_facts", res.sizes.db_facts},
                       {"db_constants", res.sizes.db_constants},
                       {"channel_messages", res.sizes.channel_messages}}},
                     {"analysis_seconds", o.analysis_seconds},
                     {"peak_rss_bytes", peak_rss_bytes()},
                     {"ranks", f.ranks},
                     {"bytes_sent", f.bytes_sent},
                     {"rank_states", f.rank_states.empty() ? std::vector<uint64_t>{res.num_states()} : f.rank_states},
                     {"rank_peak_rss_bytes", f.rank_peak_rss.empty() ? std::vector<uint64_t>{peak_rss_bytes()} : f.rank_peak_rss},
                     {"rank_memory", rank_memory_json(o)},
                     {"rank0_seconds", rank_seconds_json(f)},
                     {"successors", f.successors},
                     {"crossing_successors", f.crossing},
                     {"rank0_successors", f.rank0_successors},
                     {"rank0_crossing_successors", f.rank0_crossing},
                     {"rank0_offers_processed", f.rank0_offers_in},
                     {"partition_key", engine::PlacementRule::parse(o.opts.partition_key)->text()},
                     {"threads", res.threads},
                     {"backend", o.backend},
                     {"compile_seconds", o.compile_seconds},
                     {"compiled_from_state", o.compiled_from_state ? json(o.compiled_from_state) : json()},
                     {"memory_limit_bytes", o.memory_limit},
                     {"bytes_per_state", res.num_states() ? double(res.memory.total()) / double(res.num_states()) : 0.0},
                     {"memory", memory_json(res.memory)},
                     {"scratch", scratch_json(o)},
                     {"canonical",
                      {{"calls", res.canonical.calls},
                       {"fast_path", res.canonical.fast_path},
                       {"refined", res.canonical.refined},
                       {"individualized", res.canonical.individualized},
                       {"nauty", res.canonical.nauty}}}};
  return report;
}

json traces_json(const CheckOutcome& o) {
  const auto& ov = o.opts.model.overrides;
  json traces = json::array();
  if (o.bound_run) traces.push_back({{"kind", "bound"}, {"trace", run_to_json(o.cm, *o.bound_run)}});
  for (const auto& p : o.properties) {
    if (!p.run) continue;
    json t = {{"kind", is_witness(p.property) ? "witness" : "counterexample"},
              {"property", engine::property_name(p.property)},
              {"trace", run_to_json(o.cm, *p.run)}};
    if (p.verdict.node) t["trace"]["never_faulty"] = o.model.network.name(*p.verdict.node);
    traces.push_back(std::move(t));
  }
  return {{"model", o.opts.model.path},
          {"network", o.model.network.description()},
          {"network_spec", optional_json(ov.network_spec)},
          {"input_bound", optional_json(ov.input_bound)},
          {"state_bound", optional_json(ov.state_bound)},
          {"channel_bound", optional_json(ov.channel_bound)},
          {"fairness", o.opts.fairness},
          {"traces", std::move(traces)}};
}

std::string html_report(const CheckOutcome& o) {
  std::vector<PageTrace> traces;
  if (o.bound_run) traces.push_back({"the run to the state over the bound", &*o.bound_run});
  for (const auto& p : o.properties) {
    if (!p.run) continue;
    std::string title = fmt::format("{} {}", engine::property_name(p.property),
                                    is_witness(p.property) ? "witness" : "counterexample");
    if (p.verdict.node) title += fmt::format(", {} never faulty", o.model.network.name(*p.verdict.node));
    traces.push_back({std::move(title), &*p.run});
  }
  return html_page(o.cm, report_json(o), traces);
}

std::string_view minimal_report_json(const CheckOutcome& o, char* buf, size_t size) noexcept {
  auto out = fmt::format_to_n(buf, size,
                              "{{\"states\": {}, \"transitions\": {}, \"complete\": false, "
                              "\"incomplete_reason\": \"out-of-memory\", \"fairness\": \"{}\", "
                              "\"bound_exceeded\": null, \"properties\": {{",
                              o.explored.num_states(), o.explored.num_transitions(),
                              o.opts.fairness == "none" ? "none" : "channel");
  auto used = [&] { return std::min<size_t>(size, out.out - buf); };
  const char* sep = "";
  for (const auto& p : o.properties) {
    out = fmt::format_to_n(out.out, size - used(), "{}\"{}\": {{\"holds\": null, \"trace\": null}}", sep,
                           engine::property_json_key(p.property));
    sep = ", ";
  }
  out = fmt::format_to_n(out.out, size - used(), "}}}}\n");
  return {buf, used()};
}

int check_exit_code(const CheckOutcome& o) {
  // An internal inconsistency puts every verdict in doubt, a failure too.
  bool internal_error = o.bound_run_stopped == engine::StopReason::InternalError;
  for (const auto& p : o.properties) internal_error |= p.stopped == engine::StopReason::InternalError;
  if (internal_error) return kExitIncomplete;
  bool any_fails = false, any_undecided = o.explored.violation.has_value();
  for (const auto& p : o.properties) {
    any_fails |= p.verdict.holds == false;
    any_undecided |= !p.verdict.holds;
  }
  if (any_fails) return kExitFails;
  if (any_undecided || !o.explored.complete || o.analysis_stopped != engine::StopReason::None) return kExitIncomplete;
  return kExitHolds;
}

}  // namespace ddsmc::app
