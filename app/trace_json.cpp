#include "app/trace_json.hpp"

#include <fmt/format.h>

namespace ddsmc::app {
namespace {

using engine::Word;
using nlohmann::json;

struct TraceError {
  std::string what;
};

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
  if (!j.is_string()) throw TraceError{"a fact must be a string"};
  std::string s = j.get<std::string>();
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
        if (c == '\\' && i + 1 < args.size()) cur += args[++i];
        else if (c == '"') quoted = false;
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

std::vector<Word> parse_facts(const engine::CompiledModel& cm, const json& j) {
  std::vector<Word> out;
  if (j.is_null()) return out;
  if (!j.is_array()) throw TraceError{"expected a list of facts"};
  for (const auto& f : j) {
    auto w = parse_fact(cm, f);
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

model::NodeId node_id(const engine::CompiledModel& cm, const json& j) {
  if (!j.is_string()) throw TraceError{"a node must be a string"};
  auto n = cm.model->network.find(j.get<std::string>());
  if (!n) throw TraceError{fmt::format("unknown node '{}'", j.get<std::string>())};
  return *n;
}

ParsedTrace parse_one(const engine::CompiledModel& cm, const json& t, std::string label) {
  if (!t.is_object() || !t.contains("steps") || !t["steps"].is_array()) throw TraceError{"a trace needs a 'steps' list"};
  ParsedTrace out;
  out.label = std::move(label);
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
      dbs[n] = parse_facts(cm, facts);
      seen[n] = true;
    }
    for (bool b : seen)
      if (!b) throw TraceError{"'initial' does not list every node"};
    out.initial = std::move(dbs);
  }
  for (const auto& s : t["steps"]) {
    engine::ReplayStep st;
    if (!s.is_object()) throw TraceError{"a step must be an object"};
    if (!s.contains("channel") || s["channel"].is_null()) {
      st.idle = true;
      out.steps.push_back(std::move(st));
      continue;
    }
    const json& ch = s["channel"];
    if (!ch.is_object() || !ch.contains("from") || !ch.contains("to")) throw TraceError{"channel needs 'from' and 'to'"};
    auto from = node_id(cm, ch["from"]), to = node_id(cm, ch["to"]);
    auto arc = cm.model->network.arc_id(from, to);
    if (!arc) throw TraceError{fmt::format("no channel {} -> {} in the network", ch["from"].get<std::string>(),
                                           ch["to"].get<std::string>())};
    st.arc = *arc;
    if (!s.contains("payload")) throw TraceError{"a step needs a 'payload'"};
    st.payload = parse_fact(cm, s["payload"]);
    if (s.contains("stable") && s["stable"].is_boolean()) st.stable = s["stable"].get<bool>();
    if (cm.model->pred(st.payload[0]).kind != model::PredKind::Transport)
      throw TraceError{"the payload is not a transport fact"};
    st.input = parse_facts(cm, s.value("input", json::array()));
    st.added = parse_facts(cm, s.value("added", json::array()));
    st.removed = parse_facts(cm, s.value("removed", json::array()));
    for (const auto& m : s.value("sent", json::array())) {
      if (!m.is_object() || !m.contains("to") || !m.contains("payload")) throw TraceError{"a message needs 'to' and 'payload'"};
      st.sent.push_back(node_id(cm, m["to"]));
      auto f = parse_fact(cm, m["payload"]);
      st.sent.insert(st.sent.end(), f.begin(), f.end());
    }
    out.steps.push_back(std::move(st));
  }
  return out;
}

}  // namespace

bool parse_traces(const engine::CompiledModel& cm, const json& doc, std::vector<ParsedTrace>& out, std::string& error) {
  try {
    if (doc.is_object() && doc.contains("traces") && doc["traces"].is_array()) {
      for (const auto& t : doc["traces"]) {
        std::string label = t.value("property", std::string()) + (t.contains("property") ? " " : "") +
                            t.value("kind", std::string("trace"));
        out.push_back(parse_one(cm, t.value("trace", json()), label));
      }
    } else if (doc.is_object() && doc.contains("properties")) {
      if (doc.contains("bound_exceeded") && doc["bound_exceeded"].is_object() && doc["bound_exceeded"].contains("trace"))
        out.push_back(parse_one(cm, doc["bound_exceeded"]["trace"], "bound"));
      for (const auto& [key, p] : doc["properties"].items())
        if (p.is_object() && p.contains("trace") && !p["trace"].is_null()) out.push_back(parse_one(cm, p["trace"], key));
    } else {
      out.push_back(parse_one(cm, doc, "trace"));
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
