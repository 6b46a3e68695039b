// One random run (`ddsmc simulate`): at every step a successor chosen
// uniformly among all steps of the state, from a seeded generator.
#pragma once

#include <cstdint>

#include "engine/trace.hpp"

namespace ddsmc::engine {

// Stops after `steps` steps, or earlier at the first idle state (every
// channel empty: the run has converged for good).
ConcreteRun simulate(const CompiledModel& cm, uint64_t steps, uint64_t seed);

}  // namespace ddsmc::engine
