#include "app/checkpointing.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "hashing/fingerprint.hpp"

namespace ddsmc::app {

std::optional<double> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || v < 0) return std::nullopt;
  const std::string unit(end);
  if (unit.empty() || unit == "s") return v;
  if (unit == "m") return v * 60;
  if (unit == "h") return v * 3600;
  return std::nullopt;
}

Checkpointing::Checkpointing(std::optional<std::string> dir, std::optional<double> every_seconds,
                             const std::string& identity)
    : dir_(std::move(dir)), every_(every_seconds) {
  const hashing::Fingerprint f = hashing::fingerprint(identity);
  identity_ = fmt::format("{:016x}{:016x}", f.hi, f.lo);
}

bool Checkpointing::due() const {
  if (!dir_ || !every_) return false;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= *every_;
}

void Checkpointing::write(const engine::ExploreResult& res, engine::StateId next) {
  engine::CheckpointMeta meta;
  meta.identity = identity_;
  meta.ranks = 1;
  meta.seconds = res.seconds;
  try {
    engine::write_checkpoint(*dir_, res, next, meta);
    std::fprintf(stderr, "ddsmc: checkpoint of %u states (%u expanded) written to %s\n", res.graph.num_states(), next,
                 dir_->c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddsmc: no checkpoint written: %s\n", e.what());
  }
  last_ = std::chrono::steady_clock::now();
}

void Checkpointing::after_exploration(const engine::ExploreResult& res) {
  if (!dir_ || res.complete) return;
  const std::string& why = res.incomplete_reason;
  if (why != "interrupted" && why != "memory-limit" && why != "out-of-memory") return;
  write(res, res.graph.num_expanded());
  std::fprintf(stderr, "ddsmc: resume with --resume %s\n", dir_->c_str());
}

bool Checkpointing::restore(const std::string& dir, const engine::System& system, engine::ExploreResult& res,
                            engine::StateId& next) const {
  try {
    const engine::CheckpointMeta meta = engine::read_checkpoint(dir, system, res, [&](const engine::CheckpointMeta& m) {
      if (m.identity != identity_)
        throw engine::CheckpointError(
            "the checkpoint is of another check (the model, network, bounds, property, fairness, --on-bound or "
            "--max-states differ)");
      if (m.ranks != 1)
        throw engine::CheckpointError("the checkpoint was written by " + std::to_string(m.ranks) +
                                      " MPI ranks; this run has 1");
    });
    res.seconds = meta.seconds;
    next = static_cast<engine::StateId>(meta.next);
    std::fprintf(stderr, "ddsmc: resuming from %s: %llu states, %llu expanded\n", dir.c_str(),
                 static_cast<unsigned long long>(meta.states), static_cast<unsigned long long>(meta.next));
    return true;
  } catch (const engine::CheckpointError& e) {
    std::fprintf(stderr, "ddsmc: cannot resume from %s: %s\n", dir.c_str(), e.what());
    return false;
  }
}

}  // namespace ddsmc::app
