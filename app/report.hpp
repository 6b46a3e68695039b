// Rendering results for people (short text on stdout) and programs (JSON,
// SPEC section 5). Fresh constants print as #1, #2, ... — names no D2C
// constant can have — numbered in order of appearance within a run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/compile.hpp"
#include "engine/trace.hpp"

namespace ddsmc::app {

std::string constant_name(const engine::CompiledModel& cm, engine::Word c);
// "p(a, #1)" for a run [pred, args...].
std::string fact_text(const engine::CompiledModel& cm, const engine::Word* fact);
std::vector<std::string> facts_text(const engine::CompiledModel& cm, const std::vector<engine::Word>& facts);

nlohmann::json run_to_json(const engine::CompiledModel& cm, const engine::ConcreteRun& run);
// One line per step, at most `max_steps` (0: all), then "... N more".
std::string run_to_text(const engine::CompiledModel& cm, const engine::ConcreteRun& run, size_t max_steps);

}  // namespace ddsmc::app
