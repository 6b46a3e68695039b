#include "engine/checkpoint.hpp"

#include <xxhash.h>

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "hashing/state.hpp"

namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::CheckpointMeta& m, const unsigned /*version*/) {
  ar & m.identity & m.ranks & m.states & m.next & m.transitions & m.pruned_states;
  for (auto& c : m.canonical) ar & c;
  ar & m.seconds;
}

}  // namespace boost::serialization

namespace ddsmc::engine {
namespace {

constexpr char kMagic[8] = {'D', 'D', 'S', 'M', 'C', '-', 'C', 'K'};

// A file written through a buffer, hashed as it goes.
class HashedOut {
 public:
  explicit HashedOut(const std::string& path) : out_(path, std::ios::binary | std::ios::trunc), state_(XXH3_createState()) {
    if (!out_) throw CheckpointError("cannot create " + path);
    XXH3_64bits_reset(state_.get());
  }
  void bytes(const void* p, size_t n) {
    XXH3_64bits_update(state_.get(), p, n);
    out_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
  }
  void u32(uint32_t v) { bytes(&v, sizeof v); }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
  void varint(uint64_t v) {
    uint8_t b[10];
    size_t n = 0;
    do {
      b[n] = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      if (v) b[n] |= 0x80;
      ++n;
    } while (v);
    bytes(b, n);
  }
  // Appends the checksum and flushes; false if anything failed.
  bool finish() {
    const uint64_t digest = XXH3_64bits_digest(state_.get());
    out_.write(reinterpret_cast<const char*>(&digest), sizeof digest);
    out_.flush();
    return static_cast<bool>(out_);
  }

 private:
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::ofstream out_;
  std::unique_ptr<XXH3_state_t, Free> state_;
};

// The same file read back, hashed as it goes; any short read is an error.
class HashedIn {
 public:
  explicit HashedIn(const std::string& path) : in_(path, std::ios::binary), state_(XXH3_createState()) {
    if (!in_) throw CheckpointError("cannot open " + path);
    XXH3_64bits_reset(state_.get());
  }
  void bytes(void* p, size_t n) {
    raw(p, n);
    XXH3_64bits_update(state_.get(), p, n);
  }
  uint32_t u32() {
    uint32_t v;
    bytes(&v, sizeof v);
    return v;
  }
  uint64_t u64() {
    uint64_t v;
    bytes(&v, sizeof v);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      bytes(&b, 1);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    throw CheckpointError("the checkpoint is corrupted (a length is malformed)");
  }
  // Reads the stored checksum and compares; the file must end there.
  void finish() {
    const uint64_t digest = XXH3_64bits_digest(state_.get());
    uint64_t stored;
    raw(&stored, sizeof stored);
    if (stored != digest) throw CheckpointError("the checkpoint is corrupted (its checksum does not match)");
    if (in_.peek() != std::char_traits<char>::eof()) throw CheckpointError("the checkpoint has bytes after its end");
  }

 private:
  void raw(void* p, size_t n) {
    in_.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (static_cast<size_t>(in_.gcount()) != n) throw CheckpointError("the checkpoint is truncated");
  }
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::ifstream in_;
  std::unique_ptr<XXH3_state_t, Free> state_;
};

// The whole file against its checksum, before anything in it is believed.
void verify(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw CheckpointError("cannot open " + path);
  const auto size = static_cast<uint64_t>(in.tellg());
  if (size < sizeof kMagic + 4 + 8 + 8) throw CheckpointError("the checkpoint is truncated");
  in.seekg(0);
  char magic[sizeof kMagic];
  in.read(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw CheckpointError(path + " is not a ddsmc checkpoint");
  in.seekg(0);
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> buffer(size_t{1} << 20);
  for (uint64_t left = size - 8; left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
    in.read(buffer.data(), static_cast<std::streamsize>(n));
    if (static_cast<size_t>(in.gcount()) != n) throw CheckpointError("the checkpoint is truncated");
    XXH3_64bits_update(state.get(), buffer.data(), n);
    left -= n;
  }
  uint64_t stored = 0;
  in.read(reinterpret_cast<char*>(&stored), sizeof stored);
  if (stored != XXH3_64bits_digest(state.get()))
    throw CheckpointError("the checkpoint is truncated or corrupted (its checksum does not match)");
}

}  // namespace

std::string checkpoint_file(const std::string& dir) { return (std::filesystem::path(dir) / "checkpoint.ddsmc").string(); }

void write_checkpoint(const std::string& dir, const ExploreResult& res, StateId next, CheckpointMeta meta) {
  const StateGraph& g = res.graph;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CheckpointError("cannot create the checkpoint directory " + dir + ": " + ec.message());
  meta.states = g.num_states();
  meta.next = next;
  meta.transitions = g.num_edges();
  meta.pruned_states = res.pruned_states;
  meta.canonical = {res.canonical.calls, res.canonical.fast_path, res.canonical.refined, res.canonical.individualized,
                    res.canonical.nauty};
  std::ostringstream m;
  {
    boost::archive::binary_oarchive ar(m);
    ar << meta;
  }
  const std::string meta_bytes = m.str();
  const std::string path = checkpoint_file(dir), tmp = path + ".tmp";
  {
    HashedOut out(tmp);
    out.bytes(kMagic, sizeof kMagic);
    out.u32(kCheckpointFormat);
    out.u64(meta_bytes.size());
    out.bytes(meta_bytes.data(), meta_bytes.size());
    for (StateId s = 0; s < g.num_states(); ++s) {
      const std::string b = g.bytes(s);
      out.varint(b.size());
      out.bytes(b.data(), b.size());
    }
    std::vector<Edge> row;
    for (StateId s = 0; s < next; ++s) {
      row.assign(g.edges(s).begin(), g.edges(s).end());
      out.varint(row.size());
      StateId previous = 0;  // rows are sorted by target: deltas, as varints
      for (const Edge& e : row) {
        out.varint(e.target - previous);
        out.varint(e.label);
        previous = e.target;
      }
    }
    if (!out.finish()) throw CheckpointError("cannot write " + tmp + " (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw CheckpointError("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

CheckpointMeta read_checkpoint(const std::string& dir, const System& system, ExploreResult& res,
                               const std::function<void(const CheckpointMeta&)>& accept) {
  const std::string path = checkpoint_file(dir);
  if (!std::filesystem::exists(path)) throw CheckpointError("no checkpoint in " + dir + " (" + path + " is missing)");
  verify(path);
  HashedIn in(path);
  char magic[sizeof kMagic];
  in.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw CheckpointError(path + " is not a ddsmc checkpoint");
  const uint32_t format = in.u32();
  if (format != kCheckpointFormat)
    throw CheckpointError(path + " has checkpoint format " + std::to_string(format) + "; this ddsmc reads format " +
                          std::to_string(kCheckpointFormat));
  const uint64_t meta_size = in.u64();
  if (meta_size > (uint64_t{1} << 20)) throw CheckpointError("the checkpoint is corrupted (its header is too long)");
  std::string meta_bytes(meta_size, '\0');
  in.bytes(meta_bytes.data(), meta_size);
  CheckpointMeta meta;
  try {
    std::istringstream m(meta_bytes);
    boost::archive::binary_iarchive ar(m);
    ar >> meta;
  } catch (const boost::archive::archive_exception& e) {
    throw CheckpointError(std::string("the checkpoint's header is corrupted (") + e.what() + ")");
  }
  if (meta.next > meta.states || meta.states >= kNoState)
    throw CheckpointError("the checkpoint is corrupted (inconsistent counts)");
  accept(meta);

  StateGraph& g = res.graph;
  const hashing::StateLayout& layout = system.layout();
  std::string bytes;
  hashing::GlobalState s;
  for (uint64_t i = 0; i < meta.states; ++i) {
    const uint64_t n = in.varint();
    if (n > (uint64_t{1} << 28)) throw CheckpointError("the checkpoint is corrupted (a state is too long)");
    bytes.resize(n);
    in.bytes(bytes.data(), n);
    if (!hashing::decode(bytes, layout, s)) throw CheckpointError("the checkpoint is corrupted (a state does not decode)");
    const StateId id = g.add_state("", s, system);
    if (id != i) throw std::logic_error("read_checkpoint: ids out of order");
    g.store().bind(g.root(id), id);
  }
  if (g.bytes(0).empty() && meta.states) throw CheckpointError("the checkpoint is corrupted");
  constexpr StateId kBatch = 4096;
  std::vector<std::vector<Edge>> rows;
  std::vector<uint32_t> counts, sizes;
  for (StateId first = 0; first < meta.next;) {
    const StateId end = static_cast<StateId>(std::min<uint64_t>(meta.next, uint64_t{first} + kBatch));
    rows.assign(end - first, {});
    counts.clear();
    sizes.clear();
    for (StateId s2 = first; s2 < end; ++s2) {
      const uint64_t n = in.varint();
      if (n > meta.transitions) throw CheckpointError("the checkpoint is corrupted (too many edges)");
      auto& row = rows[s2 - first];
      uint64_t previous = 0;
      for (uint64_t k = 0; k < n; ++k) {
        const uint64_t target = previous + in.varint(), label = in.varint();
        if (target >= meta.states || label > 0xffffffffu)
          throw CheckpointError("the checkpoint is corrupted (an edge to no state)");
        previous = target;
        Edge e;
        e.target = static_cast<StateId>(target);
        e.label = static_cast<uint32_t>(label);
        if (e.arc() != kIdleArc && e.arc() >= g.num_arcs())
          throw CheckpointError("the checkpoint is corrupted (an edge on no arc)");
        if (!row.empty() && !(row.back().target < e.target || (row.back().target == e.target && row.back().label < e.label)))
          throw CheckpointError("the checkpoint is corrupted (edges out of order)");
        row.push_back(e);
      }
      counts.push_back(static_cast<uint32_t>(row.size()));
      sizes.push_back(g.edge_bytes(s2, row));
    }
    g.add_edges(first, counts, sizes);
    for (StateId s2 = first; s2 < end; ++s2) g.write_edges(s2, rows[s2 - first]);
    first = end;
  }
  in.finish();
  if (g.num_edges() != meta.transitions) throw CheckpointError("the checkpoint is corrupted (edge count)");
  res.pruned_states = meta.pruned_states;
  res.canonical = {meta.canonical[0], meta.canonical[1], meta.canonical[2], meta.canonical[3], meta.canonical[4]};
  return meta;
}

}  // namespace ddsmc::engine
