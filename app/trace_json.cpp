#include "app/trace_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace ddsmc::app {
namespace {

using engine::Word;
using nlohmann::json;
using Claim = engine::TraceClaim;

// A problem with the JSON; `step` is filled in on the way out of a step.
struct TraceError {
  explicit TraceError(std::string w) : what(std::move(w)) {}
  std::string what;
  std::optional<size_t> step;
};

const json& require(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) throw TraceError{fmt::format("'{}' is missing", key)};
  return *it;
}

bool boolean(const json& obj, const char* key) {
  const json& j = require(obj, key);
  if (!j.is_boolean()) throw TraceError{fmt::format("'{}' must be true or false", key)};
  return j.get<bool>();
}

uint32_t number(const json& j, const char* key) {
  if (!j.is_number_unsigned() || j.get<uint64_t>() > UINT32_MAX)
    throw TraceError{fmt::format("'{}' must be a non-negative integer", key)};
  return j.get<uint32_t>();
}

const std::string& text(const json& j, const char* what) {
  if (!j.is_string()) throw TraceError{fmt::format("{} must be a string", what)};
  return j.get_ref<const std::string&>();
}

Word constant_id(const engine::CompiledModel& cm, const std::string& spelling) {
  if (spelling.size() > 1 && spelling[0] == '#') {
    size_t k = 0;
    for (char c : spelling.substr(1)) {
      if (c < '0' || c > '9' || k > 100000000) throw TraceError{fmt::format("bad fresh constant '{}'", spelling)};
      k = k * 10 + static_cast<size_t>(c - '0');
    }
    if (k == 0) throw TraceError{fmt::format("bad fresh constant '{}'", spelling)};
    return static_cast<Word>(cm.layout.num_fixed + k - 1);
  }
  auto c = cm.model->constants.find(spelling);
  if (!c) throw TraceError{fmt::format("unknown constant '{}'", spelling)};
  return *c;
}

// "p(a, #1, \"x, y\")" -> [pred, args...]
std::vector<Word> parse_fact(const engine::CompiledModel& cm, const json& j) {
  const std::string& s = text(j, "a fact");
  size_t open = s.find('(');
  std::string name = s.substr(0, open);
  auto pred = cm.model->find_pred(name);
  if (!pred) throw TraceError{fmt::format("unknown predicate in '{}'", s)};
  std::vector<Word> out{*pred};
  if (open != std::string::npos) {
    if (s.back() != ')') throw TraceError{fmt::format("malformed fact '{}'", s)};
    std::string args = s.substr(open + 1, s.size() - open - 2);
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i <= args.size(); ++i) {
      char c = i < args.size() ? args[i] : ',';
      if (quoted) {
        cur += c;
        if (c == '\\' && i + 1 < args.size())
          cur += args[++i];
        else if (c == '"')
          quoted = false;
      } else if (c == '"') {
        quoted = true;
        cur += c;
      } else if (c == ',') {
        size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
        out.push_back(constant_id(cm, b == std::string::npos ? "" : cur.substr(b, e - b + 1)));
        cur.clear();
      } else {
        cur += c;
      }
    }
  }
  if (out.size() != 1 + cm.layout.arity[out[0]])
    throw TraceError{fmt::format("'{}' has the wrong number of arguments", s)};
  return out;
}

std::vector<Word> parse_facts(const engine::CompiledModel& cm, const json& j, const char* key) {
  if (!j.is_array()) throw TraceError{fmt::format("'{}' must be a list of facts", key)};
  std::vector<Word> out;
  for (const auto& f : j) {
    auto w = parse_fact(cm, f);
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

model::NodeId node_id(const engine::CompiledModel& cm, const json& j) {
  const std::string& name = text(j, "a node");
  auto n = cm.model->network.find(name);
  if (!n) throw TraceError{fmt::format("unknown node '{}'", name)};
  return *n;
}

uint32_t arc_id(const engine::CompiledModel& cm, model::NodeId from, model::NodeId to) {
  auto arc = cm.model->network.arc_id(from, to);
  if (!arc)
    throw TraceError{
        fmt::format("no channel {} -> {} in the network", cm.model->network.name(from), cm.model->network.name(to))};
  return *arc;
}

// [{to, payload}] -> [lead, pred, args...]*; the lead is a node (sent) or a constant (dropped).
std::vector<Word> parse_messages(const engine::CompiledModel& cm, const json& j, const char* key, bool lead_is_node) {
  if (!j.is_array()) throw TraceError{fmt::format("'{}' must be a list of messages", key)};
  std::vector<Word> out;
  for (const auto& m : j) {
    if (!m.is_object()) throw TraceError{fmt::format("a message in '{}' needs 'to' and 'payload'", key)};
    const json& to = require(m, "to");
    out.push_back(lead_is_node ? node_id(cm, to) : constant_id(cm, text(to, "'to'")));
    auto f = parse_fact(cm, require(m, "payload"));
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

engine::ReplayStep parse_step(const engine::CompiledModel& cm, const json& s) {
  engine::ReplayStep st;
  if (!s.is_object()) throw TraceError{"a step must be an object"};
  const json& index = require(s, "index");
  if (!index.is_number_unsigned()) throw TraceError{"'index' must be a step number"};
  st.index = index.get<uint64_t>();
  const json& ch = require(s, "channel");
  static const char* const kStepKeys[] = {"node", "payload", "input", "added", "removed", "sent", "dropped"};
  if (ch.is_null()) {  // the idle step
    for (const char* key : kStepKeys)
      if (s.contains(key)) throw TraceError{fmt::format("an idle step ('channel': null) has no '{}'", key)};
    st.idle = boolean(s, "idle");
    st.stable = boolean(s, "stable");
    return st;
  }
  if (!ch.is_object()) throw TraceError{"'channel' needs 'from' and 'to'"};
  st.arc = arc_id(cm, node_id(cm, require(ch, "from")), node_id(cm, require(ch, "to")));
  if (s.contains("idle")) st.idle = boolean(s, "idle");
  st.node = node_id(cm, require(s, "node"));
  st.payload = parse_fact(cm, require(s, "payload"));
  if (cm.model->pred(st.payload[0]).kind != model::PredKind::Transport)
    throw TraceError{"the payload is not a transport fact"};
  st.input = parse_facts(cm, require(s, "input"), "input");
  st.added = parse_facts(cm, require(s, "added"), "added");
  st.removed = parse_facts(cm, require(s, "removed"), "removed");
  st.sent = parse_messages(cm, require(s, "sent"), "sent", true);
  st.dropped = parse_messages(cm, require(s, "dropped"), "dropped", false);
  st.stable = boolean(s, "stable");
  return st;
}

// Runs `parse`; an error in it gets the trace's label (and step) in front.
template <class Parse>
auto labelled(const std::string& label, Parse&& parse) {
  try {
    return parse();
  } catch (TraceError& e) {
    e.what = label + (e.step ? fmt::format(", step {}", *e.step) : "") + ": " + e.what;
    e.step.reset();
    throw;
  }
}

// The run of a trace object; the caller sets the label and the claim.
ParsedTrace parse_run(const engine::CompiledModel& cm, const json& t) {
  if (!t.is_object() || !t.contains("steps") || !t["steps"].is_array())
    throw TraceError{"a trace needs a 'steps' list"};
  ParsedTrace out;
  if (t.contains("loop_start") && !t["loop_start"].is_null()) {
    if (!t["loop_start"].is_number_unsigned()) throw TraceError{"loop_start must be a step index"};
    out.loop_start = t["loop_start"].get<size_t>();
  }
  if (t.contains("initial") && !t["initial"].is_null()) {
    if (!t["initial"].is_object()) throw TraceError{"'initial' must map nodes to their facts"};
    std::vector<std::vector<Word>> dbs(cm.layout.num_nodes);
    std::vector<bool> seen(cm.layout.num_nodes, false);
    for (const auto& [name, facts] : t["initial"].items()) {
      auto n = node_id(cm, json(name));
      dbs[n] = parse_facts(cm, facts, "initial");
      seen[n] = true;
    }
    for (bool b : seen)
      if (!b) throw TraceError{"'initial' does not list every node"};
    out.initial = std::move(dbs);
  }
  const json& steps = t["steps"];
  for (size_t i = 0; i < steps.size(); ++i) {
    try {
      out.steps.push_back(parse_step(cm, steps[i]));
    } catch (TraceError& e) {
      e.step = i;
      throw;
    }
  }
  return out;
}

// "trace 2 (always-total counterexample)"; a trace without a claim is
// labelled by its kind when the file gives one ("simulation").
std::string claim_label(size_t number, const Claim& c, const std::string& kind = "") {
  switch (c.kind) {
    case Claim::Kind::None:
      return kind.empty() ? fmt::format("trace {}", number) : fmt::format("trace {} ({})", number, kind);
    case Claim::Kind::Bound: return fmt::format("trace {} (bound)", number);
    case Claim::Kind::Witness: return fmt::format("trace {} ({} witness)", number, engine::property_name(c.property));
    case Claim::Kind::Counterexample:
      return fmt::format("trace {} ({} counterexample)", number, engine::property_name(c.property));
  }
  return "trace";
}

// The run of trace object `t` under `claim`, labelled `label`.
ParsedTrace parse_claimed_run(const engine::CompiledModel& cm, const json& t, const std::string& label,
                              const Claim& claim) {
  return labelled(label, [&] {
    ParsedTrace p = parse_run(cm, t);
    p.label = label;
    p.claim = claim;
    // The always-partial counterexample names the node it keeps fault-free.
    if (claim.kind == Claim::Kind::Counterexample && claim.property == engine::Property::AlwaysPartial)
      p.claim.never_faulty = node_id(cm, require(t, "never_faulty"));
    return p;
  });
}

engine::Fairness parse_fairness(const json& doc) {
  if (!doc.contains("fairness")) return engine::Fairness::Channel;  // the default
  const json& f = doc["fairness"];
  if (f == "channel") return engine::Fairness::Channel;
  if (f == "none") return engine::Fairness::None;
  throw TraceError{"'fairness' must be \"channel\" or \"none\""};
}

// The claim of an entry {kind, property?, trace} of a --trace file.
Claim entry_claim(const json& e, engine::Fairness fairness) {
  if (!e.is_object()) throw TraceError{"a trace entry must be an object"};
  Claim claim;
  claim.fairness = fairness;
  const json& kind = require(e, "kind");
  if (kind == "bound")
    claim.kind = Claim::Kind::Bound;
  else if (kind == "witness")
    claim.kind = Claim::Kind::Witness;
  else if (kind == "counterexample")
    claim.kind = Claim::Kind::Counterexample;
  else if (kind != "simulation")
    throw TraceError{"'kind' must be bound, witness, counterexample or simulation"};
  if (claim.kind == Claim::Kind::Witness || claim.kind == Claim::Kind::Counterexample) {
    const json& prop = require(e, "property");
    auto it = std::find_if(std::begin(engine::kAllProperties), std::end(engine::kAllProperties),
                           [&](engine::Property p) { return prop == engine::property_name(p); });
    if (it == std::end(engine::kAllProperties))
      throw TraceError{"'property' must be sometimes-total, sometimes-partial, always-total or always-partial"};
    claim.property = *it;
  }
  return claim;
}

// The claim of a report's `bound_exceeded`: every field it gives must agree.
Claim bound_claim(const engine::CompiledModel& cm, const json& b, engine::Fairness fairness) {
  Claim claim;
  claim.kind = Claim::Kind::Bound;
  claim.fairness = fairness;
  using K = engine::BoundViolation::Kind;
  if (b.contains("kind")) {
    if (b["kind"] != "state" && b["kind"] != "channel") throw TraceError{"'kind' must be \"state\" or \"channel\""};
    claim.bound.kind = b["kind"] == "state" ? K::State : K::Channel;
  }
  if (b.contains("node")) claim.bound.node = node_id(cm, b["node"]);
  if (b.contains("channel")) {
    const std::string& ch = text(b["channel"], "'channel'");
    size_t arrow = ch.find(" -> ");
    if (arrow == std::string::npos) throw TraceError{"'channel' must read \"FROM -> TO\""};
    claim.bound.arc = arc_id(cm, node_id(cm, json(ch.substr(0, arrow))), node_id(cm, json(ch.substr(arrow + 4))));
  }
  if (b.contains("value")) claim.bound.value = number(b["value"], "value");
  if (b.contains("bound")) claim.bound.bound = number(b["bound"], "bound");
  return claim;
}

// A --json report: the bound trace, then the properties' traces in the order
// `check --trace` writes them.
void parse_report(const engine::CompiledModel& cm, const json& doc, std::vector<ParsedTrace>& out) {
  engine::Fairness fairness = parse_fairness(doc);
  const json& b = doc.value("bound_exceeded", json());
  if (!b.is_null() && !b.is_object()) throw TraceError{"'bound_exceeded' must be an object or null"};
  if (b.is_object() && b.contains("trace") && !b["trace"].is_null()) {
    size_t number = out.size() + 1;
    Claim claim = labelled(fmt::format("trace {} (bound)", number), [&] { return bound_claim(cm, b, fairness); });
    out.push_back(parse_claimed_run(cm, b["trace"], claim_label(number, claim), claim));
  }
  const json& props = doc["properties"];
  if (!props.is_object()) throw TraceError{"'properties' must be an object"};
  for (const auto& [key, p] : props.items()) {
    auto known = std::find_if(std::begin(engine::kAllProperties), std::end(engine::kAllProperties),
                              [&](engine::Property q) { return key == engine::property_json_key(q); });
    if (known == std::end(engine::kAllProperties))
      throw TraceError{fmt::format("unknown property '{}' in 'properties'", key)};
  }
  for (auto prop : engine::kAllProperties) {
    const char* key = engine::property_json_key(prop);
    if (!props.contains(key) || !props[key].is_object() || props[key].value("trace", json()).is_null()) continue;
    size_t number = out.size() + 1;
    Claim claim;
    claim.fairness = fairness;
    claim.property = prop;
    // A trace shows a verdict: a witness that sometimes-* holds, a counterexample that always-* fails.
    bool holds = labelled(fmt::format("trace {} ({})", number, key), [&] { return boolean(props[key], "holds"); });
    claim.kind = holds ? Claim::Kind::Witness : Claim::Kind::Counterexample;
    out.push_back(parse_claimed_run(cm, props[key]["trace"], claim_label(number, claim), claim));
  }
}

}  // namespace

bool parse_traces(const engine::CompiledModel& cm, const json& doc, std::vector<ParsedTrace>& out, std::string& error) {
  try {
    if (doc.is_object() && doc.contains("traces") && doc["traces"].is_array()) {
      engine::Fairness fairness = parse_fairness(doc);
      for (size_t i = 0; i < doc["traces"].size(); ++i) {
        const json& e = doc["traces"][i];
        Claim claim = labelled(fmt::format("trace {}", i + 1), [&] { return entry_claim(e, fairness); });
        std::string label = claim_label(i + 1, claim, e["kind"].get<std::string>());
        out.push_back(parse_claimed_run(cm, e.value("trace", json()), label, claim));
      }
    } else if (doc.is_object() && doc.contains("properties")) {
      parse_report(cm, doc, out);
    } else {
      out.push_back(parse_claimed_run(cm, doc, "trace 1", Claim{}));
    }
  } catch (const TraceError& e) {
    error = e.what;
    return false;
  } catch (const json::exception& e) {
    error = e.what();
    return false;
  }
  return true;
}

}  // namespace ddsmc::app
