// `check --backend auto` never makes a check wait for the compiler
// (docs/engine.md §4a). When the cache has no compiled step for the model,
// the check starts interpreting at once while a thread of its own
// generates and compiles the step into the cache (the compiler is a child
// process, under the same limits as a compile in the foreground); between
// two rounds of the exploration the check takes the compiled step as soon
// as it is ready (ExploreOptions::generators_changed). Both evaluators give
// the same successors in the same order, so the switch changes time only.
// A check that ends first stops the compiler: a check shorter than the
// compile never needed it (and the next such check interprets again).
//
// Thread safety: outcome() and stop() from any one thread while the compile
// runs; the destructor stops the compiler and joins the thread.
#pragma once

#include <atomic>
#include <thread>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/compiled_step.hpp"

namespace ddsmc::app {

class BackgroundStep {
 public:
  // Starts compiling cm's step (`opts.stop` is replaced by this object's
  // own flag). cm must outlive this object.
  BackgroundStep(const engine::CompiledModel& cm, engine::CompiledStepOptions opts);
  ~BackgroundStep();
  BackgroundStep(const BackgroundStep&) = delete;
  BackgroundStep& operator=(const BackgroundStep&) = delete;

  // The load's outcome once it is over, else nullptr (never blocks).
  const engine::CompiledStepLibrary::Loaded* outcome() const {
    return done_.load(std::memory_order_acquire) ? &loaded_ : nullptr;
  }
  // Asks the compiler to stop (the outcome then says why it failed).
  void stop() { stop_.store(1, std::memory_order_relaxed); }

 private:
  std::atomic<unsigned> stop_{0};
  std::atomic<bool> done_{false};
  engine::CompiledStepLibrary::Loaded loaded_;
  std::thread thread_;
};

}  // namespace ddsmc::app
