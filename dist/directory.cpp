#include "dist/directory.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "dist/mailbox.hpp"

namespace ddsmc::dist {

using engine::StateId;

Directory::Directory(const std::vector<StateId>& gids, StateId states, MPI_Comm comm) : states_(states) {
  MPI_Comm_rank(comm, &me_);
  MPI_Comm_size(comm, &ranks_);
  if (ranks_ > 0xffff) throw std::length_error("dist: more than 65535 ranks");
  const size_t words = (size_t{states} + 63) / 64;
  wide_ = ranks_ > 256;
  // Every rank allocates, then they agree: a rank that could not must not
  // leave the others in a collective.
  agree_on_stop(comm, stop_of([&] {
    bits_.assign(words + 1, 0);
    base_.assign(words + 1, 0);
    if (wide_) owner16_.assign(states, 0);
    else owner8_.assign(states, 0);
  }));
  for (StateId g : gids) bits_[g >> 6] |= uint64_t{1} << (g & 63);
  uint32_t below = 0;
  for (size_t w = 0; w <= words; ++w) {
    base_[w] = below;
    below += static_cast<uint32_t>(std::popcount(bits_[w]));
  }
  if (wide_) fill_owners(owner16_, gids, MPI_UINT16_T, comm);
  else fill_owners(owner8_, gids, MPI_UINT8_T, comm);
}

// The owners: each rank marks its states with its rank, the others' stay
// 0, and a maximum over the ranks fills in every one (in chunks, so that
// MPI's buffers stay small). Every id has exactly one owner: the ranks'
// counts must add up to the states.
template <class T>
void Directory::fill_owners(std::vector<T>& owner, const std::vector<StateId>& gids, MPI_Datatype type,
                            MPI_Comm comm) {
  uint64_t owned = gids.size();
  MPI_Allreduce(MPI_IN_PLACE, &owned, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (owned != states_) throw std::logic_error("dist: the ranks' states do not add up to the state count");
  const T mark = static_cast<T>(me_);
  for (StateId g : gids) owner[g] = mark;
  constexpr size_t kChunk = size_t{1} << 22;
  for (size_t a = 0; a < owner.size(); a += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, owner.size() - a));
    MPI_Allreduce(MPI_IN_PLACE, owner.data() + a, n, type, MPI_MAX, comm);
  }
}

}  // namespace ddsmc::dist
