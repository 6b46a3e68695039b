// What `ddsmc check` found, and its renderings: the text report, the --json
// report (docs/reference.md §7.1), the --trace document, the exit code. When memory does
// not allow the full JSON, minimal_report_json() gives the figures without
// allocating.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "engine/analysis.hpp"
#include "engine/backend.hpp"
#include "engine/explore.hpp"
#include "engine/spill_file.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::app {

struct PropertyOutcome {
  engine::Property property = engine::Property::SometimesTotal;
  engine::Verdict verdict;                 // holds: nullopt when undecided
  std::optional<engine::ConcreteRun> run;  // the lifted witness or counterexample
  // The analysis or the lifting of its trace was cut short, or the trace did
  // not lift (InternalError): then undecided.
  engine::StopReason stopped = engine::StopReason::None;
};

struct CheckOutcome {
  const CheckOptions& opts;
  const model::Model& model;
  const engine::CompiledModel& cm;
  const engine::ExploreResult& explored;
  std::optional<engine::ConcreteRun> bound_run;  // the run to the violating state
  engine::StopReason bound_run_stopped = engine::StopReason::None;
  std::vector<PropertyOutcome> properties;  // none analysed after a bound violation
  // The first reason any analysis, lifting or report building was cut short.
  engine::StopReason analysis_stopped = engine::StopReason::None;
  uint64_t memory_limit = 0;  // --memory in bytes (0: none)
  double analysis_seconds = 0;  // the analyses of the properties (not lifting their traces)
  std::string backend = "interpreted";  // which evaluator ran the steps (--backend)
  double compile_seconds = 0;           // generating and compiling its step (0: cached or interpreted)
  uint64_t compiled_from_state = 0;     // compiled in the background: the states found before the switch (0: none)
  engine::RankFigures figures{};        // the processes' (Backend::figures())
  // --symmetry auto: the group's order and generators (order 1: none);
  // states and transitions then count orbits (docs/semantics.md §11).
  size_t symmetry_order = 1;
  std::vector<std::string> symmetry_generators{};
  // Where this process's graph went (--scratch): the directory (nullptr:
  // none usable), why it stayed in memory, why it stopped going to disk,
  // and how many bytes went.
  const engine::ScratchInfo* scratch = nullptr;
  std::string scratch_note{}, spill_error{};
  uint64_t disk_bytes = 0;
  bool pruned() const { return opts.on_bound == "prune"; }
  void note_stop(engine::StopReason r) {
    if (analysis_stopped == engine::StopReason::None) analysis_stopped = r;
  }
};

// Text for people, in the order it is printed: the header once the
// exploration is over, then the bound violation, then one block per property.
std::string header_text(const CheckOutcome& o);
std::string bound_text(const CheckOutcome& o);
std::string property_text(const CheckOutcome& o, const PropertyOutcome& p);

nlohmann::json report_json(const CheckOutcome& o);
nlohmann::json traces_json(const CheckOutcome& o);
// The --html page (app/html_page): the report's figures and verdicts, and
// the chart of every trace, witnesses included.
std::string html_report(const CheckOutcome& o);
// The report with no traces and no verdicts, formatted into a fixed buffer
// (no allocation): states, transitions, complete false, incomplete_reason
// "out-of-memory", every selected property null.
std::string_view minimal_report_json(const CheckOutcome& o, char* buf, size_t size) noexcept;

// docs/reference.md §6: 1 if some property fails (a failure found is genuine even in a
// partial graph), else 3 if anything is incomplete or undecided, else 0;
// but 3 whatever the verdicts when a trace did not lift (StopReason::
// InternalError: the graph contradicts the steps, no verdict can be trusted).
int check_exit_code(const CheckOutcome& o);

}  // namespace ddsmc::app
