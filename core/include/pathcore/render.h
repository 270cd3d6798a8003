#pragma once

// Pictures of masks for people: the areas in distinct colours, optionally the
// distance field as a heatmap and the component labels, a path (its raw grid
// pixels faint, its smoothed polyline bold), start and goal markers, and a
// legend strip under the map that says what the colours mean.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pathcore/any_angle.h"
#include "pathcore/components.h"
#include "pathcore/distance_field.h"
#include "pathcore/mask.h"

namespace pathcore {

// An 8-bit colour with alpha.
struct Rgba {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  std::uint8_t a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

// Fixed colours of the picture.
inline constexpr Rgba kBlockedColour{20, 20, 24, 255};  // area 0
inline constexpr Rgba kPathColour{255, 255, 255, 255};  // the polyline
inline constexpr Rgba kOutlineColour{16, 16, 16, 255};  // around lines and markers
inline constexpr Rgba kStartColour{40, 200, 70, 255};   // start marker
inline constexpr Rgba kGoalColour{225, 45, 45, 255};    // goal marker

// The legend strip (RenderLayers::legend), in picture pixels. It lies under
// the map, on kLegendBackground, and holds rows of kLegendRowHeight:
//  - one entry per area id drawn in its colour (not with components): without
//    a heatmap every id present in the mask, with one every id present on a
//    pixel the heatmap does not reach; in increasing id order,
//    kLegendEntryWidth apart, as many per row as fit the picture's width (at
//    least one): a kLegendSwatch square, its outermost ring kOutlineColour and
//    the inside the colour drawn (area_colour(id), with a heatmap
//    unreachable_colour of it), then the id as text;
//  - with a field, one more row: "near", a ramp of kLegendRampWidth x
//    kLegendSwatch from heatmap_colour(0) (left) to heatmap_colour(1)
//    (right), then "far" and the highest reachable cost, rounded.
// Entry k's swatch has its top-left corner at (kLegendMargin + (k % per_row) *
// kLegendEntryWidth, map height + kLegendMargin + (k / per_row) *
// kLegendRowHeight); the strip ends kLegendMargin below the last row. Text is
// a 3x5 pixel font drawn kLegendTextScale times larger, in kOutlineColour.
// When the legend needs more width than the map, the picture widens and the
// map keeps its place at the top left, kLegendBackground beside it.
inline constexpr std::uint32_t kLegendMargin = 6;
inline constexpr std::uint32_t kLegendSwatch = 12;
inline constexpr std::uint32_t kLegendTextScale = 2;
inline constexpr std::uint32_t kLegendEntryWidth = 40;
inline constexpr std::uint32_t kLegendRowHeight = kLegendSwatch + kLegendMargin;
inline constexpr std::uint32_t kLegendRampWidth = 128;
inline constexpr Rgba kLegendBackground{236, 236, 236, 255};

// An 8-bit RGBA picture: width*height*4 bytes, row-major, origin top-left
// (encode_png_rgba(width, height, rgba) writes it as PNG).
struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;

  // The colour at (x, y); (x, y) must be inside.
  [[nodiscard]] Rgba at(std::uint32_t x, std::uint32_t y) const {
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
  }
};

// The largest picture render() makes, in pixels (1 GiB of RGBA).
inline constexpr std::uint64_t kMaxRenderPixels = 256ULL * 1024 * 1024;

// What to draw over the mask. Every layer is optional; pointers and spans must
// stay valid during the call.
struct RenderLayers {
  // Heatmap: a field of this mask (any goal, any options). Reachable pixels
  // take a perceptual ramp of their cost (heatmap_colour), pixels the field
  // does not reach keep their colour, darkened (unreachable_colour).
  const DistanceField* field = nullptr;
  // Heatmap from plain costs instead (not with field): one per mask pixel,
  // row-major, +infinity (or NaN) where not reached, e.g. samples of a field
  // downloaded with GetField. Drawn as field's.
  std::span<const float> costs;
  // Component labels of this mask: each labelled pixel takes
  // component_colour(label) instead of its area colour (under the heatmap).
  const Components* components = nullptr;
  // A raw grid path, pixel by pixel: each pixel blended faintly toward white.
  std::span<const Point> raw_path;
  // A polyline (e.g. the smoothed path): bold white segments with a dark
  // outline between consecutive points.
  std::span<const Point> polyline;
  // A polyline of exact points (PointD: a pixel centre is x + 0.5), e.g. an
  // any-angle path: drawn like polyline, after it, through the points
  // themselves rather than pixel centres.
  std::span<const PointD> precise_polyline;
  // Markers: a green disc at start, a red disc at goal and at each of goals
  // (dark outlines).
  std::optional<Point> start;
  std::optional<Point> goal;
  std::span<const Point> goals;
  // Where the goal was asked when snapping moved it to `goal`: a red ring
  // (the goal marker without its middle), so both places show.
  std::optional<Point> asked_goal;
  // Each mask pixel becomes scale x scale picture pixels (nearest neighbour);
  // lines and markers are drawn at picture resolution through pixel centres.
  std::uint32_t scale = 1;
  // A legend strip under the map (see kLegendMargin); the picture grows.
  bool legend = false;
};

// Colour of area id 0..63: area 0 (never walkable) a near-black grey; areas
// 1..63 a fixed palette of distinct colours (golden-ratio hue steps, with
// saturation and brightness varied so neighbours in hue still differ).
// Throws InvalidArgument for an id above 63.
[[nodiscard]] Rgba area_colour(int area);

// Colour of component label 1..: hue in golden-ratio steps of the label,
// saturation and brightness from a hash of it, so neighbouring labels differ. Label 0 (unwalkable)
// is area_colour(0).
[[nodiscard]] Rgba component_colour(Components::Label label);

// The heatmap ramp at t in [0, 1] (clamped): bright yellow at 0 (the goal),
// through green and blue, to dark purple at 1 (viridis, reversed). Luminance
// falls strictly as t grows.
[[nodiscard]] Rgba heatmap_colour(double t);

// What a pixel of colour c looks like where the heatmap's field does not
// reach: c darkened to a quarter of its brightness.
[[nodiscard]] Rgba unreachable_colour(Rgba c);

// Draws the picture: the map is width*scale x height*scale pixels, opaque,
// at the top left; with layers.legend the legend strip follows under it. Base colour:
// area_colour, replaced by component_colour on labelled pixels when
// components is set; then, when field (or costs) is set, heatmap_colour(cost /
// highest reachable cost) on reachable pixels and unreachable_colour
// elsewhere. Over that the raw path, the polyline, the precise polyline and
// the markers (the asked goal's ring, the goals, then start on top).
// Points outside the mask are clipped, not refused; lines and markers are
// clipped to the map, so never reach into the legend. Throws InvalidArgument when
// scale is 0, the picture would exceed kMaxRenderPixels (or 2^31 - 1 pixels a
// side), field / components / costs are not of the mask's size, or both field
// and costs are set. O(picture pixels +
// path length * line width^2).
[[nodiscard]] Image render(const Mask& mask, const RenderLayers& layers);

}  // namespace pathcore
