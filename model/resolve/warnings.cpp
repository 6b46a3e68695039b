// Warnings: legal programs that are most likely not what was meant (a
// predicate declared but unused, derived but never read, read but never
// derived, sent but never received, received but never sent).
#include <fmt/format.h>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {

void warn_suspicious(Resolution& r) {
  for (PredId p = kNumBuiltins; p < r.m.preds.size(); ++p) {
    const Predicate& pred = r.m.preds[p];
    const Usage& u = r.usage[p];
    if (!u.head && !u.read) {
      r.diag.warning(pred.loc,
                     fmt::format("{} predicate '{}' is declared but no rule uses it{}", pred_kind_name(pred.kind),
                                 pred.name, u.in_init ? " (its init facts are dropped at the node's first step)" : ""));
      continue;
    }
    if (pred.kind == PredKind::State) {
      if (!u.read) {
        r.diag.warning(pred.loc, fmt::format("state predicate '{}' is derived but no rule reads it, not even as 'prev "
                                             "{}': it only shows in the state",
                                             pred.name, pred.name));
      } else if (!u.head && u.read_now) {
        r.diag.warning(
            u.first_read_now,
            fmt::format(
                "state predicate '{}' is read {} but no rule derives it, so it is always false "
                "there{}",
                pred.name, r.rule_where(u.first_read_now_rule),
                u.in_init ? " (init facts are seen only as 'prev " + pred.name + "', in the node's first step)" : ""));
      } else if (!u.head && !u.in_init) {
        r.diag.warning(pred.loc, fmt::format("state predicate '{}' is never derived and has no init facts, so 'prev "
                                             "{}' is always false",
                                             pred.name, pred.name));
      }
    } else if (pred.kind == PredKind::Transport) {
      if (!u.read)
        r.diag.warning(pred.loc, fmt::format("transport predicate '{}' is sent but never received: no rule body reads "
                                             "'{}@Source', so its messages only fill channels",
                                             pred.name, pred.name));
      else if (!u.head)
        r.diag.warning(pred.loc, fmt::format("transport predicate '{}' is never sent: no rule has it as its head, so "
                                             "the rules that receive it never fire",
                                             pred.name));
    }
  }
}

}  // namespace ddsmc::model::resolver
