#include "dist/exchange.hpp"

#include <climits>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace ddsmc::dist {

namespace {

constexpr int kTag = 1;
constexpr std::size_t kPrefix = sizeof(std::uint32_t);

void append_record(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> record) {
  if (record.size() > static_cast<std::size_t>(INT_MAX) - kPrefix) throw std::length_error("Exchange: record too large");
  const auto n = static_cast<std::uint32_t>(record.size());
  const std::size_t at = out.size();
  out.resize(at + kPrefix + record.size());
  std::memcpy(out.data() + at, &n, kPrefix);
  if (!record.empty()) std::memcpy(out.data() + at + kPrefix, record.data(), record.size());
}

}  // namespace

Exchange::Exchange(MPI_Comm comm, ExchangeOptions options) : options_(options) {
  if (options_.max_in_flight == 0) options_.max_in_flight = 1;
  if (options_.batch_bytes == 0) options_.batch_bytes = 1;
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  batch_.resize(static_cast<std::size_t>(size_));
  in_flight_.resize(static_cast<std::size_t>(size_));
}

Exchange::~Exchange() {
  for (auto& queue : in_flight_) {
    for (auto& f : queue) MPI_Wait(&f.request, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&comm_);
}

std::vector<std::uint8_t> Exchange::take_buffer() {
  if (free_.empty()) return {};
  auto b = std::move(free_.back());
  free_.pop_back();
  b.clear();
  return b;
}

void Exchange::send(int to, std::span<const std::uint8_t> record) {
  ++stats_.records_sent;
  if (to == rank_) {
    append_record(self_, record);
    return;
  }
  auto& batch = batch_[static_cast<std::size_t>(to)];
  if (batch.size() + kPrefix + record.size() > static_cast<std::size_t>(INT_MAX)) post(to);
  append_record(batch, record);
  if (batch.size() >= options_.batch_bytes) post(to);
}

void Exchange::flush() {
  for (int to = 0; to < size_; ++to) {
    if (!batch_[static_cast<std::size_t>(to)].empty()) post(to);
  }
}

void Exchange::post(int to) {
  auto& queue = in_flight_[static_cast<std::size_t>(to)];
  // Wait for a slot, receiving meanwhile: the destination may itself be
  // waiting for a slot towards this rank, which only our receive frees.
  for (complete_sends(); queue.size() >= options_.max_in_flight; complete_sends()) {
    while (receive_one()) {
    }
  }
  auto& batch = batch_[static_cast<std::size_t>(to)];
  queue.push_back(InFlight{MPI_REQUEST_NULL, std::move(batch)});
  batch = take_buffer();
  auto& f = queue.back();
  ++stats_.batches_sent;
  stats_.bytes_sent += f.data.size();
  MPI_Isend(f.data.data(), static_cast<int>(f.data.size()), MPI_BYTE, to, kTag, comm_, &f.request);
}

void Exchange::complete_sends() {
  for (auto& queue : in_flight_) {
    // Batches to one destination complete in order often enough; testing
    // the front only keeps the deque a FIFO.
    while (!queue.empty()) {
      int done = 0;
      MPI_Test(&queue.front().request, &done, MPI_STATUS_IGNORE);
      if (!done) break;
      free_.push_back(std::move(queue.front().data));
      queue.pop_front();
    }
  }
}

bool Exchange::receive_one() {
  int ready = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &ready, &status);
  if (!ready) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  auto data = take_buffer();
  data.resize(static_cast<std::size_t>(count));
  MPI_Recv(data.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE);
  ++stats_.batches_received;
  stats_.bytes_received += static_cast<std::uint64_t>(count);
  received_.push_back(Received{status.MPI_SOURCE, std::move(data)});
  return true;
}

std::size_t Exchange::deliver(int from, std::span<const std::uint8_t> batch, Handler handler) {
  std::size_t n = 0;
  std::size_t at = 0;
  while (at < batch.size()) {
    std::uint32_t len = 0;
    std::memcpy(&len, batch.data() + at, kPrefix);
    at += kPrefix;
    handler(from, batch.subspan(at, len));
    at += len;
    ++n;
  }
  stats_.records_received += n;
  return n;
}

std::size_t Exchange::poll(Handler handler) {
  complete_sends();
  std::size_t n = 0;
  if (!self_.empty()) {
    // Records the handler sends to self now go to the next poll.
    std::vector<std::uint8_t> mine = std::move(self_);
    self_ = take_buffer();
    n += deliver(rank_, mine, handler);
    free_.push_back(std::move(mine));
  }
  for (;;) {
    if (received_.empty() && !receive_one()) break;
    Received r = std::move(received_.front());
    received_.pop_front();
    n += deliver(r.from, r.data, handler);
    free_.push_back(std::move(r.data));
  }
  return n;
}

bool Exchange::quiescent() const {
  if (!self_.empty() || !received_.empty()) return false;
  for (const auto& b : batch_) {
    if (!b.empty()) return false;
  }
  return true;
}

}  // namespace ddsmc::dist
