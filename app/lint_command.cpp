// `ddsmc lint`: the static checks, and a short summary of what was loaded.
#include <fmt/format.h>

#include <cstdio>

#include "app/commands.hpp"
#include "engine/d2c/symmetry.hpp"
#include "model/load.hpp"

namespace ddsmc::app {
namespace {

std::string pred_list(const model::Model& m, model::PredKind kind) {
  std::string out;
  size_t n = 0;
  for (model::PredId p : m.preds_of_kind(kind)) {
    const auto& pr = m.pred(p);
    out += fmt::format("{}{}/{}{}", n++ ? ", " : "", pr.name, pr.arity, pr.builtin ? "*" : "");
  }
  return fmt::format("{} {}{}", n, model::pred_kind_name(kind), n ? " (" + out + ")" : "");
}

std::string bound_text(const std::optional<uint32_t>& b) { return b ? std::to_string(*b) : "unbounded"; }

void print_summary(const model::Model& m, size_t warnings) {
  std::printf("%s: ok, %zu warning%s\n", m.file.c_str(), warnings, warnings == 1 ? "" : "s");
  std::printf("  predicates: %s; %s; %s  (* built-in)\n", pred_list(m, model::PredKind::Input).c_str(),
              pred_list(m, model::PredKind::State).c_str(), pred_list(m, model::PredKind::Transport).c_str());
  size_t choice_rules = 0;
  for (const auto& r : m.rules) choice_rules += r.choice ? 1 : 0;
  std::printf("  rules: %zu (%zu with transport heads, %zu with choice)\n", m.rules.size(), m.transport_rules.size(),
              choice_rules);
  std::string order;
  for (const auto& c : m.components) {
    order += order.empty() ? "{" : " -> {";
    for (size_t i = 0; i < c.preds.size(); ++i) order += (i ? ", " : "") + m.pred(c.preds[i]).name;
    order += c.recursive ? "}*" : "}";
  }
  if (!m.transport_rules.empty()) order += order.empty() ? "transport rules" : " -> transport rules";
  std::printf("  evaluation order: %s%s\n", order.empty() ? "(no rules)" : order.c_str(),
              order.find("}*") != std::string::npos ? "  (* recursive)" : "");
  std::printf("  network: %s, %zu nodes, %zu edges, %zu arcs\n", m.network.description().c_str(),
              m.network.num_nodes(), m.network.num_edges(), m.network.num_arcs());
  std::printf("  bounds: input %u, state %s, channel %s\n", m.bounds.input, bound_text(m.bounds.state).c_str(),
              bound_text(m.bounds.channel).c_str());
  std::printf("  fixed constants: %zu\n", m.constants.size());
  std::printf("  symmetry: %s\n", engine::symmetry_text(engine::system_symmetry(m)).c_str());
}

}  // namespace

int run_lint(const ModelOptions& opts) {
  model::Diagnostics diag(opts.path);
  auto m = model::load_model(opts.path, opts.overrides, diag);
  size_t warnings = diag.warning_count();
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) {
    std::fprintf(stderr, "%s: %zu error%s\n", opts.path.c_str(), diag.error_count(),
                 diag.error_count() == 1 ? "" : "s");
    return kExitUsage;
  }
  print_summary(*m, warnings);
  return 0;
}

}  // namespace ddsmc::app
