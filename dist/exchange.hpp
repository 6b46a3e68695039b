// Batched, bounded exchange of byte-string records between MPI ranks.
// Records are length-prefixed into one batch per destination; a batch is
// posted with MPI_Isend when it reaches batch_bytes (or on flush()). At most
// max_in_flight batches per destination are outstanding: a send that would
// exceed the limit progresses (completes sends, receives incoming batches
// into a queue) until a slot frees, so two ranks sending to each other
// cannot deadlock. Only one thread may call into an Exchange
// (MPI_THREAD_FUNNELED). docs/dist.md describes the design.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "engine/function_ref.hpp"

namespace ddsmc::dist {

struct ExchangeOptions {
  std::size_t batch_bytes = 256 * 1024;  // post a batch once it holds this many bytes
  std::size_t max_in_flight = 4;         // outstanding batches per destination (>= 1)
};

struct ExchangeStats {
  std::uint64_t batches_sent = 0;      // over MPI, self-addressed records excluded
  std::uint64_t bytes_sent = 0;        // batch bytes, length prefixes included
  std::uint64_t batches_received = 0;  // over MPI
  std::uint64_t bytes_received = 0;
  std::uint64_t records_sent = 0;      // all records, self-addressed included
  std::uint64_t records_received = 0;  // all records delivered to a handler
};

class Exchange {
 public:
  using Handler = engine::FunctionRef<void(int from, std::span<const std::uint8_t> record)>;

  // Duplicates comm, so its traffic cannot match any other message.
  explicit Exchange(MPI_Comm comm, ExchangeOptions options = {});
  // Waits for the outstanding sends: destroy an Exchange only once every
  // rank has stopped sending and its batches have been received (after
  // Termination reported true), or the wait does not end.
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  const ExchangeStats& stats() const { return stats_; }

  // Appends record to the batch for rank `to`; may post the batch, and may
  // then progress until an in-flight slot frees. Records to self are queued
  // locally and delivered by the next poll(). The record is copied.
  void send(int to, std::span<const std::uint8_t> record);
  // Posts every non-empty partial batch (same bounded waiting as send).
  void flush();
  // Delivers what has arrived: batches queued while a send waited, records
  // to self, then every batch MPI has ready. handler(from, record) may call
  // send(). Returns the number of records delivered.
  std::size_t poll(Handler handler);

  // True when nothing is waiting here: no partial batch, no queued records
  // to self, no received batch queued undelivered. Outstanding (posted) sends
  // do not count: they are in the channel, counted by batches_sent.
  bool quiescent() const;

 private:
  struct InFlight {
    MPI_Request request;
    std::vector<std::uint8_t> data;
  };
  struct Received {
    int from;
    std::vector<std::uint8_t> data;
  };

  void post(int to);
  void complete_sends();
  bool receive_one();  // one ready batch into received_; false if none
  std::size_t deliver(int from, std::span<const std::uint8_t> batch, Handler handler);
  std::vector<std::uint8_t> take_buffer();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  ExchangeOptions options_;
  ExchangeStats stats_;
  std::vector<std::vector<std::uint8_t>> batch_;      // per destination
  std::vector<std::deque<InFlight>> in_flight_;       // per destination
  std::vector<std::uint8_t> self_;                    // framed records to self
  std::deque<Received> received_;                     // received, not yet delivered
  std::vector<std::vector<std::uint8_t>> free_;       // reusable buffers
};

}  // namespace ddsmc::dist
