// `ddsmc check`: explore, analyse the properties, report with traces: a
// driver over engine::Backend (engine/backend.hpp), the same in one process
// and under MPI (dist/launch.hpp: every rank runs this, rank 0 alone prints
// and writes, the others serve it inside the backend). Output paths are
// opened before any work (app/check_setup.hpp); a signal or running out of
// memory stops the work with what it has, and the report still goes out.
#include <fmt/format.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "app/check_report.hpp"
#include "app/check_setup.hpp"
#include "app/dot_graph.hpp"
#include "app/checkpointing.hpp"
#include "app/commands.hpp"
#include "app/memory_limit.hpp"
#include "app/output.hpp"
#include "app/runtime.hpp"
#include "dist/launch.hpp"
#include "engine/backend.hpp"
#include "engine/d2c/symmetry.hpp"
#include "engine/d2c/system.hpp"
#include "engine/d2c/trace.hpp"
#include "engine/workers.hpp"

namespace ddsmc::app {
namespace {

using engine::StopReason;

// After a signal, the analysis and the traces get this long (from the
// moment the engine saw the signal) to finish what they can.
constexpr auto kGrace = std::chrono::milliseconds(1000);

// Edge rows kept in memory past this size get a note saying why.
constexpr uint64_t kNoteRowsAbove = uint64_t{64} << 20;

void print_progress(const engine::ExploreProgress& p) {
  const double rss = static_cast<double>(current_rss_bytes());
  char disk[48] = "";
  if (p.disk) std::snprintf(disk, sizeof disk, "  disk %.1f MiB", static_cast<double>(p.disk) / 1048576.0);
  std::fprintf(stderr, "[%7.1fs] states %llu  transitions %llu  queue %llu  %.0f states/s  rss %.1f MiB  %.0f B/state%s\n",
               p.seconds, static_cast<unsigned long long>(p.states), static_cast<unsigned long long>(p.transitions),
               static_cast<unsigned long long>(p.queue), p.seconds > 0 ? p.states / p.seconds : 0.0, rss / 1048576.0,
               p.states ? rss / static_cast<double>(p.states) : 0.0, disk);
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

// Test only (docs/semantics.md §10): DDSMC_TESTING_FAIL_LIFT=1 makes every
// lift fail as an internal inconsistency would, which nothing else can.
bool testing_fail_lift() {
  const char* v = std::getenv("DDSMC_TESTING_FAIL_LIFT");
  return v && std::string_view(v) == "1";
}

// The encodings of the states hops go through, read from the backend.
std::function<engine::StateBytes()> hop_bytes(engine::Backend& backend, const std::vector<engine::Hop>& hops) {
  return [&backend, &hops] {
    std::vector<engine::StateId> ids;
    for (const auto& h : hops) ids.push_back(h.target);
    return backend.encodings(ids);
  };
}

// The encodings of a concrete lasso's or path's states (none when it is
// empty: it could not be made).
std::function<engine::StateBytes()> concrete_bytes(const engine::ConcreteLasso& l) {
  return [&l]() -> engine::StateBytes {
    if (l.states.empty()) return {};
    return [&l](engine::StateId s) { return l.states[s]; };
  };
}

// Lifts a quotient path to a concrete run, or says why not: a stop, or
// InternalError when the path does not lift (the graph contradicts the
// steps: the verdict it came with cannot be trusted).
// `bytes` gives the encodings of the hops' states (an empty function: the
// trace could not be made, which is reported as a lift that failed).
StopReason lift_run(const CheckOutcome& o, const std::function<engine::StateBytes()>& bytes,
                    const std::vector<engine::Hop>& hops, engine::Cancellation& cancel,
                    std::optional<engine::ConcreteRun>& run) {
  const StopReason r = guarded([&] {
    if (const engine::StateBytes b = bytes()) run = engine::lift(o.cm, b, hops, cancel);
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
void decide(CheckOutcome& o, engine::Backend& backend, const std::vector<engine::Property>& properties,
            engine::Cancellation& cancel, HumanText& human, const std::vector<engine::Verdict>& saved) {
  const auto& res = o.explored;
  for (auto p : properties) o.properties.push_back(PropertyOutcome{p, engine::Verdict{p, {}, {}, {}, {}, {}}, {}, {}});
  if (res.violation) {  // nothing is analysed (semantics.md §5)
    std::vector<engine::StateId> path;  // read back from the edges: one pass, 4 B per state
    o.bound_run_stopped =
        guarded([&] { path = backend.bound_path(res.violating_state, res.violating_parent); });
    std::optional<engine::ConcreteLasso> concrete;  // network symmetry: the path given concretely
    if (o.bound_run_stopped == StopReason::None)
      o.bound_run_stopped = guarded([&] { concrete = backend.concrete_path(path); });
    if (o.bound_run_stopped == StopReason::None && concrete) {
      std::vector<engine::StateId> ids(concrete->states.size());
      for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
      std::vector<engine::Hop> hops;
      for (size_t i = 0; i < concrete->edges.size(); ++i) hops.push_back({concrete->edges[i], i + 1});
      o.bound_run_stopped = lift_run(o, concrete_bytes(*concrete), hops, cancel, o.bound_run);
    } else if (o.bound_run_stopped == StopReason::None) {
      const auto hops = engine::path_hops(path);
      o.bound_run_stopped = lift_run(o, hop_bytes(backend, hops), hops, cancel, o.bound_run);
    }
    o.note_stop(o.bound_run_stopped);
    human.print([&] { return bound_text(o); });
    return;
  }
  for (auto& p : o.properties) {
    const auto t0 = std::chrono::steady_clock::now();
    auto known = std::find_if(saved.begin(), saved.end(), [&](const engine::Verdict& v) { return v.property == p.property; });
    p.stopped = guarded([&] {
      if (known != saved.end()) p.verdict = *known;
      else p.verdict = backend.analyze(p.property, res.complete);
    });
    o.analysis_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (p.stopped == StopReason::None && p.verdict.lasso) {
      const auto& l = *p.verdict.lasso;
      const auto hops = engine::lasso_hops(l.states, l.edges, l.loop_start);
      p.stopped = lift_run(o, hop_bytes(backend, hops), hops, cancel, p.run);
      if (p.run) p.run->loop_start = l.loop_start;
    } else if (p.stopped == StopReason::None && p.verdict.concrete) {
      // Network symmetry: the lasso's states are given by their encodings.
      const auto& l = *p.verdict.concrete;
      std::vector<engine::StateId> ids(l.states.size());
      for (size_t i = 0; i < ids.size(); ++i) ids[i] = i;
      const auto hops = engine::lasso_hops(ids, l.edges, l.loop_start);
      p.stopped = lift_run(o, concrete_bytes(l), hops, cancel, p.run);
      if (p.run) p.run->loop_start = l.loop_start;
    }
    if (p.stopped != StopReason::None) {
      p.verdict = engine::Verdict{p.property, {}, {}, {}, {}, {}};
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

// The exploration's options: its limits, its hooks (progress, stop,
// periodic checkpoints).
engine::ExploreOptions explore_options(const CheckOptions& opts, CheckSetup& s, size_t threads,
                                       engine::Cancellation& cancel) {
  engine::ExploreOptions eo;
  eo.threads = threads;
  eo.memory_limit = s.memory_limit;
  eo.memory_in_use = current_rss_bytes;
  eo.spill = s.spill;
  eo.max_states = opts.max_states;
  eo.on_bound = opts.on_bound == "prune" ? engine::OnBound::Prune : engine::OnBound::Stop;
  eo.placement = *engine::PlacementRule::parse(opts.partition_key);  // (checked by the command line)
  eo.cancel = &cancel;
  eo.progress = print_progress;
  if (s.checkpoints->enabled()) {
    Checkpointing& c = *s.checkpoints;
    eo.checkpoint_due = [&c] { return c.due(); };
    eo.checkpoint = [&c](const engine::ExplorePoint& p) { c.write(p); };
  }
  return eo;
}

// Between rounds of the exploration: the compiled step, once the compile
// in the background is over (its outcome said); true when the system now
// uses it. A stop request stops the compiler too.
bool take_background_step(CheckSetup& s, engine::D2cSystem& system, uint64_t states) {
  if (!s.background) return false;  // taken, or given up on, already
  if (stop_requests().load() != 0) s.background->stop();
  const engine::CompiledStepLibrary::Loaded* loaded = s.background->outcome();
  if (!loaded) return false;
  say_background_outcome(*loaded, states);
  const bool taken = loaded->library != nullptr;
  if (taken) {
    s.step->compiled = loaded->library;
    s.compiled_from_state = states;
    system.use_step(loaded->library);
  }
  s.background.reset();
  return taken;
}

// This process's part of the checkpoint to resume (read on the
// exploration's workers), or nullopt (every process: restore() agrees).
std::optional<engine::Restored> restore(const std::string& dir, const Checkpointing& checkpoints,
                                        const engine::System& system, size_t threads) {
  engine::Restored r{engine::StateGraph(system.layout(), size_t{1} << 12, system.edge_arcs()), {}, {}};
  std::optional<engine::CheckpointMeta> meta;
  tbb::task_arena(static_cast<int>(threads)).execute([&] {
    meta = checkpoints.restore(dir, system, r.graph, r.gids);
  });
  if (!meta) return std::nullopt;
  r.meta = std::move(*meta);
  return r;
}

// A signal stopped the analysis of a whole graph: save the graph and the
// verdicts decided, so that a resume analyses only the rest.
void checkpoint_stopped_analysis(const CheckOutcome& o, const CheckSetup& s, engine::Backend& backend) {
  if (!s.checkpoints->enabled() || !o.explored.complete ||
      std::none_of(o.properties.begin(), o.properties.end(),
                   [](const PropertyOutcome& p) { return p.stopped == StopReason::Interrupted; }))
    return;
  std::vector<engine::Verdict> decided;
  for (const auto& p : o.properties)
    // (Under network symmetry a verdict with a trace is not saved: its
    // lasso is concrete, the checkpoint's are graph paths; the resume
    // analyses that property again.)
    if (p.stopped == StopReason::None && p.verdict.holds && !p.verdict.concrete) decided.push_back(p.verdict);
  backend.checkpoint_analysis(decided);
}

void say_memory_limit(const CheckOutcome& o, const MemoryWatch& watch) {
  if (watch.fired() || o.explored.incomplete_reason == engine::stop_reason_name(StopReason::MemoryLimit))
    std::fprintf(stderr,
                 "ddsmc: stopped at the memory limit of %s (--memory) with %llu states; raise --memory to go "
                 "further (this machine has %s)\n",
                 format_bytes(o.memory_limit).c_str(), static_cast<unsigned long long>(o.explored.num_states()),
                 format_bytes(available_memory()).c_str());
}

// When the edge rows did not go to disk though they were large, or stopped
// going there: why (stderr).
void say_scratch(const CheckOutcome& o) {
  const uint64_t rows = o.explored.memory.edge_rows;
  if (!o.spill_error.empty())
    std::fprintf(stderr, "ddsmc: warning: %s: the edge rows stayed in memory from then on (%s of them)\n",
                 o.spill_error.c_str(), format_bytes(rows).c_str());
  else if (!o.scratch_note.empty() && rows >= kNoteRowsAbove)
    std::fprintf(stderr, "ddsmc: note: the edge rows (%s) stayed in memory: %s\n", format_bytes(rows).c_str(),
                 o.scratch_note.c_str());
}

// --dot: the graph the check explored, unless it is larger than
// --dot-max-states (then a graph that says so, and a note on stderr).
void write_dot(const CheckOutcome& o, const CheckSetup& s, const engine::Backend& backend,
               engine::Cancellation& cancel) {
  const engine::StateGraph& g = backend.graph();
  if (g.num_states() > o.opts.dot_max_states) {
    std::fprintf(stderr, "ddsmc: --dot: not drawn: the graph has %llu states, more than --dot-max-states (%llu)\n",
                 static_cast<unsigned long long>(g.num_states()),
                 static_cast<unsigned long long>(o.opts.dot_max_states));
    s.dot_out->write(dot_refusal(g.num_states(), o.opts.dot_max_states));
    return;
  }
  const hashing::SymmetryGroup trivial(engine::network_shape(o.model));
  const DotInput in{o.cm, g, s.symmetry ? *s.symmetry : trivial,
                    o.opts.fairness == "none" ? engine::Fairness::None : engine::Fairness::Channel,
                    fmt::format("{}: network {}, {} states{}, fairness {}{}", o.opts.model.path,
                                o.model.network.description(), g.num_states(),
                                s.symmetry ? fmt::format(" (orbits under a group of order {})", s.symmetry->order())
                                           : "",
                                o.opts.fairness, o.explored.complete ? "" : ", incomplete")};
  std::string text;
  const StopReason r = guarded([&] { text = dot_graph(in, cancel); });
  s.dot_out->write(r == StopReason::None ? std::string_view(text) : "digraph ddsmc { stopped; }\n");
}

// The --json and --trace documents, then every output delivered: the exit code.
int write_outputs(const CheckOutcome& o, const CheckSetup& s) {
  bool full = true;
  char minimal[1024];
  if (s.json_out)
    full &= write_json(*s.json_out, [&] { return report_json(o); }, minimal_report_json(o, minimal, sizeof minimal));
  if (s.trace_out)
    full &= write_json(*s.trace_out, [&] { return traces_json(o); },
                       "{\"traces\": [], \"incomplete_reason\": \"out-of-memory\"}\n");
  if (s.html_out) {
    std::string page;
    const StopReason r = guarded([&] {
      throw_if_memory_low();
      page = html_report(o);
    });
    s.html_out->write(r == StopReason::None ? std::string_view(page)
                                            : "<!DOCTYPE html><p>ddsmc: out of memory while drawing the charts</p>\n");
    full &= r == StopReason::None;
  }
  if (!full) std::fprintf(stderr, "ddsmc: out of memory while writing the report: only the figures were written\n");
  int code = full ? check_exit_code(o) : kExitIncomplete;
  for (const auto& f : s.files)
    if (!f->deliver()) code = kExitIncomplete;
  return code;
}

// The leader's part after the exploration: the analysis, the traces and
// the report. `saved`: the verdicts a resumed checkpoint brings.
int analyse_and_report(const CheckOptions& opts, const CheckSetup& s, const engine::ExploreResult& res,
                       engine::Backend& backend, size_t threads, engine::Cancellation& cancel,
                       const std::vector<engine::Verdict>& saved, const MemoryWatch& watch) {
  // The exploration's memory is free again: set the reserve aside anew, so
  // that the analysis is guarded as the exploration was.
  if (res.incomplete_reason == engine::stop_reason_name(StopReason::OutOfMemory)) refill_memory_reserve();
  CheckOutcome o{opts, *s.model, *s.compiled, res, {}, {}, {}, {}, s.memory_limit};
  o.backend = s.step->name();
  o.compile_seconds = s.step->compile_seconds();
  o.compiled_from_state = s.compiled_from_state;
  o.symmetry_order = s.symmetry ? s.symmetry->order() : 1;
  o.symmetry_generators = s.symmetry_generators;
  o.figures = backend.figures();
  o.scratch = s.scratch ? &*s.scratch : nullptr;
  o.scratch_note = s.scratch_note;
  o.spill_error = backend.graph().spill_error();
  o.disk_bytes = backend.graph().memory().disk;
  const bool json_on_stdout = s.json_out == &Output::standard() || s.trace_out == &Output::standard() ||
                              s.html_out == &Output::standard();
  HumanText human(json_on_stdout ? Output::standard_error() : Output::standard(), o);
  human.print([&] { return header_text(o); });
  // The analysis runs on as many threads as the exploration did.
  tbb::task_arena(static_cast<int>(threads)).execute([&] { decide(o, backend, s.properties, cancel, human, saved); });
  checkpoint_stopped_analysis(o, s, backend);
  if (s.dot_out) write_dot(o, s, backend, cancel);
  say_memory_limit(o, watch);
  say_scratch(o);
  return write_outputs(o, s);
}

}  // namespace

int run_check(const CheckOptions& opts) {
  const std::unique_ptr<engine::Processes> processes = dist::start_processes(kExitIncomplete);
  CheckSetup s;
  if (const int code = start_check(opts, *processes, s)) return code;
  engine::WorkerPool pool(opts.threads);
  engine::Cancellation cancel(stop_requests());
  begin_graceful_stop();
  MemoryWatch watch(s.memory_limit);
  engine::D2cSystem system(*s.compiled, s.step->compiled);
  system.set_symmetry(s.symmetry);
  std::optional<engine::Restored> restored;
  if (opts.resume && !(restored = restore(*opts.resume, *s.checkpoints, system, pool.threads()))) return kExitUsage;
  const std::vector<engine::Verdict> saved = restored ? restored->meta.verdicts : std::vector<engine::Verdict>{};
  const auto fairness = opts.fairness == "none" ? engine::Fairness::None : engine::Fairness::Channel;
  const std::unique_ptr<engine::Backend> backend =
      processes->backend(fairness, cancel, [&c = *s.checkpoints](const auto&... a) { c.after_analysis(a...); });
  engine::ExploreOptions eo = explore_options(opts, s, pool.threads(), cancel);
  if (s.background) eo.generators_changed = [&](uint64_t states) { return take_background_step(s, system, states); };
  const engine::ExploreResult& res = backend->explore(system, eo, std::move(restored));
  s.background.reset();  // a compile not over yet is stopped: the exploration is
  s.checkpoints->after_exploration(res, backend->graph(), backend->gids());
  cancel.set_grace(kGrace);
  // The analysis and the traces read states back, never look them up: the
  // visited set and the tree's index go, and with them the exploration's
  // buffers malloc still holds.
  backend->end_exploration(peak_rss_bytes());
  release_free_memory();
  return backend->lead(
      [&] { return analyse_and_report(opts, s, res, *backend, pool.threads(), cancel, saved, watch); });
}

}  // namespace ddsmc::app
