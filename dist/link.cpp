#include "dist/link.hpp"

#include <chrono>
#include <stdexcept>

namespace ddsmc::dist {

Link::Link(MPI_Comm comm, ExchangeOptions options) : exchange_(comm, options), termination_(exchange_) {
  MPI_Comm_dup(comm, &coll_);
}

Link::~Link() { MPI_Comm_free(&coll_); }

void Link::pump() {
  exchange_.poll([&](int from, std::span<const uint8_t> record) {
    if (record.empty() || record[0] >= kKinds) throw std::logic_error("dist: a record of no known kind");
    RecordBatch& b = inbox_[record[0]];
    b.recs.push_back({b.data.size(), static_cast<uint32_t>(record.size()), from});
    b.data.insert(b.data.end(), record.begin(), record.end());
  });
}

RecordBatch Link::take(uint8_t kind) {
  RecordBatch out;
  std::swap(out, inbox_[kind]);
  return out;
}

void Link::allreduce(void* data, int count, MPI_Datatype type, MPI_Op op) {
  const auto t0 = std::chrono::steady_clock::now();
  exchange_.flush();
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, data, count, type, op, coll_, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) break;
    pump();
  }
  waiting_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace ddsmc::dist
