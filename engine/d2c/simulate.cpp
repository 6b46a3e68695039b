#include "engine/d2c/simulate.hpp"

#include <new>
#include <random>
#include <vector>

namespace ddsmc::engine {

SimulateResult simulate(const CompiledModel& cm, uint64_t steps, uint64_t seed,
                        FunctionRef<void(const ConcreteStep&, uint64_t)> on_step, Cancellation& cancel) {
  SimulateResult res;
  try {
    SuccessorGenerator gen(cm);
    gen.set_cancellation(&cancel);
    RunBuilder builder(cm);
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> arcs;
    std::vector<Word> payload, input, fresh;
    for (; res.steps < steps && !res.converged; ++res.steps) {
      cancel.poll();
      // Copy: append() replaces the state while the generator still reads it.
      hashing::GlobalState cur = builder.state();
      ConcreteStep step;
      auto take = [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
        step = builder.append(label, succ, d);
      };
      arcs.clear();
      for (uint32_t a = 0; a < cur.channels.size(); ++a)
        if (!cur.channels[a].empty()) arcs.push_back(a);
      if (arcs.empty()) {  // the idle step, the state's only one
        gen.successors(cur, take);
        res.converged = true;
        on_step(step, res.steps);
        continue;
      }
      // A channel, then one of its distinct payloads, then an input DB, then
      // a choice outcome, each uniformly at random (the input DB as
      // random_db draws it): one step, without generating all of them.
      const uint32_t a = arcs[rng() % arcs.size()];
      const auto& ch = cur.channels[a];
      std::vector<size_t> starts;
      for (size_t i = 0; i < ch.size(); i += cm.layout.fact_words(ch[i]) + 1) starts.push_back(i);
      const size_t at = starts[rng() % starts.size()];
      payload.assign(ch.begin() + at, ch.begin() + at + cm.layout.fact_words(ch[at]));
      gen.state_fresh(cur, fresh);
      gen.inputs().random_db(fresh, rng, input);
      uint64_t outcomes = 0;
      gen.steps(cur, a, payload.data(), input, [&](const EdgeLabel&, const hashing::GlobalState&, const StepDetail&) {
        ++outcomes;
      });
      const uint64_t pick = rng() % outcomes;
      uint64_t k = 0;
      gen.steps(cur, a, payload.data(), input,
                [&](const EdgeLabel& label, const hashing::GlobalState& succ, const StepDetail& d) {
                  if (k++ == pick) take(label, succ, d);
                });
      on_step(step, res.steps);
    }
  } catch (const Cancelled& c) {
    res.stopped = c.reason();
  } catch (const std::bad_alloc&) {
    res.stopped = StopReason::OutOfMemory;
  }
  return res;
}

}  // namespace ddsmc::engine
