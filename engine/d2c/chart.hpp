// The layout data of a message-sequence chart of a concrete run (issue
// 24's pictures of traces): one lifeline per node, and one arrow per
// message, from the step that sent it (or the initial state, for a message
// already in a channel there) to the step that consumed it (or none: still
// in flight when the run ends, or when a lasso's cycle closes). The
// drawing (HTML/SVG) is the caller's; this is what it draws, testable
// without it.
//
// Matching: a channel is a multiset, so identical messages on one arc
// cannot be told apart; among them the earliest sent is given to the
// earliest step that consumes one (any other matching gives the same
// chart up to the order of identical arrows). A message a step sends to a
// constant that is no neighbour is dropped (ConcreteStep::dropped) and has
// no arrow.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "engine/d2c/trace.hpp"
#include "model/network.hpp"

namespace ddsmc::engine {

struct ChartArrow {
  std::optional<size_t> sent;      // the step that sent it; nullopt: in the initial state
  std::optional<size_t> consumed;  // the step that took it; nullopt: in flight at the end
  model::NodeId from = 0, to = 0;  // the arc's ends
  std::vector<Word> message;       // [pred, args...]
  friend bool operator==(const ChartArrow&, const ChartArrow&) = default;
};

// The arrows of `run` (states[0]'s channels and every step's sends), in
// the order they are sent (the initial state's first, by arc); throws
// std::invalid_argument when a step consumes a message no channel holds
// (a run that is not one of the model's).
std::vector<ChartArrow> chart_arrows(const ConcreteRun& run, const hashing::StateLayout& layout,
                                     const model::Network& network);

}  // namespace ddsmc::engine
