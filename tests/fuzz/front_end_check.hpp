// One fuzz input through the whole front end (lex, parse, resolve), with the
// invariants that must hold for every input. Shared by the libFuzzer target
// (tests/fuzz/parse_fuzzer.cpp), which traps on a violation, and by the
// regression test (tests/model/fuzz_regression_test.cpp), which replays the
// seeds and the saved reproducers in the ordinary test build.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "model/load.hpp"
#include "model/parser.hpp"
#include "model/printer.hpp"

namespace ddsmc::fuzz {

// Generated networks the fuzzer may build without an override: bigger ones
// are legal (up to model::kMaxGeneratedNodes) but would only make the fuzzer
// slow, not find bugs in the front end.
inline constexpr uint64_t kMaxFuzzNetworkSize = 256;

namespace detail {

inline std::string check_diagnostics(const model::Diagnostics& diag, std::string_view text, bool have_model,
                                     const char* what) {
  if (have_model == diag.has_errors())
    return std::string(what) + (have_model ? ": a model came back along with errors" : ": no model but no error");
  // Locations must point into the text (or be unset).
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (const auto& d : diag.all()) {
    if (d.message.empty()) return std::string(what) + ": empty diagnostic message";
    for (char c : d.message) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f)
        return std::string(what) + ": raw control byte in a message: " + d.format();
    }
    if (d.loc.line > lines || (d.loc.line == 0) != (d.loc.col == 0))
      return std::string(what) + ": location outside the text: " + d.format();
  }
  return {};
}

inline bool small_networks_only(const model::Program& prog) {
  for (const auto& n : prog.networks) {
    const auto* g = std::get_if<model::NetworkGenerator>(&n);
    if (!g) continue;
    uint64_t size = 1;
    size_t counted = g->name == "random" ? 2 : g->args.size();  // random(N, D, SEED): the seed is free
    for (size_t i = 0; i < g->args.size() && i < counted; ++i) {
      if (g->args[i] > kMaxFuzzNetworkSize) return false;
      size *= g->args[i];
      if (size > kMaxFuzzNetworkSize) return false;
    }
  }
  return true;
}

}  // namespace detail

// Returns an empty string when every invariant holds, else what went wrong.
inline std::string check_front_end(std::string_view text) {
  const std::string file = "fuzz.d2c";
  std::string src(text);

  // 1. Parse, and print-then-parse must give the same tree (and the same text).
  model::Diagnostics pdiag(file);
  model::Program prog = model::parse_program(src, pdiag);
  if (auto e = detail::check_diagnostics(pdiag, src, !pdiag.has_errors(), "parse"); !e.empty()) return e;
  if (!pdiag.has_errors()) {
    std::string printed = model::to_text(prog);
    model::Diagnostics rdiag(file);
    model::Program again = model::parse_program(printed, rdiag);
    if (rdiag.has_errors()) return "printed program does not parse:\n" + printed + "\n" + rdiag.format_all();
    if (!(again == prog)) return "print-then-parse changed the program:\n" + printed;
    if (model::to_text(again) != printed) return "printing is not stable:\n" + printed;
  }

  // 2. The whole load with a fixed network override.
  {
    model::Overrides ov;
    ov.network_spec = "ring:3";
    model::Diagnostics diag(file);
    auto m = model::load_model_text(src, file, ov, diag);
    if (auto e = detail::check_diagnostics(diag, src, m.has_value(), "load with --network ring:3"); !e.empty())
      return e;
    if (m && m->network.num_nodes() != 3) return "load with --network ring:3: the network is not ring:3";
  }

  // 3. The whole load with the file's own network (when it is small).
  if (!pdiag.has_errors() && !detail::small_networks_only(prog)) return {};
  {
    model::Diagnostics diag(file);
    auto m = model::load_model_text(src, file, model::Overrides{}, diag);
    if (auto e = detail::check_diagnostics(diag, src, m.has_value(), "load"); !e.empty()) return e;
    if (m && m->network.num_nodes() == 0) return "load: a model with an empty network";
  }
  return {};
}

}  // namespace ddsmc::fuzz
