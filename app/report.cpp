#include "app/report.hpp"

#include <fmt/format.h>

#include "app/runtime.hpp"

namespace ddsmc::app {

using engine::Word;
using nlohmann::json;

std::string constant_name(const engine::CompiledModel& cm, Word c) {
  if (c < cm.layout.num_fixed) return cm.model->constants.spelling(c);
  return fmt::format("#{}", c - cm.layout.num_fixed + 1);
}

std::string fact_text(const engine::CompiledModel& cm, const Word* fact) {
  std::string out = cm.model->pred(fact[0]).name;
  uint32_t arity = cm.layout.arity[fact[0]];
  for (uint32_t i = 0; i < arity; ++i) out += (i ? ", " : "(") + constant_name(cm, fact[1 + i]);
  if (arity) out += ")";
  return out;
}

std::vector<std::string> facts_text(const engine::CompiledModel& cm, const std::vector<Word>& facts) {
  std::vector<std::string> out;
  for (size_t i = 0; i < facts.size(); i += cm.layout.fact_words(facts[i])) out.push_back(fact_text(cm, &facts[i]));
  return out;
}

namespace {

const std::string& node_name(const engine::CompiledModel& cm, model::NodeId n) { return cm.model->network.name(n); }

// Messages as [lead, pred, args...] runs: lead is a node id (sent) or a
// constant (dropped).
json messages_json(const engine::CompiledModel& cm, const std::vector<Word>& runs, bool lead_is_node) {
  json out = json::array();
  for (size_t i = 0; i < runs.size();) {
    std::string to = lead_is_node ? node_name(cm, runs[i]) : constant_name(cm, runs[i]);
    out.push_back({{"to", to}, {"payload", fact_text(cm, &runs[i + 1])}});
    i += 1 + cm.layout.fact_words(runs[i + 1]);
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

}  // namespace

json initial_to_json(const engine::CompiledModel& cm, const hashing::GlobalState& initial) {
  json out = json::object();
  for (model::NodeId n = 0; n < cm.layout.num_nodes; ++n) out[node_name(cm, n)] = facts_text(cm, initial.dbs[n]);
  return out;
}

json step_to_json(const engine::CompiledModel& cm, const engine::ConcreteStep& st, size_t index) {
  json j;
  j["index"] = index;
  if (st.arc == engine::kIdleArc) {
    j["channel"] = nullptr;
    j["idle"] = true;
  } else {
    j["channel"] = {{"from", node_name(cm, st.from)}, {"to", node_name(cm, st.node)}};
    j["node"] = node_name(cm, st.node);
    j["payload"] = fact_text(cm, st.payload.data());
    j["input"] = facts_text(cm, st.input);
    j["added"] = facts_text(cm, st.added);
    j["removed"] = facts_text(cm, st.removed);
    j["sent"] = messages_json(cm, st.sent, true);
    j["dropped"] = messages_json(cm, st.dropped, false);
  }
  j["stable"] = st.stable;
  return j;
}

std::string step_summary(const engine::CompiledModel& cm, const engine::ConcreteStep& st) {
  if (st.arc == engine::kIdleArc) return "idle: every channel is empty";
  std::string line =
      fmt::format("{} -> {}: {}", node_name(cm, st.from), node_name(cm, st.node), fact_text(cm, st.payload.data()));
  if (!st.input.empty()) line += fmt::format("  input {{{}}}", join(facts_text(cm, st.input), ", "));
  for (const auto& f : facts_text(cm, st.added)) line += "  +" + f;
  for (const auto& f : facts_text(cm, st.removed)) line += "  -" + f;
  std::vector<std::string> sent;
  for (size_t k = 0; k < st.sent.size(); k += 1 + cm.layout.fact_words(st.sent[k + 1]))
    sent.push_back(fact_text(cm, &st.sent[k + 1]) + "@" + node_name(cm, st.sent[k]));
  if (!sent.empty()) line += "  sends " + join(sent, ", ");
  std::vector<std::string> dropped;
  for (size_t k = 0; k < st.dropped.size(); k += 1 + cm.layout.fact_words(st.dropped[k + 1]))
    dropped.push_back(fact_text(cm, &st.dropped[k + 1]) + "@" + constant_name(cm, st.dropped[k]));
  if (!dropped.empty()) line += "  drops " + join(dropped, ", ") + " (no such arc)";
  if (st.stable) line += "  (stable)";
  return line;
}

std::string step_to_text(const engine::CompiledModel& cm, const engine::ConcreteStep& st, size_t index) {
  return fmt::format("  {:3}. {}\n", index, step_summary(cm, st));
}

json run_to_json(const engine::CompiledModel& cm, const engine::ConcreteRun& run) {
  json steps = json::array();
  for (size_t i = 0; i < run.steps.size(); ++i) {
    throw_if_memory_low();
    steps.push_back(step_to_json(cm, run.steps[i], i));
  }
  json out = {{"initial", initial_to_json(cm, run.states.front())}, {"steps", std::move(steps)}};
  out["loop_start"] = run.loop_start ? json(*run.loop_start) : json(nullptr);
  return out;
}

std::string run_to_text(const engine::CompiledModel& cm, const engine::ConcreteRun& run, size_t max_steps) {
  std::string out;
  size_t shown = max_steps ? std::min(max_steps, run.steps.size()) : run.steps.size();
  for (size_t i = 0; i < shown; ++i) {
    if (run.loop_start && *run.loop_start == i) out += "      -- loop starts here --\n";
    out += step_to_text(cm, run.steps[i], i);
  }
  if (shown < run.steps.size()) out += fmt::format("  ... {} more steps (--trace FILE has them all)\n", run.steps.size() - shown);
  if (run.loop_start) {
    if (*run.loop_start >= shown && shown == run.steps.size()) out += "      -- loop starts here --\n";
    out += fmt::format("      -- back to the state before step {} (up to renaming of fresh constants) --\n",
                       *run.loop_start);
  }
  return out;
}

}  // namespace ddsmc::app
