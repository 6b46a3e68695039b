#include "dist/termination.hpp"

#include <stdexcept>

namespace ddsmc::dist {

Termination::Termination(Exchange& exchange) : exchange_(exchange) {
  MPI_Comm_dup(exchange.comm(), &comm_);
}

Termination::~Termination() {
  // A wave still outstanding here means the loop was left early (a failed
  // test, an exception); it is not waited for, since that could hang.
  MPI_Comm_free(&comm_);
}

void Termination::restart() {
  if (!done_) throw std::logic_error("Termination::restart before termination was detected");
  done_ = false;
  have_previous_ = false;
}

bool Termination::idle_check() {
  if (done_) throw std::logic_error("Termination::idle_check called after termination");
  exchange_.flush();
  if (!exchange_.quiescent()) return false;
  if (wave_ == MPI_REQUEST_NULL) {
    // Join a wave: passive now, counters read now.
    const ExchangeStats& s = exchange_.stats();
    mine_ = {s.batches_received, s.batches_sent};
    MPI_Iallreduce(mine_.data(), total_.data(), 2, MPI_UINT64_T, MPI_SUM, comm_, &wave_);
  }
  int complete = 0;
  MPI_Test(&wave_, &complete, MPI_STATUS_IGNORE);
  if (!complete) return false;
  ++waves_;
  // Four-counter condition: R of wave k equals S of wave k+1.
  const std::uint64_t received = total_[0];
  const std::uint64_t sent = total_[1];
  if (have_previous_ && previous_received_ == sent) {
    done_ = true;
    return true;
  }
  have_previous_ = true;
  previous_received_ = received;
  return false;
}

}  // namespace ddsmc::dist
