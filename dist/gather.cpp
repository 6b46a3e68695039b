#include "dist/gather.hpp"

#include <algorithm>
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

// A chunk of a rank's states, as sent: per state u64 gid, the label
// words, u32 length and the encoding, u32 edges (~0u: not expanded) and
// per edge u64 target handle and u32 label.
constexpr StateId kChunkStates = 4096;
constexpr uint64_t kDone = ~uint64_t{0};  // a request that ends the gather
constexpr int kTag = 0;

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
  void reset(std::string b) {
    b_ = std::move(b);
    at_ = 0;
  }
  bool done() const { return at_ == b_.size(); }
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

 private:
  void need(size_t n) const {
    if (b_.size() - at_ < n) throw std::logic_error("dist::gather_graph: a chunk ends early");
  }
  std::string b_;
  size_t at_ = 0;
};

// This rank's states [from, from + kChunkStates) (fewer at the end).
std::string chunk(const Shard& shard, StateId from) {
  const engine::StateGraph& g = shard.graph();
  Writer w;
  std::vector<uint64_t> labels(g.label_words());
  for (StateId s = from; s < std::min<StateId>(g.num_states(), from + kChunkStates); ++s) {
    w.put<uint64_t>(shard.gids()[s]);
    g.labels(s, labels.data());
    for (uint64_t x : labels) w.put(x);
    w.put_bytes(g.bytes(s));
    if (!g.expanded(s)) {
      w.put<uint32_t>(~0u);
      continue;
    }
    const auto row = g.edges(s);
    w.put(static_cast<uint32_t>(std::distance(row.begin(), row.end())));
    for (const engine::Edge& e : row) {
      w.put<uint64_t>(e.target);
      w.put<uint32_t>(e.label);
    }
  }
  return std::move(w.buffer());
}

void send_string(const std::string& s, MPI_Comm comm) {
  const uint64_t size = s.size();
  MPI_Send(&size, 1, MPI_UINT64_T, 0, kTag, comm);
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_BYTE, 0, kTag, comm);
}

std::string receive_string(int from, MPI_Comm comm) {
  uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kTag, comm, MPI_STATUS_IGNORE);
  std::string s(size, '\0');
  MPI_Recv(s.data(), static_cast<int>(size), MPI_BYTE, from, kTag, comm, MPI_STATUS_IGNORE);
  return s;
}

// The other ranks: their global ids, then chunks on request until kDone.
void serve_gather(const Shard& shard, MPI_Comm comm) {
  const uint64_t n = shard.gids().size();
  MPI_Send(&n, 1, MPI_UINT64_T, 0, kTag, comm);
  for (uint64_t at = 0; at < n; at += kChunkStates)
    MPI_Send(shard.gids().data() + at, static_cast<int>(std::min<uint64_t>(kChunkStates, n - at)), MPI_UINT64_T, 0,
             kTag, comm);
  for (;;) {
    uint64_t from = 0;
    MPI_Recv(&from, 1, MPI_UINT64_T, 0, kTag, comm, MPI_STATUS_IGNORE);
    if (from == kDone) return;
    send_string(chunk(shard, from), comm);
  }
}

std::vector<StateId> receive_gids(int from, MPI_Comm comm) {
  uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, kTag, comm, MPI_STATUS_IGNORE);
  std::vector<StateId> gids(n);
  for (uint64_t at = 0; at < n; at += kChunkStates)
    MPI_Recv(gids.data() + at, static_cast<int>(std::min<uint64_t>(kChunkStates, n - at)), MPI_UINT64_T, from, kTag,
             comm, MPI_STATUS_IGNORE);
  return gids;
}

// Rank 0: the graph, state by state in id order, each from its owner's
// next chunk (a rank's states ascend with their ids, so the state wanted
// from a rank is always the next one it has not sent).
class Assembly {
 public:
  Assembly(const Shard& shard, const engine::System& system, StateId base, MPI_Comm comm)
      : shard_(shard), system_(system), base_(base), comm_(comm),
        graph_(system.layout(), size_t{1} << 12, system.edge_arcs()) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    gids_.push_back(shard.gids());
    for (int r = 1; r < ranks; ++r) gids_.push_back(receive_gids(r, comm));
    feeds_.resize(gids_.size());
  }
  // Ends the other ranks' serving however the assembly ends.
  ~Assembly() {
    uint64_t done = kDone;
    for (int r = 1; r < static_cast<int>(gids_.size()); ++r) MPI_Send(&done, 1, MPI_UINT64_T, r, kTag, comm_);
  }

  engine::StateGraph build() {
    const std::vector<uint32_t> owner = owners();
    graph_.add_states(owner.size());
    bool expanding = true;
    for (StateId id = 0; id < owner.size(); ++id) {
      Reader& in = next_of(owner[id]);
      if (in.get<uint64_t>() - base_ != id) throw std::logic_error("dist::gather_graph: a rank's ids out of order");
      fill(id, in);
      const uint32_t edges = in.get<uint32_t>();
      if (edges == ~0u) {
        expanding = false;
        continue;
      }
      if (!expanding) throw std::logic_error("dist::gather_graph: the expanded states are not a prefix");
      row(id, edges, in);
    }
    return std::move(graph_);
  }

 private:
  struct Feed {
    Reader in;
    StateId next = 0;  // the first local id not yet asked for
  };

  // Per ordinary id, the rank owning it.
  std::vector<uint32_t> owners() const {
    size_t n = 0;
    for (const auto& g : gids_) n += g.size();
    std::vector<uint32_t> owner(n, ~0u);
    for (uint32_t r = 0; r < gids_.size(); ++r)
      for (StateId gid : gids_[r]) {
        const StateId id = gid - base_;
        if (id >= n || owner[id] != ~0u) throw std::logic_error("dist::gather_graph: ids are not 0..n-1");
        owner[id] = r;
      }
    return owner;
  }
  // Rank r's feed, refilled with its next chunk when it is used up.
  Reader& next_of(uint32_t r) {
    Feed& f = feeds_[r];
    if (!f.in.done()) return f.in;
    if (r == 0) {
      f.in.reset(chunk(shard_, f.next));
    } else {
      MPI_Send(&f.next, 1, MPI_UINT64_T, static_cast<int>(r), kTag, comm_);
      f.in.reset(receive_string(static_cast<int>(r), comm_));
    }
    f.next += kChunkStates;
    if (f.in.done()) throw std::logic_error("dist::gather_graph: a rank ran out of states");
    return f.in;
  }
  void fill(StateId id, Reader& in) {
    labels_.resize(graph_.label_words());
    for (uint64_t& w : labels_) w = in.get<uint64_t>();
    if (!hashing::decode(in.get_bytes(), system_.layout(), state_))
      throw std::logic_error("dist::gather_graph: a state does not decode");
    hashing::encode_segmented(state_, system_.layout(), enc_);
    engine::StateStore& store = graph_.store();
    const uint32_t root = engine::intern_growing([&] { return store.tree().intern(enc_); }, [&] { store.grow(); });
    graph_.fill_state(id, root, labels_.data());
  }
  void row(StateId id, uint32_t n, Reader& in) {
    const Handles h{static_cast<uint32_t>(gids_.size()), 0};
    edges_.clear();
    for (uint32_t i = 0; i < n; ++i) {
      const StateId handle = in.get<uint64_t>();
      engine::Edge e;
      e.target = gids_[static_cast<size_t>(h.owner(handle))].at(h.local(handle)) - base_;
      e.label = in.get<uint32_t>();
      edges_.push_back(e);
    }
    graph_.set_edges(id, edges_);
  }

  const Shard& shard_;
  const engine::System& system_;
  StateId base_;
  MPI_Comm comm_;
  engine::StateGraph graph_;
  std::vector<std::vector<StateId>> gids_;  // per rank, per local id
  std::vector<Feed> feeds_;
  std::vector<uint64_t> labels_;
  hashing::GlobalState state_;
  hashing::SegmentedEncoding enc_;
  std::vector<engine::Edge> edges_;
};

}  // namespace

std::optional<engine::StateGraph> gather_graph(const Shard& shard, const engine::System& system, StateId base,
                                               MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  if (me != 0) {
    serve_gather(shard, comm);
    return std::nullopt;
  }
  return Assembly(shard, system, base, comm).build();
}

}  // namespace ddsmc::dist
