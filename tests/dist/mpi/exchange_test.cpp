// The exchange and termination detector under several ranks: records of
// every size reach the right rank intact, and a workload whose work
// reappears at idle ranks terminates with exactly the analytic token count;
// the analysis's mailbox carries 64-bit state ids whole.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "dist/exchange.hpp"
#include "dist/mailbox.hpp"
#include "dist/termination.hpp"

namespace ddsmc::dist {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
std::uint64_t sum_all(std::uint64_t v) {
  std::uint64_t total = 0;
  MPI_Allreduce(&v, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return total;
}
std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Record idx from `from` to `to`: its size cycles through 0, 1, 7 and
// larger-than-batch sizes; byte j is a function of (from, to, idx, j).
std::size_t record_size(std::size_t idx, std::size_t batch_bytes) {
  static const std::size_t sizes[] = {0, 1, 7, 100};
  if (idx % 5 == 4) return batch_bytes + 13 + idx % 3;
  return sizes[idx % 5 % 4];
}
std::uint8_t record_byte(int from, int to, std::size_t idx, std::size_t j) {
  return static_cast<std::uint8_t>(mix((static_cast<std::uint64_t>(from) << 48) ^ (static_cast<std::uint64_t>(to) << 32) ^
                                       (idx << 12) ^ j));
}

void all_to_all(ExchangeOptions options, std::size_t per_pair) {
  const int me = world_rank();
  const int n = world_size();
  Exchange ex(MPI_COMM_WORLD, options);
  Termination term(ex);
  // Records carry their index in the first 8 bytes when there is room;
  // receivers check sizes and contents per sender in arrival order, which
  // is the send order (MPI keeps order between two ranks).
  std::vector<std::size_t> next(static_cast<std::size_t>(n), 0);
  std::uint64_t bad = 0;
  auto handler = [&](int from, std::span<const std::uint8_t> rec) {
    const std::size_t idx = next[static_cast<std::size_t>(from)]++;
    if (rec.size() != record_size(idx, options.batch_bytes)) {
      ++bad;
      return;
    }
    for (std::size_t j = 0; j < rec.size(); ++j) {
      if (rec[j] != record_byte(from, me, idx, j)) {
        ++bad;
        return;
      }
    }
  };
  std::vector<std::uint8_t> buf;
  for (std::size_t idx = 0; idx < per_pair; ++idx) {
    for (int to = 0; to < n; ++to) {
      buf.resize(record_size(idx, options.batch_bytes));
      for (std::size_t j = 0; j < buf.size(); ++j) buf[j] = record_byte(me, to, idx, j);
      ex.send(to, buf);
    }
    if (idx % 16 == 0) ex.poll(handler);
  }
  for (;;) {
    ex.poll(handler);
    if (term.idle_check()) break;
  }
  EXPECT_EQ(bad, 0u);
  for (int from = 0; from < n; ++from) EXPECT_EQ(next[static_cast<std::size_t>(from)], per_pair) << "from " << from;
  EXPECT_EQ(sum_all(ex.stats().batches_sent), sum_all(ex.stats().batches_received));
  EXPECT_EQ(sum_all(ex.stats().bytes_sent), sum_all(ex.stats().bytes_received));
  EXPECT_EQ(ex.stats().records_received, per_pair * static_cast<std::size_t>(n));
}

TEST(Exchange, RecordsOfEverySizeArriveIntact) { all_to_all({.batch_bytes = 1024, .max_in_flight = 4}, 200); }
TEST(Exchange, TinyBatchesOneInFlight) { all_to_all({.batch_bytes = 64, .max_in_flight = 1}, 200); }
TEST(Exchange, DefaultOptions) { all_to_all({}, 100); }

// Every rank floods every other with large batches before polling once:
// with one batch in flight, each send waits for the peer's receive, which
// happens only because a waiting sender receives too.
TEST(Exchange, MutualFloodDoesNotDeadlock) {
  const int me = world_rank();
  const int n = world_size();
  Exchange ex(MPI_COMM_WORLD, {.batch_bytes = 1 << 20, .max_in_flight = 1});
  Termination term(ex);
  std::uint64_t got = 0;
  auto handler = [&](int, std::span<const std::uint8_t> rec) { got += rec.size() == (1u << 20) ? 1 : 1000000; };
  const std::vector<std::uint8_t> big(1 << 20, 0x5a);
  for (int i = 0; i < 32; ++i) {
    for (int to = 0; to < n; ++to) {
      if (to != me) ex.send(to, big);
    }
  }
  for (;;) {
    ex.poll(handler);
    if (term.idle_check()) break;
  }
  EXPECT_EQ(got, 32u * static_cast<std::uint64_t>(n - 1));
}

// State ids are 64-bit (docs/dist.md "State ids"): messages of ids past
// 2^32 (and near 2^64) arrive whole, from every rank to every rank.
TEST(Mailbox, CarriesStateIdsPast2To32) {
  const int me = world_rank(), ranks = world_size();
  Mailbox box(MPI_COMM_WORLD, 2);
  auto id = [](int from, int to, uint64_t k) { return (uint64_t{1} << 40) + uint64_t(from) * 100000 + uint64_t(to) * 1000 + k; };
  for (int to = 0; to < ranks; ++to)
    for (uint64_t k = 0; k < 10; ++k) {
      const Mailbox::Word msg[2] = {id(me, to, k), ~uint64_t{0} - uint64_t(me)};
      box.send(to, msg);
    }
  ASSERT_TRUE(box.exchange(false, engine::StopReason::None));
  std::vector<uint64_t> got(box.received().begin(), box.received().end());
  ASSERT_EQ(got.size(), size_t(ranks) * 10 * 2);
  std::vector<uint64_t> want;
  for (int from = 0; from < ranks; ++from)
    for (uint64_t k = 0; k < 10; ++k) {
      want.push_back(id(from, me, k));
      want.push_back(~uint64_t{0} - uint64_t(from));
    }
  EXPECT_EQ(got, want);
  EXPECT_FALSE(box.exchange(false, engine::StopReason::None));
}

TEST(Termination, NoWorkAtAll) {
  Exchange ex(MPI_COMM_WORLD);
  Termination term(ex);
  auto handler = [](int, std::span<const std::uint8_t>) { ADD_FAILURE() << "no record was sent"; };
  for (;;) {
    ex.poll(handler);
    if (term.idle_check()) break;
  }
  EXPECT_GE(term.waves(), 2u);
  EXPECT_THROW(term.idle_check(), std::logic_error);
}

// The case a single wave gets wrong: rank 1 joins the first wave while idle,
// then receives work from rank 0, answers it, and keeps working; rank 0
// joins that wave after the answer arrived. The wave's sums then match
// (one batch sent, one received) although rank 1 is still busy; the
// detector must wait for a second wave, so rank 0 gets the late record.
TEST(Termination, WorkReachesARankThatAlreadyJoinedAWave) {
  const int me = world_rank();
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  Exchange ex(MPI_COMM_WORLD);
  Termination term(ex);
  const std::uint8_t ping = 1, pong = 2, late = 3;
  bool waiting = false;
  int late_seen = 0;
  auto handler = [&](int from, std::span<const std::uint8_t> rec) {
    if (rec.size() != 1) return;
    if (rec[0] == ping) {  // at rank 1
      ex.send(from, std::span(&pong, 1));
      ex.flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // still working
      ex.send(from, std::span(&late, 1));
    } else if (rec[0] == pong) {
      waiting = false;
    } else if (rec[0] == late) {
      ++late_seen;
    }
  };
  if (me == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let rank 1 join wave 1 idle
    ex.send(1, std::span(&ping, 1));
    ex.flush();
    waiting = true;
  }
  for (;;) {
    ex.poll(handler);
    if (!waiting && term.idle_check()) break;
  }
  EXPECT_EQ(late_seen, me == 0 ? 1 : 0);
}

// Tokens: processing one with ttl > 0 sends `fanout` children with ttl-1 to
// ranks chosen by a hash of (id, child index). A root token of ttl L thus
// accounts for 1 + k + ... + k^L processed tokens, wherever they run.
struct Token {
  std::uint64_t id;
  std::uint32_t ttl;
};

struct Workload {
  std::uint32_t roots_per_rank;  // roots at rank 0 always; at others if !only_rank0
  bool only_rank0;
  std::uint32_t ttl;
  std::uint32_t fanout;
  ExchangeOptions options;
};

std::uint64_t tokens_per_root(std::uint32_t ttl, std::uint32_t fanout) {
  std::uint64_t total = 0;
  std::uint64_t level = 1;
  for (std::uint32_t d = 0; d <= ttl; ++d, level *= fanout) total += level;
  return total;
}

void run_tokens(const Workload& w) {
  const int me = world_rank();
  const int n = world_size();
  Exchange ex(MPI_COMM_WORLD, w.options);
  Termination term(ex);
  std::vector<Token> work;
  if (me == 0 || !w.only_rank0) {
    for (std::uint32_t j = 0; j < w.roots_per_rank; ++j) work.push_back({mix(static_cast<std::uint64_t>(me) * 1000 + j), w.ttl});
  }
  std::uint64_t processed = 0;
  std::uint64_t malformed = 0;
  auto handler = [&](int, std::span<const std::uint8_t> rec) {
    // Token records carry a payload of 0..31 bytes after the 12-byte token.
    Token t{};
    if (rec.size() < 12) {
      ++malformed;
      return;
    }
    std::memcpy(&t.id, rec.data(), 8);
    std::memcpy(&t.ttl, rec.data() + 8, 4);
    if (rec.size() != 12 + mix(t.id) % 32) ++malformed;
    work.push_back(t);
  };
  std::uint8_t rec[12 + 32] = {};
  for (;;) {
    for (std::size_t steps = 0; !work.empty(); ++steps) {
      const Token t = work.back();
      work.pop_back();
      ++processed;
      for (std::uint32_t c = 0; c < (t.ttl > 0 ? w.fanout : 0); ++c) {
        const Token child{mix(t.id * 31 + c + 1), t.ttl - 1};
        const int to = static_cast<int>(mix(t.id ^ (static_cast<std::uint64_t>(c) << 56)) % static_cast<std::uint64_t>(n));
        std::memcpy(rec, &child.id, 8);
        std::memcpy(rec + 8, &child.ttl, 4);
        ex.send(to, std::span<const std::uint8_t>(rec, 12 + mix(child.id) % 32));
      }
      if (steps % 32 == 31) ex.poll(handler);
    }
    ex.poll(handler);
    if (work.empty() && term.idle_check()) break;
  }
  const std::uint64_t roots = static_cast<std::uint64_t>(w.roots_per_rank) * (w.only_rank0 ? 1 : static_cast<std::uint64_t>(n));
  EXPECT_EQ(sum_all(processed), roots * tokens_per_root(w.ttl, w.fanout));
  EXPECT_EQ(malformed, 0u);
  EXPECT_EQ(sum_all(ex.stats().batches_sent), sum_all(ex.stats().batches_received));
  EXPECT_EQ(sum_all(ex.stats().records_sent), sum_all(ex.stats().records_received));
}

TEST(Termination, TokensFromEveryRank) { run_tokens({3, false, 7, 3, {.batch_bytes = 4096, .max_in_flight = 4}}); }
TEST(Termination, TokensFromRankZeroOnly) { run_tokens({1, true, 8, 3, {.batch_bytes = 4096, .max_in_flight = 4}}); }
TEST(Termination, TokensTinyBatchesOneInFlight) { run_tokens({2, false, 6, 3, {.batch_bytes = 64, .max_in_flight = 1}}); }
// A long thin chain: one token alive at a time, hopping between ranks, so
// every rank goes idle again and again while work still exists elsewhere.
TEST(Termination, SingleChainHopsBetweenIdleRanks) { run_tokens({1, true, 300, 1, {.batch_bytes = 64, .max_in_flight = 1}}); }

// Repeated runs in one process: each pair of objects dups and frees its
// communicators, and waves of one run cannot mix with the next.
TEST(Termination, RepeatedRuns) {
  for (int i = 0; i < 5; ++i) run_tokens({1, false, 4, 2, {.batch_bytes = 128, .max_in_flight = 2}});
}

}  // namespace
}  // namespace ddsmc::dist
