// Distributed termination detection for an Exchange: "work creates
// messages, messages create work", and work may reach a rank after it went
// idle. Mattern's four-counter method; each wave is one MPI_Iallreduce of
// (batches received, batches sent), joined by a rank only while it is
// passive. docs/dist.md, "Termination detection", gives the argument.
//
//   Termination term(exchange);
//   for (;;) {
//     ...process local work, sending records...
//     exchange.poll(handler);
//     if (no local work && term.idle_check()) break;
//   }
//
// Every rank of the exchange's communicator must run this loop until
// idle_check() returns true; it returns true on all ranks at the same wave.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

#include "dist/exchange.hpp"

namespace ddsmc::dist {

class Termination {
 public:
  // Duplicates the exchange's communicator for the waves.
  explicit Termination(Exchange& exchange);
  // Requires that idle_check() returned true (no wave outstanding).
  ~Termination();
  Termination(const Termination&) = delete;
  Termination& operator=(const Termination&) = delete;

  // Call only when this rank has no local work left. Flushes the exchange;
  // if it is then quiescent (nothing undelivered), joins the next wave if
  // none is outstanding, and tests the outstanding one. Returns true once
  // termination is detected (every rank passive, no batch in transit);
  // returns false otherwise, and the caller polls the exchange and loops.
  // After true, do not call it again.
  bool idle_check();

  // After idle_check() returned true: ready to detect the end of the next
  // phase of work (the counters run on; the four-counter condition is
  // about their increments between waves).
  void restart();

  std::uint64_t waves() const { return waves_; }

 private:
  Exchange& exchange_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Request wave_ = MPI_REQUEST_NULL;
  std::array<std::uint64_t, 2> mine_{};    // {received, sent} when this rank joined
  std::array<std::uint64_t, 2> total_{};   // the wave's sums
  bool have_previous_ = false;
  std::uint64_t previous_received_ = 0;    // R of the last completed wave
  std::uint64_t waves_ = 0;
  bool done_ = false;
};

}  // namespace ddsmc::dist
