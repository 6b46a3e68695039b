#include "app/checkpointing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <random>

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
                             const std::string& identity, const engine::Processes& processes)
    : dir_(std::move(dir)), every_(every_seconds), processes_(processes) {
  const hashing::Fingerprint f = hashing::fingerprint(identity);
  identity_ = fmt::format("{:016x}{:016x}", f.hi, f.lo);
}

bool Checkpointing::due() const {
  if (!dir_ || !every_) return false;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= *every_;
}

int Checkpointing::first_failure(const std::string& error) const {
  const std::vector<uint64_t> failed = processes_.all(error.empty() ? 0 : 1);
  for (size_t k = 0; k < failed.size(); ++k)
    if (failed[k]) return static_cast<int>(k);
  return -1;
}

int Checkpointing::rank() const { return processes_.rank(); }

void Checkpointing::print_failure(int k, const char* what, const std::string& dir, const std::string& error,
                                  const char* tail) const {
  std::fprintf(stderr, "ddsmc: %s %s: %s%s%s\n", what, dir.c_str(), k ? fmt::format("rank {}: ", k).c_str() : "",
               error.c_str(), tail);
}

bool Checkpointing::agree(const std::string& error, const char* what, const std::string& dir) const {
  const int k = first_failure(error);
  if (k >= 0 && k == rank()) print_failure(k, what, dir, error, "");
  return k < 0;
}

bool Checkpointing::lock() {
  std::string error, warning;
  if (processes_.root()) error = lock_.acquire(*dir_, warning);
  if (!warning.empty()) std::fprintf(stderr, "ddsmc: warning: checkpoints in %s: %s\n", dir_->c_str(), warning.c_str());
  return agree(error, "cannot write checkpoints to", *dir_);
}

uint64_t Checkpointing::new_generation() const {
  // A fresh number, so that a checkpoint never overwrites the parts the
  // manifest names (a resumed run may write into the directory it resumed from).
  const uint64_t g = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}() ^
                     static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  return processes_.from_root(g);
}

void Checkpointing::write(const engine::ExplorePoint& p) { (void)write_checkpoint(p, {}, false); }

// The write's failure, said by the failing rank: a periodic checkpoint's
// once (the same error at every slice says nothing new), the stop's always.
void Checkpointing::report_failure(int k, const std::string& error, bool at_stop) {
  if (k != rank() || (!at_stop && error == last_error_)) return;
  last_error_ = error;
  print_failure(k, "no checkpoint written to", *dir_, error,
                at_stop ? ""
                        : "; the check goes on without it and tries again at the next checkpoint (this error is "
                          "not repeated)");
}

bool Checkpointing::write_checkpoint(const engine::ExplorePoint& p, const std::vector<engine::Verdict>& decided,
                                     bool at_stop) {
  engine::CheckpointMeta meta = engine::checkpoint_meta(p);
  meta.verdicts = decided;
  meta.identity = identity_;
  meta.ranks = static_cast<uint32_t>(processes_.size());
  meta.generation = new_generation();
  const bool root = processes_.root();
  auto attempt = [](auto&& f) -> std::string {
    try {
      f();
      return {};
    } catch (const std::bad_alloc&) {
      return "out of memory";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  // The parts, then the manifest: the manifest always names whole parts.
  std::string error = attempt([&] { engine::write_checkpoint_part(*dir_, rank(), p, meta); });
  int failed = first_failure(error);
  if (failed < 0) {
    if (root) error = attempt([&] { engine::write_checkpoint_manifest(*dir_, meta); });
    failed = first_failure(error);
  }
  if (failed >= 0) {
    report_failure(failed, error, at_stop);
    std::error_code ec;
    std::filesystem::remove(engine::checkpoint_part_file(*dir_, rank(), meta.generation), ec);
    last_ = std::chrono::steady_clock::now();
    return false;
  }
  engine::remove_other_checkpoint_parts(*dir_, rank(), meta.generation);
  written_states_ = meta.states;
  last_ = std::chrono::steady_clock::now();
  if (root)
    std::fprintf(stderr, "ddsmc: checkpoint of %llu states (%llu expanded) written to %s\n",
                 static_cast<unsigned long long>(meta.states), static_cast<unsigned long long>(meta.next),
                 dir_->c_str());
  return true;
}

void Checkpointing::write_point(const engine::ExploreResult& res, const engine::StateGraph& graph,
                                const std::vector<engine::StateId>* gids, uint64_t next,
                                const std::vector<engine::Verdict>& decided) {
  engine::ExplorePoint p(graph, gids);
  p.states = res.num_states();
  p.next = next;
  p.transitions = res.num_transitions();
  p.pruned_states = res.pruned_states;
  p.canonical = res.canonical;
  p.sizes = res.sizes;
  p.seconds = res.seconds;
  const bool written = write_checkpoint(p, decided, true);
  if (!processes_.root()) return;
  // The hint only where there is something to resume from.
  if (written)
    std::fprintf(stderr, "ddsmc: resume with --resume %s\n", dir_->c_str());
  else if (written_states_)
    std::fprintf(stderr,
                 "ddsmc: %s still holds the checkpoint of %llu states this run wrote earlier: "
                 "resume with --resume %s\n",
                 dir_->c_str(), static_cast<unsigned long long>(*written_states_), dir_->c_str());
}

void Checkpointing::after_exploration(const engine::ExploreResult& res, const engine::StateGraph& graph,
                                      const std::vector<engine::StateId>* gids) {
  if (!dir_ || res.complete) return;
  const std::string& why = res.incomplete_reason;
  if (why != "interrupted" && why != "memory-limit" && why != "out-of-memory") return;
  // The states expanded over every rank are a prefix of the ids.
  uint64_t next = 0;
  for (uint64_t n : processes_.all(graph.num_expanded())) next += n;
  write_point(res, graph, gids, next);
}

void Checkpointing::after_analysis(const engine::ExploreResult& res, const engine::StateGraph& graph,
                                   const std::vector<engine::StateId>* gids,
                                   const std::vector<engine::Verdict>& decided) {
  if (!dir_ || !res.complete) return;
  write_point(res, graph, gids, res.num_states(), decided);
}

engine::CheckpointMeta Checkpointing::matching_manifest(const std::string& dir) const {
  const uint32_t ranks = static_cast<uint32_t>(processes_.size());
  engine::CheckpointMeta meta = engine::read_checkpoint_manifest(dir);
  if (meta.identity != identity_)
    throw engine::CheckpointError(
        "the checkpoint is of another check (the model, network, bounds, property, fairness, --on-bound or "
        "--max-states differ)");
  if (meta.ranks != ranks)
    throw engine::CheckpointError("the checkpoint was written by " + std::to_string(meta.ranks) + " MPI rank" +
                                  (meta.ranks == 1 ? "" : "s") + "; this run has " + std::to_string(ranks));
  return meta;
}

bool Checkpointing::check_manifest(const std::string& dir) const {
  std::string error;
  try {
    (void)matching_manifest(dir);
  } catch (const engine::CheckpointError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "out of memory while reading the checkpoint";
  }
  return agree(error, "cannot resume from", dir);
}

std::optional<engine::CheckpointMeta> Checkpointing::restore(const std::string& dir, const engine::System& system,
                                                             engine::StateGraph& graph,
                                                             std::vector<engine::StateId>& gids) const {
  const uint32_t rank = static_cast<uint32_t>(processes_.rank());
  engine::CheckpointMeta meta;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  try {
    meta = matching_manifest(dir);
    engine::read_checkpoint_part(dir, rank, meta, system, graph, gids);
  } catch (const engine::CheckpointError& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "out of memory while reading the checkpoint";
  }
  if (!agree(error, "cannot resume from", dir)) return std::nullopt;
  // The parts must add up to the manifest's figures.
  uint64_t states = 0, expanded = 0, edges = 0;
  const auto s = processes_.all(graph.num_states()), x = processes_.all(graph.num_expanded()),
             e = processes_.all(graph.num_edges());
  for (size_t k = 0; k < s.size(); ++k) states += s[k], expanded += x[k], edges += e[k];
  // The read's time: the slowest rank's.
  uint64_t micros = 0;
  for (uint64_t t : processes_.all(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count())))
    micros = std::max(micros, t);
  if (states != meta.states || expanded != meta.next || edges != meta.transitions) {
    if (processes_.root())
      std::fprintf(stderr, "ddsmc: cannot resume from %s: the checkpoint is corrupted (its parts do not add up)\n",
                   dir.c_str());
    return std::nullopt;
  }
  if (processes_.root())
    std::fprintf(stderr, "ddsmc: resuming from %s: %llu states, %llu expanded (read in %.2f s)\n", dir.c_str(),
                 static_cast<unsigned long long>(meta.states), static_cast<unsigned long long>(meta.next),
                 static_cast<double>(micros) / 1e6);
  return meta;
}

}  // namespace ddsmc::app
