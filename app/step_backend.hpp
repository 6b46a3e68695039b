// `check --backend interpreted|compiled|auto`: which evaluator runs the
// model's steps (docs/engine.md §4a). Both give the same successors in the
// same order, so the choice changes time only, never a result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app/background_step.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/compiled_step.hpp"

namespace ddsmc::app {

struct StepBackend {
  std::shared_ptr<const engine::CompiledStepLibrary> compiled;  // null: the interpreter
  // Spent generating and compiling the step (0 when the object was cached, or interpreted).
  double compile_seconds() const { return compiled ? compiled->compile_seconds() : 0; }
  const char* name() const { return compiled ? "compiled" : "interpreted"; }
};

// The evaluator `option` asks for:
// - "interpreted": the interpreter;
// - "compiled": the model's compiled step, loaded from the cache or compiled
//   now; nullopt when that cannot be done (why is printed when `say`);
// - "auto": the compiled step when it can be had and is worth compiling
//   (CompiledStepOptions::only_if_profitable), else the interpreter; which
//   one, and why not compiled, is printed once when `say`.
// `compiler`: the limits of the compiler (memory, stop); the warnings of the
// cache (a damaged entry rebuilt) are printed when `say`. `rank` >= 0 (a rank
// other than 0 under MPI, which is otherwise silent): why a --backend
// compiled cannot be had there is printed, prefixed with the rank, since
// the job exits 2 for it.
// `background` (auto only; one process, not under MPI): when the cache
// lacks the step, the interpreter now, and *background set to the compile
// started in the background (said when `say`).
std::optional<StepBackend> choose_step_backend(const std::string& option, const engine::CompiledModel& cm, bool say,
                                               engine::CompiledStepOptions compiler = {}, int rank = -1,
                                               std::unique_ptr<BackgroundStep>* background = nullptr);

// Says (stderr) how a background compile ended: the compiled step taken
// from state `states` on, or why the interpreter goes on.
void say_background_outcome(const engine::CompiledStepLibrary::Loaded& loaded, uint64_t states);

}  // namespace ddsmc::app
