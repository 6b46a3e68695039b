// Rendering results for people (short text on stdout) and programs (JSON,
// docs/reference.md §7.2). Fresh constants print as #1, #2, ... — names no D2C
// constant can have — numbered in order of appearance within a run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::app {

std::string constant_name(const engine::CompiledModel& cm, engine::Word c);
// "p(a, #1)" for a run [pred, args...].
std::string fact_text(const engine::CompiledModel& cm, const engine::Word* fact);
std::vector<std::string> facts_text(const engine::CompiledModel& cm, const std::vector<engine::Word>& facts);

// One step of a run: its JSON object (docs/reference.md §7.2 plus index, node, dropped,
// stable) and its line of text ("  12. a -> b: ping  +seen(#1) ...\n").
nlohmann::json step_to_json(const engine::CompiledModel& cm, const engine::ConcreteStep& step, size_t index);
std::string step_to_text(const engine::CompiledModel& cm, const engine::ConcreteStep& step, size_t index);
// The same line without the index and the line end ("a -> b: ping  +seen(#1)").
std::string step_summary(const engine::CompiledModel& cm, const engine::ConcreteStep& step);
// The "initial" object of a trace: node -> facts.
nlohmann::json initial_to_json(const engine::CompiledModel& cm, const hashing::GlobalState& initial);

// A whole run (built from the pieces above). run_to_json gives up with
// std::bad_alloc once memory runs low (app/runtime.hpp).
nlohmann::json run_to_json(const engine::CompiledModel& cm, const engine::ConcreteRun& run);
// One line per step, at most `max_steps` (0: all), then "... N more".
std::string run_to_text(const engine::CompiledModel& cm, const engine::ConcreteRun& run, size_t max_steps);

}  // namespace ddsmc::app
