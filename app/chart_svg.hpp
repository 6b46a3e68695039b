// Drawing a concrete run as a message-sequence chart in SVG (issue 24;
// docs/charts.md says how to read one). engine::chart_arrows decides which
// arrow goes where; this file only places and draws them:
//   - one lifeline per node, named at the top, in network order;
//   - row 0 is the initial state, row k+1 is step k, at the processing
//     node: a dot (hollow when the step is stable) with the step's DB
//     changes beside it (+fact / -fact, input{...}), truncated on the
//     chart and whole in the dot's tooltip;
//   - one `<g class="msg">` per message, from the row that sent it (row 0:
//     already in a channel initially) to the row of the step that took it;
//     a message still in flight when the run ends is dashed and runs to
//     the bottom (`msg inflight`); a self-loop message is a curve;
//   - an idle step is a dotted line across every lifeline;
//   - the cycle of a lasso is a shaded band (`cycle`) over its steps.
// Fresh constants are named #1, #2, ... as in the text traces. Every
// element the page's script moves or highlights carries its row in a data
// attribute (data-step, data-sent, data-consumed); the SVG itself has no
// script and no external reference, so it stands alone as a file too.
#pragma once

#include <string>
#include <string_view>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::app {

// `&<>"'` as XML entities: text and attribute values.
std::string xml_escape(std::string_view s);

// The chart as an inline `<svg class="chart">` element (no XML prologue).
// `id` prefixes the element's id (unique within a page). Throws
// std::invalid_argument when the run is not one of the model's (a step
// takes a message no channel holds).
std::string chart_svg(const engine::CompiledModel& cm, const engine::ConcreteRun& run, std::string_view id);

// The same as a standalone SVG file: XML prologue, namespace, its own
// style sheet and a title line.
std::string chart_svg_document(const engine::CompiledModel& cm, const engine::ConcreteRun& run,
                               std::string_view title);

// The style sheet the chart's classes need (shared by the page and the file).
std::string_view chart_css();

}  // namespace ddsmc::app
