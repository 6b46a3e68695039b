// Input enumeration benchmark (docs/engine.md §5): how many input DBs the
// engine generates for one state, and how long it takes, as the input arity,
// the input bound and the number of constants in the state grow; side by
// side with the subset filter ddsmc used before (every combination of
// candidate facts, kept when its new constants appear in first-use order).
//
// Usage: bench_inputs [MAX_SECONDS_PER_ROW]   (build/bench/bench_inputs)
// One model per arity A: `input in/A. s(X1..XA) if in(X1..XA).` on one node,
// so the fixed constants are the node name and the state's fresh constants
// are added as old constants.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/inputs.hpp"
#include "model/load.hpp"

namespace {

using ddsmc::engine::Word;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string model_text(uint32_t arity) {
  std::string vars;
  for (uint32_t i = 0; i < arity; ++i) vars += (i ? ", X" : "X") + std::to_string(i);
  return fmt::format(
      "input in/{0}.\nstate s/{0}.\ntransport go/0.\ns({1}) if in({1}).\ngo@M if start@_, my_name(M).\n"
      "network {{ a. }}\n",
      arity, vars);
}

// The enumeration ddsmc used before orderly generation, kept here as the
// baseline: all combinations of 1..bound candidate facts over the domain
// (old constants, then bound * arity new ones), filtered.
uint64_t subset_filter(uint32_t arity, uint32_t bound, uint32_t olds, uint64_t budget, bool* finished) {
  const uint32_t domain = olds + bound * arity;
  std::vector<std::vector<Word>> facts;
  std::vector<uint32_t> idx(arity, 0);
  while (true) {
    facts.emplace_back(idx.begin(), idx.end());
    size_t k = arity;
    while (k > 0 && ++idx[k - 1] == domain) idx[--k] = 0;
    if (k == 0) break;
  }
  uint64_t kept = 1, examined = 0;
  for (uint32_t size = 1; size <= bound && size <= facts.size(); ++size) {
    std::vector<size_t> comb(size);
    for (uint32_t i = 0; i < size; ++i) comb[i] = i;
    while (true) {
      if (++examined > budget) {
        *finished = false;
        return kept;
      }
      Word expect = olds;
      bool canonical = true;
      for (size_t i = 0; i < size && canonical; ++i)
        for (Word w : facts[comb[i]]) {
          if (w < olds) continue;
          if (w == expect) ++expect;
          else if (w > expect) { canonical = false; break; }
        }
      kept += canonical;
      size_t k = size;
      while (k > 0 && comb[k - 1] == facts.size() - size + (k - 1)) --k;
      if (k == 0) break;
      ++comb[k - 1];
      for (size_t i = k; i < size; ++i) comb[i] = comb[i - 1] + 1;
    }
  }
  *finished = true;
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  const double limit = argc > 1 ? std::atof(argv[1]) : 20.0;
  fmt::print("{:>5} {:>5} {:>6} | {:>12} {:>9} {:>11} | {:>12} {:>9}\n", "arity", "bound", "consts", "orderly DBs",
             "seconds", "DBs/s", "filter kept", "seconds");
  for (uint32_t arity = 1; arity <= 3; ++arity) {
    ddsmc::model::Diagnostics diag("bench");
    for (uint32_t bound = 1; bound <= 4; ++bound) {
      ddsmc::model::Overrides ov;
      ov.input_bound = bound;
      auto m = ddsmc::model::load_model_text(model_text(arity), "bench.d2c", ov, diag);
      if (!m) {
        fmt::print(stderr, "{}", diag.format_all());
        return 2;
      }
      ddsmc::engine::CompiledModel cm = ddsmc::engine::compile(*m);
      for (uint32_t state_consts : {0u, 2u, 5u}) {
        std::vector<Word> fresh;
        for (uint32_t i = 0; i < state_consts; ++i) fresh.push_back(cm.layout.num_fixed + i);
        ddsmc::engine::InputEnumerator en(cm);
        uint64_t n = 0;
        bool done = true;
        auto t0 = Clock::now();
        try {
          en.for_each(fresh, [&](const std::vector<Word>&) {
            if ((++n & 0xffff) == 0 && seconds_since(t0) > limit) throw 0;
          });
        } catch (int) {
          done = false;
        }
        double t = seconds_since(t0);
        const uint32_t olds = cm.layout.num_fixed + state_consts;
        bool filter_done = false;
        auto t1 = Clock::now();
        uint64_t kept = subset_filter(arity, bound, olds, static_cast<uint64_t>(limit * 5e7), &filter_done);
        double tf = seconds_since(t1);
        fmt::print("{:>5} {:>5} {:>6} | {:>12} {:>9.3f} {:>11.0f} | {:>12} {:>9}\n", arity, bound, olds,
                   done ? fmt::format("{}", n) : fmt::format(">{}", n), t, t > 0 ? n / t : 0.0,
                   filter_done ? fmt::format("{}", kept) : "(too many)",
                   filter_done ? fmt::format("{:.3f}", tf) : fmt::format(">{:.0f}", tf));
      }
    }
  }
  return 0;
}
