#include "service/usable_entry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "cache/cache_budget.h"
#include "cache/field_cache.h"
#include "cache/field_flights.h"
#include "cache/usable_mask_cache.h"
#include "support/clearance_reference.h"
#include "support/random_mask.h"

namespace pathserver {
namespace {

// A request that records how it was resumed.
class RecordingRequest final : public FieldRequest {
 public:
  grpc::Status gone() const override { return grpc::Status::OK; }
  void abandon(const grpc::Status& status) override { abandoned = status; }
  void resume(const FieldKey& key, FieldPtr field) override {
    resumed_key = key;
    resumed_field = std::move(field);
  }

  std::optional<grpc::Status> abandoned;
  std::optional<FieldKey> resumed_key;
  FieldPtr resumed_field;
};

MaskEntry entry_for(pathcore::Mask mask) {
  MaskEntry entry;
  entry.name = "m";
  entry.revision = 3;
  entry.mask = std::make_shared<const pathcore::Mask>(std::move(mask));
  entry.clearance =
      std::make_shared<const pathcore::ClearanceMap>(*entry.mask, pathcore::kAllAreas);
  return entry;
}

class UsableEntryTest : public ::testing::Test {
 protected:
  FieldCache fields_{std::size_t{16} << 20};
  UsableMaskCache usable_{fields_.budget(), "usable_masks", 8};
  FieldFlights flights_;
};

TEST_F(UsableEntryTest, HoldsTheBruteForceUsablePixelsAndIsBuiltOffTheWarmPath) {
  std::mt19937_64 rng(21);
  const MaskEntry entry = entry_for(pathtest::random_mask(rng, 48, 32, 0.15, 3));
  const pathcore::AreaSet enabled = 0b1010;  // areas 1 and 3
  for (const double clearance : {0.75, 1.0, 1.5, 2.25, 4.0}) {
    SCOPED_TRACE(clearance);
    // gRPC's thread never builds: the warm source sends the call to the pool.
    CacheOnlySource warm(fields_);
    EXPECT_THROW((void)usable_entry(usable_, warm, entry, enabled, clearance), NeedsFill);

    FillingSource filling(fields_, flights_, std::make_shared<RecordingRequest>());
    const UsableEntry built = usable_entry(usable_, filling, entry, enabled, clearance);
    EXPECT_EQ(built.entry.name, entry.name);
    EXPECT_EQ(built.entry.revision, entry.revision);
    const pathcore::Mask want = pathtest::mask_of_usable(
        *entry.mask, pathtest::reference_usable(*entry.mask, enabled, clearance));
    ASSERT_EQ(built.entry.mask->width(), want.width());
    for (std::uint32_t y = 0; y < want.height(); ++y) {
      for (std::uint32_t x = 0; x < want.width(); ++x) {
        const pathcore::Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
        EXPECT_EQ(built.entry.mask->walkable(p, enabled), want.walkable(p, enabled))
            << x << "," << y;
      }
    }
    // Beautify's segment map describes the usable pixels, not the stored ones.
    EXPECT_TRUE(built.entry.clearance->serves(*built.entry.mask, enabled));

    // Cached now: the warm source finds the very same grid.
    CacheOnlySource warm_again(fields_);
    EXPECT_EQ(usable_entry(usable_, warm_again, entry, enabled, clearance).grid, built.grid);
  }
  EXPECT_EQ(usable_.size(), 5U);
}

TEST_F(UsableEntryTest, ARequestArrivingDuringTheBuildParksAndIsResumedWhenItEnds) {
  const MaskEntry entry =
      entry_for(pathcore::Mask(64, 64, std::vector<std::uint8_t>(64 * 64, 1)));
  auto leader = std::make_shared<RecordingRequest>();
  auto waiter = std::make_shared<RecordingRequest>();
  const FieldKey flight = usable_grid_flight_key({entry.name, entry.revision, 1, 2.0});
  int builds = 0;
  FillingSource leading(fields_, flights_, leader);
  leading.build_once(flight, [&] {
    ++builds;
    // Another request for the same grid meanwhile: parked, not building.
    FillingSource waiting(fields_, flights_, waiter);
    EXPECT_THROW(waiting.build_once(flight, [&] { ++builds; }), Parked);
    EXPECT_FALSE(waiter->resumed_key) << "resumed only once the build is over";
  });
  EXPECT_EQ(builds, 1);
  ASSERT_TRUE(waiter->resumed_key);
  EXPECT_EQ(*waiter->resumed_key, flight);
  EXPECT_EQ(waiter->resumed_field, nullptr);  // no field: it runs again
  EXPECT_FALSE(waiter->abandoned);
  EXPECT_EQ(flights_.size(), 0U);
  EXPECT_EQ(fields_.stats().shared_waits, 1U);

  // A build that fails frees the flight for the next request.
  EXPECT_THROW(leading.build_once(flight, [] { throw std::runtime_error("no memory"); }),
               std::runtime_error);
  EXPECT_EQ(flights_.size(), 0U);
}

TEST_F(UsableEntryTest, TheFlightKeyIsNoFieldsKey) {
  const UsableMaskKey key{"m", 3, 1, 2.0};
  const FieldKey flight = usable_grid_flight_key(key);
  EXPECT_EQ(flight.mask, key.mask);
  EXPECT_EQ(flight.revision, key.revision);
  EXPECT_EQ(flight.clearance, key.clearance);
  const pathcore::Mask mask(4, 4, std::vector<std::uint8_t>(16, 1));
  EXPECT_FALSE(mask.contains(flight.goal));
}

}  // namespace
}  // namespace pathserver
