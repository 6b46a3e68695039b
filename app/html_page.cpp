#include "app/html_page.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "app/chart_svg.hpp"
#include "app/output.hpp"
#include "app/report.hpp"
#include "engine/d2c/chart.hpp"

namespace ddsmc::app {
namespace {

using nlohmann::json;

std::string arc_key(const engine::CompiledModel& cm, model::NodeId from, model::NodeId to) {
  return cm.model->network.name(from) + "\u2192" + cm.model->network.name(to);
}

// A figure of the report as text, or "" when the report does not have it.
std::string figure(const json& report, const char* key) {
  auto it = report.find(key);
  if (it == report.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string row(std::string_view name, const std::string& value) {
  return value.empty() ? "" : fmt::format("<tr><th>{}</th><td>{}</td></tr>", name, xml_escape(value));
}

std::string bound_line(const json& b) {
  if (!b.is_object()) return "";
  const std::string where = b.contains("node") ? "node " + figure(b, "node") : "channel " + figure(b, "channel");
  return fmt::format("{} bound {} exceeded at {} (value {})", figure(b, "kind"), figure(b, "bound"), where,
                     figure(b, "value"));
}

std::string figures_table(const json& report) {
  std::string states = figure(report, "states");
  if (!states.empty() && report.contains("symmetry") && report["symmetry"].is_object())
    states += fmt::format(" (orbits under a group of order {})", figure(report["symmetry"], "order"));
  std::string complete = figure(report, "complete");
  if (complete == "false") complete = "no: " + figure(report, "incomplete_reason");
  std::string seconds;
  if (report.contains("stats") && report["stats"].is_object())
    seconds = fmt::format("{:.2f} s exploring, {:.2f} s analysing", report["stats"].value("seconds", 0.0),
                          report["stats"].value("analysis_seconds", 0.0));
  return "<table class=\"figures\">" + row("model", figure(report, "model")) + row("network", figure(report, "network")) +
         row("fairness", figure(report, "fairness")) + row("states", states) +
         row("transitions", figure(report, "transitions")) + row("complete", complete == "true" ? "yes" : complete) +
         row("bound", bound_line(report.value("bound_exceeded", json()))) + row("time", seconds) + "</table>";
}

std::string verdicts_table(const json& report) {
  if (!report.contains("properties") || !report["properties"].is_object()) return "";
  const bool within = report.value("within_bounds", false);
  std::string out = "<table class=\"verdicts\">";
  for (const auto& [key, p] : report["properties"].items()) {
    std::string name = key;
    for (char& c : name) c = c == '_' ? '-' : c;
    const json holds = p.is_object() ? p.value("holds", json()) : json();
    const char* verdict = holds.is_boolean() ? (holds.get<bool>() ? "holds" : "FAILS") : "undecided";
    out += fmt::format("<tr class=\"{}\"><th>{}</th><td>{}{}</td></tr>", verdict, name, verdict,
                       within ? " (within bounds)" : "");
  }
  return out + "</table>";
}

// The trace as the page's script reads it: names, the initial DBs and
// channels, each step's changes, and how many messages the chart leaves in flight.
json trace_data(const engine::CompiledModel& cm, const engine::ConcreteRun& run,
                const std::vector<engine::ChartArrow>& arrows) {
  json nodes = json::array(), dbs = json::array(), steps = json::array();
  for (model::NodeId n = 0; n < cm.model->network.num_nodes(); ++n) {
    nodes.push_back(cm.model->network.name(n));
    dbs.push_back(facts_text(cm, run.states.front().dbs[n]));
  }
  std::map<std::string, std::vector<std::string>> channels;
  size_t inflight = 0;
  for (const auto& a : arrows) {
    if (!a.sent) channels[arc_key(cm, a.from, a.to)].push_back(fact_text(cm, a.message.data()));
    inflight += a.consumed ? 0 : 1;
  }
  for (const auto& st : run.steps) {
    if (st.arc == engine::kIdleArc) {
      steps.push_back({{"idle", true}});
      continue;
    }
    json sent = json::array();
    for (size_t k = 0; k < st.sent.size(); k += 1 + cm.layout.fact_words(st.sent[k + 1]))
      sent.push_back({cm.model->network.name(static_cast<model::NodeId>(st.sent[k])), fact_text(cm, &st.sent[k + 1])});
    steps.push_back({{"c", arc_key(cm, st.from, st.node)}, {"n", st.node}, {"p", fact_text(cm, st.payload.data())},
                     {"a", facts_text(cm, st.added)}, {"r", facts_text(cm, st.removed)}, {"s", std::move(sent)},
                     {"t", step_summary(cm, st)}});
  }
  return {{"nodes", nodes}, {"initial", {{"dbs", dbs}, {"channels", channels}}}, {"steps", steps},
          {"inflight", inflight}};
}

// JSON inside a <script> element: no "</script" can close it early.
std::string script_json(const json& j) {
  std::string out;
  for (char c : dump_json(j, -1)) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

// "4 steps; a cycle from step 4 to 19 serves n0→n1, n1→n2".
std::string run_summary(const engine::CompiledModel& cm, const engine::ConcreteRun& run) {
  std::string out = fmt::format("{} steps", run.steps.size());
  if (!run.loop_start || *run.loop_start >= run.steps.size()) return out + ".";
  std::set<std::string> served;
  for (size_t k = *run.loop_start; k < run.steps.size(); ++k)
    if (run.steps[k].arc != engine::kIdleArc) served.insert(arc_key(cm, run.steps[k].from, run.steps[k].node));
  std::string list;
  for (const auto& s : served) list += (list.empty() ? "" : ", ") + s;
  return out + fmt::format("; the cycle, steps {} to {}, returns to the state before step {} and serves {}.",
                           *run.loop_start, run.steps.size() - 1, *run.loop_start, list.empty() ? "no channel" : list);
}

std::string trace_section(const engine::CompiledModel& cm, const PageTrace& t, size_t index) {
  const auto arrows = engine::chart_arrows(*t.run, cm.layout, cm.model->network);
  const std::string id = fmt::format("trace-{}", index);
  std::string out = fmt::format("<section class=\"trace\" id=\"{}\"><h2>Trace {}: {}</h2><p>{}</p>", id, index,
                                xml_escape(t.title), xml_escape(run_summary(cm, *t.run)));
  out += "<div class=\"controls\"><button data-go=\"first\" title=\"the initial state\">&#xAB;</button>"
         "<button data-go=\"prev\" title=\"one step back\">&#x2039;</button>"
         "<button data-go=\"next\" title=\"one step on\">&#x203A;</button>"
         "<button data-go=\"last\" title=\"the last state\">&#xBB;</button>"
         "<input type=\"range\" min=\"0\" value=\"0\"><span class=\"where\"></span></div>";
  out += "<div class=\"view\"><div class=\"scroll\">" + chart_svg(cm, *t.run, id + "-chart") +
         "</div><pre class=\"state\"></pre></div>";
  out += "<script type=\"application/json\" class=\"trace-data\">" + script_json(trace_data(cm, *t.run, arrows)) +
         "</script>";
  return out + "</section>";
}

constexpr const char* kPageCss =
    "body{font:14px sans-serif;margin:1.2em;color:#222}"
    "h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{text-align:left;padding:2px 10px;border-bottom:1px solid #ddd}"
    "tr.FAILS td{color:#b02020;font-weight:bold}tr.holds td{color:#207020}"
    ".controls{margin:.4em 0}.controls button{font-size:14px;margin-right:2px}"
    ".controls input{vertical-align:middle;width:18em;margin:0 .6em}"
    ".view{display:flex;gap:1em;align-items:flex-start}"
    ".scroll{overflow:auto;max-height:75vh;border:1px solid #ccc;flex:0 1 auto}"
    ".state{font:12px monospace;background:#f6f6f6;padding:.6em;min-width:18em;max-height:75vh;overflow:auto;margin:0}";

// Stepping through a trace: a cursor between rows, the step just taken
// highlighted with its messages, the global state rebuilt from the data.
constexpr const char* kPageScript = R"JS(
(function () {
  "use strict";
  function take(list, item, what) {
    var i = list ? list.indexOf(item) : -1;
    if (i < 0) throw new Error("ddsmc chart: " + what + " " + item + " is not there");
    list.splice(i, 1);
  }
  // The global state before step p (p = steps: the last state).
  function stateAt(d, p) {
    var dbs = d.initial.dbs.map(function (f) { return f.slice(); }), ch = {};
    Object.keys(d.initial.channels).forEach(function (k) { ch[k] = d.initial.channels[k].slice(); });
    for (var i = 0; i < p; i++) {
      var s = d.steps[i];
      if (s.idle) continue;
      take(ch[s.c], s.p, "step " + i + " takes the message");
      s.r.forEach(function (f) { take(dbs[s.n], f, "step " + i + " removes the fact"); });
      Array.prototype.push.apply(dbs[s.n], s.a);
      s.s.forEach(function (m) { var k = d.nodes[s.n] + "\u2192" + m[0]; (ch[k] = ch[k] || []).push(m[1]); });
    }
    return { dbs: dbs, ch: ch };
  }
  function stateText(d, st) {
    var lines = d.nodes.map(function (n, i) { return n + "  {" + st.dbs[i].slice().sort().join(", ") + "}"; });
    lines.push("", "channels:");
    var any = false;
    Object.keys(st.ch).sort().forEach(function (k) {
      if (!st.ch[k].length) return;
      any = true;
      lines.push(k + "  " + st.ch[k].slice().sort().join(", "));
    });
    if (!any) lines.push("(all empty)");
    return lines.join("\n");
  }
  function inFlight(st) {
    return Object.keys(st.ch).reduce(function (n, k) { return n + st.ch[k].length; }, 0);
  }
  function setup(sec) {
    var d = JSON.parse(sec.querySelector("script.trace-data").textContent);
    var svg = sec.querySelector("svg.chart"), cursor = svg.querySelector(".cursor");
    var range = sec.querySelector("input[type=range]"), where = sec.querySelector(".where");
    var pre = sec.querySelector("pre.state"), n = d.steps.length;
    var top = +svg.dataset.top, rowH = +svg.dataset.row, pos = 0;
    var last = stateAt(d, n), dashed = svg.querySelectorAll(".msg.inflight").length;
    if (inFlight(last) !== d.inflight || dashed !== d.inflight)
      console.error("ddsmc chart: " + sec.id + " leaves " + inFlight(last) + " messages in flight, the chart " + dashed);
    range.max = n;
    function show(p) {
      pos = Math.max(0, Math.min(n, p));
      range.value = pos;
      var y = top + rowH * pos + rowH / 2;
      cursor.setAttribute("y1", y); cursor.setAttribute("y2", y);
      cursor.style.visibility = "visible";
      svg.querySelectorAll(".current,.hot").forEach(function (e) { e.classList.remove("current", "hot"); });
      var k = String(pos - 1);
      svg.querySelectorAll('[data-step="' + k + '"]').forEach(function (e) { e.classList.add("current"); });
      svg.querySelectorAll('.msg[data-sent="' + k + '"],.msg[data-consumed="' + k + '"]')
        .forEach(function (e) { e.classList.add("hot"); });
      where.textContent = pos === 0 ? "the initial state" :
        "after step " + (pos - 1) + (d.steps[pos - 1].idle ? " (idle)" : ": " + d.steps[pos - 1].t);
      pre.textContent = "state " + pos + " of " + n + "\n\n" + stateText(d, stateAt(d, pos));
    }
    sec.querySelectorAll("button[data-go]").forEach(function (b) {
      b.addEventListener("click", function () {
        var go = b.dataset.go;
        show(go === "first" ? 0 : go === "last" ? n : go === "prev" ? pos - 1 : pos + 1);
      });
    });
    range.addEventListener("input", function () { show(+range.value); });
    svg.addEventListener("click", function (ev) {
      var r = svg.getBoundingClientRect();
      show(Math.round((ev.clientY - r.top - top) / rowH));
    });
    show(0);
    return svg.querySelectorAll(".msg").length;
  }
  var arrows = 0, sections = document.querySelectorAll("section.trace");
  sections.forEach(function (sec) { arrows += setup(sec); });
  console.log("ddsmc chart: " + sections.length + " traces, " + arrows + " arrows");
})();
)JS";

}  // namespace

std::string html_page(const engine::CompiledModel& cm, const json& report, const std::vector<PageTrace>& traces) {
  const std::string model = figure(report, "model");
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += fmt::format("<title>ddsmc: {}</title><style>{}{}</style></head><body>", xml_escape(model), kPageCss,
                     chart_css());
  out += fmt::format("<h1>ddsmc: {}</h1>", xml_escape(model));
  out += figures_table(report) + verdicts_table(report);
  if (traces.empty()) out += "<p>No trace: nothing failed, and no witness or bound trace was found.</p>";
  for (size_t i = 0; i < traces.size(); ++i) out += trace_section(cm, traces[i], i + 1);
  return out + "<script>" + kPageScript + "</script></body></html>\n";
}

}  // namespace ddsmc::app
