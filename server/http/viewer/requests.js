// The API's request messages (proto3 JSON) built from the panel's options,
// and the random walkable starts of a crowd. Pure: no DOM, no server.
//
// options: { enabledAreas: [ids] or null for all, areaCosts: {id: cost},
//   connectivity: "CONNECTIVITY_FOUR" | "CONNECTIVITY_EIGHT",
//   allowCornerCutting, snapToReachable: bool, clearance: pixels }

import { areaBitsOf } from "./wire.js";

/** The smoothing modes FindPath is asked for, in legend order. */
export const SMOOTHING_MODES = ["SMOOTHING_BEAUTIFY", "SMOOTHING_SIMPLIFY", "SMOOTHING_NONE",
                                "SMOOTHING_ANY_ANGLE"];

/** "SMOOTHING_ANY_ANGLE" -> "any-angle": the mode's part of element ids. */
export function modeKey(mode) {
  return mode.replace(/^SMOOTHING_/, "").toLowerCase().replace(/_/g, "-");
}

function areaFields(options) {
  const fields = {};
  if (options.enabledAreas) {
    fields.enabledAreas = areaBitsOf(options.enabledAreas);
  }
  return fields;
}

function costs(options) {
  const listed = Object.entries(options.areaCosts ?? {}).filter(([, cost]) => cost !== 1);
  return listed.length ? { areaCosts: Object.fromEntries(listed) } : {};
}

function clearance(options) {
  return options.clearance > 0 ? { clearance: options.clearance } : {};
}

/**
 * FindPath's request. Any-angle paths are Euclidean-shortest: the server
 * refuses area costs with them, so they are left out for that mode.
 */
export function findPathRequest(mask, options, start, goal, smoothing) {
  return {
    mask, start, goal, ...areaFields(options),
    connectivity: options.connectivity,
    allowCornerCutting: options.allowCornerCutting,
    smoothing,
    snapToReachable: options.snapToReachable,
    ...(smoothing === "SMOOTHING_ANY_ANGLE" ? {} : costs(options)),
    ...clearance(options),
  };
}

/** BatchFindPaths' request: FindPath's options, many starts. */
export function batchRequest(mask, options, starts, goal, smoothing) {
  const { start, ...rest } = findPathRequest(mask, options, starts[0], goal, smoothing);
  return { ...rest, starts };
}

/** GetField's request (crop and downsample are the caller's). */
export function fieldRequest(mask, options, goal) {
  return {
    mask, goal, ...areaFields(options),
    connectivity: options.connectivity,
    allowCornerCutting: options.allowCornerCutting,
    ...costs(options), ...clearance(options),
  };
}

/** LineOfSight's request for one segment. */
export function lineOfSightRequest(mask, options, a, b) {
  return {
    mask, pairs: [{ a, b }], ...areaFields(options),
    allowCornerCutting: options.allowCornerCutting, ...clearance(options),
  };
}

/** A small seeded generator (mulberry32): a crowd is the same for the same seed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Up to `count` distinct random pixels of the area grid whose area is
 * enabled (enabledAreas null: any area but 0); fewer when fewer exist.
 */
export function randomWalkableStarts(areas, width, enabledAreas, count, random) {
  const enabled = new Set(enabledAreas ?? Array.from({ length: 63 }, (_, i) => i + 1));
  const chosen = new Set();
  for (let tries = 0; chosen.size < count && tries < count * 200; tries++) {
    const i = Math.floor(random() * areas.length);
    if (enabled.has(areas[i])) chosen.add(i);
  }
  return [...chosen].map((i) => ({ x: i % width, y: Math.floor(i / width) }));
}
