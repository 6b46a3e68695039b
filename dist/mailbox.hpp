// Messages between the ranks of the distributed analysis (docs/dist.md,
// "The distributed analysis"), in bulk-synchronous supersteps: each rank
// works on its states, queuing a message per edge into a state another
// rank owns, then every rank exchanges its queues at once
// (the counts by MPI_Alltoall, then each queue straight from where it was
// written to its destination, point to point with tag kTag on the
// communicator: nothing else may use that tag there). A message is a fixed
// number of 64-bit words (state ids are 64-bit).
//
// Memory: a rank's queues hold at most about kFullWords words (4 MiB)
// before it must exchange, and what it receives in a superstep is what
// the others queued for it: a few MiB per rank whatever the graph's size
// (docs/dist.md, "Memory per rank").
//
// Termination: before each exchange the ranks agree (one MPI_Allreduce)
// on whether any of them has work left or a message to send. When none
// has, the pass is over: an exchange completes every message it starts, so
// nothing is in transit then, and a rank only gets work from messages.
// The same vote carries stops: a rank that was interrupted, ran out of
// memory or hit its limit says so, and every rank throws Cancelled with
// the worst reason, together, so that no rank waits for one that left.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "dist/handles.hpp"
#include "engine/edge_store.hpp"
#include "engine/cancel.hpp"

namespace ddsmc::dist {

class Mailbox {
 public:
  using Word = engine::StateId;

  // The queues hold at most this many words before their rank must
  // exchange (a superstep then moves a few ms of work: cheap against it).
  static constexpr size_t kFullWords = size_t{1} << 19;
  static constexpr int kTag = 0x4d42;

  Mailbox(MPI_Comm comm, uint32_t words_per_message);
  int me() const { return me_; }
  int ranks() const { return ranks_; }

  void send(int to, const Word* message) {
    auto& q = out_[static_cast<size_t>(to)];
    q.insert(q.end(), message, message + words_);
    queued_ += words_;
  }
  // Queues whole messages at once (words.size() a multiple of words()).
  void send_all(int to, const std::vector<Word>& words) {
    auto& q = out_[static_cast<size_t>(to)];
    q.insert(q.end(), words.begin(), words.end());
    queued_ += words.size();
  }
  bool full() const { return queued_ >= kFullWords; }

  // Collective. `busy`: this rank has work left besides its queues;
  // `stop`: a stop it saw (StopReason::None: none). Throws Cancelled on
  // every rank if any stopped; returns false, having moved nothing, when
  // no rank was busy or had a message; otherwise delivers every queue and
  // returns true (received() holds this rank's messages).
  bool exchange(bool busy, engine::StopReason stop);
  const std::vector<Word>& received() const { return in_; }
  uint32_t words() const { return words_; }

  uint64_t supersteps() const { return supersteps_; }
  uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  MPI_Comm comm_;
  int me_ = 0, ranks_ = 1;
  uint32_t words_;
  std::vector<std::vector<Word>> out_;
  size_t queued_ = 0;
  std::vector<Word> in_;
  std::vector<int> send_counts_, recv_counts_;
  std::vector<size_t> recv_offsets_;
  std::vector<MPI_Request> requests_;
  uint64_t supersteps_ = 0, bytes_sent_ = 0;
};

// Runs `work` and returns the stop it threw (Cancelled, or std::bad_alloc
// as OutOfMemory), for the next vote.
template <class Work>
engine::StopReason stop_of(Work&& work) {
  try {
    work();
  } catch (const engine::Cancelled& c) {
    return c.reason();
  } catch (const std::bad_alloc&) {
    return engine::StopReason::OutOfMemory;
  }
  return engine::StopReason::None;
}

// Collective: throws Cancelled on every rank if any rank's `stop` is one.
void agree_on_stop(MPI_Comm comm, engine::StopReason stop);

// Collective: the least of every rank's x; whether any rank's x is true.
engine::StateId min_over_ranks(engine::StateId x, MPI_Comm comm);
bool any_over_ranks(bool x, MPI_Comm comm);

// A message about a state (msg[0]: its handle; the rest: what the pass
// carries): arrive(its local id, msg) at once when this rank owns it,
// otherwise queued for its owner, whose supersteps deliver it (there:
// arrive(handles.local(msg[0]), msg)).
template <class Arrive>
void to_owner(Mailbox& box, const Handles& handles, const Mailbox::Word* msg, Arrive&& arrive) {
  if (handles.mine(msg[0])) arrive(handles.local(msg[0]), msg);
  else box.send(handles.owner(msg[0]), msg);
}

// Runs `step` (true: this rank has work left) and exchanges, again and
// again, while any rank has work left or a message on the way, delivering
// each message received (box.words() per message) to `deliver`.
template <class Step, class Deliver>
void supersteps(Mailbox& box, Step&& step, Deliver&& deliver) {
  for (;;) {
    bool busy = false;
    const engine::StopReason stop = stop_of([&] { busy = step(); });
    if (!box.exchange(busy, stop)) return;
    const auto& in = box.received();
    for (size_t k = 0; k + box.words() <= in.size(); k += box.words()) deliver(&in[k]);
  }
}

}  // namespace ddsmc::dist
