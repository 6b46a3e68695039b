#include "dist/gather.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dist/handles.hpp"
#include "engine/state_store.hpp"
#include "hashing/state.hpp"

namespace ddsmc::dist {
namespace {

using engine::StateId;

// A rank's part, as sent: u64 states, u64 expanded; per state u64 gid,
// the label words, u32 length and the encoding; per expanded state u32
// edges, and per edge u64 target handle and u32 label.
class Writer {
 public:
  template <class T>
  void put(T v) {
    const size_t at = buf_.size();
    buf_.resize(at + sizeof v);
    std::memcpy(buf_.data() + at, &v, sizeof v);
  }
  void put_bytes(const std::string& b) {
    put(static_cast<uint32_t>(b.size()));
    buf_.append(b);
  }
  std::string& buffer() { return buf_; }

 private:
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(const std::string& b, size_t at = 0) : b_(b), at_(at) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string_view get_bytes() {
    const uint32_t n = get<uint32_t>();
    need(n);
    std::string_view v(b_.data() + at_, n);
    at_ += n;
    return v;
  }
  size_t at() const { return at_; }

 private:
  void need(size_t n) const {
    if (b_.size() - at_ < n) throw std::logic_error("dist::gather_graph: a part ends early");
  }
  const std::string& b_;
  size_t at_;
};

std::string serialize(const Shard& shard) {
  const engine::StateGraph& g = shard.graph();
  Writer w;
  w.put<uint64_t>(g.num_states());
  w.put<uint64_t>(g.num_expanded());
  std::vector<uint64_t> labels(g.label_words());
  for (StateId s = 0; s < g.num_states(); ++s) {
    w.put<uint64_t>(shard.gids()[s]);
    g.labels(s, labels.data());
    for (uint64_t x : labels) w.put(x);
    w.put_bytes(g.bytes(s));
  }
  for (StateId s = 0; s < g.num_expanded(); ++s) {
    const auto row = g.edges(s);
    uint32_t n = 0;
    for ([[maybe_unused]] const engine::Edge& e : row) ++n;
    w.put(n);
    for (const engine::Edge& e : row) {
      w.put<uint64_t>(e.target);
      w.put<uint32_t>(e.label);
    }
  }
  return std::move(w.buffer());
}

constexpr size_t kChunk = size_t{1} << 30;  // bytes per message (MPI counts are int)

void send_part(const std::string& part, MPI_Comm comm) {
  uint64_t size = part.size();
  MPI_Send(&size, 1, MPI_UINT64_T, 0, 0, comm);
  for (size_t at = 0; at < part.size(); at += kChunk)
    MPI_Send(part.data() + at, static_cast<int>(std::min(kChunk, part.size() - at)), MPI_BYTE, 0, 0, comm);
}

std::string receive_part(int from, MPI_Comm comm) {
  uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, 0, comm, MPI_STATUS_IGNORE);
  std::string part(size, '\0');
  for (size_t at = 0; at < part.size(); at += kChunk)
    MPI_Recv(part.data() + at, static_cast<int>(std::min(kChunk, part.size() - at)), MPI_BYTE, from, 0, comm,
             MPI_STATUS_IGNORE);
  return part;
}

// Where each rank's states and rows lie in its part.
struct Index {
  std::vector<StateId> gids;   // per local state
  std::vector<size_t> states;  // per local state: the offset of its labels
  std::vector<size_t> rows;    // per expanded local state: the offset of its row
};

Index index_part(const std::string& part, uint32_t label_words) {
  Reader r(part);
  Index ix;
  const uint64_t n = r.get<uint64_t>(), expanded = r.get<uint64_t>();
  if (expanded > n) throw std::logic_error("dist::gather_graph: more rows than states");
  for (uint64_t s = 0; s < n; ++s) {
    ix.gids.push_back(r.get<uint64_t>());
    ix.states.push_back(r.at());
    for (uint32_t w = 0; w < label_words; ++w) r.get<uint64_t>();
    r.get_bytes();
  }
  for (uint64_t s = 0; s < expanded; ++s) {
    ix.rows.push_back(r.at());
    const uint32_t edges = r.get<uint32_t>();
    for (uint32_t e = 0; e < edges; ++e) r.get<uint64_t>(), r.get<uint32_t>();
  }
  return ix;
}

// Rank 0: the graph from every rank's part.
class Assembly {
 public:
  Assembly(const engine::System& system, std::vector<std::string> parts, StateId base)
      : system_(system), parts_(std::move(parts)), base_(base),
        graph_(system.layout(), size_t{1} << 12, system.edge_arcs()) {
    for (const std::string& p : parts_) index_.push_back(index_part(p, graph_.label_words()));
  }

  engine::StateGraph build() {
    place();
    graph_.add_states(owner_.size());
    for (StateId id = 0; id < owner_.size(); ++id) fill(id);
    for (StateId id = 0; id < owner_.size(); ++id)
      if (!row(id)) {
        for (StateId later = id; later < owner_.size(); ++later)
          if (expanded(later)) throw std::logic_error("dist::gather_graph: the expanded states are not a prefix");
        break;
      }
    return std::move(graph_);
  }

 private:
  // owner_[id]: the rank and local id of ordinary id `id`.
  void place() {
    size_t n = 0;
    for (const Index& ix : index_) n += ix.gids.size();
    owner_.assign(n, {~0u, 0});
    for (uint32_t r = 0; r < index_.size(); ++r)
      for (StateId l = 0; l < index_[r].gids.size(); ++l) {
        const StateId id = index_[r].gids[l] - base_;
        if (id >= n || owner_[id].first != ~0u) throw std::logic_error("dist::gather_graph: ids are not 0..n-1");
        owner_[id] = {r, l};
      }
  }
  bool expanded(StateId id) const { return owner_[id].second < index_[owner_[id].first].rows.size(); }
  void fill(StateId id) {
    const auto [r, l] = owner_[id];
    Reader in(parts_[r], index_[r].states[l]);
    std::vector<uint64_t> labels(graph_.label_words());
    for (uint64_t& w : labels) w = in.get<uint64_t>();
    if (!hashing::decode(in.get_bytes(), system_.layout(), state_))
      throw std::logic_error("dist::gather_graph: a state does not decode");
    hashing::encode_segmented(state_, system_.layout(), enc_);
    engine::StateStore& store = graph_.store();
    const uint32_t root =
        engine::intern_growing([&] { return store.tree().intern(enc_); }, [&] { store.grow(); });
    graph_.fill_state(id, root, labels.data());
  }
  // Writes id's row if it was expanded.
  bool row(StateId id) {
    if (!expanded(id)) return false;
    const auto [r, l] = owner_[id];
    Reader in(parts_[r], index_[r].rows[l]);
    const uint32_t n = in.get<uint32_t>();
    edges_.clear();
    const auto ranks = static_cast<uint32_t>(index_.size());
    for (uint32_t i = 0; i < n; ++i) {
      const StateId handle = in.get<uint64_t>();
      const Handles h{ranks, 0};
      const auto owner = static_cast<uint32_t>(h.owner(handle));
      engine::Edge e;
      e.target = index_[owner].gids.at(h.local(handle)) - base_;
      e.label = in.get<uint32_t>();
      edges_.push_back(e);
    }
    graph_.set_edges(id, edges_);
    return true;
  }

  const engine::System& system_;
  std::vector<std::string> parts_;
  StateId base_;
  engine::StateGraph graph_;
  std::vector<Index> index_;
  std::vector<std::pair<uint32_t, StateId>> owner_;
  hashing::GlobalState state_;
  hashing::SegmentedEncoding enc_;
  std::vector<engine::Edge> edges_;
};

}  // namespace

std::optional<engine::StateGraph> gather_graph(const Shard& shard, const engine::System& system, StateId base,
                                               MPI_Comm comm) {
  int me = 0, ranks = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &ranks);
  if (me != 0) {
    send_part(serialize(shard), comm);
    return std::nullopt;
  }
  std::vector<std::string> parts{serialize(shard)};
  for (int r = 1; r < ranks; ++r) parts.push_back(receive_part(r, comm));
  return Assembly(system, std::move(parts), base).build();
}

}  // namespace ddsmc::dist
