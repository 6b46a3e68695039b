#include "app/step_backend.hpp"

#include <cstdio>
#include <string>

namespace ddsmc::app {

std::optional<StepBackend> choose_step_backend(const std::string& option, const engine::CompiledModel& cm, bool say,
                                               engine::CompiledStepOptions compiler, int rank,
                                               std::unique_ptr<BackgroundStep>* background) {
  StepBackend b;
  if (option == "interpreted") return b;
  compiler.only_if_profitable = option == "auto";
  compiler.cached_only = option == "auto" && background;
  auto loaded = engine::CompiledStepLibrary::load(cm, compiler);
  if (say)
    for (const auto& w : loaded.warnings) std::fprintf(stderr, "ddsmc: warning: %s\n", w.c_str());
  if (loaded.not_cached) {
    *background = std::make_unique<BackgroundStep>(cm, compiler);
    if (say) std::fprintf(stderr, "ddsmc: backend interpreted until the compiled step is ready (compiling it now)\n");
    return b;
  }
  if (!loaded.library) {
    if (option == "compiled") {
      if (say || rank >= 0)
        std::fprintf(stderr, "ddsmc: %s--backend compiled: %s\n",
                     rank >= 0 ? ("rank " + std::to_string(rank) + ": ").c_str() : "", loaded.error.c_str());
      return std::nullopt;
    }
    // A model the generator cannot mirror or that is not worth compiling,
    // no compiler, an untrusted cache, a compiler that fails or takes too
    // long: the interpreter is the reference and always works. The reason
    // is said in the user's terms ("ddsmc bug" only when the generated
    // code did not compile), and the check still runs.
    if (say) std::fprintf(stderr, "ddsmc: backend interpreted (%s)\n", loaded.error.c_str());
    return b;
  }
  b.compiled = std::move(loaded.library);
  if (say) {
    if (b.compiled->from_cache())
      std::fprintf(stderr, "ddsmc: backend compiled (%s, cached)\n", b.compiled->object_path().c_str());
    else
      std::fprintf(stderr, "ddsmc: backend compiled (%s, compiled in %.2f s)\n", b.compiled->object_path().c_str(),
                   b.compile_seconds());
  }
  return b;
}

void say_background_outcome(const engine::CompiledStepLibrary::Loaded& loaded, uint64_t states) {
  // (Its warnings are the cache's, which the probe of the cache said.)
  if (loaded.library)
    std::fprintf(stderr, "ddsmc: backend compiled from state %llu on (%s, compiled in %.2f s)\n",
                 static_cast<unsigned long long>(states), loaded.library->object_path().c_str(),
                 loaded.library->compile_seconds());
  else
    std::fprintf(stderr, "ddsmc: backend interpreted (%s)\n", loaded.error.c_str());
}

}  // namespace ddsmc::app
