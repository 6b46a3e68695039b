#include "engine/checkpoint.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "engine/checkpoint_io.hpp"
#include "hashing/state.hpp"

namespace ddsmc::engine {
namespace {

// A part's own header: which rank's, of which checkpoint, and its counts.
struct PartMeta {
  std::string identity;
  uint32_t ranks = 1, rank = 0;
  uint64_t generation = 0, states = 0, expanded = 0, transitions = 0;
};

}  // namespace
}  // namespace ddsmc::engine

namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::CheckpointMeta& m, const unsigned /*version*/) {
  ar & m.identity & m.ranks & m.generation & m.states & m.next & m.transitions & m.pruned_states;
  for (auto& c : m.canonical) ar & c;
  ar & m.seconds;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::PartMeta& m, const unsigned /*version*/) {
  ar & m.identity & m.ranks & m.rank & m.generation & m.states & m.expanded & m.transitions;
}

}  // namespace boost::serialization

namespace ddsmc::engine::checkpoint_io {

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
}  // namespace ddsmc::engine::checkpoint_io

namespace ddsmc::engine {
namespace {

using checkpoint_io::HashedIn;
using checkpoint_io::HashedOut;
using checkpoint_io::kMagic;

template <class Meta>
void write_header(HashedOut& out, const Meta& meta) {
  std::ostringstream m;
  {
    boost::archive::binary_oarchive ar(m);
    ar << meta;
  }
  const std::string bytes = m.str();
  out.bytes(kMagic, sizeof kMagic);
  out.u32(kCheckpointFormat);
  out.u64(bytes.size());
  out.bytes(bytes.data(), bytes.size());
}

// Opens a file (checked whole first) and reads its header.
template <class Meta>
Meta read_header(HashedIn& in, const std::string& path) {
  char magic[sizeof kMagic];
  in.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw CheckpointError(path + " is not a ddsmc checkpoint");
  const uint32_t format = in.u32();
  if (format != kCheckpointFormat)
    throw CheckpointError(path + " has checkpoint format " + std::to_string(format) + "; this ddsmc reads format " +
                          std::to_string(kCheckpointFormat));
  const uint64_t size = in.u64();
  if (size > (uint64_t{1} << 20)) throw CheckpointError("the checkpoint is corrupted (its header is too long)");
  std::string bytes(size, '\0');
  in.bytes(bytes.data(), size);
  Meta meta;
  try {
    std::istringstream m(bytes);
    boost::archive::binary_iarchive ar(m);
    ar >> meta;
  } catch (const boost::archive::archive_exception& e) {
    throw CheckpointError(std::string("the checkpoint's header is corrupted (") + e.what() + ")");
  }
  return meta;
}

// Writes through a temporary file, renamed once whole.
template <class Body>
void write_file(const std::string& dir, const std::string& path, Body&& body) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CheckpointError("cannot create the checkpoint directory " + dir + ": " + ec.message());
  const std::string tmp = path + ".tmp";
  {
    HashedOut out(tmp);
    body(out);
    if (!out.finish()) throw CheckpointError("cannot write " + tmp + " (disk full?)");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw CheckpointError("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

void check_file(const std::string& path, const std::string& what) {
  if (!std::filesystem::exists(path)) throw CheckpointError(what + " is missing (" + path + ")");
  checkpoint_io::verify(path);
}

}  // namespace

CheckpointMeta checkpoint_meta(const ExplorePoint& p) {
  CheckpointMeta m;
  m.states = p.states;
  m.next = p.next;
  m.transitions = p.transitions;
  m.pruned_states = p.pruned_states;
  m.canonical = {p.canonical.calls, p.canonical.fast_path, p.canonical.refined, p.canonical.individualized,
                 p.canonical.nauty};
  m.seconds = p.seconds;
  return m;
}

std::string checkpoint_file(const std::string& dir) { return (std::filesystem::path(dir) / "checkpoint.ddsmc").string(); }

std::string checkpoint_part_file(const std::string& dir, uint32_t rank, uint64_t generation) {
  return (std::filesystem::path(dir) / fmt::format("rank-{}.{:016x}.ddsmc", rank, generation)).string();
}

void write_checkpoint_part(const std::string& dir, uint32_t rank, const ExplorePoint& p, const CheckpointMeta& meta) {
  const StateGraph& g = p.graph;
  PartMeta part{meta.identity, meta.ranks, rank, meta.generation, g.num_states(), g.num_expanded(), g.num_edges()};
  write_file(dir, checkpoint_part_file(dir, rank, meta.generation), [&](HashedOut& out) {
    write_header(out, part);
    StateId previous_gid = 0;
    for (StateId s = 0; s < g.num_states(); ++s) {
      const StateId gid = p.gids ? (*p.gids)[s] : s;
      out.varint(gid - previous_gid);  // ascending: deltas
      previous_gid = gid;
      const std::string b = g.bytes(s);
      out.varint(b.size());
      out.bytes(b.data(), b.size());
    }
    std::vector<Edge> row;
    for (StateId s = 0; s < g.num_expanded(); ++s) {
      row.assign(g.edges(s).begin(), g.edges(s).end());
      out.varint(row.size());
      StateId previous = 0;  // rows are sorted by target: deltas
      for (const Edge& e : row) {
        out.varint(e.target - previous);
        out.varint(e.label);
        previous = e.target;
      }
    }
  });
}

void write_checkpoint_manifest(const std::string& dir, const CheckpointMeta& meta) {
  write_file(dir, checkpoint_file(dir), [&](HashedOut& out) { write_header(out, meta); });
}

void remove_other_checkpoint_parts(const std::string& dir, uint32_t rank, uint64_t keep) {
  const std::string mine = fmt::format("rank-{}.", rank), kept = checkpoint_part_file(dir, rank, keep);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(mine, 0) == 0 && entry.path().string() != kept) std::filesystem::remove(entry.path(), ec);
  }
}

CheckpointMeta read_checkpoint_manifest(const std::string& dir) {
  const std::string path = checkpoint_file(dir);
  if (!std::filesystem::exists(path)) throw CheckpointError("no checkpoint in " + dir + " (" + path + " is missing)");
  checkpoint_io::verify(path);
  HashedIn in(path);
  const auto meta = read_header<CheckpointMeta>(in, path);
  in.finish();
  if (meta.next > meta.states || meta.states >= kNoState || meta.ranks == 0)
    throw CheckpointError("the checkpoint is corrupted (inconsistent counts)");
  return meta;
}

void read_checkpoint_part(const std::string& dir, uint32_t rank, const CheckpointMeta& meta, const System& system,
                          StateGraph& g, std::vector<StateId>& gids) {
  const std::string path = checkpoint_part_file(dir, rank, meta.generation);
  check_file(path, "rank " + std::to_string(rank) + "'s part of the checkpoint");
  HashedIn in(path);
  const auto part = read_header<PartMeta>(in, path);
  if (part.identity != meta.identity || part.ranks != meta.ranks || part.rank != rank ||
      part.generation != meta.generation)
    throw CheckpointError(path + " belongs to another checkpoint");
  if (part.states > meta.states || part.expanded > part.states || part.transitions > meta.transitions)
    throw CheckpointError("the checkpoint is corrupted (inconsistent counts in " + path + ")");

  const hashing::StateLayout& layout = system.layout();
  std::string bytes;
  hashing::GlobalState s;
  gids.clear();
  gids.reserve(part.states);
  uint64_t gid = 0;
  for (uint64_t i = 0; i < part.states; ++i) {
    const uint64_t delta = in.varint();
    gid += delta;
    if ((i > 0 && delta == 0) || gid >= meta.states || (meta.ranks == 1 && gid != i))
      throw CheckpointError("the checkpoint is corrupted (state ids out of order)");
    gids.push_back(static_cast<StateId>(gid));
    const uint64_t n = in.varint();
    if (n > (uint64_t{1} << 28)) throw CheckpointError("the checkpoint is corrupted (a state is too long)");
    bytes.resize(n);
    in.bytes(bytes.data(), n);
    if (!hashing::decode(bytes, layout, s)) throw CheckpointError("the checkpoint is corrupted (a state does not decode)");
    const StateId id = g.add_state("", s, system);
    if (id != i) throw std::logic_error("read_checkpoint_part: ids out of order");
    g.store().bind(g.root(id), id);
  }
  constexpr StateId kBatch = 4096;
  std::vector<std::vector<Edge>> rows;
  std::vector<uint32_t> counts, sizes;
  for (StateId first = 0; first < part.expanded;) {
    const StateId end = static_cast<StateId>(std::min<uint64_t>(part.expanded, uint64_t{first} + kBatch));
    rows.assign(end - first, {});
    counts.clear();
    sizes.clear();
    for (StateId s2 = first; s2 < end; ++s2) {
      const uint64_t n = in.varint();
      if (n > part.transitions) throw CheckpointError("the checkpoint is corrupted (too many edges)");
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
  if (g.num_edges() != part.transitions) throw CheckpointError("the checkpoint is corrupted (edge count)");
}

}  // namespace ddsmc::engine
