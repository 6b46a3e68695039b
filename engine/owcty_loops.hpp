// The pieces of the OWCTY walks' parallel loops (engine/owcty.cpp in one
// process, dist/owcty.cpp on a rank with several workers): what a loop
// adds up, the cancellation polled per chunk, and the lists of states that
// workers append to, each to its own part. Every loop runs on the caller's
// task arena (engine/parallel.hpp); worker_slot() indexes the per-worker
// parts.
#pragma once

#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/cancel.hpp"
#include "engine/edge_store.hpp"  // StateId
#include "engine/owcty_fixpoint.hpp"  // OwctyCells, kPending
#include "engine/parallel.hpp"

namespace ddsmc::engine::owcty_loops {

inline constexpr size_t kSweepGrain = 1024;  // states per chunk of a sweep over all states
inline constexpr size_t kListGrain = 256;    // states per chunk of a list
// A propagation sweeps its domain while the work list holds at least
// 1/kSweepAbove of it, and goes level by level through explicit lists of
// states once the work list holds less than 1/kListUnder of it.
inline constexpr uint64_t kSweepAbove = 16;
inline constexpr uint64_t kListUnder = 64;

// What a parallel loop adds up: one or two counts.
struct Tally {
  int64_t first = 0, second = 0;
  Tally& operator+=(const Tally& t) {
    first += t.first;
    second += t.second;
    return *this;
  }
  Tally& operator+=(int64_t x) {
    first += x;
    return *this;
  }
};
// The sum of the results of a loop's bodies, added up per chunk.
class Sum {
 public:
  void add(const Tally& t) {
    first_.fetch_add(t.first, std::memory_order_relaxed);
    second_.fetch_add(t.second, std::memory_order_relaxed);
  }
  Tally get() const { return {first_.load(), second_.load()}; }

 private:
  std::atomic<int64_t> first_{0}, second_{0};
};

inline size_t arena_slots() { return static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency())); }

// The caller's Cancellation, polled before each pass, and one copy of it
// per worker slot, polled per chunk (a Cancellation keeps a little state of
// its own: one per thread). The copies start from the caller's, so an
// interrupt it has seen keeps its grace period.
class Polls {
 public:
  Polls(Cancellation& cancel, size_t slots) : cancel_(cancel), copies_(slots, cancel) {}
  void start_pass() {
    cancel_.poll();
    std::fill(copies_.begin(), copies_.end(), cancel_);
  }
  void poll() { copies_.at(worker_slot()).poll(); }

 private:
  Cancellation& cancel_;
  std::vector<Cancellation> copies_;
};

// body(s) for every state of [begin, end), in parallel chunks, polling per
// chunk; returns the sum of what it returns (an int64_t or a Tally).
template <class Body>
Tally sum_over(StateId begin, StateId end, Polls& polls, Body&& body) {
  Sum total;
  parallel_for(begin, end, kSweepGrain, [&](const tbb::blocked_range<StateId>& r) {
    polls.poll();
    Tally sum;
    for (StateId s = r.begin(); s != r.end(); ++s) sum += body(s);
    total.add(sum);
  });
  return total.get();
}

// A list of states that the workers of a parallel loop append to, each to
// its own part, and that a later loop reads in chunks.
class StateList {
 public:
  explicit StateList(size_t slots) : parts_(slots) {}
  void push(StateId s) { parts_.at(worker_slot()).push_back(s); }  // inside a parallel loop
  void push_here(StateId s) { parts_[0].push_back(s); }            // outside one
  void clear() {
    for (auto& p : parts_) p.clear();
  }
  uint64_t size() const {
    uint64_t n = 0;
    for (const auto& p : parts_) n += p.size();
    return n;
  }
  void swap(StateList& other) noexcept { parts_.swap(other.parts_); }

  // body(s) for every state of the list, in parallel chunks, polling per
  // chunk; returns the sum of what it returns (an int64_t or a Tally).
  template <class Body>
  Tally for_each(Polls& polls, Body&& body) const {
    std::vector<std::pair<uint32_t, size_t>> chunks;  // (part, first index)
    for (uint32_t p = 0; p < parts_.size(); ++p)
      for (size_t b = 0; b < parts_[p].size(); b += kListGrain) chunks.emplace_back(p, b);
    Sum total;
    parallel_for(size_t{0}, chunks.size(), 1, [&](const tbb::blocked_range<size_t>& r) {
      Tally sum;
      for (size_t c = r.begin(); c != r.end(); ++c) {
        polls.poll();
        const auto& part = parts_[chunks[c].first];
        const size_t end = std::min(part.size(), chunks[c].second + kListGrain);
        for (size_t i = chunks[c].second; i < end; ++i) sum += body(part[i]);
      }
      total.add(sum);
    });
    return total.get();
  }

 private:
  std::vector<std::vector<StateId>> parts_;  // one per worker slot
};

// Puts s on a propagation's work list (flag kPending), appending it to
// `level` when the list goes by levels (nullptr: by sweeps, which find it
// by its flag); true if it was not on it.
inline bool pend(OwctyCells<true>& cells, StateId s, StateList* level) {
  if ((cells.flags(s) & kPending) || !cells.set_flags(s, kPending)) return false;
  if (level) level->push(s);
  return true;
}

}  // namespace ddsmc::engine::owcty_loops
