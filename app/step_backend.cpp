#include "app/step_backend.hpp"

#include <cstdio>

namespace ddsmc::app {

std::optional<StepBackend> choose_step_backend(const std::string& option, const engine::CompiledModel& cm, bool say) {
  StepBackend b;
  if (option == "interpreted") return b;
  auto loaded = engine::CompiledStepLibrary::load(cm);
  if (!loaded.library) {
    if (option == "compiled") {
      if (say) std::fprintf(stderr, "ddsmc: --backend compiled: %s\n", loaded.error.c_str());
      return std::nullopt;
    }
    // A model the generator cannot mirror, or no compiler: the interpreter
    // is the reference and always works. A compile or load error is a bug
    // and is said as one, but the check still runs.
    if (say) std::fprintf(stderr, "ddsmc: backend interpreted (%s)\n", loaded.error.c_str());
    return b;
  }
  b.compiled = std::move(loaded.library);
  if (say && option == "auto") {
    if (b.compiled->from_cache())
      std::fprintf(stderr, "ddsmc: backend compiled (%s, cached)\n", b.compiled->object_path().c_str());
    else
      std::fprintf(stderr, "ddsmc: backend compiled (%s, compiled in %.2f s)\n", b.compiled->object_path().c_str(),
                   b.compile_seconds());
  }
  return b;
}

}  // namespace ddsmc::app
