// The compiled step back-end, part 2 (issue 9; hardened by issue 20): the
// generated source (codegen.hpp) compiled with the system compiler into a
// shared object in a private cache (step_cache.hpp says what is trusted
// there), loaded with dlopen, and wrapped with StepEvaluator's interface.
//
// Invariant: ddsmc runs only an object it built for this very source: the
// cache entry is verified before it is loaded (owner, mode, the seal over
// key and bytes, ELF structure), and the loaded object must export the
// fingerprint of the source generated now. A damaged or foreign entry is
// built anew (a warning says why), never used. The compiler runs under a
// time limit, the memory limit, and dies with ddsmc (compiler_run.hpp).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/step.hpp"
#include "engine/function_ref.hpp"

namespace ddsmc::engine {

struct CompiledStepOptions {
  // Empty: $DDSMC_CACHE_DIR, else $XDG_CACHE_HOME/ddsmc, else ~/.cache/ddsmc
  // (the home directory from $HOME or the password database), else a
  // temporary directory of this process alone (nothing is cached).
  std::string cache_dir;
  std::string compiler;   // empty: $DDSMC_CXX, else the compiler ddsmc was built with, else c++
  double timeout_s = -1;  // the compiler's wall-time limit; < 0: $DDSMC_COMPILE_TIMEOUT, else 60 s
  uint64_t memory_bytes = 0;                      // the compiler's address-space limit (--memory); 0: none
  const std::atomic<unsigned>* stop = nullptr;   // nonzero: stop the compiler (a signal)
  // `--backend auto`: refuse, as "unprofitable", a step whose compile would
  // cost more than interpreting the whole check (kMaxProfitableDepth).
  bool only_if_profitable = false;
  // Load the step only if the cache holds it intact: never compile
  // (Loaded::not_cached otherwise). `check --backend auto` asks this first,
  // and compiles in the background on a miss (app/background_step.hpp).
  bool cached_only = false;
};

// The deepest join (body items of one rule) that `auto` compiles: the
// compilers' time grows steeply with the nesting (a rule with 300 body
// literals takes gcc 10 s and 1.4 GB, one with 1,000 minutes).
constexpr size_t kMaxProfitableDepth = 48;
// The largest generated source `auto` compiles (the bundled examples make
// 25-45 KB, compiled in about 0.5 s; compile time grows about linearly).
constexpr size_t kMaxProfitableSource = size_t{2} << 20;

// One model's loaded shared object; shared by every worker's evaluator.
class CompiledStepLibrary {
 public:
  struct Loaded {
    std::shared_ptr<const CompiledStepLibrary> library;  // null on failure
    std::string error;  // "unsupported: ..." (the generator refuses the model), "no compiler: ...",
                        // "unprofitable: ...", a cache directory that cannot be trusted or
                        // written, the compiler's failure in the user's terms (timeout,
                        // memory, toolchain, disk), or "ddsmc bug: ..." (the generated file
                        // did not compile), with the files' paths
    bool no_compiler = false;   // the compiler cannot be run at all
    bool unprofitable = false;  // only_if_profitable refused the step
    bool not_cached = false;    // cached_only, and the cache had no usable object
    std::vector<std::string> warnings;  // a damaged cache entry rebuilt, no cache directory, ...
  };
  static Loaded load(const CompiledModel& cm, const CompiledStepOptions& opts = {});
  ~CompiledStepLibrary();
  CompiledStepLibrary(const CompiledStepLibrary&) = delete;
  CompiledStepLibrary& operator=(const CompiledStepLibrary&) = delete;

  // The generated source and the object in the cache (in a temporary
  // directory that is gone after load() when there is no cache).
  const std::string& source_path() const { return source_path_; }
  const std::string& object_path() const { return object_path_; }
  bool from_cache() const { return from_cache_; }      // the object was already there
  // Seconds load() spent generating the source and compiling it into the
  // cache; 0 when the object was cached.
  double compile_seconds() const { return compile_s_; }

 private:
  CompiledStepLibrary() = default;
  friend class CompiledStepEvaluator;
  // Loads `path` and checks its ABI and that it was built from the source
  // with fingerprint `fp`; null with `error` set otherwise.
  static std::shared_ptr<CompiledStepLibrary> open(const std::string& path, const std::string& fp, std::string& error);
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
