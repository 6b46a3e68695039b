#include "dist/mailbox.hpp"

#include "dist/mpi_types.hpp"

#include <algorithm>
#include <climits>
#include <new>
#include <stdexcept>

namespace ddsmc::dist {

Mailbox::Mailbox(MPI_Comm comm, uint32_t words_per_message) : comm_(comm), words_(words_per_message) {
  MPI_Comm_rank(comm, &me_);
  MPI_Comm_size(comm, &ranks_);
  const auto r = static_cast<size_t>(ranks_);
  out_.resize(r);
  send_counts_.resize(r);
  recv_counts_.resize(r);
  recv_offsets_.resize(r);
  requests_.reserve(2 * r);
}

bool Mailbox::exchange(bool busy, engine::StopReason stop) {
  int vote[2] = {busy || queued_ > 0, static_cast<int>(stop)};
  MPI_Allreduce(MPI_IN_PLACE, vote, 2, MPI_INT, MPI_MAX, comm_);
  if (vote[1] != 0) throw engine::Cancelled(static_cast<engine::StopReason>(vote[1]));
  in_.clear();
  if (!vote[0]) return false;
  ++supersteps_;
  for (size_t r = 0; r < out_.size(); ++r) {
    if (out_[r].size() > size_t{INT_MAX}) throw std::length_error("dist: a mailbox queue of over 2^31 words");
    send_counts_[r] = static_cast<int>(out_[r].size());
    if (static_cast<int>(r) != me_) bytes_sent_ += out_[r].size() * sizeof(Word);
  }
  MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, comm_);
  size_t total = 0;
  for (size_t r = 0; r < out_.size(); ++r) {
    recv_offsets_[r] = total;
    total += static_cast<size_t>(recv_counts_[r]);
    if (total > size_t{1} << 30) throw std::length_error("dist: a superstep of over 2^30 words");
  }
  // (a rank that cannot hold what comes says so before the exchange)
  agree_on_stop(comm_, stop_of([&] { in_.resize(total); }));
  // In order of source rank, each source's messages in the order it sent them.
  requests_.clear();
  for (size_t r = 0; r < out_.size(); ++r) {
    if (static_cast<int>(r) == me_ || recv_counts_[r] == 0) continue;
    requests_.emplace_back();
    MPI_Irecv(in_.data() + recv_offsets_[r], recv_counts_[r], mpi_type<Word>(), static_cast<int>(r), kTag, comm_,
              &requests_.back());
  }
  for (size_t r = 0; r < out_.size(); ++r) {
    if (static_cast<int>(r) == me_ || send_counts_[r] == 0) continue;
    requests_.emplace_back();
    MPI_Isend(out_[r].data(), send_counts_[r], mpi_type<Word>(), static_cast<int>(r), kTag, comm_,
              &requests_.back());
  }
  const std::vector<Word>& self = out_[static_cast<size_t>(me_)];
  std::copy(self.begin(), self.end(), in_.begin() + static_cast<std::ptrdiff_t>(recv_offsets_[static_cast<size_t>(me_)]));
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (auto& q : out_) q.clear();
  queued_ = 0;
  return true;
}

void agree_on_stop(MPI_Comm comm, engine::StopReason stop) {
  int worst = static_cast<int>(stop);
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst != 0) throw engine::Cancelled(static_cast<engine::StopReason>(worst));
}

engine::StateId min_over_ranks(engine::StateId x, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, mpi_type<engine::StateId>(), MPI_MIN, comm);
  return x;
}

bool any_over_ranks(bool x, MPI_Comm comm) {
  int v = x ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, comm);
  return v != 0;
}

}  // namespace ddsmc::dist
