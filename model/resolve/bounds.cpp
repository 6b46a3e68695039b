// Bounds (docs/reference.md §2.7): the file's `bounds { }` block, the command-line
// overrides, the defaults, the limit on constant ids that the input bound
// must respect, and the warnings for bounds that provably never matter.
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

// Per predicate and argument position: whether it may hold a constant that
// is not fixed (docs/reference.md: inputs bring arbitrary, so fresh,
// constants). Input predicates are open everywhere; a head position is
// open when its variable stands at an open position of a positive body
// literal (every head variable does stand in one: rule safety).
std::vector<std::vector<bool>> open_positions(const Model& m) {
  std::vector<std::vector<bool>> open(m.preds.size());
  for (PredId p = 0; p < m.preds.size(); ++p) open[p].assign(m.preds[p].arity, m.preds[p].kind == PredKind::Input);
  for (bool changed = true; changed;) {
    changed = false;
    for (const RRule& rule : m.rules) {
      std::vector<bool> var_open(rule.num_vars(), false);
      for (const RLiteral& l : rule.body)
        for (size_t i = 0; i < l.atom.args.size(); ++i)
          if (!l.negated && l.atom.args[i].is_var && open[l.atom.pred][i]) var_open[l.atom.args[i].id] = true;
      for (size_t j = 0; j < rule.head.args.size(); ++j) {
        const RTerm& t = rule.head.args[j];
        if (t.is_var && var_open[t.id] && !open[rule.head.pred][j]) changed = open[rule.head.pred][j] = true;
      }
    }
  }
  return open;
}

// Where a bound was given, for a warning: its declaration, or the command line.
std::string bound_origin(const std::optional<uint32_t>& override, const char* option) {
  return override ? fmt::format(" ({})", option) : "";
}

// Bounds provably never reached (issue 24), so looser than the system
// needs: a state bound above what a DB can hold when no input constant
// reaches a state predicate (then a DB holds fixed constants only, or none
// when no state predicate has arguments); an input bound above the facts
// the input predicates can make (all of arity 0), or with no input
// predicate at all.
void warn_unreachable_bounds(Resolution& r, const std::array<std::optional<Loc>, 3>& first) {
  if (r.diag.has_errors()) return;  // (the rules may be half resolved)
  const Model& m = r.m;
  const auto open = open_positions(m);
  if (m.bounds.state && (first[1] || r.ov.state_bound)) {
    bool fresh_in_state = false, has_args = false;
    for (PredId p = kNumBuiltins; p < m.preds.size(); ++p)
      if (m.preds[p].kind == PredKind::State) {
        has_args |= m.preds[p].arity > 0;
        for (bool b : open[p]) fresh_in_state |= b;
      }
    // At most: none when no state predicate has arguments, else the fixed constants.
    const size_t most = has_args ? m.constants.size() : 0;
    if (!fresh_in_state && *m.bounds.state > most)
      r.diag.warning(r.ov.state_bound ? Loc{} : first[1].value_or(Loc{}),
                     has_args ? fmt::format("state bound {}{} is never reached: no input constant reaches a state "
                                            "predicate, so a node's DB holds at most the model's {} (with this "
                                            "network's node names)",
                                            *m.bounds.state, bound_origin(r.ov.state_bound, "--state-bound"),
                                            plural(most, "fixed constant"))
                              : fmt::format("state bound {}{} is never reached: no state predicate has arguments, "
                                            "so a node's DB holds no constant (state 0 says as much)",
                                            *m.bounds.state, bound_origin(r.ov.state_bound, "--state-bound")));
  }
  if (!first[0] && !r.ov.input_bound) return;
  size_t inputs = 0;
  bool unbounded = false;
  for (const Predicate& p : m.preds)
    if (p.kind == PredKind::Input) {
      ++inputs;
      unbounded |= p.arity > 0;
    }
  const Loc at = r.ov.input_bound ? Loc{} : first[0].value_or(Loc{});
  const std::string origin = bound_origin(r.ov.input_bound, "--input-bound");
  if (inputs == 0 && m.bounds.input > 0)
    r.diag.warning(at, fmt::format("input bound {}{} has no effect: the program declares no input predicate",
                                   m.bounds.input, origin));
  else if (inputs > 0 && !unbounded && m.bounds.input > inputs)
    r.diag.warning(at, fmt::format("input bound {}{} is never reached: the input predicates all have arity 0, so an "
                                   "input DB holds at most {}",
                                   m.bounds.input, origin, plural(inputs, "fact")));
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
  warn_unreachable_bounds(r, first);
}

}  // namespace ddsmc::model::resolver
