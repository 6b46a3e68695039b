// What the passes of the resolver (model/resolve.cpp runs them in order)
// share: the program, the model being built, and the facts one pass leaves
// for a later one. Each pass lives in its own file under model/resolve/;
// state that only one pass needs stays in that file.
//
// Every pass runs even after errors in earlier ones, so one run reports all
// independent errors; a pass skips only what depends on something that
// failed (e.g. `init at x` is not checked against a network that failed to
// build). Nothing recurses on the size of the input.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/ast.hpp"
#include "model/diagnostics.hpp"
#include "model/model.hpp"
#include "model/resolve.hpp"

namespace ddsmc::model::resolver {

inline constexpr PredId kNoPred = std::numeric_limits<PredId>::max();
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();  // "no rule": an init block

// What the rules do with a predicate, for the warnings.
struct Usage {
  bool head = false;      // some rule derives (state) or sends (transport) it
  bool read = false;      // some rule body mentions it, under prev or not
  bool read_now = false;  // some rule body mentions it without prev
  bool in_init = false;   // some init fact has it
  Loc first_read_now;     // the first such non-prev body literal
  uint32_t first_read_now_rule = kNone;
};

// A dependency edge of the state graph, one per non-prev state body literal.
struct DepEdge {
  PredId from;  // the head
  PredId to;    // the body predicate
  bool negative;
  uint32_t rule;
  Loc loc;  // of the literal
};

// "Did you mean" for undeclared names: the closest declared predicate name.
// The work is capped so that a file full of undeclared names stays fast.
class Suggestions {
 public:
  std::string closest(const std::string& name, const std::vector<Predicate>& preds);

 private:
  std::unordered_map<std::string, std::string> cache_;
  int64_t budget_ = 20'000'000;  // edit-distance cells
};

struct Resolution {
  Resolution(const Program& program, const Overrides& overrides, Diagnostics& diagnostics)
      : prog(program), ov(overrides), diag(diagnostics) {}

  const Program& prog;
  const Overrides& ov;
  Diagnostics& diag;
  Model m;
  std::unordered_map<std::string, PredId> pred_by_name;  // becomes m.pred_index
  Suggestions suggestions;
  bool declares_input = false;       // declarations -> bounds
  bool network_ok = false;           // network -> init facts
  std::vector<Usage> usage;          // per predicate: rules, init facts -> warnings
  std::vector<PredId> rule_head;     // per rule: a well-formed state or transport head, else kNoPred
  std::vector<DepEdge> edges;        // rules -> dependencies
  std::vector<size_t> choice_edges;  // indices into edges of choice rules' body literals

  const std::string& name(PredId p) const { return m.preds[p].name; }
  // "in rule 'TEXT'" (or "in fact ..."), naming a rule in messages; kNone is an init block.
  std::string rule_where(uint32_t rule) const;
};

// The passes, in the order resolve() runs them.
void declare_predicates(Resolution& r);    // declarations.cpp: built-ins, then the declared ones
void resolve_network(Resolution& r);       // network.cpp: --network, or the file's declaration
void resolve_rules(Resolution& r);         // rules.cpp: heads, bodies, safety, choice (rules 1-4, 6)
void analyse_dependencies(Resolution& r);  // dependencies.cpp: stratification, choice, evaluation order
void resolve_inits(Resolution& r);         // inits.cpp: init facts and built-ins per node
void resolve_bounds(Resolution& r);        // bounds.cpp: bounds, overrides, constant-id limit
void warn_suspicious(Resolution& r);       // warnings.cpp: legal but suspicious programs

// Rule 6 for an atom: its predicate is declared and the arity matches.
// Returns the id (also on an arity mismatch, so that later checks can go on)
// or kNoPred (declarations.cpp).
PredId lookup(Resolution& r, const Atom& a, uint32_t rule);

// Shared message helpers (names.cpp).
std::string loc_text(Loc l);                                 // "line L:C"
std::string shorten(const std::string& s, size_t max = 60);  // a rule text cut for a message
std::string plural(size_t n, const char* word);              // "1 argument", "2 arguments"

}  // namespace ddsmc::model::resolver
