#include "engine/d2c/chart.hpp"

#include <stdexcept>

namespace ddsmc::engine {
namespace {

// The arrows still waiting on each arc, oldest first, by index into `out`.
using Waiting = std::vector<std::vector<size_t>>;

void add(std::vector<ChartArrow>& out, Waiting& waiting, const model::Network& net, model::ArcId arc,
         std::optional<size_t> sent, std::vector<Word> message) {
  waiting[arc].push_back(out.size());
  out.push_back({sent, std::nullopt, net.arc(arc).src, net.arc(arc).dst, std::move(message)});
}

// The messages in the initial state's channels: [pred, args..., count] runs.
void initial_messages(const hashing::GlobalState& s, const hashing::StateLayout& layout, const model::Network& net,
                      std::vector<ChartArrow>& out, Waiting& waiting) {
  for (model::ArcId a = 0; a < s.channels.size(); ++a) {
    const auto& ch = s.channels[a];
    for (size_t i = 0; i < ch.size();) {
      const size_t words = layout.fact_words(ch[i]);
      const std::vector<Word> message(ch.begin() + static_cast<std::ptrdiff_t>(i),
                                      ch.begin() + static_cast<std::ptrdiff_t>(i + words));
      for (Word n = 0; n < ch[i + words]; ++n) add(out, waiting, net, a, std::nullopt, message);
      i += words + 1;
    }
  }
}

// The messages step k sends: [dest node, pred, args...] runs.
void sent_messages(const ConcreteStep& step, size_t k, const hashing::StateLayout& layout, const model::Network& net,
                   std::vector<ChartArrow>& out, Waiting& waiting) {
  for (size_t i = 0; i < step.sent.size();) {
    const auto dest = static_cast<model::NodeId>(step.sent[i]);
    const size_t words = layout.fact_words(step.sent[i + 1]);
    const auto arc = net.arc_id(step.node, dest);
    if (!arc) throw std::invalid_argument("chart: a message sent on no arc");
    add(out, waiting, net, *arc, k,
        std::vector<Word>(step.sent.begin() + static_cast<std::ptrdiff_t>(i + 1),
                          step.sent.begin() + static_cast<std::ptrdiff_t>(i + 1 + words)));
    i += 1 + words;
  }
}

}  // namespace

std::vector<ChartArrow> chart_arrows(const ConcreteRun& run, const hashing::StateLayout& layout,
                                     const model::Network& network) {
  std::vector<ChartArrow> out;
  Waiting waiting(network.num_arcs());
  if (!run.states.empty()) initial_messages(run.states[0], layout, network, out, waiting);
  for (size_t k = 0; k < run.steps.size(); ++k) {
    const ConcreteStep& step = run.steps[k];
    if (step.arc != kIdleArc) {  // the message it takes: the oldest identical one waiting on its arc
      auto& queue = waiting.at(step.arc);
      auto it = queue.begin();
      while (it != queue.end() && out[*it].message != step.payload) ++it;
      if (it == queue.end()) throw std::invalid_argument("chart: a step takes a message no channel holds");
      out[*it].consumed = k;
      queue.erase(it);
    }
    sent_messages(step, k, layout, network, out, waiting);
  }
  return out;
}

}  // namespace ddsmc::engine
