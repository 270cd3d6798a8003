#include "pathcore/render.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace pathcore {
namespace {

// h, s, v in [0, 1].
Rgba from_hsv(double h, double s, double v) {
  h = (h - std::floor(h)) * 6.0;
  const int sector = static_cast<int>(h) % 6;
  const double f = h - std::floor(h);
  const double p = v * (1 - s);
  const double q = v * (1 - s * f);
  const double t = v * (1 - s * (1 - f));
  double r = v;
  double g = t;
  double b = p;
  switch (sector) {
    case 1:
      r = q, g = v, b = p;
      break;
    case 2:
      r = p, g = v, b = t;
      break;
    case 3:
      r = p, g = q, b = v;
      break;
    case 4:
      r = t, g = p, b = v;
      break;
    case 5:
      r = v, g = p, b = q;
      break;
    default:
      break;
  }
  const auto byte = [](double c) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(c, 0.0, 1.0) * 255.0));
  };
  return {byte(r), byte(g), byte(b), 255};
}

// Viridis at t = 0, 1/8, ..., 1 (dark purple to yellow).
constexpr std::array<std::array<double, 3>, 9> kViridis{{{68, 1, 84},
                                                         {71, 44, 122},
                                                         {59, 81, 139},
                                                         {44, 113, 142},
                                                         {33, 144, 141},
                                                         {39, 173, 129},
                                                         {92, 200, 99},
                                                         {170, 220, 50},
                                                         {253, 231, 37}}};

// The picture being drawn, clipped to its top-left clip_width x clip_height.
class Canvas {
 public:
  Canvas(Image& image, std::uint64_t clip_width, std::uint64_t clip_height)
      : image_(image),
        clip_width_(static_cast<std::int64_t>(clip_width)),
        clip_height_(static_cast<std::int64_t>(clip_height)) {}

  void set(std::int64_t x, std::int64_t y, Rgba c) {
    if (x < 0 || y < 0 || x >= clip_width_ || y >= clip_height_) return;
    std::uint8_t* p =
        &image_
             .rgba[(static_cast<std::size_t>(y) * image_.width + static_cast<std::size_t>(x)) * 4];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    p[3] = c.a;
  }

  void disc(std::int64_t cx, std::int64_t cy, std::int64_t radius, Rgba c) {
    ring(cx, cy, radius, -1, c);
  }

  // The pixels of disc(radius) that are not in disc(inner) (inner < 0: none).
  void ring(std::int64_t cx, std::int64_t cy, std::int64_t radius, std::int64_t inner, Rgba c) {
    for (std::int64_t dy = -radius; dy <= radius; ++dy) {
      for (std::int64_t dx = -radius; dx <= radius; ++dx) {
        const std::int64_t d = dx * dx + dy * dy;
        if (d <= radius * radius + radius && (inner < 0 || d > inner * inner + inner)) {
          set(cx + dx, cy + dy, c);
        }
      }
    }
  }

  // A Bresenham line from (x0, y0) to (x1, y1) stamped with discs.
  void line(std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, std::int64_t radius,
            Rgba c) {
    const std::int64_t dx = std::llabs(x1 - x0);
    const std::int64_t dy = -std::llabs(y1 - y0);
    const std::int64_t sx = x0 < x1 ? 1 : -1;
    const std::int64_t sy = y0 < y1 ? 1 : -1;
    std::int64_t error = dx + dy;
    while (true) {
      disc(x0, y0, radius, c);
      if (x0 == x1 && y0 == y1) break;
      const std::int64_t e2 = 2 * error;
      if (e2 >= dy) {
        error += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        error += dx;
        y0 += sy;
      }
    }
  }

 private:
  Image& image_;
  std::int64_t clip_width_;
  std::int64_t clip_height_;
};

// A 3x5 pixel font: each glyph is five rows of three bits, the top row first
// and the high bit the left column. Only what the legend writes.
struct Glyph {
  char c;
  std::array<std::uint8_t, 5> rows;
};
constexpr std::array<Glyph, 16> kFont{{
    {'0', {0b111, 0b101, 0b101, 0b101, 0b111}},
    {'1', {0b010, 0b110, 0b010, 0b010, 0b111}},
    {'2', {0b111, 0b001, 0b111, 0b100, 0b111}},
    {'3', {0b111, 0b001, 0b111, 0b001, 0b111}},
    {'4', {0b101, 0b101, 0b111, 0b001, 0b001}},
    {'5', {0b111, 0b100, 0b111, 0b001, 0b111}},
    {'6', {0b111, 0b100, 0b111, 0b101, 0b111}},
    {'7', {0b111, 0b001, 0b010, 0b010, 0b010}},
    {'8', {0b111, 0b101, 0b111, 0b101, 0b111}},
    {'9', {0b111, 0b101, 0b111, 0b001, 0b111}},
    {'a', {0b000, 0b110, 0b011, 0b101, 0b111}},
    {'e', {0b010, 0b101, 0b111, 0b100, 0b011}},
    {'f', {0b011, 0b100, 0b110, 0b100, 0b100}},
    {'n', {0b000, 0b110, 0b101, 0b101, 0b101}},
    {'r', {0b000, 0b101, 0b110, 0b100, 0b100}},
    {' ', {0b000, 0b000, 0b000, 0b000, 0b000}},
}};

constexpr std::uint32_t kGlyphAdvance = 4 * kLegendTextScale;  // three columns and a gap
constexpr std::uint32_t kTextHeight = 5 * kLegendTextScale;

std::uint32_t text_width(std::string_view text) {
  return text.empty() ? 0
                      : static_cast<std::uint32_t>(text.size()) * kGlyphAdvance - kLegendTextScale;
}

// Writes text with its top-left corner at (x, y); characters without a glyph are skipped.
void draw_text(Canvas& canvas, std::int64_t x, std::int64_t y, std::string_view text, Rgba c) {
  for (const char ch : text) {
    const auto glyph =
        std::find_if(kFont.begin(), kFont.end(), [&](const Glyph& g) { return g.c == ch; });
    if (glyph != kFont.end()) {
      for (std::int64_t row = 0; row < 5; ++row) {
        for (std::int64_t column = 0; column < 3; ++column) {
          if (((glyph->rows[static_cast<std::size_t>(row)] >> (2 - column)) & 1U) == 0) continue;
          for (std::int64_t dy = 0; dy < kLegendTextScale; ++dy) {
            for (std::int64_t dx = 0; dx < kLegendTextScale; ++dx) {
              canvas.set(x + column * kLegendTextScale + dx, y + row * kLegendTextScale + dy, c);
            }
          }
        }
      }
    }
    x += kGlyphAdvance;
  }
}

void fill_rect(Canvas& canvas, std::int64_t x, std::int64_t y, std::int64_t width,
               std::int64_t height, Rgba c) {
  for (std::int64_t dy = 0; dy < height; ++dy) {
    for (std::int64_t dx = 0; dx < width; ++dx) canvas.set(x + dx, y + dy, c);
  }
}

// Where the legend's parts go, under a map map_width picture pixels wide.
struct LegendLayout {
  std::vector<int> areas;    // the entries, in order
  bool dimmed = false;       // their colours as unreachable_colour (under a heatmap)
  std::string far_text;      // "far N" with a field, else empty
  std::uint64_t width = 0;   // of the whole picture
  std::uint64_t height = 0;  // of the strip
  std::uint64_t per_row = 1;
  std::uint64_t area_rows = 0;
};

constexpr std::string_view kNearText = "near";
constexpr std::uint32_t kTextGap = 4;  // between a swatch or ramp and its text

LegendLayout legend_layout(std::uint64_t map_width, std::vector<int> areas, bool heat,
                           double highest_cost) {
  LegendLayout layout;
  layout.areas = std::move(areas);
  std::uint64_t needed = 2 * kLegendMargin + kLegendEntryWidth;
  if (heat) {
    layout.far_text = "far " + std::to_string(std::llround(highest_cost));
    needed =
        std::max<std::uint64_t>(needed, 2 * kLegendMargin + text_width(kNearText) + 2 * kTextGap +
                                            kLegendRampWidth + text_width(layout.far_text));
  }
  if (layout.areas.empty() && !heat) {  // nothing to explain: no strip
    layout.width = map_width;
    return layout;
  }
  layout.width = std::max(map_width, needed);
  layout.per_row =
      std::max<std::uint64_t>(1, (layout.width - 2 * kLegendMargin) / kLegendEntryWidth);
  layout.area_rows = (layout.areas.size() + layout.per_row - 1) / layout.per_row;
  const std::uint64_t rows = layout.area_rows + (heat ? 1 : 0);
  layout.height = kLegendMargin + rows * kLegendRowHeight;
  return layout;
}

// The segment a-b of an exact polyline (pixel units: a pixel centre is
// x + 0.5) in picture pixels, cut to the map and a margin of the line's width
// (Liang-Barsky), so a point far outside costs no long walk off the picture:
// std::nullopt when nothing of it is near the map, or a coordinate is not a
// number. A pixel centre lands on the picture pixel the integer polyline uses.
std::optional<std::array<std::int64_t, 4>> clip_to_picture(PointD a, PointD b, std::uint32_t scale,
                                                           std::uint64_t map_width,
                                                           std::uint64_t map_height) {
  const double s = scale;
  double x0 = a.x * s, y0 = a.y * s, x1 = b.x * s, y1 = b.y * s;
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1)) {
    return std::nullopt;
  }
  const double margin = s + 2;
  const double low_x = -margin, high_x = static_cast<double>(map_width) + margin;
  const double low_y = -margin, high_y = static_cast<double>(map_height) + margin;
  const double dx = x1 - x0, dy = y1 - y0;
  double t0 = 0, t1 = 1;
  for (const auto& [p, q] : {std::pair{-dx, x0 - low_x}, std::pair{dx, high_x - x0},
                            std::pair{-dy, y0 - low_y}, std::pair{dy, high_y - y0}}) {
    if (p == 0) {
      if (q < 0) return std::nullopt;  // parallel to this edge and outside it
      continue;
    }
    const double t = q / p;
    if (p < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return std::nullopt;
  }
  const auto picture = [](double v) { return static_cast<std::int64_t>(std::floor(v)); };
  return std::array<std::int64_t, 4>{picture(x0 + t0 * dx), picture(y0 + t0 * dy),
                                     picture(x0 + t1 * dx), picture(y0 + t1 * dy)};
}

void draw_legend(Canvas& canvas, const LegendLayout& layout, std::uint64_t top) {
  const auto text_top = [](std::int64_t row_top) {
    return row_top + (static_cast<std::int64_t>(kLegendSwatch) - kTextHeight) / 2;
  };
  for (std::size_t k = 0; k < layout.areas.size(); ++k) {
    const auto x =
        static_cast<std::int64_t>(kLegendMargin + (k % layout.per_row) * kLegendEntryWidth);
    const auto y =
        static_cast<std::int64_t>(top + kLegendMargin + (k / layout.per_row) * kLegendRowHeight);
    fill_rect(canvas, x, y, kLegendSwatch, kLegendSwatch, kOutlineColour);
    const Rgba colour = area_colour(layout.areas[k]);
    fill_rect(canvas, x + 1, y + 1, kLegendSwatch - 2, kLegendSwatch - 2,
              layout.dimmed ? unreachable_colour(colour) : colour);
    draw_text(canvas, x + kLegendSwatch + kTextGap, text_top(y), std::to_string(layout.areas[k]),
              kOutlineColour);
  }
  if (layout.far_text.empty()) return;
  const auto y =
      static_cast<std::int64_t>(top + kLegendMargin + layout.area_rows * kLegendRowHeight);
  std::int64_t x = kLegendMargin;
  draw_text(canvas, x, text_top(y), kNearText, kOutlineColour);
  x += text_width(kNearText) + kTextGap;
  for (std::uint32_t i = 0; i < kLegendRampWidth; ++i) {
    const Rgba c = heatmap_colour(static_cast<double>(i) / (kLegendRampWidth - 1));
    fill_rect(canvas, x + i, y, 1, kLegendSwatch, c);
  }
  x += kLegendRampWidth + kTextGap;
  draw_text(canvas, x, text_top(y), layout.far_text, kOutlineColour);
}

}  // namespace

Rgba area_colour(int area) {
  if (area < 0 || area > kMaxAreaId) {
    throw InvalidArgument("area id " + std::to_string(area) + " is out of range 0.." +
                          std::to_string(kMaxAreaId));
  }
  if (area == 0) return kBlockedColour;
  // Golden-ratio hue steps spread any first few areas far apart; saturation
  // and brightness cycle so that areas close in hue still differ.
  static constexpr double kGoldenRatioConjugate = 0.6180339887498949;
  static constexpr std::array<double, 3> kSaturation{0.80, 0.55, 0.40};
  static constexpr std::array<double, 3> kValue{0.92, 0.74, 0.83};
  const auto i = static_cast<std::size_t>(area);
  return from_hsv(0.712 + static_cast<double>(area) * kGoldenRatioConjugate, kSaturation[i % 3],
                  kValue[(i / 3) % 3]);
}

Rgba component_colour(Components::Label label) {
  if (label == Components::kNone) return kBlockedColour;
  // Hue by golden-ratio steps (consecutive labels 137.5 degrees apart),
  // saturation and brightness from a multiplicative hash of the label.
  static constexpr double kGoldenRatioConjugate = 0.6180339887498949;
  const double hue = 0.3 + static_cast<double>(label % (1U << 20)) * kGoldenRatioConjugate;
  std::uint32_t h = label * 0x9E3779B1U;
  h ^= h >> 15;
  const double saturation = 0.45 + 0.4 * static_cast<double>(h & 0x7U) / 7.0;
  const double value = 0.72 + 0.23 * static_cast<double>((h >> 3) & 0x7U) / 7.0;
  return from_hsv(hue, saturation, value);
}

Rgba heatmap_colour(double t) {
  if (!(t > 0)) t = 0;  // NaN too
  t = std::min(t, 1.0);
  // Reversed: t = 0 (the goal) is viridis' bright end.
  const double position = (1.0 - t) * static_cast<double>(kViridis.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(position), kViridis.size() - 2);
  const double f = position - static_cast<double>(i);
  const auto channel = [&](std::size_t c) {
    const double value = kViridis[i][c] + (kViridis[i + 1][c] - kViridis[i][c]) * f;
    return static_cast<std::uint8_t>(std::lround(value));
  };
  return {channel(0), channel(1), channel(2), 255};
}

Rgba unreachable_colour(Rgba c) {
  return {static_cast<std::uint8_t>(c.r / 4), static_cast<std::uint8_t>(c.g / 4),
          static_cast<std::uint8_t>(c.b / 4), 255};
}

Image render(const Mask& mask, const RenderLayers& layers) {
  const std::uint64_t scale = layers.scale;
  // The map's part of the picture; `width` is the picture's (wider for a wide legend).
  const std::uint64_t map_width = std::uint64_t{mask.width()} * scale;
  const std::uint64_t map_height = std::uint64_t{mask.height()} * scale;
  if (scale == 0) throw InvalidArgument("scale must be at least 1");
  constexpr std::uint64_t kMaxSide = 0x7FFFFFFF;
  if (map_width > kMaxSide || map_height > kMaxSide || map_width * map_height > kMaxRenderPixels) {
    throw InvalidArgument("a picture of " + std::to_string(map_width) + "x" +
                          std::to_string(map_height) + " pixels (scale " + std::to_string(scale) +
                          ") exceeds the limit of " + std::to_string(kMaxRenderPixels) + " pixels");
  }
  const DistanceField* field = layers.field;
  if (field != nullptr && (field->width() != mask.width() || field->height() != mask.height())) {
    throw InvalidArgument("field: " + std::to_string(field->width()) + "x" +
                          std::to_string(field->height()) + " does not fit the mask");
  }
  const std::span<const float> costs = layers.costs;
  if (!costs.empty() && field != nullptr) {
    throw InvalidArgument("costs: give a field or costs, not both");
  }
  if (!costs.empty() && costs.size() != mask.pixel_count()) {
    throw InvalidArgument("costs: " + std::to_string(costs.size()) + " values do not fit the " +
                          std::to_string(mask.pixel_count()) + " pixels of the mask");
  }
  // The heatmap, from either source: reached(p), and cost(p) where reached.
  const bool heat = field != nullptr || !costs.empty();
  const auto reached = [&](Point p) {
    return field != nullptr ? field->reachable(p) : std::isfinite(costs[mask.index(p)]);
  };
  const auto cost = [&](Point p) {
    return field != nullptr ? field->cost_at(p) : static_cast<double>(costs[mask.index(p)]);
  };
  const Components* components = layers.components;
  if (components != nullptr &&
      (components->width() != mask.width() || components->height() != mask.height())) {
    throw InvalidArgument("components: " + std::to_string(components->width()) + "x" +
                          std::to_string(components->height()) + " does not fit the mask");
  }

  double highest_cost = 0;
  // Areas drawn in their colour: all present, or with a heatmap those on a
  // pixel it does not reach.
  std::array<bool, kMaxAreaId + 1> drawn{};
  for (std::uint32_t y = 0; y < mask.height(); ++y) {
    for (std::uint32_t x = 0; x < mask.width(); ++x) {
      const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      if (heat && reached(p)) {
        highest_cost = std::max(highest_cost, cost(p));
      } else {
        drawn[mask.area(p)] = true;
      }
    }
  }

  LegendLayout legend;
  legend.width = map_width;
  if (layers.legend) {
    std::vector<int> areas;
    if (components == nullptr) {  // components replace the area colours
      for (int area = 0; area <= kMaxAreaId; ++area) {
        if (drawn[static_cast<std::size_t>(area)]) areas.push_back(area);
      }
    }
    legend = legend_layout(map_width, std::move(areas), heat, highest_cost);
    legend.dimmed = heat;
  }
  const std::uint64_t width = legend.width;
  const std::uint64_t height = map_height + legend.height;
  if (width > kMaxSide || height > kMaxSide || width * height > kMaxRenderPixels) {
    throw InvalidArgument("a picture of " + std::to_string(width) + "x" + std::to_string(height) +
                          " pixels with its legend exceeds the limit of " +
                          std::to_string(kMaxRenderPixels) + " pixels");
  }

  Image image;
  image.width = static_cast<std::uint32_t>(width);
  image.height = static_cast<std::uint32_t>(height);
  image.rgba.resize(width * height * 4);
  if (width != map_width || height != map_height) {
    for (std::size_t i = 0; i < image.rgba.size(); i += 4) {
      image.rgba[i] = kLegendBackground.r;
      image.rgba[i + 1] = kLegendBackground.g;
      image.rgba[i + 2] = kLegendBackground.b;
      image.rgba[i + 3] = kLegendBackground.a;
    }
  }

  // Base layer, one mask pixel at a time, each filling a scale x scale block.
  const auto fill_block = [&](std::uint32_t x, std::uint32_t y, Rgba c) {
    for (std::uint64_t by = 0; by < scale; ++by) {
      std::uint8_t* row = &image.rgba[((y * scale + by) * width + x * scale) * 4];
      for (std::uint64_t bx = 0; bx < scale; ++bx, row += 4) {
        row[0] = c.r;
        row[1] = c.g;
        row[2] = c.b;
        row[3] = c.a;
      }
    }
  };
  for (std::uint32_t y = 0; y < mask.height(); ++y) {
    for (std::uint32_t x = 0; x < mask.width(); ++x) {
      const Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      Rgba c = area_colour(mask.area(p));
      if (components != nullptr && components->label(p) != Components::kNone) {
        c = component_colour(components->label(p));
      }
      if (heat) {
        c = reached(p) ? heatmap_colour(highest_cost > 0 ? cost(p) / highest_cost : 0.0)
                       : unreachable_colour(c);
      }
      fill_block(x, y, c);
    }
  }

  // Raw path: each pixel once, blended halfway to white.
  if (!layers.raw_path.empty()) {
    std::vector<bool> seen(mask.pixel_count(), false);
    for (const Point p : layers.raw_path) {
      if (!mask.contains(p) || seen[mask.index(p)]) continue;
      seen[mask.index(p)] = true;
      const std::size_t i = ((p.y * scale + scale / 2) * width + p.x * scale + scale / 2) * 4;
      const Rgba c{image.rgba[i], image.rgba[i + 1], image.rgba[i + 2], 255};
      const auto toward_white = [](std::uint8_t v) {
        return static_cast<std::uint8_t>(v + (255 - v + 1) / 2);
      };
      fill_block(static_cast<std::uint32_t>(p.x), static_cast<std::uint32_t>(p.y),
                 {toward_white(c.r), toward_white(c.g), toward_white(c.b), 255});
    }
  }

  Canvas canvas(image, map_width, map_height);
  const auto centre = [&](std::int32_t v) {
    return static_cast<std::int64_t>(v) * static_cast<std::int64_t>(scale) +
           static_cast<std::int64_t>(scale / 2);
  };
  // Polyline: the dark outline under every segment first, then the white line.
  const auto line_radius = static_cast<std::int64_t>(std::max<std::uint64_t>(1, scale / 4));
  for (const auto& [radius, colour] :
       {std::pair{line_radius + 1, kOutlineColour}, std::pair{line_radius, kPathColour}}) {
    for (std::size_t i = 0; i < layers.polyline.size(); ++i) {
      const Point a = layers.polyline[i];
      const Point b = layers.polyline[i + 1 < layers.polyline.size() ? i + 1 : i];
      canvas.line(centre(a.x), centre(a.y), centre(b.x), centre(b.y), radius, colour);
    }
    for (std::size_t i = 0; i < layers.precise_polyline.size(); ++i) {
      const PointD a = layers.precise_polyline[i];
      const PointD b = layers.precise_polyline[i + 1 < layers.precise_polyline.size() ? i + 1 : i];
      if (const auto clipped = clip_to_picture(a, b, scale, map_width, map_height)) {
        const auto [x0, y0, x1, y1] = *clipped;
        canvas.line(x0, y0, x1, y1, radius, colour);
      }
    }
  }
  // Markers: the asked goal's ring, then the goals, so a start on a goal
  // stays visible on top.
  const auto marker_radius = static_cast<std::int64_t>(4 + scale);
  const auto marker = [&](Point point, Rgba colour) {
    canvas.disc(centre(point.x), centre(point.y), marker_radius + 1, kOutlineColour);
    canvas.disc(centre(point.x), centre(point.y), marker_radius, colour);
  };
  if (layers.asked_goal) {
    const Point p = *layers.asked_goal;
    const std::int64_t inner = marker_radius / 2;
    canvas.ring(centre(p.x), centre(p.y), marker_radius + 1, inner - 1, kOutlineColour);
    canvas.ring(centre(p.x), centre(p.y), marker_radius, inner, kGoalColour);
  }
  for (const Point goal : layers.goals) marker(goal, kGoalColour);
  if (layers.goal) marker(*layers.goal, kGoalColour);
  if (layers.start) marker(*layers.start, kStartColour);
  if (legend.height > 0) {
    Canvas whole(image, width, height);
    draw_legend(whole, legend, map_height);
  }
  return image;
}

}  // namespace pathcore
