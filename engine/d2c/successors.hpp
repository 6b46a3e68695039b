// The steps of a global state (docs/reference.md §3.3), with their edge labels and
// what happened in each (for traces). Pure and re-entrant: one
// SuccessorGenerator per worker, no shared mutable state. The back-ends see
// it through D2cSystem's Generator (engine/system.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/d2c/bounds.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/compiled_step.hpp"
#include "engine/d2c/inputs.hpp"
#include "engine/d2c/step.hpp"
#include "engine/system.hpp"
#include "hashing/state.hpp"

#include <memory>

namespace ddsmc::engine {

// What happened in one step, for traces; valid during the sink call only.
// The StepInfo part (bound violation, changed parts) is what back-ends read:
// only the parts the step changed can exceed a bound, the source state
// being within bounds.
struct StepDetail : StepInfo {
  uint32_t arc = kIdleArc;
  const Word* payload = nullptr;              // [pred, args...]
  const std::vector<Word>* input = nullptr;   // input facts
  const StepResult* result = nullptr;         // new DB, messages sent and dropped
};

class SuccessorGenerator {
 public:
  using Sink = FunctionRef<void(const EdgeLabel&, const hashing::GlobalState&, const StepDetail&)>;
  explicit SuccessorGenerator(const CompiledModel& cm);
  // With `compiled` (the model's loaded compiled step, compiled_step.hpp),
  // steps are evaluated by the generated code instead of the interpreter
  // (issue 9 prototype; the same StepResults in the same order).
  SuccessorGenerator(const CompiledModel& cm, std::shared_ptr<const CompiledStepLibrary> compiled);
  // Every step of s (docs/reference.md §3.3): for every non-empty channel, every
  // distinct payload in it, every input DB (one per renaming class) and
  // every choice outcome; or the idle step when every channel is empty.
  // s is edited in place into each successor (the sink sees s itself) and
  // edited back after each sink call: on return it is byte-equal to its
  // value on entry; after an exception it may be left edited
  // (Generator::successors, engine/system.hpp).
  void successors(hashing::GlobalState& s, Sink sink);
  // The steps of s that serve `arc` with `payload` (a fact in its channel,
  // not pointing into s) and input DB `input` (normalized, legal for the
  // input bound): one per choice outcome. For simulate, which picks one step
  // without generating all. s is edited as by successors().
  void steps(hashing::GlobalState& s, uint32_t arc, const Word* payload, const std::vector<Word>& input,
             Sink sink);
  // The fresh constants of s, as the input enumeration needs them.
  void state_fresh(const hashing::GlobalState& s, std::vector<Word>& out) const;
  InputEnumerator& inputs() { return inputs_; }
  // The token polled while generating (once per input DB, and inside every
  // step's evaluation); successors() then throws Cancelled. Set by explore(),
  // simulate() and lift(); never null. After Cancelled (or std::bad_alloc)
  // the generator is left unusable: drop it.
  void set_cancellation(Cancellation* c);
  // Under --on-bound prune: a step whose new DB is over the state bound is
  // dropped before its successor is built (channels edited and saved), and
  // counted in skipped(), instead of reaching the sink (Generator's).
  void set_skip_violating(bool skip) { skip_violating_ = skip; }
  uint64_t skipped() const { return skipped_; }

 private:
  void expand(hashing::GlobalState& s, uint32_t arc, const Word* payload, const std::vector<Word>& input,
              Sink sink);
  // Copies channel t of s into the next of saved_channels_, before a step
  // edits it.
  void save_channel(const hashing::GlobalState& s, uint32_t t);

  const CompiledModel& cm_;
  StepEvaluator eval_;
  std::unique_ptr<CompiledStepEvaluator> compiled_;  // null: the interpreter
  InputEnumerator inputs_;
  std::vector<Word> saved_db_;  // expand(): the processing node's DB while a step's new DB stands in s
  // expand(): the channels a step edits (saved_ of them), as they were
  // before it, to be swapped back after the sink call; the buffers are
  // reused from step to step.
  std::vector<uint32_t> saved_arcs_;
  std::vector<std::vector<Word>> saved_channels_;
  uint32_t saved_ = 0;
  bool skip_violating_ = false;
  uint64_t skipped_ = 0;
  std::vector<uint32_t> touched_;
  std::vector<uint32_t> parts_;
  std::vector<Word> scratch_;
  std::vector<Word> payload_;  // successors(): the payload being served (its buffer reused)
  std::vector<Word> fresh_;  // the fresh constants of the state being expanded
  const std::vector<Word> no_input_;  // the empty input DB
  Cancellation* cancel_ = &Cancellation::none();
};

// The initial global state (docs/reference.md §3.2): init facts, `start` on every
// self-loop, all other channels empty.
hashing::GlobalState initial_state(const CompiledModel& cm);

// Adds a step's messages (StepResult::sent of node `from`) to their
// channels; `touched` gets the arcs sent on, ascending and distinct.
void send_messages(hashing::GlobalState& s, model::NodeId from, const std::vector<Word>& sent, const CompiledModel& cm,
                   std::vector<uint32_t>& touched);

// Channel multiset edits on [pred, args..., count] runs, kept sorted.
void channel_add(std::vector<Word>& channel, const Word* fact, const hashing::StateLayout& layout);
void channel_remove(std::vector<Word>& channel, const Word* fact, const hashing::StateLayout& layout);

}  // namespace ddsmc::engine
