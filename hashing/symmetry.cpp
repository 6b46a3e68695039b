// Node permutations on states, the enumerated group, and the canonical form
// under the group and renaming (hashing/symmetry.hpp has the contract).
#include "hashing/symmetry.hpp"

#include <algorithm>
#include <stdexcept>

namespace ddsmc::hashing {

namespace {

inline uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Renames the fixed constants of a run list (`extra` words after each fact).
void map_words(const std::vector<Word>& in, std::vector<Word>& out, const StateLayout& layout,
               const std::vector<Word>& constant, uint32_t extra) {
  out.resize(in.size());
  for (size_t i = 0; i < in.size();) {
    const uint32_t n = layout.fact_words(in[i]);
    out[i] = in[i];
    for (uint32_t j = 1; j < n; ++j) {
      const Word c = in[i + j];
      out[i + j] = c < constant.size() ? constant[c] : c;
    }
    for (uint32_t j = 0; j < extra; ++j) out[i + n + j] = in[i + n + j];
    i += n + extra;
  }
}

std::string node_key(const std::vector<uint32_t>& node) {
  return {reinterpret_cast<const char*>(node.data()), node.size() * sizeof(uint32_t)};
}

uint64_t arc_key(uint32_t u, uint32_t v) { return uint64_t{u} << 32 | v; }

}  // namespace

void permute(const GlobalState& s, const StateLayout& layout, const NodePermutation& p, GlobalState& out) {
  out.dbs.resize(s.dbs.size());
  out.channels.resize(s.channels.size());
  for (size_t n = 0; n < s.dbs.size(); ++n) {
    auto& db = out.dbs[p.node[n]];
    map_words(s.dbs[n], db, layout, p.constant, 0);
    normalize_db(db, layout);
  }
  for (size_t a = 0; a < s.channels.size(); ++a) {
    auto& ch = out.channels[p.arc[a]];
    map_words(s.channels[a], ch, layout, p.constant, 1);
    normalize_channel(ch, layout);
  }
}

// ---- SymmetryGroup ----------------------------------------------------------------

SymmetryGroup::SymmetryGroup(const NetworkShape& shape) : shape_(shape) {
  NodePermutation id;
  id.node.resize(shape.num_nodes);
  for (uint32_t n = 0; n < shape.num_nodes; ++n) id.node[n] = n;
  id.arc.resize(shape.arcs.size());
  for (uint32_t a = 0; a < id.arc.size(); ++a) id.arc[a] = a;
  id.constant.resize(shape.num_fixed);
  for (uint32_t c = 0; c < shape.num_fixed; ++c) id.constant[c] = c;
  index_.emplace(node_key(id.node), 0);
  elements_.push_back(std::move(id));
  inverse_.push_back(0);
}

SymmetryGroup SymmetryGroup::generate(const NetworkShape& shape, const std::vector<std::vector<uint32_t>>& generators,
                                      size_t max_order) {
  SymmetryGroup g(shape);
  std::unordered_map<uint64_t, uint32_t> arc_of;
  for (uint32_t a = 0; a < shape.arcs.size(); ++a) arc_of.emplace(arc_key(shape.arcs[a].first, shape.arcs[a].second), a);
  auto make = [&](const std::vector<uint32_t>& node) {
    NodePermutation p;
    p.node = node;
    p.arc.resize(shape.arcs.size());
    for (uint32_t a = 0; a < shape.arcs.size(); ++a) {
      auto it = arc_of.find(arc_key(node[shape.arcs[a].first], node[shape.arcs[a].second]));
      if (it == arc_of.end()) throw std::invalid_argument("symmetry: a generator is not an automorphism of the network");
      p.arc[a] = it->second;
    }
    p.constant = g.elements_[0].constant;
    for (uint32_t n = 0; n < shape.num_nodes; ++n) p.constant[shape.node_const[n]] = shape.node_const[node[n]];
    return p;
  };
  std::vector<std::vector<uint32_t>> gens;
  for (const auto& gen : generators) {
    if (gen.size() != shape.num_nodes) throw std::invalid_argument("symmetry: a generator of the wrong size");
    std::vector<char> hit(gen.size(), 0);
    for (uint32_t m : gen)
      if (m >= gen.size() || hit[m]++) throw std::invalid_argument("symmetry: a generator is not a permutation");
    make(gen);  // checks the arcs
    gens.push_back(gen);
  }
  // Closure: every element times every generator, breadth first.
  std::vector<uint32_t> node(shape.num_nodes);
  for (size_t i = 0; i < g.elements_.size(); ++i) {
    for (const auto& gen : gens) {
      for (uint32_t n = 0; n < shape.num_nodes; ++n) node[n] = gen[g.elements_[i].node[n]];
      if (g.index_.count(node_key(node))) continue;
      if (g.elements_.size() >= max_order) throw std::length_error("symmetry: the group is larger than the cap");
      g.index_.emplace(node_key(node), static_cast<uint32_t>(g.elements_.size()));
      g.elements_.push_back(make(node));
    }
  }
  for (const auto& gen : gens) {
    const uint32_t e = g.index_.at(node_key(gen));
    if (e != 0 && std::find(g.generators_.begin(), g.generators_.end(), e) == g.generators_.end())
      g.generators_.push_back(e);
  }
  g.add_inverses();
  return g;
}

void SymmetryGroup::add_inverses() {
  inverse_.assign(elements_.size(), 0);
  std::vector<uint32_t> inv(shape_.num_nodes);
  for (uint32_t i = 0; i < elements_.size(); ++i) {
    for (uint32_t n = 0; n < shape_.num_nodes; ++n) inv[elements_[i].node[n]] = n;
    inverse_[i] = index_.at(node_key(inv));
  }
}

uint32_t SymmetryGroup::compose(uint32_t a, uint32_t b) const {
  std::vector<uint32_t> node(shape_.num_nodes);
  for (uint32_t n = 0; n < shape_.num_nodes; ++n) node[n] = elements_[a].node[elements_[b].node[n]];
  return index_.at(node_key(node));
}

int64_t SymmetryGroup::find(const std::vector<uint32_t>& node) const {
  auto it = index_.find(node_key(node));
  return it == index_.end() ? -1 : it->second;
}

// ---- SymmetricCanonicalizer ----------------------------------------------------------

SymmetricCanonicalizer::SymmetricCanonicalizer(const StateLayout& layout, const SymmetryGroup& group, bool fresh)
    : layout_(layout), group_(group), fresh_(fresh), renaming_(layout) {
  const NetworkShape& sh = group.shape();
  const uint32_t nodes = sh.num_nodes, parts = nodes + static_cast<uint32_t>(sh.arcs.size());
  node_of_.resize(group.order());
  for (uint32_t i = 0; i < group.order(); ++i) {
    const NodePermutation& inv = group.element(group.inverse(i));
    auto& at = node_of_[i];
    at.resize(parts);
    for (uint32_t p = 0; p < nodes; ++p) at[p] = inv.node[p];
    for (uint32_t a = 0; a < sh.arcs.size(); ++a) at[nodes + a] = nodes + inv.arc[a];
  }
  node_of_const_.assign(layout.num_fixed, -1);
  for (uint32_t n = 0; n < nodes; ++n) node_of_const_[sh.node_const[n]] = n;
  adjacent_.assign(nodes, std::vector<char>(nodes, 0));
  for (auto [u, v] : sh.arcs)
    if (u != v) adjacent_[u][v] = adjacent_[v][u] = 1;
}

SymmetricCanonicalizer::~SymmetricCanonicalizer() = default;

// inv_[part]: a hash of the part that fresh renamings and node permutations
// carry along. Arguments: a fresh constant is one symbol, a node constant
// is named by its relation to the part's node(s), any other fixed constant
// by itself. Facts are summed (the order of a part's facts depends on ids).
uint64_t SymmetricCanonicalizer::part_invariant(const GlobalState& s, uint32_t part) const {
  const NetworkShape& sh = group_.shape();
  const uint32_t nodes = sh.num_nodes;
  const bool node = part < nodes;
  const uint32_t u = node ? part : sh.arcs[part - nodes].first, v = node ? part : sh.arcs[part - nodes].second;
  const uint32_t extra = node ? 0 : 1;
  auto arg_class = [&](Word c) -> uint64_t {
    if (c >= layout_.num_fixed) return 0x9e3779b97f4a7c15ull;
    const int64_t m = node_of_const_[c];
    if (m < 0) return c;
    if (static_cast<uint32_t>(m) == u) return 0x1000000001ull;
    if (static_cast<uint32_t>(m) == v) return 0x1000000002ull;
    if (adjacent_[u][m] || adjacent_[v][m]) return 0x1000000003ull;
    return 0x1000000004ull;
  };
  const std::vector<Word>& w = part_words(s, nodes, part);
  uint64_t sum = w.size();
  for (size_t i = 0; i < w.size();) {
    const uint32_t k = layout_.fact_words(w[i]);
    uint64_t h = mix(w[i] + 1);
    for (uint32_t j = 1; j < k + extra; ++j) h = mix(h ^ (j < k ? arg_class(w[i + j]) : w[i + j] + 7));
    sum += mix(h);
    i += k + extra;
  }
  return node ? sum : sum ^ 0x5bd1e995ull;
}

void SymmetricCanonicalizer::invariants(const GlobalState& s, const std::vector<uint32_t>* changed) {
  const uint32_t parts = static_cast<uint32_t>(node_of_[0].size());
  if (changed && base_inv_.size() == parts) {  // the base's, but for the parts the step changed
    inv_ = base_inv_;
    for (uint32_t p : *changed) inv_[p] = part_invariant(s, p);
    return;
  }
  inv_.resize(parts);
  for (uint32_t p = 0; p < parts; ++p) inv_[p] = part_invariant(s, p);
}

void SymmetricCanonicalizer::set_base(const GlobalState& base) {
  invariants(base, nullptr);
  base_inv_ = inv_;
}

// Whether element a's invariant vector is below b's (*equal: the same).
bool SymmetricCanonicalizer::less_at(uint32_t a, uint32_t b, bool* equal) const {
  const auto& pa = node_of_[a];
  const auto& pb = node_of_[b];
  for (size_t p = 0; p < pa.size(); ++p) {
    const uint64_t x = inv_[pa[p]], y = inv_[pb[p]];
    if (x != y) {
      *equal = false;
      return x < y;
    }
  }
  *equal = true;
  return false;
}

const GlobalState& SymmetricCanonicalizer::canonical_state(const GlobalState& s, CanonicalForm& out,
                                                           uint32_t* element, const std::vector<uint32_t>* changed) {
  invariants(s, changed);
  tied_.assign(1, 0);
  for (uint32_t i = 1; i < group_.order(); ++i) {
    bool equal = false;
    if (less_at(i, tied_[0], &equal))
      tied_.assign(1, i);
    else if (equal)
      tied_.push_back(i);
  }
  ties_ += tied_.size();
  if (tied_.size() == 1) {
    *element = tied_[0];
    if (tied_[0] == 0) return rename_canonical(s, out, false);
    permute(s, layout_, group_.element(tied_[0]), moved_);
    const GlobalState& r = rename_canonical(moved_, out, false);
    if (&r == &moved_) std::swap(out.state, moved_);
    return out.state;
  }
  // Several elements tie: the least canonical encoding decides.
  bool have = false;
  for (uint32_t i : tied_) {
    const GlobalState* t = &s;
    if (i != 0) {
      permute(s, layout_, group_.element(i), moved_);
      t = &moved_;
    }
    if (&rename_canonical(*t, cand_, true) == t) cand_.state = *t;
    if (!have || cand_.bytes < out.bytes) {
      std::swap(out.bytes, cand_.bytes);
      std::swap(out.state, cand_.state);
      std::swap(out.renaming, cand_.renaming);
      *element = i;
      have = true;
    }
  }
  return out.state;
}

const GlobalState& SymmetricCanonicalizer::rename_canonical(const GlobalState& t, CanonicalForm& out, bool bytes) {
  if (fresh_) {
    if (!bytes) return renaming_.canonical_state(t, out);
    renaming_.canonicalize(t, out);
    return out.state;
  }
  out.renaming.clear();
  if (bytes) encode(t, layout_, out.bytes);
  return t;
}

void SymmetricCanonicalizer::canonicalize(const GlobalState& s, CanonicalForm& out, uint32_t* element) {
  const GlobalState& r = canonical_state(s, out, element);
  if (&r == &s) out.state = s;
  encode(out.state, layout_, out.bytes);
  out.fingerprint = fingerprint(out.bytes);
}

std::string canonical_bytes_brute_force(const GlobalState& s, const StateLayout& layout, const SymmetryGroup& group) {
  std::string best;
  GlobalState moved;
  for (uint32_t i = 0; i < group.order(); ++i) {
    permute(s, layout, group.element(i), moved);
    std::string bytes = canonicalize_brute_force(moved, layout).bytes;
    if (i == 0 || bytes < best) best = std::move(bytes);
  }
  return best;
}

}  // namespace ddsmc::hashing
