#include "app/check_setup.hpp"

#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "app/check_identity.hpp"
#include "app/memory_limit.hpp"
#include "app/runtime.hpp"
#include "dist/mpi_context.hpp"
#include "engine/d2c/symmetry.hpp"
#include "engine/edge_store.hpp"

namespace ddsmc::app {
namespace {

std::vector<engine::Property> selected_properties(const std::string& p) {
  if (p == "all") return {std::begin(engine::kAllProperties), std::end(engine::kAllProperties)};
  for (auto prop : engine::kAllProperties)
    if (p == engine::property_name(prop)) return {prop};
  return {};
}

// The model and the properties; the identity of the check (empty when the
// model did not load), which the processes compare.
int load(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s, std::string& identity) {
  model::Diagnostics diag(opts.model.path);
  std::string model_bytes;  // as loaded: the check's identity is made of them
  s.model = model::load_model(opts.model.path, opts.model.overrides, diag, &model_bytes);
  if (processes.root()) std::fputs(diag.format_all().c_str(), stderr);
  int code = s.model ? 0 : kExitUsage;
  s.properties = selected_properties(opts.property);
  if (!code && s.properties.empty()) {
    if (processes.root())
      std::fprintf(stderr, "ddsmc: unknown property '%s' (all, sometimes-total, sometimes-partial, always-total, always-partial)\n",
                   opts.property.c_str());
    code = kExitUsage;
  }
  if (s.model) identity = check_identity(opts, *s.model, model_bytes);
  return code;
}

// The processes that loaded the model compare what they are about to check.
int agree_on_check(const engine::Processes& processes, int code, const std::string& identity, bool loaded) {
  code = processes.worst(code);
  if (auto e = processes.disagreement(loaded ? std::optional<std::string>(identity) : std::nullopt); e && !code) {
    if (processes.root()) std::fprintf(stderr, "ddsmc: %s\n", e->c_str());
    code = kExitUsage;
  }
  return code;
}

// Checkpoints: periodic ones between slices, one when a signal or memory
// stops the exploration or a signal the analysis, and the resume (each
// process writes and reads its part; engine/checkpoint.hpp). One check at a
// time writes into a directory: a second one is refused here (the lock is
// held to the end). The manifest of the one to resume is checked now
// (another check, another rank count), before any output file is touched.
int set_up_checkpoints(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s, int code,
                       const std::string& identity) {
  if (!code && opts.checkpoint_every && !opts.checkpoint) {
    if (processes.root()) std::fprintf(stderr, "ddsmc: --checkpoint-every needs --checkpoint DIR\n");
    code = kExitUsage;
  }
  s.checkpoints.emplace(opts.checkpoint,
                        opts.checkpoint_every ? parse_duration(*opts.checkpoint_every) : std::nullopt, identity,
                        processes);
  if (!code && s.checkpoints->enabled() && !s.checkpoints->lock()) code = kExitUsage;
  if (!code && opts.resume && !s.checkpoints->check_manifest(*opts.resume)) code = kExitUsage;
  return code;
}

// The model's step evaluator: rank 0 compiles first, the others then find
// its object in the cache (or, on a machine that does not share it, compile
// their own). A --backend compiled that cannot be had is refused before any
// output is touched. The compiler runs under the check's memory limit. In
// one process, auto does not wait for a compile: it starts interpreting
// (app/background_step.hpp).
int choose_step(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s) {
  engine::CompiledStepOptions compiler;
  compiler.memory_bytes = s.memory_limit;
  compiler.stop = &stop_requests();
  s.compiled.emplace(engine::compile(*s.model));
  const bool one_process = processes.size() == 1 && !dist::launched_under_mpi();
  if (processes.root())
    s.step = choose_step_backend(opts.backend, *s.compiled, true, compiler, -1, one_process ? &s.background : nullptr);
  processes.worst(0);
  if (!processes.root()) s.step = choose_step_backend(opts.backend, *s.compiled, false, compiler, processes.rank());
  return processes.worst(s.step ? 0 : kExitUsage);
}

// Where the edge rows go (engine/spill_file.hpp): --scratch DIR, else
// $TMPDIR, else /tmp. A directory given that cannot take the file is an
// error; the default one only keeps the rows in memory, as does one in RAM
// (a tmpfs: moving the rows there would save nothing), with a note saying
// so. Every process makes its own file (under MPI, in its machine's
// directory).
int set_up_scratch(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s) {
  if (opts.scratch == "none") {
    s.scratch_note = "--scratch none";
    return processes.worst(0);
  }
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string dir = opts.scratch ? *opts.scratch : tmpdir && *tmpdir ? tmpdir : "/tmp";
  int code = 0;
  try {
    s.scratch = engine::describe_scratch(dir);
    if (s.scratch->in_memory && !opts.scratch)
      s.scratch_note = dir + " is a " + s.scratch->filesystem + " (RAM): give --scratch DIR on a disk";
    else
      s.spill = std::make_shared<engine::SpillFile>(dir);
  } catch (const engine::SpillError& e) {
    s.scratch_note = e.what();
    if (opts.scratch) {
      std::fprintf(stderr, "ddsmc: --scratch %s\n", e.what());
      code = kExitUsage;
    }
  }
  return processes.worst(code);
}

// --symmetry auto (engine/d2c/symmetry.hpp): the system's group, said on
// stderr (by rank 0) with its generators or why there is none.
int set_up_symmetry(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s) {
  if (opts.symmetry != "auto") return 0;
  engine::SystemSymmetry sym = engine::system_symmetry(*s.model);
  const uint64_t edge_arcs = uint64_t{sym.group.order()} * s.model->network.num_arcs();
  if (!sym.group.trivial() && edge_arcs > engine::EdgeStore::kMaxArcs) {
    sym.why_smaller = "its order times the arcs does not fit the edge code";
    sym.group = hashing::SymmetryGroup(sym.group.shape());
  }
  if (processes.root()) std::fprintf(stderr, "ddsmc: symmetry: %s\n", engine::symmetry_text(sym).c_str());
  if (sym.group.trivial()) return 0;
  s.symmetry_generators = sym.generator_text;
  s.symmetry = std::make_shared<const hashing::SymmetryGroup>(std::move(sym.group));
  return 0;
}

// Every output is opened (created) by rank 0 before any work.
int open_outputs(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s) {
  if (!processes.root()) return 0;
  if (opts.dot_path && processes.size() > 1) {
    std::fprintf(stderr, "ddsmc: --dot draws the graph of one process; run it without mpirun\n");
    return kExitUsage;
  }
  std::string error;
  const std::vector<Output*> outputs = Output::open_all({opts.json_path, opts.trace_path, opts.html_path, opts.dot_path}, s.files, error);
  if (outputs.empty()) {
    std::fprintf(stderr, "ddsmc: %s\n", error.c_str());
    return kExitUsage;
  }
  s.json_out = outputs[0];
  s.trace_out = outputs[1];
  s.html_out = outputs[2];
  s.dot_out = outputs[3];
  return 0;
}

}  // namespace

int start_check(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s) {
  std::string identity;
  int code = load(opts, processes, s, identity);
  code = agree_on_check(processes, code, identity, s.model.has_value());
  if (!code) code = processes.worst(set_up_symmetry(opts, processes, s));  // (before the checkpoint directory is touched)
  code = set_up_checkpoints(opts, processes, s, code, identity);
  std::string().swap(identity);  // (the model file's bytes: up to 64 MiB)
  // --memory is per process; by default the processes on one machine share it.
  s.memory_limit = opts.memory ? *parse_memory_size(*opts.memory)
                               : default_memory_limit() / uint64_t(processes.on_node());
  if (!code) code = set_up_scratch(opts, processes, s);
  if (!code) code = choose_step(opts, processes, s);
  if (!code) code = open_outputs(opts, processes, s);
  return processes.worst(code);
}

}  // namespace ddsmc::app
