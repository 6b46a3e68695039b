// Convergence analysis benchmark: the parallel analysis (OWCTY fixpoint,
// then Tarjan inside the survivors) against the sequential one (Tarjan over
// each whole subgraph), per property, on one explored model.
//
// Usage: bench_analysis MODEL.d2c [--network SPEC] [--fairness channel|none]
//                       [--threads 1,2] [--repeat R]
//        (build/bench/bench_analysis; run by hand on an otherwise idle machine)
//
// Explores the model once (on the largest thread count), then per property
// prints the sequential analysis's time, and per thread count the parallel
// one's (the best of R runs each), with its OWCTY rounds and passes, the
// states left in Z and the subgraphs examined. The verdicts must agree.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "engine/analysis.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/explore.hpp"
#include "engine/workers.hpp"
#include "model/load.hpp"

using namespace ddsmc;

namespace {

template <class F>
double best_of(int repeat, F&& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

const char* verdict_name(const std::optional<bool>& h) { return !h ? "undecided" : *h ? "holds" : "fails"; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("ddsmc convergence analysis benchmark");
  std::string path, network, fairness_name = "channel", threads_list = "1,2";
  int repeat = 1;
  app.add_option("model", path)->required();
  app.add_option("--network", network);
  app.add_option("--fairness", fairness_name);
  app.add_option("--threads", threads_list);
  app.add_option("--repeat", repeat);
  CLI11_PARSE(app, argc, argv);
  std::vector<size_t> threads;
  std::stringstream ss(threads_list);
  for (std::string t; std::getline(ss, t, ',');) threads.push_back(std::stoul(t));
  if (threads.empty()) threads.push_back(1);

  model::Diagnostics diag(path);
  model::Overrides ov;
  if (!network.empty()) ov.network_spec = network;
  auto m = model::load_model(path, ov, diag);
  if (!m) {
    fmt::print(stderr, "{}", diag.format_all());
    return 2;
  }
  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreOptions eo;
  eo.threads = *std::max_element(threads.begin(), threads.end());
  engine::ExploreResult res = engine::explore(cm, eo);
  const auto& g = res.graph;
  const engine::Fairness f = fairness_name == "none" ? engine::Fairness::None : engine::Fairness::Channel;
  fmt::print("{} on {}: {} states, {} edges, {} arcs, {}, fairness {}\n", path, network.empty() ? "its network" : network,
             g.num_states(), g.num_edges(), g.num_arcs(), res.complete ? "complete" : "incomplete", fairness_name);

  double seq_total = 0;
  std::vector<double> par_total(threads.size(), 0);
  for (auto p : engine::kAllProperties) {
    engine::Verdict seq;
    double t_seq;
    {
      engine::WorkerPool pool(1);
      tbb::task_arena arena(1);
      t_seq = best_of(repeat, [&] { arena.execute([&] { seq = engine::analyze_sequential(g, p, f, res.complete); }); });
    }
    seq_total += t_seq;
    fmt::print("{:<18} {:<9} sequential {:8.3f} s\n", engine::property_name(p), verdict_name(seq.holds), t_seq);
    for (size_t i = 0; i < threads.size(); ++i) {
      engine::WorkerPool pool(threads[i]);
      tbb::task_arena arena(static_cast<int>(threads[i]));
      engine::Verdict par;
      double t = best_of(repeat, [&] { arena.execute([&] { par = engine::analyze(g, p, f, res.complete); }); });
      par_total[i] += t;
      fmt::print("{:<18} {:<9} {} thread{}  {:8.3f} s  rounds {} passes {} survivors {} subgraphs {}{}\n", "",
                 verdict_name(par.holds), threads[i], threads[i] == 1 ? " " : "s", t, par.stats.rounds,
                 par.stats.passes, par.stats.survivors, par.stats.subgraphs,
                 par.holds == seq.holds && par.node == seq.node ? "" : "  DIFFERENT VERDICT");
    }
  }
  fmt::print("all four: sequential {:.3f} s", seq_total);
  for (size_t i = 0; i < threads.size(); ++i) fmt::print(", {} thread(s) {:.3f} s", threads[i], par_total[i]);
  fmt::print("\n");
  return 0;
}
