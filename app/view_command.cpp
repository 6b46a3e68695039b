// `ddsmc view MODEL TRACE --html FILE | --svg FILE [--index K]`: the
// pictures of a saved trace file (check --trace/--json, simulate --trace).
// Every trace is first re-executed with replay's checks (app/trace_file):
// a trace that does not replay gets replay's message and exit code (1) and
// no picture (the output files are opened only after the replay); a file
// that cannot be read, or an output that cannot be opened, gets exit 2. Then --html writes
// the page of app/html_page (the file's figures and verdicts when it is a
// --json report), --svg the chart of one trace as a standalone SVG file.
#include <fmt/format.h>

#include <cstdio>

#include "app/chart_svg.hpp"
#include "app/commands.hpp"
#include "app/html_page.hpp"
#include "app/output.hpp"
#include "app/trace_file.hpp"

namespace ddsmc::app {
namespace {

// The trace --svg draws (1-based --index), or nullopt after saying why.
std::optional<size_t> svg_trace(const ViewOptions& opts, const TraceFile& file) {
  const size_t n = file.traces.size();
  if (opts.index == 0 && n > 1) {
    std::fprintf(stderr, "ddsmc: %s holds %zu traces; --svg draws one: choose it with --index 1..%zu\n",
                 opts.trace_path.c_str(), n, n);
    return std::nullopt;
  }
  if (opts.index > n) {
    std::fprintf(stderr, "ddsmc: --index %zu, but %s holds %zu trace%s\n", opts.index, opts.trace_path.c_str(), n,
                 n == 1 ? "" : "s");
    return std::nullopt;
  }
  return opts.index == 0 ? 0 : opts.index - 1;
}

}  // namespace

int run_view(const ViewOptions& opts) {
  if (!opts.html_path && !opts.svg_path) {
    std::fprintf(stderr, "ddsmc: view needs --html FILE or --svg FILE\n");
    return kExitUsage;
  }
  TraceFile file;
  if (const int code = load_trace_file(opts.model, opts.trace_path, file)) return code;
  std::optional<size_t> chosen;
  if (opts.svg_path && !(chosen = svg_trace(opts, file))) return kExitUsage;
  // The replay lines go to stdout, unless a picture goes there.
  std::FILE* lines = opts.html_path == "-" || opts.svg_path == "-" ? stderr : stdout;
  std::vector<engine::ConcreteRun> runs(file.traces.size());
  bool all_ok = true;
  for (size_t i = 0; i < runs.size(); ++i) all_ok &= replay_trace(*file.cm, file.traces[i], lines, &runs[i]);
  if (!all_ok) {
    std::fprintf(stderr, "ddsmc: a trace does not replay (above); no picture was written\n");
    return kExitFails;
  }
  // Opened only now: a trace that does not replay leaves the files as they were.
  std::vector<std::unique_ptr<Output>> files;
  std::string error;
  const std::vector<Output*> out = Output::open_all({opts.html_path, opts.svg_path}, files, error);
  if (out.empty()) {
    std::fprintf(stderr, "ddsmc: %s\n", error.c_str());
    return kExitUsage;
  }
  if (out[0]) {
    std::vector<PageTrace> traces;
    for (size_t i = 0; i < runs.size(); ++i) traces.push_back({file.traces[i].label, &runs[i]});
    out[0]->write(html_page(*file.cm, file.doc, traces));
  }
  if (out[1]) out[1]->write(chart_svg_document(*file.cm, runs[*chosen], file.traces[*chosen].label));
  int code = kExitHolds;
  for (const auto& f : files)
    if (!f->deliver()) code = kExitIncomplete;
  return code;
}

}  // namespace ddsmc::app
