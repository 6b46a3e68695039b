// The compiled step back-end, part 1 (issue 9, prototype): C++ source for a
// model's step function with exactly StepEvaluator's semantics (the same
// StepResults in the same order for every StepInput and choice outcome).
//
// The generated file is self-contained: the ABI structs of
// engine/d2c/codegen_abi.hpp, a small runtime (relations with fixed arity,
// the message set, choice grouping and the mixed-radix enumeration of
// outcomes, all mirroring engine/d2c/{relation,step}.cpp) and one
// specialised join per rule: the plan's steps as nested loops, arities and
// constants fixed, checks in plan order. compiled_step.hpp compiles and
// loads it.
#pragma once

#include <string>

#include "engine/d2c/compile.hpp"

namespace ddsmc::engine {

struct GeneratedStep {
  bool ok = false;
  std::string source;  // when ok: the whole translation unit
  std::string reason;  // when not ok: "unsupported: ..."
  size_t deepest_rule = 0;  // the most plan steps of one rule: the nesting depth of its join's loops
};

// Never throws on a model: a model the generator cannot mirror exactly is
// refused with a reason, never translated approximately.
GeneratedStep generate_step_source(const CompiledModel& cm);

// The ABI text embedded in every generated file (== codegen_abi.hpp).
const std::string& codegen_abi_text();

}  // namespace ddsmc::engine
