// Visited-set benchmark (docs/engine.md, the lock-free visited set):
// find-or-put throughput of hashing::ConcurrentTable against
// tbb::concurrent_hash_map, both keyed by the 128-bit Fingerprint with a
// 32-bit ref as value, on a workload shaped like the explorer's.
//
// Usage: bench_table [--keys N] [--lookups L] [--threads 1,2] [--window W]
//                    [--chunk C] [--structures table,tbb] [--seed S]
//        (build/bench/bench_table; run by hand on an otherwise idle machine)
//
// Workload. N distinct keys, the canonical bytes of key k being a small
// byte string (16..24 bytes) made from k, its fingerprint hashing::fingerprint
// of them (XXH3-128), computed once before any run. One global sequence of
// N * L find-or-put operations: operation j with j % L == 0 is the first
// touch of key j / L (an insert: 1 in L operations, 10 % by default); each
// other one is a hit on a key already touched, drawn pseudo-randomly among
// the W keys touched last (so every key is looked up about L times in all).
// The sequence is cut into chunks of C operations, and thread t of T runs
// chunks t, t + T, t + 2T, ...: every thread runs the same operations, in
// the same order, for both structures. When a thread gets ahead of another,
// a "hit" may come before the insert of its key: it then inserts, and the
// later first touch hits. Either way each key is inserted exactly once over
// all threads (checked after every run).
//
// Exactness is emulated as the engine does it, identically for both: refs
// index a vector of canonical byte strings, the inserting thread stores the
// bytes at a fresh ref (a shared atomic counter) before the entry becomes
// visible, and every hit compares the stored bytes with the key's bytes.
// ConcurrentTable does this inside find_or_put (same/make); for the TBB map
// a find with a read accessor comes first (90 % of operations hit), then on
// a miss an insert with a write accessor that fills the value under the
// element's lock.
//
// Both structures are sized for N keys before the clock starts
// (ConcurrentTable(N / kMaxLoad), concurrent_hash_map(N buckets)), so
// neither grows during a run. Printed per (structure, threads): operations
// per second (wall clock), wall ns per operation (1e9 / ops/s), thread ns
// per operation (threads x wall / ops: the cost of one operation on one
// core, constant under perfect scaling), the speedup over the structure's
// 1-thread run, and the table's bytes per entry: ConcurrentTable's slot
// array, and for the TBB map every byte it asked its allocator for (buckets
// and nodes; tbb_allocator underneath, i.e. tbbmalloc when present). The
// byte-string vector and the fingerprints are shared and not counted.
// Memory at the defaults (20M keys): about 1 GB of fingerprints and byte
// strings plus 0.5 GB (ConcurrentTable) or about 1.5 GB (TBB) of table.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/resource.h>
#include <tbb/concurrent_hash_map.h>
#include <tbb/tbb_allocator.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hashing/concurrent_table.hpp"
#include "hashing/fingerprint.hpp"

namespace {

using ddsmc::hashing::ConcurrentTable;
using ddsmc::hashing::Fingerprint;
using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The canonical bytes of one key, inline (no allocation per string).
struct alignas(32) Bytes {
  uint8_t size = 0;
  std::array<char, 31> data{};
  friend bool operator==(const Bytes& a, const Bytes& b) {
    return a.size == b.size && std::memcmp(a.data.data(), b.data.data(), a.size) == 0;
  }
};

Bytes encode(uint64_t key) {
  Bytes b;
  b.size = static_cast<uint8_t>(16 + key % 9);
  const uint64_t words[3] = {key, mix(key), mix(key ^ 0x5555)};
  std::memcpy(b.data.data(), words, sizeof words);
  return b;
}

struct Workload {
  uint64_t keys = 20'000'000;
  uint32_t lookups = 10;
  uint64_t window = 0;  // 0: keys / 8
  uint32_t chunk = 1024;
  uint64_t seed = 1;
  std::vector<Fingerprint> prints;  // of encode(k), by key

  uint64_t ops() const { return keys * lookups; }
  uint64_t key_of(uint64_t j) const {
    const uint64_t m = j / lookups;
    if (j % lookups == 0 || m == 0) return m;
    return m - 1 - mix(j ^ seed) % std::min(m, window);
  }
};

// What every structure shares: the byte strings by ref and the ref counter.
struct Store {
  std::vector<Bytes> bytes;  // by ref
  std::atomic<uint32_t> next{0};
  uint32_t make(const Bytes& b) {
    const uint32_t ref = next.fetch_add(1, std::memory_order_relaxed);
    bytes[ref] = b;
    return ref;
  }
};

struct ThreadCounts {
  uint64_t inserted = 0;
  uint64_t mismatched = 0;  // a fingerprint hit whose bytes differ (TBB only: the table probes on)
};

// Bytes allocated by the TBB map, per thread (no shared counter in the
// timed loop); each worker adds its share to `total` when it ends.
struct AllocCount {
  static inline thread_local int64_t bytes = 0;
  static inline std::atomic<int64_t> total{0};
  static void flush() {
    total.fetch_add(bytes, std::memory_order_relaxed);
    bytes = 0;
  }
};

template <class T>
struct CountingAllocator {
  using value_type = T;
  CountingAllocator() = default;
  template <class U>
  CountingAllocator(const CountingAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    AllocCount::bytes += static_cast<int64_t>(n * sizeof(T));
    return tbb::tbb_allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) noexcept {
    AllocCount::bytes -= static_cast<int64_t>(n * sizeof(T));
    tbb::tbb_allocator<T>().deallocate(p, n);
  }
  template <class U>
  friend bool operator==(const CountingAllocator&, const CountingAllocator<U>&) noexcept {
    return true;
  }
};

struct PrintHashCompare {
  static size_t hash(const Fingerprint& f) { return static_cast<size_t>(f.lo); }
  static bool equal(const Fingerprint& a, const Fingerprint& b) { return a == b; }
};

using TbbMap = tbb::concurrent_hash_map<Fingerprint, uint32_t, PrintHashCompare,
                                        CountingAllocator<std::pair<const Fingerprint, uint32_t>>>;

struct TableOps {
  ConcurrentTable table;
  explicit TableOps(uint64_t keys)
      : table(static_cast<size_t>(static_cast<double>(keys) / ConcurrentTable::kMaxLoad) + 1) {}
  void op(const Fingerprint& f, const Bytes& b, Store& store, ThreadCounts& c) {
    auto r = table.find_or_put(
        f, [&](uint32_t ref) { return store.bytes[ref] == b; }, [&] { return store.make(b); });
    c.inserted += r.inserted;
  }
  size_t size() const { return table.size(); }
  double bytes() const { return static_cast<double>(table.memory_bytes()); }
};

struct TbbOps {
  std::unique_ptr<TbbMap> map;
  int64_t allocated_before;
  explicit TbbOps(uint64_t keys) {
    AllocCount::flush();
    allocated_before = AllocCount::total.load();
    map = std::make_unique<TbbMap>(static_cast<size_t>(keys));
    AllocCount::flush();
  }
  void op(const Fingerprint& f, const Bytes& b, Store& store, ThreadCounts& c) {
    uint32_t ref;
    {
      TbbMap::const_accessor hit;
      if (map->find(hit, f)) {
        ref = hit->second;
      } else {
        TbbMap::accessor put;
        if (map->insert(put, f)) {
          put->second = store.make(b);
          ++c.inserted;
          return;
        }
        ref = put->second;
      }
    }
    c.mismatched += !(store.bytes[ref] == b);
  }
  size_t size() const { return map->size(); }
  double bytes() const {
    AllocCount::flush();
    return static_cast<double>(AllocCount::total.load() - allocated_before);
  }
};

struct RunResult {
  double seconds = 0;
  ThreadCounts counts;
  size_t size = 0;
  double table_bytes = 0;
};

template <class Ops>
RunResult run(const Workload& w, Store& store, uint32_t threads) {
  store.next.store(0);
  Ops ops(w.keys);  // sized before the clock starts
  std::vector<ThreadCounts> counts(threads);
  std::atomic<bool> go{false};
  std::atomic<uint32_t> ready{0};
  const uint64_t chunks = (w.ops() + w.chunk - 1) / w.chunk;
  auto body = [&](uint32_t t) {
    ThreadCounts c;
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    for (uint64_t chunk = t; chunk < chunks; chunk += threads) {
      const uint64_t end = std::min(w.ops(), (chunk + 1) * w.chunk);
      for (uint64_t j = chunk * w.chunk; j < end; ++j) {
        const uint64_t key = w.key_of(j);
        ops.op(w.prints[key], encode(key), store, c);
      }
    }
    counts[t] = c;
    AllocCount::flush();
  };
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) pool.emplace_back(body, t);
  while (ready.load() < threads) std::this_thread::yield();
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  RunResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const auto& c : counts) {
    r.counts.inserted += c.inserted;
    r.counts.mismatched += c.mismatched;
  }
  r.size = ops.size();
  r.table_bytes = ops.bytes();
  return r;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  Workload w;
  std::vector<uint32_t> thread_counts{1, 2};
  std::vector<std::string> structures{"table", "tbb"};
  CLI::App app{"find-or-put throughput: hashing::ConcurrentTable against tbb::concurrent_hash_map"};
  app.add_option("--keys", w.keys, "distinct keys")->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 31));
  app.add_option("--lookups", w.lookups, "operations per key (1 first insert, the rest hits)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  app.add_option("--threads", thread_counts, "thread counts, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--window", w.window, "hits go to the W keys touched last (0: keys / 8)")->capture_default_str();
  app.add_option("--chunk", w.chunk, "operations per chunk; chunks go round-robin to the threads")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 24));
  app.add_option("--structures", structures, "table, tbb or both, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "tbb"}));
  app.add_option("--seed", w.seed, "seed of the hit sequence")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (w.window == 0) w.window = std::max<uint64_t>(1, w.keys / 8);

  const auto t0 = Clock::now();
  w.prints.resize(w.keys);
  for (uint64_t k = 0; k < w.keys; ++k) {
    const Bytes b = encode(k);
    w.prints[k] = ddsmc::hashing::fingerprint(b.data.data(), b.size);
  }
  Store store;
  store.bytes.resize(w.keys);  // touched here, not in the timed runs
  fmt::print("bench_table: {} keys, {} operations each ({:.0f} % first inserts), window {}, chunk {} ops; "
             "setup {:.1f} s\n",
             w.keys, w.lookups, 100.0 / w.lookups, w.window, w.chunk,
             std::chrono::duration<double>(Clock::now() - t0).count());
  fmt::print("{:<26} {:>7} {:>13} {:>10} {:>12} {:>8} {:>8} {:>7}\n", "structure", "threads", "ops/s", "ns/op",
             "thread-ns/op", "speedup", "B/entry", "seconds");

  std::map<std::string, double> one_thread;  // structure -> ops/s at 1 thread
  bool ok = true;
  for (uint32_t threads : thread_counts) {
    for (const auto& s : structures) {
      const bool table = s == "table";
      const RunResult r = table ? run<TableOps>(w, store, threads) : run<TbbOps>(w, store, threads);
      const std::string name = table ? "ddsmc ConcurrentTable" : "tbb::concurrent_hash_map";
      const double rate = static_cast<double>(w.ops()) / r.seconds;
      if (threads == 1) one_thread[s] = rate;
      const auto base = one_thread.find(s);
      fmt::print("{:<26} {:>7} {:>13.0f} {:>10.1f} {:>12.1f} {:>8} {:>8.1f} {:>7.2f}\n", name, threads, rate,
                 1e9 / rate, 1e9 * threads / rate,
                 base != one_thread.end() ? fmt::format("{:.2f}", rate / base->second) : "-",
                 r.table_bytes / static_cast<double>(r.size), r.seconds);
      std::fflush(stdout);
      if (r.counts.inserted != w.keys || r.size != w.keys || store.next.load() != w.keys || r.counts.mismatched) {
        fmt::print(stderr, "bench_table: {} at {} threads: {} inserts, size {}, {} refs, {} byte mismatches (want {})\n",
                   name, threads, r.counts.inserted, r.size, store.next.load(), r.counts.mismatched, w.keys);
        ok = false;
      }
    }
  }
  fmt::print("peak RSS {:.0f} MiB\n", peak_rss_mib());
  return ok ? 0 : 1;
}
