// Concrete runs. The explored graph holds states up to renaming; a path in
// it lifts to a real execution of the model with the same labels
// (docs/reference.md §3.7, §4.4). lift() re-executes the model from the concrete initial state,
// at each step picking a successor in the class of the next state, and gives
// every fresh constant a name of its own for the whole run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/state_graph.hpp"
#include "engine/d2c/successors.hpp"

namespace ddsmc::engine {

struct ConcreteStep {
  uint32_t arc = kIdleArc;
  model::NodeId node = 0;            // the processing node (arc destination)
  model::NodeId from = 0;            // the arc source
  std::vector<Word> payload;         // [pred, args...]; empty for the idle step
  std::vector<Word> input;           // input facts
  std::vector<Word> added, removed;  // facts of the node's DB
  std::vector<Word> sent;            // [dest node, pred, args...]*
  std::vector<Word> dropped;         // [dest constant, pred, args...]*
  bool stable = true;
};

struct ConcreteRun {
  std::vector<hashing::GlobalState> states;  // states[i] is before steps[i]; one more state than steps
  std::vector<ConcreteStep> steps;
  std::optional<size_t> loop_start;  // lasso: the last step returns to (a renaming of) states[loop_start]
};

// One hop of a quotient path: the edge label to follow (nullopt: any label)
// and the class of the state it must reach.
struct Hop {
  std::optional<Edge> edge;
  StateId target = 0;
};

// Follows a concrete run step by step from the initial state, giving every
// fresh constant a run-unique id (printed #1, #2, ...). It holds only the
// current state: lift() keeps the whole run, simulate() streams it.
class RunBuilder {
 public:
  explicit RunBuilder(const CompiledModel& cm);
  // Takes the step from state() to `succ` (a successor of state(), as the
  // generator gave it): returns the step in run-wide names, and state()
  // becomes the renamed successor.
  ConcreteStep append(const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d);
  const hashing::GlobalState& state() const { return state_; }

 private:
  const CompiledModel& cm_;
  Word next_fresh_;
  hashing::GlobalState state_;
};

// Lifts the path from the initial state; nullopt if some hop has no concrete
// counterpart (which would be an engine bug). `cancel` is polled at every
// hop and inside every step; a stop throws Cancelled.
std::optional<ConcreteRun> lift(const CompiledModel& cm, const StateGraph& g, const std::vector<Hop>& hops,
                                Cancellation& cancel = Cancellation::none());
// The same with the states' canonical encodings from `bytes_of` (a graph
// whose states live elsewhere: on the ranks of a distributed run).
std::optional<ConcreteRun> lift(const CompiledModel& cm, FunctionRef<std::string(StateId)> bytes_of,
                                const std::vector<Hop>& hops, Cancellation& cancel = Cancellation::none());

// The hops of a lasso (the last one closes the loop) and of a path of
// states from the initial state (engine::bfs_tree_path).
std::vector<Hop> lasso_hops(const std::vector<StateId>& states, const std::vector<Edge>& edges, size_t loop_start);
std::vector<Hop> path_hops(const std::vector<StateId>& path);

// Fills the DB diff and message lists of a step from the states around it.
ConcreteStep make_step(const CompiledModel& cm, const hashing::GlobalState& before,
                       const hashing::GlobalState& after, const StepDetail& d);

}  // namespace ddsmc::engine
