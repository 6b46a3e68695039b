// One rank's link to the others for a distributed algorithm run in phases
// (dist/explore.cpp): records of a few kinds, bundled per destination and
// kind (one Exchange record holds a kind byte and many length-framed
// records, so a record costs a few bytes and no call), an inbox that sorts
// incoming records by kind, collectives that keep the exchange moving while
// they wait, and the end of a phase by termination detection. Main thread
// only (MPI_THREAD_FUNNELED).
//
// Why records are sorted by kind: a phase ends on every rank at the same
// termination wave, but a rank that sees the end first may already send the
// next phase's records while another still polls in the old phase; those
// wait in the inbox for their phase.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "dist/exchange.hpp"
#include "dist/termination.hpp"

namespace ddsmc::dist {

// Received records of one kind, in arrival order.
struct RecordBatch {
  struct Rec {
    uint64_t offset;
    uint32_t size;
    int from;
  };
  std::vector<uint8_t> data;
  std::vector<Rec> recs;
  std::span<const uint8_t> record(size_t i) const { return {data.data() + recs[i].offset, recs[i].size}; }
  size_t size() const { return recs.size(); }
  bool empty() const { return recs.empty(); }
};

class Link {
 public:
  static constexpr int kKinds = 8;
  explicit Link(MPI_Comm comm, ExchangeOptions options = {});
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  int rank() const { return exchange_.rank(); }
  int size() const { return exchange_.size(); }
  Exchange& exchange() { return exchange_; }
  // A communicator for blocking collectives, once no record is in transit.
  MPI_Comm collectives() const { return coll_; }

  // Queues a record of a kind (< kKinds) for rank `to`; its bundle goes
  // out when it is full, or at flush().
  void post(int to, uint8_t kind, std::span<const uint8_t> record);
  // Sends a bundle built elsewhere (begin_bundle, Framed: dist/wire.hpp)
  // and clears it; nothing if it is empty.
  void send_bundle(int to, std::vector<uint8_t>& bundle);
  // Sends every partial bundle.
  void flush();
  // Moves what has arrived into the inbox.
  void pump();
  // Takes the records of one kind received so far.
  RecordBatch take(uint8_t kind);

  // In-place MPI_Allreduce that pumps while it waits (a blocking
  // collective could deadlock against a rank waiting to send to this one).
  void allreduce(void* data, int count, MPI_Datatype type, MPI_Op op);
  // The same in two halves: start, then (later) wait, pumping.
  MPI_Request start_allreduce(void* data, int count, MPI_Datatype type, MPI_Op op);
  void wait(MPI_Request& request);
  template <class T, size_t N>
  void allreduce(std::array<T, N>& a, MPI_Datatype type, MPI_Op op) {
    allreduce(a.data(), static_cast<int>(N), type, op);
  }

  // Ends a phase: delivers the records of `kind` to handle(batch) until
  // every rank is idle and no record is in transit (Termination); handle
  // may send. Returns when the phase is over on every rank.
  template <class Handle>
  void finish_phase(uint8_t kind, Handle&& handle) {
    for (;;) {
      pump();
      RecordBatch b = take(kind);
      if (!b.empty()) {
        handle(b);
        continue;
      }
      flush();
      if (termination_.idle_check()) break;
    }
    termination_.restart();
  }

  double seconds_waiting() const { return waiting_; }

 private:
  Exchange exchange_;
  Termination termination_;
  MPI_Comm coll_ = MPI_COMM_NULL;  // for the collectives
  std::array<RecordBatch, kKinds> inbox_;
  std::vector<std::array<std::vector<uint8_t>, kKinds>> outbox_;  // per destination and kind
  double waiting_ = 0;  // in collectives
};

}  // namespace ddsmc::dist
