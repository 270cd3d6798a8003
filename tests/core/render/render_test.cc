#include "pathcore/render.h"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "pathcore/codec.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"
#include "pathcore/path.h"

namespace pathcore {
namespace {

// Perceived brightness (Rec. 709 luma on the 8-bit values).
double luma(Rgba c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

double distance(Rgba a, Rgba b) {
  const double dr = a.r - b.r;
  const double dg = a.g - b.g;
  const double db = a.b - b.b;
  return std::sqrt(dr * dr + dg * dg + db * db);
}

// A width x height mask of `fill`, with `rects` {x0, y0, x1, y1, area} painted on.
Mask make_mask(std::uint32_t width, std::uint32_t height, std::uint8_t fill,
               const std::vector<std::tuple<int, int, int, int, std::uint8_t>>& rects = {}) {
  std::vector<std::uint8_t> areas(std::size_t{width} * height, fill);
  for (const auto& [x0, y0, x1, y1, area] : rects) {
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) areas[static_cast<std::size_t>(y) * width + x] = area;
    }
  }
  return Mask(width, height, std::move(areas));
}

TEST(RenderTest, EveryPixelTakesItsAreaColour) {
  const Mask mask = make_mask(6, 4, 1, {{0, 0, 1, 3, 0}, {4, 1, 5, 2, 2}, {3, 3, 3, 3, 63}});
  const Image image = render(mask, {});
  ASSERT_EQ(image.width, 6U);
  ASSERT_EQ(image.height, 4U);
  ASSERT_EQ(image.rgba.size(), 6U * 4 * 4);
  for (std::uint32_t y = 0; y < 4; ++y) {
    for (std::uint32_t x = 0; x < 6; ++x) {
      const Point p{static_cast<int>(x), static_cast<int>(y)};
      EXPECT_EQ(image.at(x, y), area_colour(mask.area(p))) << x << "," << y;
      EXPECT_EQ(image.at(x, y).a, 255);
    }
  }
  EXPECT_NE(image.at(0, 0), image.at(2, 0));  // blocked vs walkable
  EXPECT_NE(image.at(2, 0), image.at(4, 1));  // area 1 vs area 2
}

TEST(RenderTest, AreaPaletteIsDistinctAndBlockedIsDarkest) {
  for (int a = 0; a <= kMaxAreaId; ++a) {
    for (int b = a + 1; b <= kMaxAreaId; ++b) {
      EXPECT_GT(distance(area_colour(a), area_colour(b)), 20.0) << a << " vs " << b;
    }
    if (a > 0) {
      EXPECT_GT(luma(area_colour(a)), luma(area_colour(0)) + 30) << a;
    }
  }
  // The first areas, the ones most levels use, are far apart.
  EXPECT_GT(distance(area_colour(1), area_colour(2)), 100.0);
  EXPECT_GT(distance(area_colour(1), area_colour(3)), 100.0);
  EXPECT_GT(distance(area_colour(2), area_colour(3)), 100.0);
  EXPECT_THROW(static_cast<void>(area_colour(64)), InvalidArgument);
  EXPECT_THROW(static_cast<void>(area_colour(-1)), InvalidArgument);
}

TEST(RenderTest, ScaleRepeatsEachPixelAsABlock) {
  const Mask mask = make_mask(3, 2, 1, {{1, 0, 1, 0, 0}, {2, 1, 2, 1, 5}});
  RenderLayers layers;
  layers.scale = 4;
  const Image image = render(mask, layers);
  ASSERT_EQ(image.width, 12U);
  ASSERT_EQ(image.height, 8U);
  for (std::uint32_t y = 0; y < 8; ++y) {
    for (std::uint32_t x = 0; x < 12; ++x) {
      const Point p{static_cast<int>(x / 4), static_cast<int>(y / 4)};
      EXPECT_EQ(image.at(x, y), area_colour(mask.area(p))) << x << "," << y;
    }
  }
}

TEST(RenderTest, PolylineIsBoldWithAnOutlineAndMarkersSitOnTheEnds) {
  const Mask mask = make_mask(40, 30, 1);
  const std::vector<Point> polyline{{5, 5}, {34, 5}, {34, 25}};
  RenderLayers layers;
  layers.polyline = polyline;
  layers.start = polyline.front();
  layers.goal = polyline.back();
  const Image image = render(mask, layers);

  // Along the segments: three pixels wide, with a dark edge beyond.
  for (const std::uint32_t x : {15U, 20U, 25U}) {
    for (const std::uint32_t y : {4U, 5U, 6U}) EXPECT_EQ(image.at(x, y), kPathColour) << x;
    EXPECT_EQ(image.at(x, 3), kOutlineColour) << x;
    EXPECT_EQ(image.at(x, 7), kOutlineColour) << x;
    EXPECT_EQ(image.at(x, 1), area_colour(1)) << x;  // away from the line: untouched
    EXPECT_EQ(image.at(x, 9), area_colour(1)) << x;
  }
  EXPECT_EQ(image.at(34, 15), kPathColour);
  EXPECT_EQ(image.at(33, 15), kPathColour);
  EXPECT_EQ(image.at(32, 15), kOutlineColour);
  EXPECT_EQ(image.at(31, 15), area_colour(1));
  // Markers: discs in their colours, distinct from each other and the line.
  EXPECT_EQ(image.at(5, 5), kStartColour);
  EXPECT_EQ(image.at(7, 7), kStartColour);
  EXPECT_EQ(image.at(34, 25), kGoalColour);
  EXPECT_EQ(image.at(32, 27), kGoalColour);
  EXPECT_NE(kStartColour, kGoalColour);
  EXPECT_NE(kStartColour, kPathColour);
  EXPECT_NE(kGoalColour, kPathColour);
}

TEST(RenderTest, PrecisePolylineRunsThroughItsExactPoints) {
  const Mask mask = make_mask(40, 30, 1);
  // Pixel centres land where the integer polyline's do.
  const std::vector<Point> polyline{{5, 5}, {34, 5}};
  const std::vector<PointD> precise{{5.5, 5.5}, {34.5, 5.5}};
  RenderLayers integer_layers;
  integer_layers.polyline = polyline;
  RenderLayers precise_layers;
  precise_layers.precise_polyline = precise;
  for (const std::uint32_t scale : {1U, 3U, 4U}) {
    integer_layers.scale = precise_layers.scale = scale;
    const Image a = render(mask, integer_layers);
    const Image b = render(mask, precise_layers);
    EXPECT_EQ(a.rgba, b.rgba) << "scale " << scale;
  }
  // A segment between square corners at scale 4 runs along picture row 4 * 10,
  // not through a pixel centre (row 4 * 10 + 2).
  const std::vector<PointD> corners{{10.0, 10.0}, {30.0, 10.0}};
  RenderLayers layers;
  layers.precise_polyline = corners;
  layers.scale = 4;
  const Image image = render(mask, layers);
  EXPECT_EQ(image.at(80, 40), kPathColour);
  EXPECT_EQ(image.at(80, 40 - 4), area_colour(1));  // radius 1 line, outline 2 above
  EXPECT_EQ(image.at(80, 40 + 4), area_colour(1));
  // Wild points are clipped or clamped, never a crash.
  const std::vector<PointD> wild{{1.0, 1.0}, {std::nan(""), 1e300}, {-1e300, 3.0}};
  layers.precise_polyline = wild;
  layers.scale = 1;
  EXPECT_EQ(render(make_mask(4, 4, 1), layers).width, 4U);
}

TEST(RenderTest, RawPathPixelsAreFaint) {
  const Mask mask = make_mask(30, 12, 2, {{0, 0, 29, 0, 0}});
  std::vector<Point> raw;
  for (int x = 2; x <= 27; ++x) raw.push_back({x, 9});
  raw.push_back({27, 9});   // a repeated pixel is blended once
  raw.push_back({-3, 40});  // outside: clipped
  RenderLayers layers;
  layers.raw_path = raw;
  const Image image = render(mask, layers);
  const Rgba base = area_colour(2);
  const Rgba blocked = area_colour(0);
  for (const Point p : {Point{2, 9}, Point{15, 9}, Point{27, 9}}) {
    const Rgba c = image.at(static_cast<std::uint32_t>(p.x), static_cast<std::uint32_t>(p.y));
    // Lighter than the area, but not white: the area still shows through.
    EXPECT_GT(luma(c), luma(base) + 10) << p.x;
    EXPECT_NE(c, kPathColour) << p.x;
    EXPECT_GE(c.r, base.r);
    EXPECT_GE(c.g, base.g);
    EXPECT_GE(c.b, base.b);
    EXPECT_LT(distance(c, base), distance(kPathColour, base)) << p.x;
  }
  EXPECT_EQ(image.at(27, 9), image.at(15, 9));
  EXPECT_EQ(image.at(15, 8), base);
  EXPECT_EQ(image.at(15, 0), blocked);
}

TEST(RenderTest, HeatmapDarkensAlongACorridorAwayFromTheGoal) {
  // A corridor with a bend, a wall and a walkable pocket the goal cannot reach.
  const Mask mask = make_mask(24, 6, 0, {{0, 1, 19, 1, 1}, {19, 1, 19, 4, 1}, {22, 0, 23, 5, 3}});
  FieldOptions options;
  const Point goal{0, 1};
  const DistanceField field = compute_distance_field(mask, goal, options);
  RenderLayers layers;
  layers.field = &field;
  const Image image = render(mask, layers);

  std::vector<Point> corridor;
  for (int x = 0; x <= 19; ++x) corridor.push_back({x, 1});
  for (int y = 2; y <= 4; ++y) corridor.push_back({19, y});
  for (std::size_t i = 1; i < corridor.size(); ++i) {
    ASSERT_LT(field.at(corridor[i - 1]), field.at(corridor[i]));
    const Rgba nearer = image.at(corridor[i - 1].x, corridor[i - 1].y);
    const Rgba farther = image.at(corridor[i].x, corridor[i].y);
    EXPECT_GT(luma(nearer), luma(farther)) << "step " << i;
  }
  // The ends of the ramp: the goal is its bright end, the farthest pixel its dark end.
  EXPECT_EQ(image.at(0, 1), heatmap_colour(0));
  EXPECT_EQ(image.at(19, 4), heatmap_colour(1));
  EXPECT_GT(luma(heatmap_colour(0)), luma(heatmap_colour(1)) + 100);
  // Unreached walkable pixels and walls are dark, and differ.
  const Rgba pocket = image.at(22, 3);
  EXPECT_EQ(pocket, unreachable_colour(area_colour(3)));
  EXPECT_LT(luma(pocket), luma(area_colour(3)) / 3);
  EXPECT_LT(luma(image.at(10, 4)), luma(area_colour(0)));
  EXPECT_NE(pocket, image.at(10, 4));
}

TEST(RenderTest, ComponentsTakeOneColourEach) {
  // Two rooms of the same area, split by a wall; a third room of area 2.
  const Mask mask = make_mask(15, 5, 1, {{5, 0, 5, 4, 0}, {10, 0, 10, 4, 0}, {11, 0, 14, 4, 2}});
  const Components components = label_components(mask, {});
  ASSERT_EQ(components.count(), 3U);
  RenderLayers layers;
  layers.components = &components;
  const Image image = render(mask, layers);
  const Rgba left = image.at(0, 0);
  const Rgba middle = image.at(7, 2);
  const Rgba right = image.at(12, 4);
  EXPECT_EQ(left, image.at(4, 4));
  EXPECT_EQ(middle, image.at(9, 0));
  EXPECT_EQ(right, image.at(14, 0));
  EXPECT_NE(left, middle);
  EXPECT_NE(middle, right);
  EXPECT_NE(left, right);
  EXPECT_EQ(left, component_colour(components.label({0, 0})));
  EXPECT_EQ(image.at(5, 2), area_colour(0));
  // Labels get distinct colours (hashing spreads neighbouring labels).
  std::set<std::tuple<int, int, int>> colours;
  for (Components::Label label = 1; label <= 64; ++label) {
    const Rgba c = component_colour(label);
    colours.insert({c.r, c.g, c.b});
    EXPECT_GT(distance(c, component_colour(label + 1)), 30.0) << label;
  }
  EXPECT_EQ(colours.size(), 64U);
}

TEST(RenderTest, MarkersAndLinesAtTheBorderAreClipped) {
  const Mask mask = make_mask(8, 8, 1);
  const std::vector<Point> polyline{{0, 0}, {7, 7}, {20, -5}};
  RenderLayers layers;
  layers.polyline = polyline;
  layers.start = Point{0, 0};
  layers.goal = Point{-4, 100};
  layers.scale = 2;
  const Image image = render(mask, layers);
  EXPECT_EQ(image.width, 16U);
  EXPECT_EQ(image.at(1, 1), kStartColour);
}

TEST(RenderTest, PngRoundTripThroughLibpng) {
  const Mask mask = make_mask(17, 9, 1, {{3, 0, 3, 6, 0}, {10, 2, 16, 8, 2}});
  FindPathOptions options;
  const PathResult path = find_path(mask, {0, 0}, {15, 7}, options);
  ASSERT_TRUE(path.found);
  RenderLayers layers;
  layers.polyline = path.points;
  layers.start = path.points.front();
  layers.goal = path.points.back();
  layers.scale = 3;
  const Image image = render(mask, layers);
  const std::vector<std::uint8_t> png = encode_png_rgba(image.width, image.height, image.rgba);

  png_image decoded{};
  decoded.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_memory(&decoded, png.data(), png.size()), 0)
      << decoded.message;
  EXPECT_EQ(decoded.width, 17U * 3);
  EXPECT_EQ(decoded.height, 9U * 3);
  decoded.format = PNG_FORMAT_RGBA;
  std::vector<std::uint8_t> pixels(PNG_IMAGE_SIZE(decoded));
  ASSERT_NE(png_image_finish_read(&decoded, nullptr, pixels.data(), 0, nullptr), 0)
      << decoded.message;
  EXPECT_EQ(pixels, image.rgba);
  // The start marker, centred on pixel (0,0)'s block.
  const std::size_t centre = (1 * decoded.width + 1) * 4;
  EXPECT_EQ((Rgba{pixels[centre], pixels[centre + 1], pixels[centre + 2], pixels[centre + 3]}),
            kStartColour);
}

TEST(RenderTest, RefusesBadScalesAndLayersOfAnotherSize) {
  const Mask mask = make_mask(10, 10, 1);
  RenderLayers zero;
  zero.scale = 0;
  EXPECT_THROW(static_cast<void>(render(mask, zero)), InvalidArgument);
  RenderLayers huge;
  huge.scale = 1U << 20;
  EXPECT_THROW(static_cast<void>(render(mask, huge)), InvalidArgument);

  const Mask other = make_mask(5, 10, 1);
  const DistanceField field = compute_distance_field(other, {0, 0}, {});
  RenderLayers with_field;
  with_field.field = &field;
  EXPECT_THROW(static_cast<void>(render(mask, with_field)), InvalidArgument);
  const Components components = label_components(other, {});
  RenderLayers with_components;
  with_components.components = &components;
  EXPECT_THROW(static_cast<void>(render(mask, with_components)), InvalidArgument);
}

// ---------------------------------------------------------------------------
// The legend strip (positions from the kLegend* constants render.h documents).

// Whether every pixel of the rectangle has colour c.
bool rect_is(const Image& image, std::uint32_t x0, std::uint32_t y0, std::uint32_t width,
             std::uint32_t height, Rgba c) {
  for (std::uint32_t y = y0; y < y0 + height; ++y) {
    for (std::uint32_t x = x0; x < x0 + width; ++x) {
      if (image.at(x, y) != c) return false;
    }
  }
  return true;
}

// Whether some pixel of the rectangle has colour c.
bool rect_has(const Image& image, std::uint32_t x0, std::uint32_t y0, std::uint32_t width,
              std::uint32_t height, Rgba c) {
  for (std::uint32_t y = y0; y < y0 + height; ++y) {
    for (std::uint32_t x = x0; x < x0 + width; ++x) {
      if (image.at(x, y) == c) return true;
    }
  }
  return false;
}

TEST(RenderLegendTest, EachPresentAreaHasItsSwatchAtItsPlace) {
  // Areas 0, 1, 2, 5 and 63 present; 100 pixels wide fits two entries a row.
  const Mask mask = make_mask(
      100, 20, 1, {{0, 0, 9, 9, 0}, {20, 0, 29, 9, 2}, {40, 0, 49, 9, 5}, {60, 10, 69, 19, 63}});
  const std::vector<int> present{0, 1, 2, 5, 63};
  RenderLayers layers;
  layers.legend = true;
  const Image image = render(mask, layers);
  const std::uint32_t per_row = (100 - 2 * kLegendMargin) / kLegendEntryWidth;
  ASSERT_EQ(per_row, 2U);
  const std::uint32_t rows = (static_cast<std::uint32_t>(present.size()) + per_row - 1) / per_row;
  ASSERT_EQ(image.width, 100U);
  ASSERT_EQ(image.height, 20U + kLegendMargin + rows * kLegendRowHeight);

  // The map is the picture without a legend, at the top left.
  const Image plain = render(mask, {});
  for (std::uint32_t y = 0; y < 20; ++y) {
    for (std::uint32_t x = 0; x < 100; ++x)
      ASSERT_EQ(image.at(x, y), plain.at(x, y)) << x << "," << y;
  }
  // The margin between the map and the first row is background.
  EXPECT_TRUE(rect_is(image, 0, 20, 100, kLegendMargin, kLegendBackground));

  for (std::size_t k = 0; k < present.size(); ++k) {
    const std::uint32_t x =
        kLegendMargin + static_cast<std::uint32_t>(k % per_row) * kLegendEntryWidth;
    const std::uint32_t y =
        20 + kLegendMargin + static_cast<std::uint32_t>(k / per_row) * kLegendRowHeight;
    const Rgba colour = area_colour(present[k]);
    // The outline ring, then the area's colour inside it.
    EXPECT_TRUE(rect_is(image, x, y, kLegendSwatch, 1, kOutlineColour)) << present[k];
    EXPECT_TRUE(rect_is(image, x, y + kLegendSwatch - 1, kLegendSwatch, 1, kOutlineColour));
    EXPECT_TRUE(rect_is(image, x, y, 1, kLegendSwatch, kOutlineColour)) << present[k];
    EXPECT_TRUE(rect_is(image, x + kLegendSwatch - 1, y, 1, kLegendSwatch, kOutlineColour));
    EXPECT_TRUE(rect_is(image, x + 1, y + 1, kLegendSwatch - 2, kLegendSwatch - 2, colour))
        << "area " << present[k];
    // Its id is written beside it: text pixels right of the swatch, within the entry.
    const std::uint32_t text_x = x + kLegendSwatch + 1;
    EXPECT_TRUE(rect_has(image, text_x, y, kLegendEntryWidth - kLegendSwatch - 2, kLegendSwatch,
                         kOutlineColour))
        << "area " << present[k];
    EXPECT_TRUE(rect_has(image, text_x, y, kLegendEntryWidth - kLegendSwatch - 2, kLegendSwatch,
                         kLegendBackground));
  }
  // Absent areas have no swatch anywhere in the strip.
  for (const int absent : {3, 4, 6, 62}) {
    EXPECT_FALSE(rect_has(image, 0, 20, image.width, image.height - 20, area_colour(absent)))
        << absent;
  }
}

TEST(RenderLegendTest, IdsWithOneAndTwoDigitsDiffer) {
  // The same swatch place, different ids: the text beside it differs.
  RenderLayers layers;
  layers.legend = true;
  const Image one = render(make_mask(60, 4, 1), layers);
  const Image seven = render(make_mask(60, 4, 7), layers);
  const Image forty_two = render(make_mask(60, 4, 42), layers);
  ASSERT_EQ(one.height, seven.height);
  ASSERT_EQ(one.height, forty_two.height);
  const auto text_pixels = [](const Image& image) {
    std::vector<bool> dark;
    for (std::uint32_t y = 4 + kLegendMargin; y < 4 + kLegendMargin + kLegendSwatch; ++y) {
      for (std::uint32_t x = kLegendMargin + kLegendSwatch; x < kLegendMargin + kLegendEntryWidth;
           ++x) {
        dark.push_back(image.at(x, y) == kOutlineColour);
      }
    }
    return dark;
  };
  EXPECT_NE(text_pixels(one), text_pixels(seven));
  EXPECT_NE(text_pixels(one), text_pixels(forty_two));
  EXPECT_NE(text_pixels(seven), text_pixels(forty_two));
}

TEST(RenderLegendTest, HeatScaleRunsFromNearToFarAndANarrowMapWidens) {
  const Mask mask = make_mask(6, 4, 1, {{3, 0, 3, 2, 0}});
  const DistanceField field = compute_distance_field(mask, {0, 0}, {});
  RenderLayers layers;
  layers.field = &field;
  layers.legend = true;
  const Image image = render(mask, layers);
  // Two rows: the areas (only 0: every pixel of area 1 is reached), then the heat scale.
  ASSERT_EQ(image.height, 4U + kLegendMargin + 2 * kLegendRowHeight);
  ASSERT_GT(image.width, 6U + kLegendRampWidth);  // the ramp and its labels need room

  RenderLayers without_legend = layers;
  without_legend.legend = false;
  const Image plain = render(mask, without_legend);
  for (std::uint32_t y = 0; y < 4; ++y) {
    for (std::uint32_t x = 0; x < 6; ++x) EXPECT_EQ(image.at(x, y), plain.at(x, y));
    for (std::uint32_t x = 6; x < image.width; ++x) EXPECT_EQ(image.at(x, y), kLegendBackground);
  }

  // The ramp, through the middle of the heat row: heatmap_colour(0) at its left
  // end, heatmap_colour(1) kLegendRampWidth - 1 pixels right, darker and darker.
  const std::uint32_t row_y = 4 + kLegendMargin + kLegendRowHeight;
  const std::uint32_t mid_y = row_y + kLegendSwatch / 2;
  std::uint32_t ramp_x = 0;
  while (ramp_x < image.width && image.at(ramp_x, mid_y) != heatmap_colour(0)) ++ramp_x;
  ASSERT_LT(ramp_x + kLegendRampWidth - 1, image.width);
  EXPECT_GT(ramp_x, kLegendMargin);  // "near" comes first
  EXPECT_TRUE(
      rect_has(image, kLegendMargin, row_y, ramp_x - kLegendMargin, kLegendSwatch, kOutlineColour));
  EXPECT_EQ(image.at(ramp_x + kLegendRampWidth - 1, mid_y), heatmap_colour(1));
  for (std::uint32_t x = ramp_x + 1; x < ramp_x + kLegendRampWidth; ++x) {
    EXPECT_LE(luma(image.at(x, mid_y)), luma(image.at(x - 1, mid_y)) + 0.5) << x;
  }
  // The whole ramp is kLegendSwatch tall.
  for (std::uint32_t x = ramp_x; x < ramp_x + kLegendRampWidth; ++x) {
    EXPECT_EQ(image.at(x, row_y), image.at(x, row_y + kLegendSwatch - 1)) << x;
  }
  // "far" and the distance follow it.
  EXPECT_TRUE(rect_has(image, ramp_x + kLegendRampWidth, row_y,
                       image.width - ramp_x - kLegendRampWidth, kLegendSwatch, kOutlineColour));
}

TEST(RenderLegendTest, FarthestDistanceLabelGrowsWithTheField) {
  // The label's digits: a longer corridor needs more text after the ramp.
  const auto last_text_column = [](std::uint32_t length) {
    const Mask mask = make_mask(length, 1, 1);
    const DistanceField field = compute_distance_field(mask, {0, 0}, {});
    RenderLayers layers;
    layers.field = &field;
    layers.legend = true;
    const Image image = render(mask, layers);
    const std::uint32_t row_y = image.height - kLegendMargin - kLegendSwatch;
    std::uint32_t last = 0;
    for (std::uint32_t y = row_y; y < row_y + kLegendSwatch; ++y) {
      for (std::uint32_t x = 0; x < image.width; ++x) {
        if (image.at(x, y) == kOutlineColour) last = std::max(last, x);
      }
    }
    return last;
  };
  EXPECT_LT(last_text_column(9), last_text_column(12));    // "far 8" vs "far 11"
  EXPECT_LT(last_text_column(12), last_text_column(150));  // "far 11" vs "far 149"
}

TEST(RenderLegendTest, ComponentsAloneAddNoStripAndMarkersStayOnTheMap) {
  const Mask mask = make_mask(12, 6, 1, {{5, 0, 5, 5, 0}});
  const Components components = label_components(mask, {});
  RenderLayers with_components;
  with_components.components = &components;
  with_components.legend = true;
  const Image image = render(mask, with_components);
  // Component colours have no key to show: no strip, and no widening.
  EXPECT_EQ(image.width, 12U);
  EXPECT_EQ(image.height, 6U);

  // A goal marker on the bottom row does not spill into the legend's margin.
  const Mask wide = make_mask(80, 10, 1);
  RenderLayers marked;
  marked.goal = Point{40, 9};
  marked.start = Point{0, 9};
  marked.legend = true;
  const Image picture = render(wide, marked);
  EXPECT_EQ(picture.at(40, 9), kGoalColour);
  EXPECT_TRUE(rect_is(picture, 0, 10, picture.width, kLegendMargin, kLegendBackground));
}

TEST(RenderLegendTest, UnderAHeatmapOnlyAreasNotReachedEverywhereAreListedDimmed) {
  // Area 1 all reached; area 3 a pocket the goal cannot reach; area 0 walls.
  const Mask mask = make_mask(8, 3, 1, {{4, 0, 4, 2, 0}, {5, 0, 7, 2, 3}});
  const DistanceField field = compute_distance_field(mask, {0, 0}, {});
  RenderLayers layers;
  layers.field = &field;
  layers.legend = true;
  // The middle of entry k's swatch, and the entry's top-left corner.
  const auto swatch = [](const Image& image, std::uint32_t k, std::uint32_t inset) {
    const std::uint32_t per_row =
        std::max<std::uint32_t>(1, (image.width - 2 * kLegendMargin) / kLegendEntryWidth);
    return image.at(kLegendMargin + (k % per_row) * kLegendEntryWidth + inset,
                    3 + kLegendMargin + (k / per_row) * kLegendRowHeight + inset);
  };
  const std::uint32_t middle = kLegendSwatch / 2;
  const Image image = render(mask, layers);
  // Two entries, areas 0 and 3, in the colours they are drawn in; no third.
  EXPECT_EQ(swatch(image, 0, middle), unreachable_colour(area_colour(0)));
  EXPECT_EQ(swatch(image, 1, middle), unreachable_colour(area_colour(3)));
  EXPECT_EQ(swatch(image, 2, 0), kLegendBackground);
  // Without the heatmap all three, in their own colours.
  layers.field = nullptr;
  const Image plain = render(mask, layers);
  EXPECT_EQ(swatch(plain, 0, middle), area_colour(0));
  EXPECT_EQ(swatch(plain, 1, middle), area_colour(1));
  EXPECT_EQ(swatch(plain, 2, middle), area_colour(3));
}

TEST(RenderTest, CostsDrawTheSameHeatmapAsTheirField) {
  const Mask mask = make_mask(9, 5, 1, {{3, 0, 3, 3, 0}, {6, 2, 8, 2, 0}, {7, 3, 8, 4, 2}});
  const DistanceField field = compute_distance_field(mask, {0, 4}, {});
  std::vector<float> costs;
  for (std::int32_t y = 0; y < 5; ++y) {
    for (std::int32_t x = 0; x < 9; ++x) {
      costs.push_back(static_cast<float>(field.cost_at({x, y})));  // +infinity unreached
    }
  }
  RenderLayers from_field;
  from_field.field = &field;
  from_field.legend = true;
  RenderLayers from_costs;
  from_costs.costs = costs;
  from_costs.legend = true;
  const Image expected = render(mask, from_field);
  const Image image = render(mask, from_costs);
  ASSERT_EQ(image.width, expected.width);
  ASSERT_EQ(image.height, expected.height);
  EXPECT_EQ(image.rgba, expected.rgba);

  // NaN is not reached either; a wrong count or both sources are refused.
  costs[0] = std::nanf("");
  EXPECT_EQ(render(mask, from_costs).at(0, 0), unreachable_colour(area_colour(1)));
  RenderLayers both = from_costs;
  both.field = &field;
  EXPECT_THROW(static_cast<void>(render(mask, both)), InvalidArgument);
  const std::vector<float> short_costs(costs.begin(), costs.end() - 1);
  RenderLayers too_few;
  too_few.costs = short_costs;
  EXPECT_THROW(static_cast<void>(render(mask, too_few)), InvalidArgument);
}

TEST(RenderTest, EveryGoalIsMarkedAndTheAskedGoalIsARing) {
  const Mask mask = make_mask(40, 20, 1);
  RenderLayers layers;
  const std::vector<Point> goals{{5, 5}, {30, 15}};
  layers.goals = goals;
  layers.asked_goal = Point{20, 10};
  const Image image = render(mask, layers);
  EXPECT_EQ(image.at(5, 5), kGoalColour);
  EXPECT_EQ(image.at(30, 15), kGoalColour);
  // The ring: red around, the map in the middle (radius 5 at scale 1, hole 2).
  EXPECT_EQ(image.at(20, 10), area_colour(1));
  EXPECT_EQ(image.at(24, 10), kGoalColour);
  EXPECT_EQ(image.at(20, 6), kGoalColour);
  EXPECT_EQ(image.at(20, 17), area_colour(1));  // outside it
}

}  // namespace
}  // namespace pathcore
