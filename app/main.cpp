// ddsmc: command-line entry point. Parses the command line (CLI11) and hands
// over to one subcommand; usage errors exit with code 2.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "app/commands.hpp"

namespace {

using ddsmc::app::ModelOptions;

// The model path and the overrides shared by the commands that load a model.
void add_model_options(CLI::App& cmd, ModelOptions& opts, bool with_bounds) {
  cmd.add_option("MODEL", opts.path, "the .d2c model file")->required();
  cmd.add_option("--network", opts.overrides.network_spec,
                 "network: ring:N line:N star:N complete:N grid:RxC tree:N random:N:D:SEED or an edge-list file");
  if (!with_bounds) return;
  cmd.add_option("--input-bound", opts.overrides.input_bound, "at most N facts per input DB");
  cmd.add_option("--state-bound", opts.overrides.state_bound, "at most N distinct constants per node DB");
  cmd.add_option("--channel-bound", opts.overrides.channel_bound, "at most N payloads per channel");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ddsmc: explicit-state model checker for declarative distributed systems (D2C)", "ddsmc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ddsmc 0.1.0");

  ModelOptions lint_opts;
  CLI::App* lint = app.add_subcommand("lint", "static checks only: parse, resolve, print a summary");
  add_model_options(*lint, lint_opts, true);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ddsmc::app::kExitUsage;
  }

  if (lint->parsed()) return ddsmc::app::run_lint(lint_opts);
  return ddsmc::app::kExitUsage;
}
