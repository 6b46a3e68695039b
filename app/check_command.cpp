// `ddsmc check`: explore, analyse the four properties, report with traces.
// Output paths are opened before any work; a signal or running out of
// memory stops the work with what it has, and the report still goes out.
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "app/check_identity.hpp"
#include "app/check_report.hpp"
#include "app/checkpointing.hpp"
#include "app/dist_steps.hpp"
#include "app/memory_limit.hpp"
#include "app/commands.hpp"
#include "app/output.hpp"
#include "app/ranks.hpp"
#include "app/runtime.hpp"
#include "app/step_backend.hpp"
#include "dist/analysis.hpp"
#include "dist/consensus.hpp"
#include "dist/directory.hpp"
#include "dist/explore.hpp"
#include "dist/mailbox.hpp"
#include "engine/analysis.hpp"
#include "engine/bfs_tree.hpp"
#include "engine/d2c/system.hpp"
#include "engine/workers.hpp"
#include "model/load.hpp"

namespace ddsmc::app {
namespace {

using engine::StopReason;

// After a signal, the analysis and the traces get this long (from the
// moment the engine saw the signal) to finish what they can.
constexpr auto kGrace = std::chrono::milliseconds(1000);

std::vector<engine::Property> selected_properties(const std::string& p) {
  if (p == "all") return {std::begin(engine::kAllProperties), std::end(engine::kAllProperties)};
  for (auto prop : engine::kAllProperties)
    if (p == engine::property_name(prop)) return {prop};
  return {};
}

void print_progress(const engine::ExploreProgress& p) {
  const double rss = static_cast<double>(current_rss_bytes());
  std::fprintf(stderr, "[%7.1fs] states %llu  transitions %llu  queue %llu  %.0f states/s  rss %.1f MiB  %.0f B/state\n",
               p.seconds, static_cast<unsigned long long>(p.states), static_cast<unsigned long long>(p.transitions),
               static_cast<unsigned long long>(p.queue), p.seconds > 0 ? p.states / p.seconds : 0.0, rss / 1048576.0,
               p.states ? rss / static_cast<double>(p.states) : 0.0);
}

// Runs `f`; a stop request or an allocation failure gives its reason.
template <class F>
StopReason guarded(F&& f) {
  try {
    f();
    return StopReason::None;
  } catch (const engine::Cancelled& c) {
    return c.reason();
  } catch (const std::bad_alloc&) {
    return StopReason::OutOfMemory;
  }
}

// Text for people: stdout, or stderr when the JSON goes to stdout. Text that
// does not fit in memory is left out (the report says why).
class HumanText {
 public:
  HumanText(Output& out, CheckOutcome& o) : out_(out), o_(o) {}
  template <class MakeText>
  void print(MakeText&& make) {
    std::string text;
    StopReason r = guarded([&] { text = make(); });
    o_.note_stop(r);
    out_.write(text);
  }

 private:
  Output& out_;
  CheckOutcome& o_;
};

// Where the states' encodings are: in the graph, or under MPI with the
// ranks that own them (and the steps run over all of them).
struct StateSource {
  const Ranks* ranks = nullptr;
  const dist::Shard* shard = nullptr;
  const DistSteps* steps = nullptr;
};

// Test only (docs/semantics.md §10): DDSMC_TESTING_FAIL_LIFT=1 makes every
// lift fail as an internal inconsistency would, which nothing else can.
bool testing_fail_lift() {
  const char* v = std::getenv("DDSMC_TESTING_FAIL_LIFT");
  return v && std::string_view(v) == "1";
}

// Lifts a quotient path to a concrete run, or says why not: a stop, or
// InternalError when the path does not lift (the graph contradicts the
// steps: the verdict it came with cannot be trusted).
StopReason lift_run(const CheckOutcome& o, const StateSource& src, const std::vector<engine::Hop>& hops,
                    engine::Cancellation& cancel, std::optional<engine::ConcreteRun>& run) {
  const StopReason r = guarded([&] {
    if (src.ranks) {
      std::vector<engine::StateId> ids;
      for (const auto& h : hops) ids.push_back(h.target);
      const auto bytes = src.ranks->fetch(ids, *src.shard);
      run = engine::lift(o.cm, [&](engine::StateId s) { return bytes.at(s); }, hops, cancel);
    } else {
      run = engine::lift(o.cm, o.explored.graph, hops, cancel);
    }
    if (testing_fail_lift()) run.reset();
  });
  if (r != StopReason::None || run) return r;
  std::fprintf(stderr, "ddsmc: internal error: a trace did not lift to a concrete run; its verdict is left undecided\n");
  return StopReason::InternalError;
}

// The bound violation's run, or the verdicts with their traces, printed as
// they come. A verdict whose analysis or trace was cut short is undecided.
// `saved`: verdicts a resumed checkpoint brings (its analysis was stopped
// after deciding them), taken instead of analysing those properties again.
void decide(CheckOutcome& o, const StateSource& src, const std::vector<engine::Property>& properties,
            engine::Fairness fairness, engine::Cancellation& cancel, HumanText& human,
            const std::vector<engine::Verdict>& saved) {
  const auto& res = o.explored;
  for (auto p : properties) o.properties.push_back(PropertyOutcome{p, engine::Verdict{p, {}, {}, {}, {}}, {}, {}});
  if (res.violation) {  // nothing is analysed (semantics.md §5)
    std::vector<engine::StateId> path;  // read back from the edges: one pass, 4 B per state
    o.bound_run_stopped =
        guarded([&] {
          path = src.steps ? src.steps->bound_path(res.violating_state, res.violating_parent)
                           : engine::bfs_tree_path(res.graph, res.violating_state, res.violating_parent, cancel);
        });
    if (o.bound_run_stopped == StopReason::None)
      o.bound_run_stopped = lift_run(o, src, engine::path_hops(path), cancel, o.bound_run);
    o.note_stop(o.bound_run_stopped);
    human.print([&] { return bound_text(o); });
    return;
  }
  for (auto& p : o.properties) {
    const auto t0 = std::chrono::steady_clock::now();
    auto known = std::find_if(saved.begin(), saved.end(), [&](const engine::Verdict& v) { return v.property == p.property; });
    p.stopped = guarded([&] {
      if (known != saved.end()) p.verdict = *known;
      else p.verdict = src.steps ? src.steps->analyze(p.property, res.complete)
                                 : engine::analyze(res.graph, p.property, fairness, res.complete, cancel);
    });
    o.analysis_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (p.stopped == StopReason::None && p.verdict.lasso) {
      const auto& l = *p.verdict.lasso;
      p.stopped = lift_run(o, src, engine::lasso_hops(l.states, l.edges, l.loop_start), cancel, p.run);
      if (p.run) p.run->loop_start = l.loop_start;
    }
    if (p.stopped != StopReason::None) {
      p.verdict = engine::Verdict{p.property, {}, {}, {}, {}};
      p.run.reset();
    }
    o.note_stop(p.stopped);
    human.print([&] { return property_text(o, p); });
  }
}

// Writes make()'s JSON, or `fallback` when memory does not allow it (then
// returns false).
template <class MakeJson>
bool write_json(Output& out, MakeJson&& make, std::string_view fallback) {
  std::string text;
  refill_memory_reserve();  // what the analysis held is free again
  StopReason r = guarded([&] {
    throw_if_memory_low();
    text = dump_json(make(), 2) + "\n";
  });
  out.write(r == StopReason::None ? std::string_view(text) : fallback);
  return r == StopReason::None;
}

}  // namespace

int run_check(const CheckOptions& opts) {
  // Under mpirun every rank runs this; rank 0 alone prints and writes, and
  // the ranks agree on each step that could end the run (app/ranks.hpp).
  std::unique_ptr<Ranks> ranks = Ranks::start_if_launched();
  const bool root = !ranks || ranks->root();
  model::Diagnostics diag(opts.model.path);
  std::string model_bytes;  // as loaded: the check's identity is made of them
  auto m = model::load_model(opts.model.path, opts.model.overrides, diag, &model_bytes);
  if (root) std::fputs(diag.format_all().c_str(), stderr);
  int setup = m ? 0 : kExitUsage;
  auto properties = selected_properties(opts.property);
  if (!setup && properties.empty()) {
    if (root)
      std::fprintf(stderr, "ddsmc: unknown property '%s' (all, sometimes-total, sometimes-partial, always-total, always-partial)\n",
                   opts.property.c_str());
    setup = kExitUsage;
  }
  std::string identity = m ? check_identity(opts, *m, model_bytes) : std::string();
  if (ranks) {
    setup = ranks->worst(setup);
    // The ranks that loaded the model compare what they are about to check.
    if (auto e = dist::disagreement(ranks->comm(), m ? std::optional<std::string>(identity) : std::nullopt);
        e && !setup) {
      if (root) std::fprintf(stderr, "ddsmc: %s\n", e->c_str());
      setup = kExitUsage;
    }
  }
  if (!setup && opts.checkpoint_every && !opts.checkpoint) {
    if (root) std::fprintf(stderr, "ddsmc: --checkpoint-every needs --checkpoint DIR\n");
    setup = kExitUsage;
  }
  // Checkpoints: periodic ones between slices, one when a signal or memory
  // stops the exploration or a signal the analysis, and the resume (under
  // MPI each rank writes and reads its part; engine/checkpoint.hpp). The
  // manifest of the one to resume is checked now (another check, another
  // rank count), before any output file is touched.
  Checkpointing checkpoints(opts.checkpoint, opts.checkpoint_every ? parse_duration(*opts.checkpoint_every) : std::nullopt,
                            identity, ranks.get());
  std::string().swap(identity);  // (the model file's bytes: up to 64 MiB)
  std::string().swap(model_bytes);
  // One check at a time writes into a checkpoint directory: a second one
  // is refused here, before any work (the lock is held to the end).
  if (!setup && checkpoints.enabled() && !checkpoints.lock()) setup = kExitUsage;
  if (!setup && opts.resume && !checkpoints.check_manifest(*opts.resume)) setup = kExitUsage;
  // The model's step evaluator: under MPI rank 0 compiles first, the
  // others then find its object in the cache (or, on a machine that does
  // not share it, compile their own). A --backend compiled that cannot be
  // had is refused before any output is touched.
  // The compiler runs under the check's memory limit (--memory is per
  // process; by default the ranks on one machine share it).
  const uint64_t memory_limit = opts.memory ? *parse_memory_size(*opts.memory)
                                            : default_memory_limit() / uint64_t(ranks ? ranks->ranks_on_node() : 1);
  engine::CompiledStepOptions compiler;
  compiler.memory_bytes = memory_limit;
  compiler.stop = &stop_requests();
  std::optional<engine::CompiledModel> compiled_model;
  std::optional<StepBackend> backend;
  if (!setup) {
    compiled_model.emplace(engine::compile(*m));
    if (root) backend = choose_step_backend(opts.backend, *compiled_model, true, compiler);
    if (ranks) ranks->worst(0);
    if (!root) backend = choose_step_backend(opts.backend, *compiled_model, false, compiler, ranks->rank());
    if (!backend) setup = kExitUsage;
    if (ranks) setup = ranks->worst(setup);
  }
  // Every output is opened (created) before any work.
  std::vector<std::unique_ptr<Output>> files;
  std::vector<Output*> outputs{nullptr, nullptr};
  if (!setup && root) {
    std::string error;
    outputs = Output::open_all({opts.json_path, opts.trace_path}, files, error);
    if (outputs.empty()) {
      std::fprintf(stderr, "ddsmc: %s\n", error.c_str());
      setup = kExitUsage;
    }
  }
  if (ranks) setup = ranks->worst(setup);
  if (setup) return setup;
  Output *json_out = outputs[0], *trace_out = outputs[1];
  engine::Fairness fairness = opts.fairness == "none" ? engine::Fairness::None : engine::Fairness::Channel;
  engine::WorkerPool pool(opts.threads);

  const engine::CompiledModel& cm = *compiled_model;
  engine::Cancellation cancel(stop_requests());
  begin_graceful_stop();
  MemoryWatch watch(memory_limit);
  engine::ExploreOptions eo;
  eo.threads = pool.threads();
  eo.memory_limit = memory_limit;
  eo.memory_in_use = current_rss_bytes;
  eo.max_states = opts.max_states;
  eo.on_bound = opts.on_bound == "prune" ? engine::OnBound::Prune : engine::OnBound::Stop;
  eo.cancel = &cancel;
  eo.progress = print_progress;
  if (checkpoints.enabled()) {
    eo.checkpoint_due = [&] { return checkpoints.due(); };
    eo.checkpoint = [&](const engine::ExplorePoint& p) { checkpoints.write(p); };
  }
  const engine::D2cSystem system(cm, backend->compiled);
  std::unique_ptr<dist::Shard> shard;
  engine::ExploreResult res(cm.layout);
  std::vector<engine::Verdict> saved_verdicts;  // a resumed analysis's
  if (opts.resume) {
    engine::StateGraph graph(cm.layout);
    std::vector<engine::StateId> gids;
    std::optional<engine::CheckpointMeta> meta;  // (read on the exploration's workers)
    tbb::task_arena(static_cast<int>(pool.threads())).execute([&] {
      meta = checkpoints.restore(*opts.resume, system, graph, gids);
    });
    if (!meta) return kExitUsage;  // (every rank: restore() agrees)
    saved_verdicts = meta->verdicts;
    const hashing::CanonicalStats canonical{meta->canonical[0], meta->canonical[1], meta->canonical[2],
                                            meta->canonical[3], meta->canonical[4]};
    if (ranks) {
      shard = std::make_unique<dist::Shard>(std::move(graph), std::move(gids));
      const dist::Resumed at{meta->pruned_states, canonical, meta->seconds};
      res = dist::explore(system, eo, ranks->comm(), shard, &at);
    } else {
      res.graph = std::move(graph);
      res.pruned_states = meta->pruned_states;
      res.canonical = canonical;
      res.seconds = meta->seconds;
      engine::explore_from(system, eo, res, static_cast<engine::StateId>(meta->next));
    }
  } else if (ranks) {
    res = dist::explore(system, eo, ranks->comm(), shard);
  } else {
    res = engine::explore(system, eo);
  }
  const engine::StateGraph& explored = shard ? shard->graph() : res.graph;
  const std::vector<engine::StateId>* gids = shard ? &shard->gids() : nullptr;
  checkpoints.after_exploration(res, explored, gids);
  if (ranks) res.rank_peak_rss = ranks->all(peak_rss_bytes());
  if (shard) shard->end_exploration();
  cancel.set_grace(kGrace);
  // Under MPI: where each state lives (every rank, or none when a rank ran
  // out of memory), then rank 0 leads the analysis and the others serve.
  std::unique_ptr<dist::Directory> dir;
  std::unique_ptr<DistSteps> steps;
  if (ranks) {
    const StopReason r = dist::stop_of(
        [&] { dir = std::make_unique<dist::Directory>(shard->gids(), engine::StateId(res.num_states()), ranks->comm()); });
    if (ranks->worst(static_cast<int>(r)) != 0) dir.reset();
    steps = std::make_unique<DistSteps>(*ranks, *shard, dir.get(), cm.layout, fairness, cancel, checkpoints, res);
  }
  if (ranks && !root) {
    release_free_memory();
    return ranks->serve(*shard, [&](const std::vector<uint32_t>& args) { steps->serve_one(args); });
  }
  if (ranks) ranks->explored();
  const StateSource src{ranks.get(), shard.get(), steps.get()};
  // The analysis and the traces read states back, never look them up: the
  // visited set and the tree's index go, and with them the exploration's
  // buffers malloc still holds.
  res.graph.store().end_exploration();
  release_free_memory();
  // The exploration's memory is free again: set the reserve aside anew, so
  // that the analysis is guarded as the exploration was.
  if (res.incomplete_reason == engine::stop_reason_name(StopReason::OutOfMemory)) refill_memory_reserve();

  CheckOutcome o{opts, *m, cm, res, {}, {}, {}, {}, memory_limit};
  o.backend = backend->name();
  o.compile_seconds = backend->compile_seconds();
  const bool json_on_stdout = json_out == &Output::standard() || trace_out == &Output::standard();
  HumanText human(json_on_stdout ? Output::standard_error() : Output::standard(), o);
  human.print([&] { return header_text(o); });
  // The analysis runs on as many threads as the exploration did.
  tbb::task_arena arena(static_cast<int>(pool.threads()));
  arena.execute([&] { decide(o, src, properties, fairness, cancel, human, saved_verdicts); });
  // A signal stopped the analysis of a whole graph: save the graph and the
  // verdicts decided, so that a resume analyses only the rest.
  if (checkpoints.enabled() && res.complete &&
      std::any_of(o.properties.begin(), o.properties.end(),
                  [](const PropertyOutcome& p) { return p.stopped == StopReason::Interrupted; })) {
    std::vector<engine::Verdict> decided;
    for (const auto& p : o.properties)
      if (p.stopped == StopReason::None && p.verdict.holds) decided.push_back(p.verdict);
    if (steps) steps->checkpoint_analysis(decided);
    else checkpoints.after_analysis(res, res.graph, nullptr, decided);
  }
  if (watch.fired() || res.incomplete_reason == engine::stop_reason_name(StopReason::MemoryLimit))
    std::fprintf(stderr,
                 "ddsmc: stopped at the memory limit of %s (--memory) with %llu states; raise --memory to go "
                 "further (this machine has %s)\n",
                 format_bytes(memory_limit).c_str(), static_cast<unsigned long long>(res.num_states()),
                 format_bytes(available_memory()).c_str());

  bool full = true;
  char minimal[1024];
  if (json_out)
    full &= write_json(*json_out, [&] { return report_json(o); }, minimal_report_json(o, minimal, sizeof minimal));
  if (trace_out)
    full &= write_json(*trace_out, [&] { return traces_json(o); },
                       "{\"traces\": [], \"incomplete_reason\": \"out-of-memory\"}\n");
  if (!full) std::fprintf(stderr, "ddsmc: out of memory while writing the report: only the figures were written\n");
  int code = full ? check_exit_code(o) : kExitIncomplete;
  for (const auto& f : files)
    if (!f->deliver()) code = kExitIncomplete;
  return ranks ? ranks->finish(code) : code;
}

}  // namespace ddsmc::app
