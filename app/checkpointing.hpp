// `--checkpoint DIR`, `--checkpoint-every DURATION` and `--resume DIR` of
// `ddsmc check` (one process; docs/engine.md §14): when to write a
// checkpoint, what it must match to be resumed, and the messages.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "engine/checkpoint.hpp"

namespace ddsmc::app {

// "90", "90s", "15m", "2h" (a number of seconds, minutes or hours; 0: at
// every chance); nullopt if not a duration.
std::optional<double> parse_duration(const std::string& text);

class Checkpointing {
 public:
  // `identity`: what must be the same to resume (check_identity()).
  Checkpointing(std::optional<std::string> dir, std::optional<double> every_seconds, const std::string& identity);
  bool enabled() const { return dir_.has_value(); }

  // The exploration's hooks (engine::ExploreOptions::checkpoint_due and
  // ::checkpoint): periodic checkpoints between slices.
  bool due() const;
  void write(const engine::ExploreResult& res, engine::StateId next);
  // After the exploration: a checkpoint when it was stopped by a signal or
  // memory (something a resume can go on from). Prints where it went.
  void after_exploration(const engine::ExploreResult& res);

  // Restores `res` from dir for this check: false (message printed, exit 2)
  // when it cannot be read or belongs to another check. `next` receives
  // where the exploration goes on.
  bool restore(const std::string& dir, const engine::System& system, engine::ExploreResult& res,
               engine::StateId& next) const;

 private:
  std::optional<std::string> dir_;
  std::optional<double> every_;
  std::string identity_;  // hex of a 128-bit hash
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace ddsmc::app
