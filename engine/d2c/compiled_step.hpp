// The compiled step back-end, part 2 (issue 9, prototype): the generated
// source (codegen.hpp) written into a cache directory under a hash of its
// text, compiled with the system compiler into a shared object, loaded with
// dlopen, and wrapped with StepEvaluator's interface.
#pragma once

#include <memory>
#include <string>

#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/step.hpp"
#include "engine/function_ref.hpp"

namespace ddsmc::engine {

struct CompiledStepOptions {
  std::string cache_dir;  // empty: $DDSMC_CACHE_DIR, else $XDG_CACHE_HOME/ddsmc, else ~/.cache/ddsmc
  std::string compiler;   // empty: $DDSMC_CXX, else the compiler ddsmc was built with, else c++
};

// One model's loaded shared object; shared by every worker's evaluator.
class CompiledStepLibrary {
 public:
  struct Loaded {
    std::shared_ptr<const CompiledStepLibrary> library;  // null on failure
    std::string error;  // "unsupported: ..." (the generator refuses the model), "no compiler: ...",
                        // a cache directory that cannot be written, or a ddsmc bug (the
                        // generated file did not compile or load), with the file's path
    bool no_compiler = false;  // the compiler cannot be run at all
  };
  static Loaded load(const CompiledModel& cm, const CompiledStepOptions& opts = {});
  ~CompiledStepLibrary();
  CompiledStepLibrary(const CompiledStepLibrary&) = delete;
  CompiledStepLibrary& operator=(const CompiledStepLibrary&) = delete;

  const std::string& source_path() const { return source_path_; }
  const std::string& object_path() const { return object_path_; }
  bool from_cache() const { return from_cache_; }      // the object was already there
  // Seconds load() spent generating the source and compiling it into the
  // cache; 0 when the object was cached.
  double compile_seconds() const { return compile_s_; }

 private:
  CompiledStepLibrary() = default;
  friend class CompiledStepEvaluator;
  void* handle_ = nullptr;
  void* (*new_)() = nullptr;
  void (*free_)(void*) = nullptr;
  void (*step_)(void*, const void*, const void*) = nullptr;
  std::string source_path_, object_path_;
  bool from_cache_ = false;
  double compile_s_ = 0;
};

// StepEvaluator's interface over a loaded library; one per worker.
class CompiledStepEvaluator {
 public:
  explicit CompiledStepEvaluator(std::shared_ptr<const CompiledStepLibrary> lib);
  ~CompiledStepEvaluator();
  CompiledStepEvaluator(const CompiledStepEvaluator&) = delete;
  CompiledStepEvaluator& operator=(const CompiledStepEvaluator&) = delete;
  // Calls `out` once per choice outcome, as StepEvaluator::evaluate.
  void evaluate(const StepInput& in, FunctionRef<void(const StepResult&)> out) { evaluate<>(in, out); }
  // The same with the callback's own type, for the hot path: the generated
  // code's emit hook then calls `out` directly, the outcome being a
  // StepResult as the generated code built it (StepResult is the ABI's
  // Result).
  template <class Out>
  void evaluate(const StepInput& in, Out& out) {
    ddsmc_gen::Hooks hooks;
    hooks.emit = [](void* o, ddsmc_gen::Result& r) { (*static_cast<Out*>(o))(static_cast<const StepResult&>(r)); };
    hooks.emit_ctx = &out;
    step(in, hooks);
  }
  void set_cancellation(Cancellation* c) { cancel_ = c; }

 private:
  // Calls the generated step with `hooks` (emit set), the poll hook added.
  void step(const StepInput& in, ddsmc_gen::Hooks& hooks);

  std::shared_ptr<const CompiledStepLibrary> lib_;
  void* state_ = nullptr;
  Cancellation* cancel_ = &Cancellation::none();
};

}  // namespace ddsmc::engine
