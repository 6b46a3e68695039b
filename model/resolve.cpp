// Name resolution and the static checks of docs/reference.md §2.3 (rules 1-6),
// the evaluation order of §2.4, the network, init facts and bounds:
// the passes of model/resolve/, run in order over one shared Resolution
// (model/resolve/context.hpp says what they share).
#include "model/resolve.hpp"

#include <utility>

#include "model/resolve/context.hpp"

namespace ddsmc::model {

std::optional<Model> resolve(const Program& program, const Overrides& overrides, Diagnostics& diag) {
  resolver::Resolution r(program, overrides, diag);
  diag.set_phase(Phase::Resolve);
  r.m.file = program.file;
  resolver::declare_predicates(r);
  resolver::resolve_network(r);
  resolver::resolve_rules(r);
  resolver::analyse_dependencies(r);
  resolver::resolve_inits(r);
  resolver::resolve_bounds(r);
  resolver::warn_suspicious(r);
  r.m.pred_index = std::move(r.pred_by_name);
  if (diag.has_errors()) return std::nullopt;
  return std::move(r.m);
}

}  // namespace ddsmc::model
