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
  // Every rank allocates, then they agree: a rank that could not must not
  // leave the others in a collective.
  agree_on_stop(comm, stop_of([&] {
    bits_.assign(words + 1, 0);
    base_.assign(words + 1, 0);
    owner_.assign(states, 0);
  }));
  for (StateId g : gids) bits_[g >> 6] |= uint64_t{1} << (g & 63);
  uint32_t below = 0;
  for (size_t w = 0; w <= words; ++w) {
    base_[w] = below;
    below += static_cast<uint32_t>(std::popcount(bits_[w]));
  }
  // The owners: each rank marks its states with its rank + 1, the others'
  // stay 0, and a maximum over the ranks fills in every one (in chunks, so
  // that MPI's buffers stay small).
  for (StateId g : gids) owner_[g] = static_cast<uint16_t>(me_ + 1);
  constexpr size_t kChunk = size_t{1} << 22;
  for (size_t a = 0; a < owner_.size(); a += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, owner_.size() - a));
    MPI_Allreduce(MPI_IN_PLACE, owner_.data() + a, n, MPI_UINT16_T, MPI_MAX, comm);
  }
  for (uint16_t& o : owner_) {
    if (o == 0) throw std::logic_error("dist: a state no rank owns");
    --o;
  }
}

}  // namespace ddsmc::dist
