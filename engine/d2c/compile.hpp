// Rule evaluation plans, compiled once at load (no strings in the hot path).
// Each rule's body is reordered so that every literal is joined with the
// variables already bound: bound-first, most selective first; constraints and
// negated literals run as soon as their variables are bound.
#pragma once

#include <cstdint>
#include <vector>

#include "hashing/state.hpp"
#include "model/model.hpp"

namespace ddsmc::engine {

using hashing::Word;

// Where a body literal's facts come from during one step.
enum class Source : uint8_t {
  State,    // the new state being derived (built-ins pre-filled)
  Prev,     // the node's DB before the step
  Input,    // the input DB of the step
  Message,  // the one transport fact being processed
};

// What one argument position does against a tuple value.
struct ArgOp {
  enum class Kind : uint8_t {
    Bind,   // first occurrence of a variable: bind it
    Check,  // variable already bound: compare
    Const,  // constant: compare
    Skip,   // anonymous variable (existential in negated literals)
  };
  Kind kind = Kind::Skip;
  uint32_t value = 0;  // variable slot or constant id
};

struct LiteralPlan {
  Source source = Source::State;
  model::PredId pred = 0;
  bool negated = false;
  std::vector<ArgOp> args;
  bool has_at = false;  // message source annotation (Source::Message only)
  ArgOp at;
};

struct ConstraintPlan {
  ArgOp lhs, rhs;  // Check or Const only
  bool equal = true;
};

struct PlanStep {
  enum class Kind : uint8_t { Literal, Constraint } kind = Kind::Literal;
  uint32_t index = 0;  // into RulePlan::literals or ::constraints
};

struct RulePlan {
  uint32_t rule = 0;  // index into Model::rules
  model::PredId head_pred = 0;
  bool transport_head = false;
  std::vector<ArgOp> head_args;  // Check or Const
  ArgOp head_at;                 // destination, transport heads only
  std::vector<LiteralPlan> literals;
  std::vector<ConstraintPlan> constraints;
  std::vector<PlanStep> steps;  // evaluation order
  uint32_t num_vars = 0;
  bool has_choice = false;
  std::vector<uint32_t> choice_domain;  // variable slots
  std::vector<uint32_t> choice_picked;
};

struct ComponentPlan {
  std::vector<uint32_t> choice_rules;  // indices into CompiledModel::rules
  std::vector<uint32_t> rules;
  bool recursive = false;
};

// Everything the step function needs, derived once from the Model.
struct CompiledModel {
  const model::Model* model = nullptr;
  hashing::StateLayout layout;
  std::vector<RulePlan> rules;  // same indices as Model::rules
  std::vector<ComponentPlan> components;
  std::vector<uint32_t> transport_rules;
  std::vector<model::PredId> input_preds;  // the input predicates some rule body reads
  // By message predicate: whether a step serving a message of it may read
  // the input DB. A rule that reads input fires only with a message of the
  // predicate its positive message literal names, if it has one; a step
  // whose message no input-reading rule can fire with derives the same
  // outcomes whatever the input, so the empty input DB stands for all.
  std::vector<char> input_matters;
  // Only input introduces constants that are not fixed: without it no state
  // has fresh constants and canonicalization is the plain encoding.
  bool may_have_fresh = false;
  // Per node: the built-in facts (my_name, neighbor) as word runs.
  std::vector<std::vector<Word>> builtins;
  std::vector<model::ConstId> node_const;
  std::vector<int32_t> node_of_const;  // constant id -> node id, or -1
};

CompiledModel compile(const model::Model& m);

}  // namespace ddsmc::engine
