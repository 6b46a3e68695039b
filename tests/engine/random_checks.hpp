// The random checks of the explorer's differential tests (threads against
// ranks, checkpoints against uninterrupted runs): random programs with
// input (so fresh constants) or without, on small networks, with random
// state and channel bounds, `--on-bound`, `--max-states` and 1-2 threads.
// Every draw comes from one seeded generator, so ranks that make the same
// calls get the same checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/explore.hpp"
#include "tests/engine/reference_support.hpp"

namespace ddsmc::reftest {

class RandomChecks {
 public:
  explicit RandomChecks(uint64_t seed) : rng_(seed), gen_(rng_, options(true)), gen_plain_(rng_, options(false)) {}

  struct Check {
    std::optional<model::Model> model;  // empty when the program does not load
    bool with_input = false;
    engine::ExploreOptions eo;
    std::string what;  // the program and the check, for failure messages
  };

  Check next() {
    Check c;
    c.with_input = coin(rng_, 0.45);
    const std::string text = c.with_input ? gen_.generate_explore() : gen_plain_.generate();
    model::Overrides ov;
    ov.network_spec = pick(rng_, networks_);
    ov.state_bound = uni(rng_, 1, 2);
    ov.channel_bound = uni(rng_, 1, 2);
    if (c.with_input) ov.input_bound = 1;
    c.eo.threads = uni(rng_, 1, 2);
    c.eo.on_bound = coin(rng_, 0.5) ? engine::OnBound::Prune : engine::OnBound::Stop;
    c.eo.max_states = coin(rng_, 0.3) ? uni(rng_, 1, 300) : kBig;
    c.model = load_text(text, ov);
    c.what = "program (network " + *ov.network_spec + ", threads " + std::to_string(c.eo.threads) +
             ", max-states " + std::to_string(c.eo.max_states) + "):\n" + text;
    return c;
  }

  // An exploration cut at kBig states was not meant to be cut: too big to bother.
  static bool too_big(const Check& c, const engine::ExploreResult& r) {
    return r.incomplete_reason == "max-states" && c.eo.max_states == kBig;
  }

  Rng& rng() { return rng_; }

 private:
  static constexpr uint64_t kBig = 4000;
  static GenOptions options(bool input) {
    GenOptions opt;
    opt.min_input = opt.max_input = input ? 1 : 0;  // without: no fresh constants, the incremental (patched) path
    opt.max_input_arity = 1;
    opt.max_state = 2;
    opt.max_transport_arity = 1;
    opt.min_rules = 3;
    opt.max_rules = 6;
    return opt;
  }
  Rng rng_;
  ProgramGenerator gen_, gen_plain_;
  const std::vector<std::string> networks_ = {"line:2", "ring:3", "line:3", "star:3", "ring:4"};
};

}  // namespace ddsmc::reftest
