// The arc condition of a fair cycle (docs/reference.md §4.2, semantics.md §9.1):
// under channel fairness, for every arc some state of the cycle has that
// channel empty or some edge of it serves that arc; under --fairness=none
// there is no condition. One definition for the analysis (an SCC qualifies,
// engine/lasso.cpp's qualify) and for replay (a lasso's cycle is fair).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/analysis.hpp"  // Fairness
#include "engine/state_graph.hpp"

namespace ddsmc::engine {

// Collects the arcs covered by the states and edges seen so far.
class ArcCoverage {
 public:
  ArcCoverage(uint32_t num_arcs, Fairness f) : done_(f == Fairness::Channel ? num_arcs : 0, 0), left_(done_.size()) {}

  // An edge serving `arc` (the idle step serves none). True when it covers an arc not covered before.
  bool serve(uint32_t arc) {
    if (!left_ || arc == kIdleArc || done_[arc]) return false;
    done_[arc] = 1;
    --left_;
    return true;
  }
  // A state: covers every arc whose channel is empty in it. True when it covers an arc not covered before.
  bool visit(const StateGraph& g, StateId s) {
    bool useful = false;
    for (uint32_t a = 0; left_ && a < done_.size(); ++a)
      if (!done_[a] && g.channel_empty(s, a)) {
        done_[a] = 1;
        --left_;
        useful = true;
      }
    return useful;
  }
  bool complete() const { return left_ == 0; }
  // The arcs not covered yet, ascending.
  std::vector<uint32_t> uncovered() const {
    std::vector<uint32_t> out;
    for (uint32_t a = 0; out.size() < left_; ++a)
      if (!done_[a]) out.push_back(a);
    return out;
  }

 private:
  std::vector<char> done_;  // empty when there is no condition
  size_t left_;
};

}  // namespace ddsmc::engine
