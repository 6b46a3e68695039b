// The state as a vertex-coloured graph for sparsenauty:
//  - one vertex per fresh constant, coloured by its refined colour;
//  - one vertex per fact that mentions a fresh constant, coloured by its
//    fact colour (location, pred, count, fixed arguments and the colours of
//    its fresh arguments: fixed constants need no vertices);
//  - a fact is joined to its fresh arguments directly when their colours
//    tell the argument positions apart; otherwise through one "argument"
//    vertex per fresh position, coloured by (fact colour, position).
// Colour-preserving isomorphisms of this graph are exactly the renamings
// between the states, so nauty's canonical labelling, read off on the
// constant vertices, is a canonical order of the fresh constants.
#include "hashing/nauty_backend.hpp"

#include <nauty/nausparse.h>

#include <algorithm>
#include <utility>

namespace ddsmc::hashing::detail {

namespace {
struct VertexKey {
  uint64_t major;  // kind << 32 | colour
  uint32_t minor;  // argument position
  int vertex;
  bool same_cell(const VertexKey& o) const { return major == o.major && minor == o.minor; }
  bool operator<(const VertexKey& o) const { return major != o.major ? major < o.major : minor < o.minor; }
};
enum Kind : uint64_t { kConstant = 0, kFact = 1, kArgument = 2 };
uint64_t major(Kind kind, uint32_t colour) { return kind << 32 | colour; }
}  // namespace

struct NautyBackend::Impl {
  std::vector<VertexKey> keys;
  std::vector<std::pair<int, int>> edges;
  std::vector<size_t> v;
  std::vector<int> d, e, lab, ptn, orbits;
  std::vector<std::pair<uint32_t, uint32_t>> slots;  // (position, constant) of one fact
  sparsegraph canon;
  bool used = false;
  Impl() { SG_INIT(canon); }
  ~Impl() {
    SG_FREE(canon);
    // nauty keeps thread-local work areas; free them (it reallocates on
    // demand) so that worker threads do not leak them at exit.
    if (used) {
      nauty_freedyn();
      nautil_freedyn();
      nausparse_freedyn();
    }
  }
};

NautyBackend::NautyBackend() : impl_(std::make_unique<Impl>()) {}
NautyBackend::~NautyBackend() = default;

void NautyBackend::order(const FactTable& t, const std::vector<uint32_t>& col, const std::vector<uint32_t>& fact_col,
                         std::vector<uint32_t>& rank) {
  Impl& m = *impl_;
  const uint32_t k = t.k;
  m.keys.clear();
  m.edges.clear();
  for (uint32_t x = 0; x < k; ++x) m.keys.push_back({major(kConstant, col[x]), 0, static_cast<int>(x)});
  for (uint32_t f = 0; f < t.num_facts(); ++f)
    m.keys.push_back({major(kFact, fact_col[f]), 0, static_cast<int>(k + f)});
  for (uint32_t f = 0; f < t.num_facts(); ++f) {
    const int fv = static_cast<int>(k + f);
    m.slots.clear();
    for (uint32_t i = t.off[f] + 3; i < t.off[f + 1]; ++i)
      if (t.words[i] >= t.num_fixed) m.slots.push_back({i - t.off[f] - 3, t.words[i] - t.num_fixed});
    bool distinct = true;  // do the colours of the fresh arguments identify their positions?
    for (size_t a = 0; a < m.slots.size() && distinct; ++a)
      for (size_t b = a + 1; b < m.slots.size() && distinct; ++b)
        distinct = col[m.slots[a].second] != col[m.slots[b].second];
    for (auto [pos, x] : m.slots) {
      if (distinct) {
        m.edges.push_back({fv, static_cast<int>(x)});
        continue;
      }
      const int av = static_cast<int>(m.keys.size());
      m.keys.push_back({major(kArgument, fact_col[f]), pos, av});
      m.edges.push_back({fv, av});
      m.edges.push_back({av, static_cast<int>(x)});
    }
  }

  // Compressed adjacency lists, both directions.
  const size_t n = m.keys.size();
  m.d.assign(n, 0);
  for (auto [a, b] : m.edges) ++m.d[a], ++m.d[b];
  m.v.resize(n);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) m.v[i] = at, at += m.d[i];
  m.e.resize(at);
  m.d.assign(n, 0);
  for (auto [a, b] : m.edges) {
    m.e[m.v[a] + m.d[a]++] = b;
    m.e[m.v[b] + m.d[b]++] = a;
  }

  // Initial ordered partition: cells in key order.
  std::sort(m.keys.begin(), m.keys.end());
  m.lab.resize(n);
  m.ptn.resize(n);
  m.orbits.resize(n);
  for (size_t i = 0; i < n; ++i) {
    m.lab[i] = m.keys[i].vertex;
    m.ptn[i] = (i + 1 < n && m.keys[i].same_cell(m.keys[i + 1])) ? 1 : 0;
  }

  sparsegraph g;
  SG_INIT(g);
  g.nv = static_cast<int>(n);
  g.nde = m.e.size();
  g.v = m.v.data();
  g.d = m.d.data();
  g.e = m.e.data();
  g.vlen = g.dlen = n;
  g.elen = m.e.size();
  DEFAULTOPTIONS_SPARSEGRAPH(options);
  options.getcanon = TRUE;
  options.defaultptn = FALSE;
  statsblk stats;
  m.used = true;
  sparsenauty(&g, m.lab.data(), m.ptn.data(), m.orbits.data(), &options, &stats, &m.canon);

  // lab[i] is the vertex placed at canonical position i.
  rank.resize(k);
  uint32_t next = 0;
  for (size_t i = 0; i < n; ++i)
    if (m.lab[i] < static_cast<int>(k)) rank[m.lab[i]] = next++;
}

}  // namespace ddsmc::hashing::detail
