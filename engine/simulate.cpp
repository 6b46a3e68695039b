#include "engine/simulate.hpp"

#include <new>
#include <random>

namespace ddsmc::engine {

SimulateResult simulate(const CompiledModel& cm, uint64_t steps, uint64_t seed,
                        FunctionRef<void(const ConcreteStep&, uint64_t)> on_step, Cancellation& cancel) {
  SimulateResult res;
  try {
    SuccessorGenerator gen(cm);
    gen.set_cancellation(&cancel);
    RunBuilder builder(cm);
    std::mt19937_64 rng(seed);
    for (; res.steps < steps && !res.converged; ++res.steps) {
      cancel.poll();
      // Copy: append() replaces the state while the generator still reads it.
      hashing::GlobalState cur = builder.state();
      // First count the successors, then take the chosen one on a second pass:
      // no need to keep them all.
      uint64_t n = 0;
      gen.successors(cur, [&](const EdgeLabel&, const hashing::GlobalState&, const StepDetail&) { ++n; });
      uint64_t pick = rng() % n;  // mt19937_64's output is fixed by the standard
      uint64_t k = 0;
      ConcreteStep step;
      bool idle = false;
      gen.successors(cur, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
        if (k++ != pick) return;
        idle = label.arc == kIdleArc;
        step = builder.append(label, succ, d);
      });
      on_step(step, res.steps);
      res.converged = idle;
    }
  } catch (const Cancelled& c) {
    res.stopped = c.reason();
  } catch (const std::bad_alloc&) {
    res.stopped = StopReason::OutOfMemory;
  }
  return res;
}

}  // namespace ddsmc::engine
