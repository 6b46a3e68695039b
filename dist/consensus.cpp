#include "dist/consensus.hpp"

#include <array>
#include <cstdint>
#include <vector>

#include "hashing/fingerprint.hpp"

namespace ddsmc::dist {

std::optional<std::string> disagreement(MPI_Comm comm, const std::optional<std::string>& identity) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  // Per rank: {failed, hash lo, hash hi}. A hash collision between two
  // different identities (probability about 2^-128) is the only way two
  // different checks pass as one.
  std::array<std::uint64_t, 3> mine{1, 0, 0};
  if (identity) {
    const hashing::Fingerprint f = hashing::fingerprint(*identity);
    mine = {0, f.lo, f.hi};
  }
  std::vector<std::uint64_t> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm);
  // Every rank decides from the same gathered array, so every rank returns
  // the same answer.
  auto at = [&](int rank, int field) { return all[3 * static_cast<std::size_t>(rank) + static_cast<std::size_t>(field)]; };
  for (int r = 0; r < size; ++r)
    if (at(r, 0) != 0) return "rank " + std::to_string(r) + " could not load the model";
  for (int r = 1; r < size; ++r) {
    if (at(r, 1) != at(0, 1) || at(r, 2) != at(0, 2))
      return "rank " + std::to_string(r) + " runs a different check than rank 0 (model, network, bounds or flags differ)";
  }
  return std::nullopt;
}

}  // namespace ddsmc::dist
