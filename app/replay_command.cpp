// `ddsmc replay MODEL TRACE`: re-executes every trace in the file and checks
// what each claims (app/trace_file).
#include <cstdio>

#include "app/commands.hpp"
#include "app/trace_file.hpp"

namespace ddsmc::app {

int run_replay(const ReplayOptions& opts) {
  TraceFile file;
  if (const int code = load_trace_file(opts.model, opts.trace_path, file)) return code;
  bool all_ok = true;
  for (const auto& t : file.traces) all_ok &= replay_trace(*file.cm, t, stdout);
  return all_ok ? kExitHolds : kExitFails;
}

}  // namespace ddsmc::app
