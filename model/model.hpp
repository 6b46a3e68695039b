// The resolved model: one immutable object that the engine consumes.
// Names are interned as dense integer ids; every static rule of
// docs/reference.md §2.3 has been checked; the evaluation order is fixed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/ast.hpp"
#include "model/network.hpp"

namespace ddsmc::model {

using PredId = uint32_t;
using ConstId = uint32_t;
using VarId = uint32_t;

enum class PredKind : uint8_t { Input, State, Transport };
const char* pred_kind_name(PredKind k);

struct Predicate {
  std::string name;
  uint32_t arity = 0;
  PredKind kind = PredKind::State;
  bool builtin = false;
  Loc loc;  // of the declaration; unset for built-ins
};

// Built-in predicates always have these ids.
inline constexpr PredId kMyName = 0;    // state my_name/1
inline constexpr PredId kNeighbor = 1;  // state neighbor/1
inline constexpr PredId kError = 2;     // state error/0
inline constexpr PredId kStart = 3;     // transport start/0
inline constexpr PredId kNumBuiltins = 4;

// Constant ids are 32-bit words, and ids from kMaxConstantIds up are
// reserved: kept free so that id arithmetic (fixed + fresh, offsets) in the
// engine cannot wrap. So the fixed constants plus the fresh constants that input enumeration may
// create (input bound x largest input arity) must number at most this; a
// model that needs more is refused at load.
inline constexpr uint64_t kMaxConstantIds = uint64_t{1} << 31;

// Constants known at load time are the fixed constants (node names, program
// constants, init constants): ids 0 .. size()-1. Fresh constants created by
// the engine are numbered from size() on and are not stored here.
class ConstantTable {
 public:
  ConstId intern(const std::string& spelling);
  std::optional<ConstId> find(const std::string& spelling) const;
  const std::string& spelling(ConstId c) const { return names_[c]; }
  size_t size() const { return names_.size(); }
  bool is_fixed(ConstId c) const { return c < names_.size(); }

 private:
  std::vector<std::string> names_;
  // spelling -> id, for intern() and find(). (A sorted vector made interning
  // quadratic in the number of constants; files may hold millions.)
  std::unordered_map<std::string, ConstId> index_;
};

struct RTerm {
  bool is_var = false;
  uint32_t id = 0;  // VarId when is_var, else ConstId
  static RTerm var(VarId v) { return {true, v}; }
  static RTerm constant(ConstId c) { return {false, c}; }
  friend bool operator==(const RTerm&, const RTerm&) = default;
};

struct RAtom {
  PredId pred = 0;
  std::vector<RTerm> args;
  std::optional<RTerm> at;  // destination (heads) or source (body transport atoms)
};

struct RLiteral {
  RAtom atom;
  bool negated = false;
  bool prev = false;
  Loc loc;
};

struct RConstraint {
  RTerm lhs, rhs;
  bool equal = true;
  Loc loc;
};

struct RChoice {
  std::vector<VarId> domain;
  std::vector<VarId> picked;
  Loc loc;
};

struct RRule {
  uint32_t index = 0;  // position in the file, 0-based
  RAtom head;
  std::vector<RLiteral> body;  // in source order; the engine plans its own order
  std::vector<RConstraint> constraints;
  std::optional<RChoice> choice;
  // Variables are numbered 0 .. num_vars-1; each `_` is a variable of its own,
  // flagged anonymous (existential where it stands in a negated literal).
  std::vector<std::string> var_names;
  std::vector<bool> var_anonymous;
  Loc loc;
  std::string text;  // the rule pretty-printed, for messages and traces
  size_t num_vars() const { return var_names.size(); }
};

// A strongly connected component of the dependency graph among state
// predicates, in evaluation order. Its choice rules fire first, then its other
// rules to fixpoint (docs/reference.md §2.4, §3.3).
struct Component {
  std::vector<PredId> preds;
  std::vector<uint32_t> choice_rules;  // rule indices
  std::vector<uint32_t> rules;         // the non-choice rules whose head is in this component
  bool recursive = false;              // a rule's body reads a predicate of its own component
};

struct Fact {
  PredId pred = 0;
  std::vector<ConstId> args;
  friend bool operator==(const Fact&, const Fact&) = default;
  friend auto operator<=>(const Fact&, const Fact&) = default;
};

struct Bounds {
  uint32_t input = 0;                   // facts per input DB
  std::optional<uint32_t> state;        // distinct constants per node DB (built-ins excluded)
  std::optional<uint32_t> channel;      // payloads per channel
};

struct Model {
  std::string file;
  std::vector<Predicate> preds;  // ids 0 .. kNumBuiltins-1 are the built-ins
  ConstantTable constants;
  std::vector<RRule> rules;
  // Evaluation order of the state rules: a component comes after every
  // component it reads (non-prev), ties broken by smallest predicate id. Only
  // the SCCs holding the head of some rule appear; a state predicate no rule
  // derives (built-ins included) has no component and is never derived.
  std::vector<Component> components;
  std::vector<uint32_t> transport_rules;  // rules with transport heads, evaluated last
  Network network;
  std::vector<ConstId> node_const;        // node id -> the constant naming it
  std::vector<std::vector<Fact>> init_facts;  // per node: init facts plus built-ins, sorted, unique
  Bounds bounds;
  bool uses_prev = false;   // some rule body has a `prev` literal
  bool uses_input = false;  // some rule body reads an input predicate (a declared but unread
                            // input predicate cannot change any step, so it does not count)
  std::unordered_map<std::string, PredId> pred_index;  // name -> id, filled by resolve; find_pred
                                                       // falls back to a scan when it is stale

  const Predicate& pred(PredId p) const { return preds[p]; }
  std::optional<PredId> find_pred(const std::string& name) const;
  std::vector<PredId> preds_of_kind(PredKind k) const;
  // "p(a, b)"-style rendering ("p" for arity 0), for messages and traces.
  // A constant id beyond the fixed ones (a fresh constant) prints as "#k",
  // k = id - constants.size(), which no .d2c constant can spell.
  std::string fact_to_string(const Fact& f) const;
};

}  // namespace ddsmc::model
