#include "dist/ranks.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "dist/consensus.hpp"
#include "dist/mpi_backend.hpp"
#include "dist/mpi_types.hpp"
#include "dist/wire.hpp"

namespace ddsmc::dist {
namespace {

// Point-to-point tags on MPI_COMM_WORLD after the exploration.
enum Tag : int { kFetch = 101, kBytes = 102, kDone = 103, kCommand = 104 };

}  // namespace

Ranks::Ranks(int unwound_code) : mpi_(nullptr, nullptr), unwound_code_(unwound_code) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &on_node_);
  MPI_Comm_free(&node);
}

Ranks::~Ranks() {
  if (root() && explored_ && !finished_) finish(unwound_code_);
}

int Ranks::worst(int code) const {
  int out = code;
  MPI_Allreduce(&code, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

std::vector<uint64_t> Ranks::all(uint64_t value) const {
  std::vector<uint64_t> out(static_cast<size_t>(size()));
  MPI_Allgather(&value, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  return out;
}

uint64_t Ranks::from_root(uint64_t value) const {
  MPI_Bcast(&value, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return value;
}

std::optional<std::string> Ranks::disagreement(const std::optional<std::string>& identity) const {
  return dist::disagreement(MPI_COMM_WORLD, identity);
}

std::unique_ptr<engine::Backend> Ranks::backend(engine::Fairness fairness, engine::Cancellation& cancel,
                                                engine::AnalysisCheckpoint checkpoint) {
  return std::make_unique<MpiBackend>(*this, fairness, cancel, std::move(checkpoint));
}

std::unordered_map<engine::StateId, std::string> Ranks::fetch(const std::vector<engine::StateId>& ids,
                                                              const Shard& mine) const {
  std::unordered_map<engine::StateId, std::string> out;
  for (int r = 1; r < size(); ++r)
    MPI_Send(ids.data(), static_cast<int>(ids.size()), mpi_type<engine::StateId>(), r, kFetch, MPI_COMM_WORLD);
  for (engine::StateId id : ids)
    if (auto b = mine.bytes(id)) out[id] = std::move(*b);
  for (int r = 1; r < size(); ++r) {
    MPI_Status status;
    MPI_Probe(r, kBytes, MPI_COMM_WORLD, &status);
    int n = 0;
    MPI_Get_count(&status, MPI_BYTE, &n);
    std::vector<uint8_t> data(static_cast<size_t>(n));
    MPI_Recv(data.data(), n, MPI_BYTE, r, kBytes, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Reader in(data);
    while (!in.done()) {
      const engine::StateId id = in.varint();
      out[id] = std::string(in.bytes(in.varint()));
    }
  }
  for (engine::StateId id : ids)
    if (!out.count(id)) throw std::logic_error("a state no rank owns");
  return out;
}

void Ranks::command(const std::vector<uint64_t>& args) const {
  for (int r = 1; r < size(); ++r)
    MPI_Send(args.data(), static_cast<int>(args.size()), mpi_type<uint64_t>(), r, kCommand, MPI_COMM_WORLD);
}

int Ranks::serve(const Shard& shard, const OnCommand& on_command) const {
  for (;;) {
    int ready = 0;
    MPI_Status status;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &status);
    if (!ready) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (status.MPI_TAG == kDone) {
      int code = 0;
      MPI_Recv(&code, 1, MPI_INT, 0, kDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      return code;
    }
    int n = 0;
    // (a fetch's state ids and a command's arguments are both 64-bit words)
    static_assert(std::is_same_v<engine::StateId, uint64_t>);
    MPI_Get_count(&status, mpi_type<uint64_t>(), &n);
    std::vector<uint64_t> ids(static_cast<size_t>(n));
    MPI_Recv(ids.data(), n, mpi_type<uint64_t>(), 0, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kCommand) {
      try {
        on_command(ids);
      } catch (const std::exception&) {
        // (a stop every rank agreed on, or a failure rank 0 reports)
      }
      continue;
    }
    std::vector<uint8_t> reply;
    Writer out(reply);
    for (engine::StateId id : ids)
      if (auto b = shard.bytes(id)) {
        out.varint(id);
        out.varint(b->size());
        out.bytes(*b);
      }
    MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_BYTE, 0, kBytes, MPI_COMM_WORLD);
  }
}

int Ranks::finish(int code) {
  if (finished_) return code;
  finished_ = true;
  for (int r = 1; r < size(); ++r) MPI_Send(&code, 1, MPI_INT, r, kDone, MPI_COMM_WORLD);
  return code;
}

}  // namespace ddsmc::dist
