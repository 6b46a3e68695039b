// Declarations (docs/reference.md §2.1; §2.3, rule 6): the built-in predicates with their
// fixed ids, then the declared ones; and the lookup of a used predicate.
#include <fmt/format.h>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

PredKind to_kind(DeclKind k) {
  switch (k) {
    case DeclKind::Input: return PredKind::Input;
    case DeclKind::State: return PredKind::State;
    case DeclKind::Transport: return PredKind::Transport;
  }
  return PredKind::State;
}

PredId add_pred(Resolution& r, std::string name, uint32_t arity, PredKind kind, bool builtin, Loc loc) {
  PredId id = static_cast<PredId>(r.m.preds.size());
  r.pred_by_name.emplace(name, id);
  r.m.preds.push_back(Predicate{std::move(name), arity, kind, builtin, loc});
  return id;
}

}  // namespace

void declare_predicates(Resolution& r) {
  add_pred(r, "my_name", 1, PredKind::State, true, {});
  add_pred(r, "neighbor", 1, PredKind::State, true, {});
  add_pred(r, "error", 0, PredKind::State, true, {});
  add_pred(r, "start", 0, PredKind::Transport, true, {});
  for (const PredDecl& d : r.prog.decls) {
    auto it = r.pred_by_name.find(d.name);
    if (it != r.pred_by_name.end()) {
      const Predicate& first = r.m.preds[it->second];
      if (first.builtin)
        r.diag.error(d.loc, fmt::format("'{}' is a built-in {} predicate ({}/{}) and must not be declared", d.name,
                                        pred_kind_name(first.kind), first.name, first.arity));
      else
        r.diag.error(
            d.loc, fmt::format("predicate '{}' is declared twice (first declared at {})", d.name, loc_text(first.loc)));
      continue;
    }
    if (d.arity > kMaxArity)
      r.diag.error(d.loc,
                   fmt::format("predicate '{}' has arity {}, more than the maximum of {}", d.name, d.arity, kMaxArity));
    PredKind kind = to_kind(d.kind);
    if (kind == PredKind::Input) r.declares_input = true;
    add_pred(r, d.name, d.arity, kind, false, d.loc);
  }
  r.usage.assign(r.m.preds.size(), Usage{});
}

PredId lookup(Resolution& r, const Atom& a, uint32_t rule) {
  auto where = [&] { return r.rule_where(rule); };
  auto it = r.pred_by_name.find(a.pred);
  if (it == r.pred_by_name.end()) {
    std::string near = r.suggestions.closest(a.pred, r.m.preds);
    r.diag.error(a.loc, fmt::format("undeclared predicate '{}' {}{}", a.pred, where(),
                                    near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
    return kNoPred;
  }
  const Predicate& p = r.m.preds[it->second];
  if (a.args.size() != p.arity) {
    if (p.builtin)
      r.diag.error(a.loc, fmt::format("built-in '{}' has arity {} but is used with {} {}", a.pred, p.arity,
                                      plural(a.args.size(), "argument"), where()));
    else
      r.diag.error(a.loc, fmt::format("'{}' is declared with arity {} but used with {} {}", a.pred, p.arity,
                                      plural(a.args.size(), "argument"), where()));
  }
  return it->second;
}

}  // namespace ddsmc::model::resolver
