#include "dist/link.hpp"

#include "dist/wire.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace ddsmc::dist {

namespace {

// A bundle goes out once it holds this much.
constexpr size_t kBundleBytes = size_t{128} << 10;

}  // namespace

Link::Link(MPI_Comm comm, ExchangeOptions options)
    : exchange_(comm, options), termination_(exchange_), outbox_(static_cast<size_t>(exchange_.size())) {
  MPI_Comm_dup(comm, &coll_);
}

void Link::post(int to, uint8_t kind, std::span<const uint8_t> record) {
  std::vector<uint8_t>& b = outbox_[size_t(to)][kind];
  begin_bundle(b, kind);
  {
    Framed f(b);
    b.insert(b.end(), record.begin(), record.end());
  }
  if (b.size() >= kBundleBytes) send_bundle(to, b);
}

void Link::send_bundle(int to, std::vector<uint8_t>& bundle) {
  if (bundle.empty()) return;
  exchange_.send(to, bundle);
  bundle.clear();
}

void Link::flush() {
  for (size_t to = 0; to < outbox_.size(); ++to)
    for (auto& b : outbox_[to]) send_bundle(static_cast<int>(to), b);
}

Link::~Link() { MPI_Comm_free(&coll_); }

void Link::pump() {
  exchange_.poll([&](int from, std::span<const uint8_t> bundle) {
    if (bundle.empty() || bundle[0] >= kKinds) throw std::logic_error("dist: a bundle of no known kind");
    RecordBatch& b = inbox_[bundle[0]];
    const uint64_t base = b.data.size();
    b.data.insert(b.data.end(), bundle.begin(), bundle.end());
    for (size_t at = 1; at < bundle.size();) {
      uint32_t n = 0;
      if (bundle.size() - at < 4) throw std::logic_error("dist: a truncated bundle");
      std::memcpy(&n, bundle.data() + at, 4);
      if (bundle.size() - at - 4 < n) throw std::logic_error("dist: a truncated bundle");
      b.recs.push_back({base + at + 4, n, from});
      at += 4 + n;
    }
  });
}

RecordBatch Link::take(uint8_t kind) {
  RecordBatch out;
  std::swap(out, inbox_[kind]);
  return out;
}

void Link::allreduce(void* data, int count, MPI_Datatype type, MPI_Op op) {
  MPI_Request request = start_allreduce(data, count, type, op);
  wait(request);
}

MPI_Request Link::start_allreduce(void* data, int count, MPI_Datatype type, MPI_Op op) {
  flush();
  exchange_.flush();
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, data, count, type, op, coll_, &request);
  return request;
}

void Link::wait(MPI_Request& request) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) break;
    pump();
  }
  waiting_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace ddsmc::dist
