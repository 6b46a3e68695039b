// The state graph's edge store (engine::EdgeStore, docs/engine.md §8) on a
// real graph: what it takes per edge and per state against the plain 8-byte
// edges it replaced, how its code's bytes split, what two other codes would
// take, and what reading it costs against a plain array and against not
// storing edges at all (regenerating every successor when the analysis
// needs it).
//
// Usage: bench_edges [--model examples/flooding.d2c] [--network ring:8]
//                    [--threads N] [--reps R]
//        (build/bench/bench_edges; run by hand on an otherwise idle machine)
//
// Printed, after exploring the model (N threads, default 1):
//   store:   row bytes + the row index (about 4.1 B per state, as the
//            store reports it), per edge and per state; the layout before
//            (8 B per edge, 12 B per state)
//   code:    mean bytes of a row's first edge and of the later ones, and
//            how many edges take 1..5 bytes (one varint each: target delta
//            << L | label code, L bits holding every label code)
//   other codes, sized on the same rows (not implemented in the engine):
//     two-varint: the target delta and the label code as two varints
//     rice:       bit-level, per row a Rice code of the target deltas with
//                 the row's best parameter (5 bits), the labels in L bits,
//                 the row rounded up to bytes
//   times (one thread; the best of R runs for the passes):
//     pass/range, pass/cursor: every edge of every state decoded, through
//                 the range and through the cursor Tarjan uses
//     pass/plain: the same over a copy as plain 8-byte edges
//     analyze:    engine::analyze of each property (channel fairness)
//     regenerate: per state, the expander's successors (decode, generate,
//                 canonicalise), then each one's id looked up by its bytes:
//                 what an analysis pass would pay per state without edges
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/expander.hpp"
#include "model/load.hpp"

namespace {

using namespace ddsmc;
using engine::Edge;
using engine::StateGraph;
using engine::StateId;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

unsigned varint_bytes(uint64_t v) { return v < 0x80 ? 1 : 1 + varint_bytes(v >> 7); }

uint64_t label_code(const Edge& e) {
  return (e.arc() == engine::kIdleArc ? 0 : uint64_t{e.arc()} + 1) << 1 | (e.stable() ? 1u : 0u);
}

// The target numbers a row is coded with: the first zigzag from the source.
std::vector<uint64_t> target_deltas(StateId s, const std::vector<Edge>& row) {
  std::vector<uint64_t> d;
  StateId base = s;
  for (const Edge& e : row) {
    if (d.empty()) {
      const auto x = static_cast<int64_t>(e.target - s);
      d.push_back((static_cast<uint64_t>(x) << 1) ^ static_cast<uint64_t>(x >> 63));
    } else {
      d.push_back(e.target - base);
    }
    base = e.target;
  }
  return d;
}

uint64_t rice_bits(const std::vector<uint64_t>& d) {
  uint64_t best = ~uint64_t{0};
  for (unsigned k = 0; k < 32; ++k) {
    uint64_t bits = 5;
    for (uint64_t x : d) bits += (x >> k) + 1 + k;
    best = std::min(best, bits);
  }
  return best;
}

template <class F>
double best_of(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    f();
    best = std::min(best, seconds_since(t));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = "examples/flooding.d2c", network = "ring:8";
  size_t threads = 1;
  int reps = 3;
  CLI::App app{"EdgeStore figures on an explored state graph"};
  app.add_option("--model", model_path, "model file");
  app.add_option("--network", network, "network spec");
  app.add_option("--threads", threads, "exploration threads");
  app.add_option("--reps", reps, "runs of each pass (the best is printed)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  model::Diagnostics diag(model_path);
  model::Overrides ov;
  ov.network_spec = network;
  auto m = model::load_model(model_path, ov, diag);
  if (!m) {
    fmt::print(stderr, "{}", diag.format_all());
    return 1;
  }
  const engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreOptions eo;
  eo.threads = threads;
  engine::ExploreResult res = engine::explore(cm, eo);
  const StateGraph& g = res.graph;
  const uint64_t n = g.num_states(), edges = g.num_edges();
  fmt::print("{} {}: {} states, {} transitions ({:.2f} per state), explored in {:.2f} s ({} threads){}\n", model_path,
             network, n, edges, double(edges) / double(n), res.seconds, res.threads,
             res.complete ? "" : " INCOMPLETE");

  // Sizes, from the decoded rows.
  const unsigned label_bits = std::bit_width(2 * uint64_t{g.num_arcs()} + 1);
  uint64_t row_bytes = 0, first_bytes = 0, next_bytes = 0, two_varint = 0, rice = 0;
  uint64_t firsts = 0, nexts = 0, by_len[6] = {};
  std::vector<Edge> row;
  for (StateId s = 0; s < n; ++s) {
    row.assign(g.edges(s).begin(), g.edges(s).end());
    row_bytes += g.edges(s).bytes();
    const auto d = target_deltas(s, row);
    for (size_t i = 0; i < row.size(); ++i) {
      const unsigned t = varint_bytes(d[i] << label_bits | label_code(row[i]));
      (i ? next_bytes : first_bytes) += t;
      ++(i ? nexts : firsts);
      ++by_len[std::min(t, 5u)];
      two_varint += varint_bytes(d[i]) + varint_bytes(label_code(row[i]));
    }
    if (!row.empty()) rice += (rice_bits(d) + row.size() * label_bits + 7) / 8;
  }
  const double index = double(g.memory().edge_index);
  auto per = [&](double bytes) { return fmt::format("{:.2f} B/edge, {:.1f} B/state", bytes / double(edges), bytes / double(n)); };
  fmt::print("store:      {} (rows {:.2f} B/edge + index {:.2f} B/state)\n", per(double(row_bytes) + index),
             double(row_bytes) / double(edges), index / double(n));
  fmt::print("before:     {} (8 B/edge + 12 B/state)\n", per(8.0 * double(edges) + 12.0 * double(n)));
  if (row_bytes != first_bytes + next_bytes) fmt::print("MISMATCH: the rows take {} bytes, sized {}\n", row_bytes, first_bytes + next_bytes);
  fmt::print("code:       first edge of a row {:.2f} B, next edges {:.2f} B (label codes: {} bits)\n",
             double(first_bytes) / double(std::max<uint64_t>(firsts, 1)),
             double(next_bytes) / double(std::max<uint64_t>(nexts, 1)), label_bits);
  fmt::print("edges:      1 B {:.1f} %, 2 B {:.1f} %, 3 B {:.1f} %, 4 B {:.1f} %, 5+ B {:.1f} %\n",
             100.0 * double(by_len[1]) / double(edges), 100.0 * double(by_len[2]) / double(edges),
             100.0 * double(by_len[3]) / double(edges), 100.0 * double(by_len[4]) / double(edges),
             100.0 * double(by_len[5]) / double(edges));
  fmt::print("two-varint: {}\n", per(double(two_varint) + index));
  fmt::print("rice:       {}\n", per(double(rice) + index));

  // Reading.
  uint64_t sink = 0;
  const double range = best_of(reps, [&] {
    for (StateId s = 0; s < n; ++s)
      for (const Edge& e : g.edges(s)) sink += e.target ^ e.label;
  });
  const double cursor = best_of(reps, [&] {
    for (StateId s = 0; s < n; ++s) {
      engine::EdgeCursor c;
      for (Edge e; g.next_edge(s, c, e);) sink += e.target ^ e.label;
    }
  });
  std::vector<uint64_t> plain_begin(n + 1, 0);
  std::vector<Edge> plain;
  plain.reserve(edges);
  for (StateId s = 0; s < n; ++s) {
    plain.insert(plain.end(), g.edges(s).begin(), g.edges(s).end());
    plain_begin[s + 1] = plain.size();
  }
  const double flat = best_of(reps, [&] {
    for (StateId s = 0; s < n; ++s)
      for (uint64_t i = plain_begin[s]; i < plain_begin[s + 1]; ++i) sink += plain[i].target ^ plain[i].label;
  });
  std::vector<Edge>().swap(plain);
  auto pass = [&](const char* name, double t) {
    fmt::print("{:<14} {:8.3f} s  {:7.1f} ns/state  {:5.2f} ns/edge\n", name, t, 1e9 * t / double(n),
               1e9 * t / double(edges));
  };
  pass("pass/range", range);
  pass("pass/cursor", cursor);
  pass("pass/plain", flat);
  for (engine::Property p : engine::kAllProperties) {
    const auto t = Clock::now();
    const engine::Verdict v = engine::analyze(g, p, engine::Fairness::Channel, res.complete);
    sink += v.lasso ? v.lasso->states.size() : 0;
    pass(fmt::format("analyze/{}", engine::property_json_key(p)).c_str(), seconds_since(t));
  }

  // Not storing edges: regenerate each state's successors and find their
  // ids (the store is the visited set: a successor's root gives its id).
  const engine::D2cSystem system(cm);
  engine::Expander expander(system, engine::OnBound::Stop, res.graph.store().tree());
  uint64_t regenerated = 0;
  const auto t = Clock::now();
  for (StateId s = 0; s < n; ++s)
    expander.expand(g.root(s), [&](const engine::Candidate& c) {
      const uint32_t id = g.store().find(c.root);
      sink += id == engine::StateStore::kNoRef ? 0 : id;
      ++regenerated;
    });
  pass("regenerate", seconds_since(t));
  fmt::print("(regenerated {} successors; checksum {})\n", regenerated, sink & 0xff);
  return 0;
}
