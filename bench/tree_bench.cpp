// Tree-compressed state store benchmark: hashing::TreeStore against a flat
// copy of every state's bytes, on flooding-like states made without the
// model code.
//
// Usage: bench_tree [--nodes N] [--threads 1,2] [--chunk C]
//        (build/bench/bench_tree; run by hand on an otherwise idle machine)
//
// The protocol. A ring of N nodes; per node a `have` bit and a `start`
// pending bit (node 0 only, initially); per arc a token count, the arcs
// being, per node n, n -> n+1, n -> n-1 and the self loop n -> n (3N arcs,
// arc 3n + k). A step consumes node n's pending start or one token from a
// non-empty arc into its target; a node that gets `have` in a step where it
// did not have it before sends one token on each of its 3 arcs. Every
// reachable state is enumerated by BFS on this plain data, deduplicated on
// the exact bytes of its encoding (an std::unordered_set of std::string:
// the flat copy), and checked against a second dedup on the plain data.
//
// The encoding. Layout: predicates have/0 (0), token/0 (1), start/0 (2); a
// node's DB holds have() and start() facts, an arc's channel token() with
// its count; hashing::encode_segmented gives the parts (P = 4N parts:
// N DBs, then 3N channels).
//
// Printed: states, the store's leaves and nodes, its bytes per state (all
// it allocated: slots, pair segments, leaf offsets and arena, after
// interning every state in BFS order from the default sizes, growing on
// TableFull as the engine would), and the flat bytes per state (encoding
// bytes + an 8-byte offset, as StateGraph keeps them; the visited set's
// table is extra in both cases). Then throughput at each thread count, the
// states or successors cut in chunks of C that go round-robin to threads:
//   intern-new:   intern() of every state into an empty store reserved for
//                 them (each state once: a mix of new and known subtrees)
//   intern-hit:   intern() of every state again (all known: lookups)
//   succ-full:    per state, every successor: its whole SegmentedEncoding
//                 built from plain data, then intern() (all known)
//   succ-patched: the same successors through intern_patched() from the
//                 state's tree (tree_of once per state), only the changed
//                 parts encoded (all known)
//   succ-flat:    the same successors as the engine handles them today:
//                 whole encoding, XXH3-128 fingerprint, find in a
//                 ConcurrentTable with a byte compare against the flat copy
// The succ-* runs check that no node or leaf is created (every successor
// is a known state) and that the flat lookups all hit. At the default
// (N = 9: 2956403 states, 29042158 transitions) a run takes a few minutes
// and about 3 GB, nearly all of it the BFS's own copies of the states.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "hashing/concurrent_table.hpp"
#include "hashing/fingerprint.hpp"
#include "hashing/state.hpp"
#include "hashing/tree_store.hpp"

namespace {

using namespace ddsmc::hashing;
using Clock = std::chrono::steady_clock;

// The plain state: have[N], start[N], tokens[3N], one byte each.
struct Ring {
  uint32_t n;
  uint32_t size() const { return 5 * n; }
  uint32_t parts() const { return 4 * n; }
  uint32_t target(uint32_t arc) const {
    const uint32_t from = arc / 3;
    switch (arc % 3) {
      case 0: return (from + 1) % n;
      case 1: return (from + n - 1) % n;
      default: return from;
    }
  }
  std::string initial() const {
    std::string s(size(), '\0');
    s[n + 0] = 1;  // node 0's start
    return s;
  }
  // Node m receives (its start or a token): the changed parts are appended.
  void receive(std::string& s, uint32_t m, std::vector<uint32_t>& changed) const {
    changed.push_back(m);
    if (s[m]) return;
    s[m] = 1;
    for (uint32_t k = 0; k < 3; ++k) {
      ++s[2 * n + 3 * m + k];
      changed.push_back(n + 3 * m + k);
    }
  }
  // Every successor of s with the parts it changes (ascending).
  template <class F>
  void successors(const std::string& s, std::string& succ, std::vector<uint32_t>& changed, F&& out) const {
    for (uint32_t m = 0; m < n; ++m) {
      if (!s[n + m]) continue;
      succ = s;
      changed.clear();
      succ[n + m] = 0;
      receive(succ, m, changed);
      std::sort(changed.begin(), changed.end());
      out(succ, changed);
    }
    for (uint32_t a = 0; a < 3 * n; ++a) {
      if (!s[2 * n + a]) continue;
      succ = s;
      changed.clear();
      --succ[2 * n + a];
      changed.push_back(n + a);
      receive(succ, target(a), changed);
      std::sort(changed.begin(), changed.end());
      changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
      out(succ, changed);
    }
  }
  StateLayout layout() const {
    StateLayout l;
    l.arity = {0, 0, 0};  // have/0, token/0, start/0
    l.num_nodes = n;
    l.num_arcs = 3 * n;
    return l;
  }
  GlobalState global(const std::string& s) const {
    GlobalState g;
    g.dbs.resize(n);
    g.channels.resize(3 * n);
    for (uint32_t m = 0; m < n; ++m) {
      if (s[m]) g.dbs[m].push_back(0);
      if (s[n + m]) g.dbs[m].push_back(2);
    }
    for (uint32_t a = 0; a < 3 * n; ++a)
      if (s[2 * n + a]) g.channels[a] = {1, static_cast<Word>(static_cast<uint8_t>(s[2 * n + a]))};
    return g;
  }
  // One part's bytes without a GlobalState (all words below 128: one byte
  // each); checked against encode_segmented at setup.
  void part(const std::string& s, uint32_t p, std::string& out) const {
    out.clear();
    if (p < n) {
      const char have = s[p], start = s[n + p];
      out.push_back(static_cast<char>(have + start));
      if (have) out.push_back(0);
      if (start) out.push_back(2);
    } else if (const char c = s[2 * n + p - n]) {
      out += {1, 1, c};
    } else {
      out.push_back(0);
    }
  }
  void segmented(const std::string& s, SegmentedEncoding& out, std::string& tmp) const {
    out.bytes.clear();
    out.begin.resize(parts() + 1);
    for (uint32_t p = 0; p < parts(); ++p) {
      out.begin[p] = static_cast<uint32_t>(out.bytes.size());
      part(s, p, tmp);
      out.bytes += tmp;
    }
    out.begin[parts()] = static_cast<uint32_t>(out.bytes.size());
  }
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Runs body(thread, index) over [0, count) in chunks of `chunk`, round-robin
// over `threads` threads; returns the wall seconds.
double run_chunks(uint32_t threads, size_t count, size_t chunk, const std::function<void(uint32_t, size_t)>& body) {
  std::atomic<bool> go{false};
  std::atomic<uint32_t> ready{0};
  const size_t chunks = (count + chunk - 1) / chunk;
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (size_t c = t; c < chunks; c += threads)
        for (size_t i = c * chunk; i < std::min(count, (c + 1) * chunk); ++i) body(t, i);
    });
  while (ready.load() < threads) std::this_thread::yield();
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = 9;
  std::vector<uint32_t> thread_counts{1, 2};
  size_t chunk = 256;
  CLI::App app{"tree-compressed state store against flat bytes, on flooding-like states"};
  app.add_option("--nodes", n, "ring size N")->capture_default_str()->check(CLI::Range(3u, 12u));
  app.add_option("--threads", thread_counts, "thread counts, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--chunk", chunk, "states per chunk; chunks go round-robin to the threads")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 24));
  CLI11_PARSE(app, argc, argv);

  const Ring ring{n};
  const StateLayout layout = ring.layout();
  const uint32_t parts = ring.parts();

  // ---- BFS on plain data, deduplicated on the exact encoding ----
  auto t0 = Clock::now();
  std::vector<std::string> plain;             // by BFS index
  std::unordered_set<std::string> flat;       // the flat copy: every state's encoding
  std::unordered_set<uint64_t> plain_seen;    // the second dedup: the plain state packed (5N <= 64 bits)
  std::vector<SegmentedEncoding> encodings;   // by BFS index
  uint64_t flat_bytes = 0, transitions = 0;
  auto pack = [&](const std::string& s) {  // have, start, tokens (each 0/1 in this protocol) as bits
    uint64_t k = 0;
    for (char c : s) {
      if (c > 1) throw std::logic_error("a count above 1");
      k = k << 1 | static_cast<uint64_t>(c);
    }
    return k;
  };
  auto add = [&](const std::string& s) {
    SegmentedEncoding e;
    encode_segmented(ring.global(s), layout, e);
    const bool fresh = flat.insert(e.bytes).second;
    const bool fresh_plain = plain_seen.insert(pack(s)).second;
    if (fresh != fresh_plain) throw std::logic_error("the encoding and the plain state disagree on a duplicate");
    if (!fresh) return;
    flat_bytes += e.bytes.size();
    plain.push_back(s);
    encodings.push_back(std::move(e));
  };
  add(ring.initial());
  std::string succ, tmp;
  std::vector<uint32_t> changed;
  for (size_t i = 0; i < plain.size(); ++i) {
    const std::string s = plain[i];
    ring.successors(s, succ, changed, [&](const std::string& t, const std::vector<uint32_t>&) {
      ++transitions;
      add(t);
    });
  }
  const size_t states = plain.size();
  if (plain_seen.size() != states || flat.size() != states) throw std::logic_error("dedup counts differ");
  // The bench's own part encoder must agree with encode_segmented.
  {
    SegmentedEncoding e;
    for (size_t i = 0; i < states; ++i) {
      ring.segmented(plain[i], e, tmp);
      if (e.bytes != encodings[i].bytes || e.begin != encodings[i].begin)
        throw std::logic_error("bench part encoder differs from encode_segmented");
    }
  }
  fmt::print("bench_tree: ring of {} nodes, {} parts per state; BFS {:.1f} s\n", n, parts, seconds_since(t0));
  fmt::print("states {} (distinct encodings = distinct plain states), transitions {}\n", states, transitions);

  // ---- memory: the store grown as the engine would, in BFS order ----
  t0 = Clock::now();
  TreeStore grown(parts);
  std::vector<uint32_t> root(states);
  size_t growths = 0;
  for (size_t i = 0; i < states; ++i) {
    for (;;) {
      try {
        root[i] = grown.intern(encodings[i]);
        break;
      } catch (const TreeStore::TableFull&) {
        grown.grow();
        ++growths;
      }
    }
  }
  const double grow_seconds = seconds_since(t0);
  {
    std::unordered_set<uint32_t> distinct(root.begin(), root.end());
    if (distinct.size() != states) throw std::logic_error("two states share a root");
    std::string back;
    for (size_t i = 0; i < states; ++i) {
      grown.materialize(root[i], back);
      if (back != encodings[i].bytes) throw std::logic_error("materialize differs");
    }
  }
  const auto mem = grown.memory();
  const double per_state = static_cast<double>(mem.total()) / static_cast<double>(states);
  fmt::print("tree store: {} leaves ({} B of records), {} nodes ({:.2f} per state); {} growths, {:.2f} s sequential\n",
             grown.leaves(), grown.leaf_bytes(), grown.nodes(), double(grown.nodes()) / double(states), growths,
             grow_seconds);
  fmt::print("  node table {} slots (load {:.2f}): slots {:.1f} B + pairs {:.1f} B per node = {:.1f} B per node\n",
             grown.node_capacity(), double(grown.nodes()) / double(grown.node_capacity()),
             double(mem.node_slots) / double(grown.nodes()), double(mem.node_pairs) / double(grown.nodes()),
             double(mem.node_slots + mem.node_pairs) / double(grown.nodes()));
  fmt::print("  leaves: slots {} B, offsets {} B, arena {} B\n", mem.leaf_slots, mem.leaf_offsets, mem.leaf_arena);
  fmt::print("  store {:.1f} B per state (all allocated)\n", per_state);
  fmt::print("flat: {:.1f} B per state (encoding {:.1f} B + 8 B offset)\n",
             double(flat_bytes) / double(states) + 8.0, double(flat_bytes) / double(states));
  std::fflush(stdout);

  // ---- throughput ----
  // The flat copy by ref and its ConcurrentTable, as the engine keeps them.
  std::vector<std::string> by_ref(states);
  std::vector<Fingerprint> prints(states);
  ConcurrentTable table(static_cast<size_t>(double(states) / ConcurrentTable::kMaxLoad) + 1);
  for (size_t i = 0; i < states; ++i) {
    by_ref[i] = encodings[i].bytes;
    prints[i] = fingerprint(by_ref[i]);
    table.find_or_put(
        prints[i], [&](uint32_t) { return false; }, [&] { return static_cast<uint32_t>(i); });
  }

  fmt::print("{:<14} {:>7} {:>12} {:>14} {:>10} {:>8}\n", "run", "threads", "items", "items/s", "ns/item", "seconds");
  bool ok = true;
  std::atomic<bool> wrong{false};  // set by a worker that sees a wrong result
  auto report = [&](const char* name, uint32_t threads, uint64_t items, double secs) {
    fmt::print("{:<14} {:>7} {:>12} {:>14.0f} {:>10.1f} {:>8.3f}\n", name, threads, items, double(items) / secs,
               1e9 * secs / double(items), secs);
    std::fflush(stdout);
  };
  for (uint32_t threads : thread_counts) {
    TreeStore store(parts);
    store.reserve(grown.nodes(), grown.leaves());
    std::vector<uint32_t> roots(states);
    try {
      report("intern-new", threads, states,
             run_chunks(threads, states, chunk, [&](uint32_t, size_t i) { roots[i] = store.intern(encodings[i]); }));
      report("intern-hit", threads, states, run_chunks(threads, states, chunk, [&](uint32_t, size_t i) {
               if (store.intern(encodings[i]) != roots[i]) wrong.store(true);
             }));
    } catch (const TreeStore::TableFull&) {
      fmt::print(stderr, "bench_tree: TableFull in a reserved store\n");
      return 1;
    }
    if (store.nodes() != grown.nodes() || store.leaves() != grown.leaves()) {
      // Counts may differ with the numbering (a pair shared across positions), but
      // only slightly; report it.
      fmt::print("  (this store: {} nodes, {} leaves)\n", store.nodes(), store.leaves());
    }
    const size_t nodes_before = store.nodes(), leaves_before = store.leaves();

    struct Scratch {
      std::string succ, part;
      std::vector<uint32_t> changed, base, tree;
      SegmentedEncoding enc;
      std::vector<std::string> part_bytes;
      std::vector<TreeStore::Part> ps;
      uint64_t successors = 0, misses = 0;
    };
    auto fresh_scratch = [&] {
      std::vector<Scratch> sc(threads);
      for (auto& s : sc) {
        s.base.resize(store.tree_size());
        s.tree.resize(store.tree_size());
        s.part_bytes.resize(parts);
      }
      return sc;
    };
    auto total = [](const std::vector<Scratch>& sc) {
      uint64_t t = 0;
      for (const auto& s : sc) t += s.successors;
      return t;
    };
    {
      auto sc = fresh_scratch();
      const double secs = run_chunks(threads, states, chunk, [&](uint32_t t, size_t i) {
        Scratch& w = sc[t];
        ring.successors(plain[i], w.succ, w.changed, [&](const std::string& s, const std::vector<uint32_t>&) {
          ring.segmented(s, w.enc, w.part);
          store.intern(w.enc);
          ++w.successors;
        });
      });
      report("succ-full", threads, total(sc), secs);
    }
    {
      auto sc = fresh_scratch();
      const double secs = run_chunks(threads, states, chunk, [&](uint32_t t, size_t i) {
        Scratch& w = sc[t];
        store.tree_of(roots[i], w.base.data());
        ring.successors(plain[i], w.succ, w.changed, [&](const std::string& s, const std::vector<uint32_t>& ch) {
          w.ps.clear();
          for (uint32_t p : ch) {
            ring.part(s, p, w.part_bytes[p]);
            w.ps.push_back({p, w.part_bytes[p]});
          }
          store.intern_patched(w.base.data(), w.ps, w.tree.data());
          ++w.successors;
        });
      });
      report("succ-patched", threads, total(sc), secs);
    }
    if (store.nodes() != nodes_before || store.leaves() != leaves_before) {
      fmt::print(stderr, "bench_tree: a successor made a new node or leaf\n");
      ok = false;
    }
    {
      auto sc = fresh_scratch();
      const double secs = run_chunks(threads, states, chunk, [&](uint32_t t, size_t i) {
        Scratch& w = sc[t];
        ring.successors(plain[i], w.succ, w.changed, [&](const std::string& s, const std::vector<uint32_t>&) {
          ring.segmented(s, w.enc, w.part);
          const Fingerprint f = fingerprint(w.enc.bytes);
          auto r = table.find_or_put(
              f, [&](uint32_t ref) { return ref < states && by_ref[ref] == w.enc.bytes; },
              [&] { return ConcurrentTable::kNoRef - 1; });
          w.misses += r.inserted;
          ++w.successors;
        });
      });
      report("succ-flat", threads, total(sc), secs);
      for (const auto& w : sc)
        if (w.misses) {
          fmt::print(stderr, "bench_tree: a successor missed the flat table\n");
          ok = false;
        }
    }
  }
  if (wrong.load()) {
    fmt::print(stderr, "bench_tree: intern-hit gave another root\n");
    ok = false;
  }
  fmt::print("peak RSS {:.0f} MiB\n", peak_rss_mib());
  return ok ? 0 : 1;
}
