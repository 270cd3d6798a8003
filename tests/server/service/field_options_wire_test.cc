// The field options FindPath, GetField and GetRange share, decoded in one
// step: each wrong field answers INVALID_ARGUMENT naming it (the api's error
// tables), the first wrong one in the documented order wins, and a valid
// request's options are the ones its fields ask for.
#include "service/field_options_wire.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "pathfinding/v1/pathfinding.pb.h"

namespace pathserver {
namespace {

namespace v1 = pathfinding::v1;

template <typename Request>
class FieldOptionsWireTest : public ::testing::Test {
 protected:
  // A valid request: eight-connected with corner cutting, area 2 costing 5,
  // a clearance of two pixels, areas 1..3 enabled.
  static Request valid() {
    Request request;
    request.set_mask("m");
    request.set_connectivity(v1::CONNECTIVITY_EIGHT);
    request.set_allow_corner_cutting(true);
    (*request.mutable_area_costs())[2] = 5;
    request.set_clearance(2.0);
    request.set_enabled_areas(0b1110);
    return request;
  }

  // The status of decoding `request`: INVALID_ARGUMENT whose message starts with `field`.
  static void expect_refused(const Request& request, const std::string& field) {
    CheckedFieldOptions out;
    const grpc::Status status = decode_field_options(request, out);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_TRUE(status.error_message().starts_with(field + ": ")) << status.error_message();
  }
};

using Requests = ::testing::Types<v1::FindPathRequest, v1::GetFieldRequest, v1::GetRangeRequest>;
TYPED_TEST_SUITE(FieldOptionsWireTest, Requests);

TYPED_TEST(FieldOptionsWireTest, ValidRequestGivesTheOptionsItAsks) {
  CheckedFieldOptions out;
  ASSERT_TRUE(decode_field_options(this->valid(), out).ok());
  EXPECT_EQ(out.field.connectivity, pathcore::Connectivity::kEight);
  EXPECT_TRUE(out.field.allow_corner_cutting);
  EXPECT_EQ(out.field.enabled, pathcore::AreaSet{0b1110});
  EXPECT_EQ(out.field.area_costs[2], 5);
  EXPECT_EQ(out.field.area_costs[1], 1);  // unlisted: the unit cost
  EXPECT_EQ(out.field.area_costs[3], 1);
  EXPECT_EQ(out.clearance_key, 2.0);
}

TYPED_TEST(FieldOptionsWireTest, CornerCuttingOnlyWithEightConnectivity) {
  TypeParam request = this->valid();
  request.set_connectivity(v1::CONNECTIVITY_FOUR);
  CheckedFieldOptions out;
  ASSERT_TRUE(decode_field_options(request, out).ok());
  EXPECT_EQ(out.field.connectivity, pathcore::Connectivity::kFour);
  EXPECT_FALSE(out.field.allow_corner_cutting);
}

TYPED_TEST(FieldOptionsWireTest, ClearanceUpToHalfAPixelKeysAsNone) {
  TypeParam request = this->valid();
  request.set_clearance(0.5);
  CheckedFieldOptions out;
  ASSERT_TRUE(decode_field_options(request, out).ok());
  EXPECT_EQ(out.clearance_key, 0.0);
  request.set_clearance(0.75);
  ASSERT_TRUE(decode_field_options(request, out).ok());
  EXPECT_EQ(out.clearance_key, 0.75);
}

TYPED_TEST(FieldOptionsWireTest, AllAreasWhenNoneAreNamed) {
  TypeParam request = this->valid();
  request.set_enabled_areas(0);
  CheckedFieldOptions out;
  ASSERT_TRUE(decode_field_options(request, out).ok());
  EXPECT_EQ(out.field.enabled, pathcore::kAllAreas);
}

TYPED_TEST(FieldOptionsWireTest, EachWrongFieldIsNamed) {
  TypeParam request = this->valid();
  request.set_mask("");
  this->expect_refused(request, "mask");

  request = this->valid();
  request.set_connectivity(static_cast<v1::Connectivity>(99));
  this->expect_refused(request, "connectivity");

  for (const auto& [area, cost] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {0, 1}, {64, 1}, {2, 0}, {2, 256}}) {
    request = this->valid();
    (*request.mutable_area_costs())[area] = cost;
    this->expect_refused(request, "area_costs");
  }

  for (const double clearance : {-0.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
    request = this->valid();
    request.set_clearance(clearance);
    this->expect_refused(request, "clearance");
  }

  request = this->valid();
  request.set_enabled_areas(1);  // area 0 only: never walkable
  this->expect_refused(request, "enabled_areas");
}

TYPED_TEST(FieldOptionsWireTest, FirstWrongFieldInOrderWins) {
  TypeParam request;  // every field wrong
  request.set_mask("");
  request.set_connectivity(static_cast<v1::Connectivity>(99));
  (*request.mutable_area_costs())[0] = 1;
  request.set_clearance(-1);
  request.set_enabled_areas(1);
  this->expect_refused(request, "mask");
  request.set_mask("m");
  this->expect_refused(request, "connectivity");
  request.set_connectivity(v1::CONNECTIVITY_FOUR);
  this->expect_refused(request, "area_costs");
  request.clear_area_costs();
  this->expect_refused(request, "clearance");
  request.set_clearance(0);
  this->expect_refused(request, "enabled_areas");
}

TEST(CheckedFieldOptionsTest, OnAMaskEnablesTheAreasItUses) {
  // Areas 0 (blocked), 1 and 3 occur.
  const pathcore::Mask mask(3, 1, {0, 1, 3});
  CheckedFieldOptions checked;
  checked.field.enabled = 0b1110;  // 1, 2, 3
  checked.field.connectivity = pathcore::Connectivity::kEight;
  const pathcore::FieldOptions options = checked.on(mask);
  EXPECT_EQ(options.enabled, pathcore::AreaSet{0b1010});
  EXPECT_EQ(options.connectivity, pathcore::Connectivity::kEight);
}

}  // namespace
}  // namespace pathserver
