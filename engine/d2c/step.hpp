// One step of one node (docs/reference.md §3.3): given the node's DB, one
// incoming transport fact and an input DB, compute the stratified model of
// the program for every choice outcome: the new DB and the messages sent.
// Re-entrant: all scratch lives in the StepEvaluator, one per worker.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/d2c/codegen_abi.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/function_ref.hpp"
#include "engine/d2c/relation.hpp"

namespace ddsmc::engine {

struct StepInput {
  model::NodeId node = 0;
  const std::vector<Word>* db = nullptr;  // the node's DB, normalized, built-ins excluded
  model::NodeId msg_src = 0;
  const Word* msg = nullptr;  // the transport fact [pred, args...]
  const std::vector<Word>* input = nullptr;  // input facts [pred, args...]*, normalized
};

// One outcome of a step: db, the new DB (normalized, built-ins excluded);
// sent, [dest node, pred, args...]* to arcs of the node, without
// duplicates; dropped, [dest constant, pred, args...]*: destinations that
// are not arcs. It is the compiled step's ABI struct (codegen_abi.hpp), so
// that an outcome the generated code built goes to the caller as it is,
// without a copy or a swap.
using StepResult = ddsmc_gen::Result;
static_assert(std::is_same_v<Word, uint32_t>, "StepResult holds the ABI's uint32_t words");

class StepEvaluator {
 public:
  explicit StepEvaluator(const CompiledModel& cm);
  // Calls `out` once per choice outcome (once when the program has no choice).
  void evaluate(const StepInput& in, FunctionRef<void(const StepResult&)> out);
  // Polled inside the evaluation (every kPollEvery join steps and fixpoint
  // inserts): a long step can be stopped; evaluate() then throws Cancelled.
  void set_cancellation(Cancellation* c) { cancel_ = c; }

 private:
  struct ChoiceGroup {
    std::vector<std::vector<Word>> heads_per_pick;  // head tuples derived for each picked value
  };

  void load(const StepInput& in);
  void run_components(size_t first);
  void run_transport();
  void run_fixpoint(const ComponentPlan& comp);
  void emit();
  // Calls emit_vars() for every substitution satisfying the plan's body.
  template <class F>
  void join(const RulePlan& p, F&& emit_vars);
  bool match_literal(const LiteralPlan& lp, uint32_t& cursor);
  bool negation_holds(const LiteralPlan& lp);  // a negated literal: no fact matches
  bool constraint_holds(const ConstraintPlan& c) const;
  Word value(const ArgOp& op) const { return op.kind == ArgOp::Kind::Const ? op.value : vars_[op.value]; }
  void head_tuple(const RulePlan& p, std::vector<Word>& out) const;
  void derive_transport(const RulePlan& p);
  // Choice rules: group their substitutions and enumerate every outcome.
  void collect_choice(const RulePlan& p, std::vector<ChoiceGroup>& groups);
  template <class Apply, class Next>
  void for_each_outcome(const std::vector<std::vector<ChoiceGroup>>& per_rule, Apply&& apply, Next&& next);

  const CompiledModel& cm_;
  const StepInput* in_ = nullptr;
  std::vector<Relation> state_, prev_, input_;
  std::vector<Word> vars_;
  std::vector<uint32_t> cursors_;
  std::vector<Word> scratch_;
  std::vector<Word> run_;    // one message being added
  MessageSet sent_;         // [dest const, pred, args...]* derived so far
  const FunctionRef<void(const StepResult&)>* out_ = nullptr;
  StepResult result_;
  // Polled every kPollEvery join steps and fixpoint inserts: a countdown in
  // the evaluator costs less than the token's atomic load in the hot loop.
  static constexpr uint32_t kPollEvery = 1024;
  void maybe_poll() {
    if (--poll_countdown_ == 0) [[unlikely]] {
      poll_countdown_ = kPollEvery;
      cancel_->poll();
    }
  }
  Cancellation* cancel_ = &Cancellation::none();
  uint32_t poll_countdown_ = kPollEvery;
};

}  // namespace ddsmc::engine
