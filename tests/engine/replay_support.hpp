// For the tests that replay lifted runs: a ConcreteRun as `replay` reads a
// trace back, every field as `check` writes it.
#pragma once

#include <vector>

#include "engine/d2c/replay.hpp"
#include "engine/d2c/trace.hpp"

namespace ddsmc::test {

inline std::vector<engine::ReplayStep> to_replay(const engine::ConcreteRun& run) {
  std::vector<engine::ReplayStep> out;
  for (size_t i = 0; i < run.steps.size(); ++i) {
    const auto& st = run.steps[i];
    engine::ReplayStep r;
    r.index = i;
    r.arc = st.arc;
    r.idle = st.arc == engine::kIdleArc;
    r.node = st.node;
    r.payload = st.payload;
    r.input = st.input;
    r.added = st.added;
    r.removed = st.removed;
    r.sent = st.sent;
    r.dropped = st.dropped;
    r.stable = st.stable;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ddsmc::test
