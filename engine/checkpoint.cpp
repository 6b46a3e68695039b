#include "engine/checkpoint.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "engine/checkpoint_body.hpp"
#include "engine/checkpoint_io.hpp"

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

// A std::optional as a flag and a value (Boost 1.74 knows boost::optional only).
template <class Archive, class T>
void optional_field(Archive& ar, std::optional<T>& v) {
  bool has = v.has_value();
  ar & has;
  if (!has) {
    v.reset();
    return;
  }
  if (!v) v.emplace();
  ar & *v;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::Edge& e, const unsigned /*version*/) {
  ar & e.target & e.label;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::Lasso& l, const unsigned /*version*/) {
  ar & l.states & l.edges & l.loop_start;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::Verdict& v, const unsigned /*version*/) {
  ar & v.property;
  optional_field(ar, v.holds);
  optional_field(ar, v.lasso);
  optional_field(ar, v.node);
  ar & v.stats.subgraphs & v.stats.rounds & v.stats.passes & v.stats.survivors;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::CheckpointMeta& m, const unsigned /*version*/) {
  ar & m.identity & m.ranks & m.generation & m.states & m.next & m.transitions & m.pruned_states;
  for (auto& c : m.canonical) ar & c;
  for (auto& s : m.sizes) ar & s;
  ar & m.seconds & m.verdicts;
}

template <class Archive>
void serialize(Archive& ar, ddsmc::engine::PartMeta& m, const unsigned /*version*/) {
  ar & m.identity & m.ranks & m.rank & m.generation & m.states & m.expanded & m.transitions;
}

}  // namespace boost::serialization


namespace ddsmc::engine {
namespace {

using checkpoint_io::CheckedIn;
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
Meta read_header(CheckedIn& in, const std::string& path) {
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

// Writes through a temporary file, renamed once whole; a failure (a full
// disk, say) leaves no temporary file behind. The errors name `what` (not
// the file, whose name has the generation: the same failure at every
// slice reads the same).
template <class Body>
void write_file(const std::string& dir, const std::string& path, const std::string& what, Body&& body) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CheckpointError("cannot create the checkpoint directory (" + ec.message() + ")");
  const std::string tmp = path + ".tmp";
  try {
    {
      HashedOut out(tmp);
      if (out.error()) throw CheckpointError("cannot create " + what + " (" + std::strerror(out.error()) + ")");
      body(out);
      if (!out.finish()) throw CheckpointError("cannot write " + what + " (" + std::strerror(out.error()) + ")");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw CheckpointError("cannot rename " + what + " into place (" + ec.message() + ")");
  } catch (...) {
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

// Whether `name` is ddsmc's name for a part of `rank`, of any generation:
// rank-K.GGGGGGGGGGGGGGGG.ddsmc (16 lowercase hex digits), or that name
// with ".tmp" (`tmp`, then); `generation` gets the number.
bool part_name(const std::string& name, uint32_t rank, uint64_t& generation, bool& tmp) {
  const std::string prefix = fmt::format("rank-{}.", rank);
  if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 16) return false;
  const std::string digits = name.substr(prefix.size(), 16), suffix = name.substr(prefix.size() + 16);
  if (suffix != ".ddsmc" && suffix != ".ddsmc.tmp") return false;
  for (char c : digits)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  generation = std::stoull(digits, nullptr, 16);
  tmp = suffix != ".ddsmc";
  return true;
}

// Whether the file at `path` begins as every checkpoint file does (the
// magic), or, `empty_too`, is empty (a temporary file whose writer was
// stopped before it wrote its first buffer).
bool begins_as_checkpoint(const std::filesystem::path& path, bool empty_too) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kMagic];
  in.read(magic, sizeof magic);
  if (in.gcount() == 0) return empty_too && in.eof();
  return static_cast<size_t>(in.gcount()) == sizeof magic && std::memcmp(magic, kMagic, sizeof magic) == 0;
}

void check_exists(const std::string& path, const std::string& what) {
  if (!std::filesystem::exists(path)) throw CheckpointError(what + " is missing (" + path + ")");
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
  m.sizes = {p.sizes.db_facts, p.sizes.db_constants, p.sizes.channel_messages};
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
  const std::string what = meta.ranks == 1 ? "the part" : fmt::format("rank {}'s part", rank);
  write_file(dir, checkpoint_part_file(dir, rank, meta.generation), what, [&](HashedOut& out) {
    write_header(out, part);
    checkpoint_body::write(out, g, p.gids);
  });
}

void write_checkpoint_manifest(const std::string& dir, const CheckpointMeta& meta) {
  write_file(dir, checkpoint_file(dir), "the manifest", [&](HashedOut& out) { write_header(out, meta); });
}

void remove_other_checkpoint_parts(const std::string& dir, uint32_t rank, uint64_t keep) {
  const std::string manifest_tmp = std::filesystem::path(checkpoint_file(dir)).filename().string() + ".tmp";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.is_symlink(type_ec) || !entry.is_regular_file(type_ec)) continue;
    const std::string name = entry.path().filename().string();
    uint64_t generation = 0;
    bool tmp = false, stale = false;
    if (part_name(name, rank, generation, tmp)) stale = tmp || generation != keep;
    else if (rank == 0 && name == manifest_tmp) stale = tmp = true;
    if (stale && begins_as_checkpoint(entry.path(), tmp)) std::filesystem::remove(entry.path(), type_ec);
  }
}

CheckpointMeta read_checkpoint_manifest(const std::string& dir) {
  const std::string path = checkpoint_file(dir);
  if (!std::filesystem::exists(path)) throw CheckpointError("no checkpoint in " + dir + " (" + path + " is missing)");
  CheckedIn in(path);
  const auto meta = read_header<CheckpointMeta>(in, path);
  in.finish();
  if (meta.next > meta.states || meta.states >= kNoState || meta.ranks == 0)
    throw CheckpointError("the checkpoint is corrupted (inconsistent counts)");
  for (const Verdict& v : meta.verdicts) {
    bool ok = meta.next == meta.states && static_cast<unsigned>(v.property) < std::size(kAllProperties) && v.holds;
    if (ok && v.lasso)
      for (StateId s : v.lasso->states) ok &= s < meta.states;
    if (!ok) throw CheckpointError("the checkpoint is corrupted (a verdict)");
  }
  return meta;
}

void read_checkpoint_part(const std::string& dir, uint32_t rank, const CheckpointMeta& meta, const System& system,
                          StateGraph& g, std::vector<StateId>& gids) {
  const std::string path = checkpoint_part_file(dir, rank, meta.generation);
  check_exists(path, "rank " + std::to_string(rank) + "'s part of the checkpoint");
  CheckedIn in(path);
  const auto part = read_header<PartMeta>(in, path);
  if (part.identity != meta.identity || part.ranks != meta.ranks || part.rank != rank ||
      part.generation != meta.generation)
    throw CheckpointError(path + " belongs to another checkpoint");
  if (part.states > meta.states || part.expanded > part.states || part.transitions > meta.transitions)
    throw CheckpointError("the checkpoint is corrupted (inconsistent counts in " + path + ")");
  const checkpoint_body::Counts counts{part.states, part.expanded, part.transitions, meta.states, meta.ranks == 1,
                                       meta.ranks};
  checkpoint_body::read(in, counts, system, g, gids);
  in.finish();
}

}  // namespace ddsmc::engine
