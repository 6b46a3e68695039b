// The test-only id base's checks (dist/id_base.hpp): a base must leave room
// for every rank's states below 2^63, DDSMC_TEST_ID_BASE must be a decimal
// number, and dist::explore refuses a bad base on every rank before any
// collective step.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <stdexcept>

#include "dist/explore.hpp"
#include "dist/id_base.hpp"
#include "engine/state_store.hpp"

namespace ddsmc {
namespace {

TEST(DistIdBase, LeavesRoomForEveryRanksStatesBelow2To63) {
  const uint64_t top = uint64_t{1} << 63;
  EXPECT_EQ(dist::checked_id_base(0, 4), 0u);
  EXPECT_EQ(dist::checked_id_base((uint64_t{1} << 32) + 12345, 4), (uint64_t{1} << 32) + 12345);
  EXPECT_EQ(dist::checked_id_base(top - engine::kMaxLocalStates * 4, 4), top - engine::kMaxLocalStates * 4);
  EXPECT_THROW(dist::checked_id_base(top - engine::kMaxLocalStates * 4 + 1, 4), std::invalid_argument);
  EXPECT_THROW(dist::checked_id_base(top, 1), std::invalid_argument);
  EXPECT_THROW(dist::checked_id_base(~uint64_t{0}, 1), std::invalid_argument);
}

TEST(DistIdBase, ParsesDecimalNumbersOnly) {
  EXPECT_EQ(dist::parse_id_base("4294979641"), uint64_t{4294979641});
  EXPECT_EQ(dist::parse_id_base("0"), uint64_t{0});
  EXPECT_EQ(dist::parse_id_base("18446744073709551615"), ~uint64_t{0});
  EXPECT_FALSE(dist::parse_id_base("18446744073709551616"));
  EXPECT_FALSE(dist::parse_id_base(""));
  EXPECT_FALSE(dist::parse_id_base("-1"));
  EXPECT_FALSE(dist::parse_id_base("0x10"));
  EXPECT_FALSE(dist::parse_id_base("12 "));
}

}  // namespace
}  // namespace ddsmc
