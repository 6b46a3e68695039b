// dist/directory: every rank learns the owner of every id and the local
// id of each of its own, whatever the pattern of ownership (none, some
// and all ids of a 64-id word; ranks that own nothing).
#include <gtest/gtest.h>
#include <mpi.h>

#include "dist/directory.hpp"

namespace ddsmc {
namespace {

TEST(Directory, OwnersAndLocalIds) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  int me = 0, ranks = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &ranks);
  // Owners by a pattern: runs of a whole word owned by one rank, then
  // scattered ids; the last rank owns nothing when there are 3 or more.
  const int owning = ranks >= 3 ? ranks - 1 : ranks;
  auto owner_of = [&](engine::StateId g) { return g < 128 ? int(g / 64) % owning : int((g * 7 + 3) % owning); };
  for (engine::StateId states : {engine::StateId{1}, engine::StateId{64}, engine::StateId{1000}}) {
    std::vector<engine::StateId> mine;
    for (engine::StateId g = 0; g < states; ++g)
      if (owner_of(g) == me) mine.push_back(g);
    dist::Directory dir(mine, states, comm);
    EXPECT_EQ(dir.me(), me);
    EXPECT_EQ(dir.ranks(), ranks);
    engine::StateId local = 0;
    for (engine::StateId g = 0; g < states; ++g) {
      EXPECT_EQ(dir.owner(g), owner_of(g)) << "id " << g << " of " << states;
      EXPECT_EQ(dir.mine(g), owner_of(g) == me) << "id " << g;
      if (owner_of(g) == me) {
        EXPECT_EQ(dir.local(g), local++) << "id " << g;
      }
    }
  }
}

}  // namespace
}  // namespace ddsmc
