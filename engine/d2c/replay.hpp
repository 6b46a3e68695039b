// Re-executing a recorded run step by step (`ddsmc replay`) and checking
// what it claims. Each step must be legal in the model and agree with every
// recorded field (index, node, the channel holds the payload, the input fits
// the bound, some choice outcome has exactly the recorded DB change, messages
// sent and dropped, stable); a lasso must close up to renaming of fresh
// constants; and the claim of the trace (a bound exceeded, a witness, a
// counterexample) must hold of the replayed run (semantics.md §10).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/d2c/bounds.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::engine {

// One step as recorded. `arc` is kIdleArc for an idle step (`"channel": null`).
struct ReplayStep {
  uint64_t index = 0;  // must be the step's position
  uint32_t arc = kIdleArc;
  bool idle = false;                 // the recorded `idle` (only an idle step says true)
  model::NodeId node = 0;            // the recorded processing node: the arc's destination
  std::vector<Word> payload;         // [pred, args...]
  std::vector<Word> input;           // input facts
  std::vector<Word> added, removed;  // facts of the processing node's DB
  std::vector<Word> sent;            // [dest node, pred, args...]*
  std::vector<Word> dropped;         // [dest constant, pred, args...]*
  bool stable = true;                // must match the DB change
};

// What a trace claims beyond being a legal run.
struct TraceClaim {
  enum class Kind : uint8_t { None, Bound, Witness, Counterexample };
  Kind kind = Kind::None;
  Property property = Property::SometimesTotal;  // witness, counterexample
  std::optional<model::NodeId> never_faulty;     // always-partial counterexample
  Fairness fairness = Fairness::Channel;
  // For a bound trace, what a report says of the bound exceeded (each field
  // when given): the last state must exceed a bound that agrees with them.
  struct Bound {
    std::optional<BoundViolation::Kind> kind;
    std::optional<uint32_t> node, arc, value, bound;
  } bound;
};

struct ReplayResult {
  enum class Failure : uint8_t { None, Initial, Step, Loop, Claim };
  Failure failure = Failure::None;
  size_t steps_ok = 0;  // steps that replayed before the first problem
  std::string problem;  // what is wrong: the initial state, step `steps_ok`, the loop or the claim
  // For a step whose effect no outcome produces: what the first outcome does.
  std::optional<ConcreteStep> computed;
  std::string claim;  // the claim verified, in words (empty without a claim)
  bool ok() const { return failure == Failure::None; }
};

// `initial`, when given, is each node's recorded initial DB (built-ins
// excluded) and must be the model's initial state. `run`, when given,
// receives the run replayed (every state, every step; a lasso's loop_start),
// whole when the result is ok() and up to the first problem otherwise.
ReplayResult replay(const CompiledModel& cm, const std::vector<ReplayStep>& steps, std::optional<size_t> loop_start,
                    const std::vector<std::vector<Word>>* initial = nullptr, const TraceClaim& claim = {},
                    ConcreteRun* run = nullptr);

}  // namespace ddsmc::engine
