// The viewer's colours: areas as `pathfind render` draws them (core's
// render.cc: area 0 near black, golden-ratio hue steps), the distance
// heat map (viridis, bright at the goal), and one colour per path kind.

const BLOCKED = [20, 20, 24];
const GOLDEN_RATIO_CONJUGATE = 0.6180339887498949;
const SATURATION = [0.80, 0.55, 0.40];
const VALUE = [0.92, 0.74, 0.83];
const VIRIDIS = [[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
                 [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]];

// h, s, v in [0, 1] -> [r, g, b] bytes.
function fromHsv(h, s, v) {
  h = (h - Math.floor(h)) * 6;
  const sector = Math.floor(h) % 6;
  const f = h - Math.floor(h);
  const p = v * (1 - s);
  const q = v * (1 - s * f);
  const t = v * (1 - s * (1 - f));
  const rgb = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][sector];
  return rgb.map((c) => Math.round(Math.min(Math.max(c, 0), 1) * 255));
}

/** [r, g, b] of an area id 0..63; area 0 (never walkable) is near black. */
export function areaColour(area) {
  if (area === 0) return BLOCKED;
  return fromHsv(0.712 + area * GOLDEN_RATIO_CONJUGATE, SATURATION[area % 3],
                 VALUE[Math.floor(area / 3) % 3]);
}

/** "#rrggbb" of an area id. */
export function areaCss(area) {
  return "#" + areaColour(area).map((c) => c.toString(16).padStart(2, "0")).join("");
}

/** [r, g, b] of a distance as a fraction t of the farthest: 0 (goal) bright yellow. */
export function heatColour(t) {
  t = t > 0 ? Math.min(t, 1) : 0;
  const position = (1 - t) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(position), VIRIDIS.length - 2);
  const f = position - i;
  return VIRIDIS[i].map((c, k) => Math.round(c + (VIRIDIS[i + 1][k] - c) * f));
}

/** One colour per smoothing mode: far from the area and heat map colours. */
export const PATH_COLOURS = {
  SMOOTHING_BEAUTIFY: "#ffffff",
  SMOOTHING_SIMPLIFY: "#ff9f0a",
  SMOOTHING_NONE: "#00c8ff",
  SMOOTHING_ANY_ANGLE: "#ff2d95",
};

export const CROWD_COLOUR = "rgba(255, 214, 10, 0.55)";
export const SIGHT_CLEAR = "#30d158";
export const SIGHT_BLOCKED = "#ff453a";
export const START_COLOUR = "#30d158";
export const GOAL_COLOUR = "#ff453a";
export const OUTLINE = "rgba(0, 0, 0, 0.65)";
