// Bounds (SPEC section 2): the file's `bounds { }` block, the command-line
// overrides, the defaults, and the limit on constant ids that the input bound
// must respect.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

#include "model/resolve/context.hpp"

namespace ddsmc::model::resolver {
namespace {

// The fresh constants of an input DB (at most bound x the largest input
// arity) and the fixed constants must all have ids below kMaxConstantIds.
// Computed in 64 bits: the bound and the arity are below 2^32 and 2^7.
void check_constant_ids(Resolution& r, Loc bound_loc) {
  uint32_t arity = 0;
  const Predicate* widest = nullptr;
  for (const Predicate& p : r.m.preds) {
    if (p.kind == PredKind::Input && (!widest || p.arity > arity)) {
      arity = p.arity;
      widest = &p;
    }
  }
  const uint64_t fresh = uint64_t{r.m.bounds.input} * arity, fixed = r.m.constants.size();
  if (fresh + fixed <= kMaxConstantIds) return;
  if (fresh == 0) {
    r.diag.error(Loc{}, fmt::format("the model has {} fixed constants, more than the limit of {} constant ids", fixed,
                                    kMaxConstantIds));
    return;
  }
  r.diag.error(bound_loc, fmt::format("input bound {} is too large: input DBs of {} facts of '{}' (arity {}) may "
                                      "hold {} fresh constants; with {} that exceeds the limit of {} constant ids",
                                      r.m.bounds.input, r.m.bounds.input, widest->name, arity, fresh,
                                      plural(fixed, "fixed constant"), kMaxConstantIds));
}

}  // namespace

void resolve_bounds(Resolution& r) {
  static constexpr std::array<const char*, 3> kinds = {"input", "state", "channel"};
  std::array<std::optional<uint32_t>, 3> value;
  std::array<std::optional<Loc>, 3> first;
  for (const BoundDecl& b : r.prog.bounds) {
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const char* k) { return b.kind == k; });
    if (it == kinds.end()) {
      r.diag.error(b.loc, fmt::format("unknown bound '{}' (the bounds are input, state and channel)", b.kind));
      continue;
    }
    size_t k = static_cast<size_t>(it - kinds.begin());
    if (first[k]) {
      r.diag.error(b.loc, fmt::format("bound '{}' is given twice (first at {})", b.kind, loc_text(*first[k])));
      continue;
    }
    first[k] = b.loc;
    if (b.value > std::numeric_limits<uint32_t>::max()) {
      r.diag.error(b.loc, fmt::format("bound '{} {}' is too large (at most {})", b.kind, b.value,
                                      std::numeric_limits<uint32_t>::max()));
      continue;
    }
    value[k] = static_cast<uint32_t>(b.value);
  }
  r.m.bounds.input = r.ov.input_bound ? *r.ov.input_bound : value[0] ? *value[0] : (r.declares_input ? 1u : 0u);
  r.m.bounds.state = r.ov.state_bound ? r.ov.state_bound : value[1];
  r.m.bounds.channel = r.ov.channel_bound ? r.ov.channel_bound : value[2];
  check_constant_ids(r, r.ov.input_bound ? Loc{} : first[0].value_or(Loc{}));
}

}  // namespace ddsmc::model::resolver
