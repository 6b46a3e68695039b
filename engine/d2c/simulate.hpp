// One random run (`ddsmc simulate`): at every step, from a seeded
// generator, a non-empty channel, one of its distinct payloads, an input DB
// (InputEnumerator::random_db) and a choice outcome, each uniformly at
// random, so a step costs one step evaluation however many steps the state
// has. The run is streamed: each step goes to the caller as it is taken, and
// only the current state is kept, so a run of any length fits in memory.
#pragma once

#include <cstdint>

#include "engine/cancel.hpp"
#include "engine/function_ref.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::engine {

struct SimulateResult {
  uint64_t steps = 0;                     // steps taken (and passed to on_step)
  bool converged = false;                 // the last step is the idle step
  StopReason stopped = StopReason::None;  // cut short by a stop request or std::bad_alloc
};

// Stops after `steps` steps, or earlier at the first idle state (every
// channel empty: the run has converged for good), or when `cancel` stops
// (between steps or inside one) or memory runs out. `on_step(step, index)`
// receives each step in run-wide names (#k fresh constants, as lift gives).
SimulateResult simulate(const CompiledModel& cm, uint64_t steps, uint64_t seed,
                        FunctionRef<void(const ConcreteStep&, uint64_t)> on_step,
                        Cancellation& cancel = Cancellation::none());

}  // namespace ddsmc::engine
