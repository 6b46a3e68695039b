#include "app/chart_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/report.hpp"
#include "engine/d2c/chart.hpp"

namespace ddsmc::app {
namespace {

using engine::ChartArrow;
using engine::ConcreteRun;
using engine::ConcreteStep;

constexpr double kRow = 30;      // between rows
constexpr double kTop = 58;      // the initial state's row
constexpr double kGutter = 52;   // the step numbers, left of the first lifeline
constexpr double kCharW = 6.6;   // one character at the chart's 11 px monospace
constexpr size_t kLabelMax = 40; // characters of a label drawn (the tooltip has all)
constexpr double kDot = 5.5;     // a step's dot, and where an arrow's head stops short of its centre

// Where everything goes: rows top to bottom, one column per node.
struct Geometry {
  size_t nodes = 0, steps = 0;
  double col = 120;  // column width
  double x(model::NodeId n) const { return kGutter + col * (static_cast<double>(n) + 0.5); }
  double y_row(size_t row) const { return kTop + kRow * static_cast<double>(row); }  // row 0: initial
  double y_step(size_t k) const { return y_row(k + 1); }
  double y_end() const { return y_row(steps + 1); }  // below the last step: where messages in flight end
  double width() const { return kGutter + col * static_cast<double>(nodes) + 12; }
  double height() const { return y_end() + 18; }
};

// At most kLabelMax characters, cut at a UTF-8 character boundary, with "…".
std::string clip(const std::string& s) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++chars > kLabelMax) break;
  return i < s.size() ? s.substr(0, i) + "\u2026" : s;
}

size_t char_count(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// What the step did to its node's DB (and read as input), as drawn beside its dot.
std::string effect_label(const engine::CompiledModel& cm, const ConcreteStep& st) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  for (const auto& f : facts_text(cm, st.added)) add("+" + f);
  for (const auto& f : facts_text(cm, st.removed)) add("-" + f);
  if (!st.input.empty()) {
    std::string in;
    for (const auto& f : facts_text(cm, st.input)) in += (in.empty() ? "" : ", ") + f;
    add("input{" + in + "}");
  }
  return out;
}

std::string message_label(const engine::CompiledModel& cm, const ChartArrow& a) {
  return clip(fact_text(cm, a.message.data()));
}

// Wide enough for the longest name or label drawn in a column.
double column_width(const engine::CompiledModel& cm, const ConcreteRun& run, const std::vector<ChartArrow>& arrows) {
  size_t longest = 8;
  for (size_t n = 0; n < cm.model->network.num_nodes(); ++n)
    longest = std::max(longest, char_count(cm.model->network.name(static_cast<model::NodeId>(n))));
  for (const auto& st : run.steps)
    if (st.arc != engine::kIdleArc) longest = std::max(longest, char_count(clip(effect_label(cm, st))));
  for (const auto& a : arrows) longest = std::max(longest, char_count(message_label(cm, a)));
  return std::clamp(kCharW * static_cast<double>(longest) + 28, 110.0, 320.0);
}

std::string lifelines(const engine::CompiledModel& cm, const Geometry& g) {
  std::string out = "<g class=\"lifelines\">";
  for (size_t n = 0; n < g.nodes; ++n) {
    const double x = g.x(static_cast<model::NodeId>(n));
    out += fmt::format("<line class=\"lifeline\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", x,
                       kTop - 22, x, g.y_end() + 6);
    out += fmt::format("<text class=\"node\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x, kTop - 30,
                       xml_escape(cm.model->network.name(static_cast<model::NodeId>(n))));
  }
  return out + "</g>";
}

// The shaded band over a lasso's cycle, and the note where it closes.
std::string cycle_band(const ConcreteRun& run, const Geometry& g) {
  if (!run.loop_start || *run.loop_start >= run.steps.size()) return "";
  const double top = g.y_step(*run.loop_start) - kRow / 2, bottom = g.y_end() - kRow / 2;
  return fmt::format(
      "<g class=\"cycle\"><rect x=\"2\" y=\"{0:.1f}\" width=\"{1:.1f}\" height=\"{2:.1f}\" rx=\"4\"/>"
      "<text class=\"cycle-label\" x=\"{3:.1f}\" y=\"{4:.1f}\">cycle from step {6}</text>"
      "<text class=\"cycle-label\" x=\"{3:.1f}\" y=\"{5:.1f}\">back to the state before step {6}</text></g>",
      top, g.width() - 4, bottom - top, g.width() - 8, top + 12, bottom - 5, *run.loop_start);
}

std::string idle_row(const Geometry& g, size_t k) {
  const double y = g.y_step(k);
  return fmt::format(
      "<g class=\"event idle\" data-step=\"{}\"><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
      "<text class=\"effect\" x=\"{:.1f}\" y=\"{:.1f}\">idle: every channel is empty</text></g>",
      k, g.x(0), y, g.x(static_cast<model::NodeId>(g.nodes - 1)), y, g.x(0) + 8, y - 4);
}

// Step k: its number in the gutter, its dot at the processing node and its DB changes.
std::string step_row(const engine::CompiledModel& cm, const ConcreteRun& run, const Geometry& g, size_t k) {
  const ConcreteStep& st = run.steps[k];
  std::string out = fmt::format("<text class=\"row\" x=\"6\" y=\"{:.1f}\">{}</text>", g.y_step(k) + 4, k);
  if (st.arc == engine::kIdleArc) return out + idle_row(g, k);
  const double x = g.x(st.node), y = g.y_step(k);
  const std::string text = fmt::format("{}. {}", k, step_summary(cm, st));
  out += fmt::format("<g class=\"event{}\" data-step=\"{}\"><title>{}</title>", st.stable ? " stable" : "", k,
                     xml_escape(text));
  out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\"/>", x, y, kDot - 1);
  const std::string effect = effect_label(cm, st);
  if (!effect.empty())
    out += fmt::format("<text class=\"effect\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 8, y + 4,
                       xml_escape(clip(effect)));
  return out + "</g>";
}

// One message: a line (a curve for a self-loop) with its payload near the sender.
std::string arrow(const engine::CompiledModel& cm, const Geometry& g, const ChartArrow& a) {
  const double x1 = g.x(a.from), y1 = a.sent ? g.y_step(*a.sent) : g.y_row(0);
  const double x2 = g.x(a.to), y2 = a.consumed ? g.y_step(*a.consumed) : g.y_end();
  const std::string label = xml_escape(message_label(cm, a));
  std::string out = fmt::format("<g class=\"msg{}\" data-sent=\"{}\" data-consumed=\"{}\">", a.consumed ? "" : " inflight",
                                a.sent ? fmt::format("{}", *a.sent) : "init",
                                a.consumed ? fmt::format("{}", *a.consumed) : "");
  out += fmt::format("<title>{} {} \u2192 {}{}</title>", label, xml_escape(cm.model->network.name(a.from)),
                     xml_escape(cm.model->network.name(a.to)), a.consumed ? "" : " (in flight at the end)");
  if (a.from == a.to) {
    const double bulge = std::min(g.col * 0.42, 24 + (y2 - y1) * 0.15);
    out += fmt::format("<path d=\"M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" marker-end=\"url(#arrowhead)\"/>",
                       x1, y1, x1 + bulge, y1, x1 + bulge, y2, x2 + kDot, y2);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x1 + bulge * 0.75 + 3, (y1 + y2) / 2 + 4, label);
    return out + "</g>";
  }
  const double dx = x2 - x1, dy = y2 - y1, len = std::hypot(dx, dy);
  const double back = a.consumed ? kDot / len : 0;  // the head touches the dot, not its centre
  out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" marker-end=\"url(#arrowhead)\"/>", x1,
                     y1, x2 - dx * back, y2 - dy * back);
  // The label sits a row below the sender (or halfway, if sooner), where arrows still part.
  const double t = std::min(0.5, kRow * 0.8 / std::max(1.0, y2 - y1));
  const double lx = x1 + (x2 - x1) * t, ly = y1 + (y2 - y1) * t;
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}</text>", lx + (x2 > x1 ? 4 : -4), ly - 3,
                     x2 > x1 ? "start" : "end", label);
  return out + "</g>";
}

std::string defs() {
  return "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
         "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>";
}

// The chart's elements inside an `<svg>` opened by the caller.
std::string chart_body(const engine::CompiledModel& cm, const ConcreteRun& run, const Geometry& g,
                       const std::vector<ChartArrow>& arrows) {
  std::string out = defs() + cycle_band(run, g) + lifelines(cm, g);
  out += fmt::format("<text class=\"row\" x=\"6\" y=\"{:.1f}\">init</text>", g.y_row(0) + 4);
  out += fmt::format("<line class=\"cursor\" x1=\"0\" y1=\"{0:.1f}\" x2=\"{1:.1f}\" y2=\"{0:.1f}\"/>",
                     g.y_row(0) + kRow / 2, g.width());
  out += "<g class=\"msgs\">";
  for (const auto& a : arrows) out += arrow(cm, g, a);
  out += "</g><g class=\"events\">";
  for (size_t k = 0; k < run.steps.size(); ++k) out += step_row(cm, run, g, k);
  return out + "</g>";
}

std::string svg_open(const Geometry& g, std::string_view extra) {
  return fmt::format(
      "<svg class=\"chart\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" data-top=\"{2}\" "
      "data-row=\"{3}\"{4}>",
      g.width(), g.height(), kTop, kRow, extra);
}

Geometry geometry(const engine::CompiledModel& cm, const ConcreteRun& run, const std::vector<ChartArrow>& arrows) {
  return {cm.model->network.num_nodes(), run.steps.size(), column_width(cm, run, arrows)};
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

std::string chart_svg(const engine::CompiledModel& cm, const ConcreteRun& run, std::string_view id) {
  const auto arrows = engine::chart_arrows(run, cm.layout, cm.model->network);
  const Geometry g = geometry(cm, run, arrows);
  return svg_open(g, fmt::format(" id=\"{}\"", xml_escape(id))) + chart_body(cm, run, g, arrows) + "</svg>";
}

std::string chart_svg_document(const engine::CompiledModel& cm, const ConcreteRun& run, std::string_view title) {
  const auto arrows = engine::chart_arrows(run, cm.layout, cm.model->network);
  Geometry g = geometry(cm, run, arrows);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += svg_open(g, " xmlns=\"http://www.w3.org/2000/svg\"");
  out += fmt::format("<title>{}</title><style>{}</style>", xml_escape(title), chart_css());
  out += "<rect class=\"paper\" width=\"100%\" height=\"100%\"/>";
  return out + chart_body(cm, run, g, arrows) + "</svg>\n";
}

std::string_view chart_css() {
  return ".chart{font:11px monospace}"
         ".chart .paper{fill:#fff}"
         ".chart .lifeline{stroke:#888;stroke-width:1.2}"
         ".chart .node{font-weight:bold;font-size:12px;text-anchor:middle}"
         ".chart .row{fill:#777}"
         ".chart .msg line,.chart .msg path{stroke:#1f5fa8;stroke-width:1.2;fill:none}"
         ".chart .msg text{fill:#1f5fa8;paint-order:stroke;stroke:#fff;stroke-width:3px}"
         ".chart .msg.inflight line,.chart .msg.inflight path{stroke:#c07000;stroke-dasharray:5 3}"
         ".chart .msg.inflight text{fill:#c07000}"
         ".chart marker path{fill:context-stroke}"
         ".chart #arrowhead path{fill:#555}"
         ".chart .event circle{fill:#b02020;stroke:#b02020;stroke-width:1.5}"
         ".chart .event.stable circle{fill:#fff}"
         ".chart .event .effect{fill:#222;paint-order:stroke;stroke:#fff;stroke-width:3px}"
         ".chart .idle line{stroke:#999;stroke-dasharray:2 3}"
         ".chart .cycle rect{fill:#fff4d6;stroke:#e0b040}"
         ".chart .cycle-label{fill:#a07000;font-style:italic;text-anchor:end}"
         ".chart .cursor{stroke:#20a040;stroke-width:2;visibility:hidden}"
         ".chart .current circle{stroke:#20a040;stroke-width:3}"
         ".chart .msg.hot line,.chart .msg.hot path{stroke-width:2.6}";
}

}  // namespace ddsmc::app
