#include "engine/simulate.hpp"

#include <random>

namespace ddsmc::engine {

ConcreteRun simulate(const CompiledModel& cm, uint64_t steps, uint64_t seed) {
  SuccessorGenerator gen(cm);
  RunBuilder builder(cm);
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < steps; ++i) {
    hashing::GlobalState cur = builder.run().states.back();
    // First count the successors, then take the chosen one on a second pass:
    // no need to keep them all.
    uint64_t n = 0;
    gen.successors(cur, [&](const EdgeLabel&, const hashing::GlobalState&, const StepDetail&) { ++n; });
    uint64_t pick = rng() % n;  // mt19937_64's output is fixed by the standard
    uint64_t k = 0;
    bool idle = false;
    gen.successors(cur, [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
      if (k++ != pick) return;
      idle = label.arc == kIdleArc;
      builder.append(label, succ, d);
    });
    if (idle) break;
  }
  return builder.take();
}

}  // namespace ddsmc::engine
