// dist::disagreement under 1..4 ranks (and as a singleton): equal identities
// agree; a rank with another identity, or one that failed to set up, is
// named (the lowest such rank), and every rank returns the very same message.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "dist/consensus.hpp"

namespace ddsmc::dist {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank when `text` is the same on every rank (rank 0's copy is
// broadcast and compared; the comparisons are and-ed).
bool same_on_every_rank(const std::optional<std::string>& text) {
  int has = text ? 1 : 0;
  std::uint64_t length = text ? text->size() : 0;
  int root_has = has;
  std::uint64_t root_length = length;
  MPI_Bcast(&root_has, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&root_length, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string root(root_length, '\0');
  if (world_rank() == 0 && text) root = *text;
  if (root_length > 0) MPI_Bcast(root.data(), static_cast<int>(root_length), MPI_CHAR, 0, MPI_COMM_WORLD);
  int equal = (has == root_has && (!text || *text == root)) ? 1 : 0;
  int all_equal = 0;
  MPI_Allreduce(&equal, &all_equal, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all_equal != 0;
}

const std::string kDiffers = " runs a different check than rank 0 (model, network, bounds or flags differ)";

std::string differs(int rank) { return "rank " + std::to_string(rank) + kDiffers; }
std::string failed(int rank) { return "rank " + std::to_string(rank) + " could not load the model"; }

TEST(Consensus, EqualIdentitiesAgree) {
  for (const std::string& id : {std::string(), std::string("model bytes\0network ring:3", 26),
                                std::string(1 << 20, 'x')}) {
    auto d = disagreement(MPI_COMM_WORLD, id);
    EXPECT_FALSE(d.has_value()) << *d;
    EXPECT_TRUE(same_on_every_rank(d));
  }
}

TEST(Consensus, SingleRankAgreesWithItself) {
  MPI_Comm self = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  EXPECT_FALSE(disagreement(self, std::string("anything")).has_value());
  EXPECT_EQ(disagreement(self, std::nullopt), failed(0));
  MPI_Comm_free(&self);
}

TEST(Consensus, LastRankDiffersInOneByte) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  std::string id = "model bytes; --network ring:3; --threads 1";
  if (world_rank() == n - 1) id[id.size() - 1] = '2';
  auto d = disagreement(MPI_COMM_WORLD, id);
  EXPECT_EQ(d, differs(n - 1));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, LowestDifferingRankIsNamed) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  // Every rank has its own identity: rank 1 is the first to differ from 0.
  auto d = disagreement(MPI_COMM_WORLD, "rank " + std::to_string(world_rank()));
  EXPECT_EQ(d, differs(1));
  EXPECT_TRUE(same_on_every_rank(d));
  // Rank 0 is the odd one out: every other rank differs from it, rank 1 first.
  d = disagreement(MPI_COMM_WORLD, std::string(world_rank() == 0 ? "odd" : "even"));
  EXPECT_EQ(d, differs(1));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, PrefixIsNotEqual) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  // A trailing NUL byte makes another identity.
  std::string id = "abc";
  if (world_rank() == 1) id.push_back('\0');
  auto d = disagreement(MPI_COMM_WORLD, id);
  EXPECT_EQ(d, differs(1));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, FailedRankIsNamed) {
  const int n = world_size();
  // The last rank fails (rank 0 when alone); the others agree.
  std::optional<std::string> id = std::string("same");
  if (world_rank() == n - 1) id.reset();
  auto d = disagreement(MPI_COMM_WORLD, id);
  EXPECT_EQ(d, failed(n - 1));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, EveryRankFails) {
  auto d = disagreement(MPI_COMM_WORLD, std::nullopt);
  EXPECT_EQ(d, failed(0));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, FailureIsReportedBeforeADifference) {
  const int n = world_size();
  if (n < 3) GTEST_SKIP() << "needs three ranks";
  // Rank 1 differs, ranks 2.. fail: the failure (rank 2) is what is named,
  // since a rank that could not load the model has nothing to compare.
  std::optional<std::string> id;
  if (world_rank() == 0) id = "a";
  if (world_rank() == 1) id = "b";
  auto d = disagreement(MPI_COMM_WORLD, id);
  EXPECT_EQ(d, failed(2));
  EXPECT_TRUE(same_on_every_rank(d));
}

TEST(Consensus, OnASubCommunicator) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs two ranks";
  // Even and odd world ranks form two communicators; within each, ranks are
  // numbered from 0. In the even one every identity is equal; in the odd one
  // its rank 1 (world rank 3) differs when it exists.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
  int half_size = 0;
  MPI_Comm_size(half, &half_size);
  const bool odd = world_rank() % 2 == 1;
  auto d = disagreement(half, std::string(odd && world_rank() == 3 ? "three" : "same"));
  if (odd && half_size >= 2)
    EXPECT_EQ(d, differs(1));
  else
    EXPECT_FALSE(d.has_value()) << *d;
  MPI_Comm_free(&half);
}

}  // namespace
}  // namespace ddsmc::dist
