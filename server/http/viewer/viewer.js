// The level viewer's page: wires the panel, the canvas and the server.
// In path mode a click sets the start, the next the goal: FindPath once per
// smoothing mode, the goal's field (GetField) and, when on, a crowd
// (BatchFindPaths). In line-of-sight mode two clicks make a LineOfSight
// query. window.viewer exposes the view's coordinates and the last answers
// (the browser test reads them).

import { ConnectError, unary } from "./connect.js";
import { Controls } from "./controls.js";
import { PATH_COLOURS, SIGHT_BLOCKED, SIGHT_CLEAR } from "./colours.js";
import { cropAround, downsampleFor, FieldLayer } from "./field_layer.js";
import { MaskView } from "./mask_view.js";
import {
  batchRequest, fieldRequest, findPathRequest, lineOfSightRequest, randomWalkableStarts,
  seededRandom, SMOOTHING_MODES,
} from "./requests.js";
import { buildLegend, showAnswer, shownModes } from "./legend.js";
import { installUpload } from "./upload.js";
import { base64ToBytes, point, reasonLabel } from "./wire.js";

const $ = (selector) => document.querySelector(selector);
const CROWD_SMOOTHING = "SMOOTHING_BEAUTIFY";

const state = {
  mask: null,  // MaskInfo of the mask shown (without its areas)
  start: null,  // path mode's clicks, mask pixels
  goal: null,
  sightFrom: null,  // line of sight's first click
  generation: 0,  // bumped by each new set of queries; older answers are dropped
  settled: 0,  // the last generation whose queries have all ended
  busy: 0,  // calls in flight
  paths: {},  // mode -> {request, response, latencyMs} or {request, error}
  field: null,  // the last field shown: size, chunks, reachable samples
  crowd: null,  // {starts, found, latencyMs}
  sight: null,  // {request, response}
};

let fieldTimer = null;  // followView's delay
const fieldLayer = new FieldLayer();
const view = new MaskView($("#mask-canvas"), {
  onClick: (pixel) => (clickMode() === "sight" ? sightClick(pixel) : pathClick(pixel)),
  onHover: showCursor,
  onViewChange: followView,
});
view.field = fieldLayer;
const controls = new Controls(() => {
  rerun();
});

function token() {
  return $("#client-token").value || $("#admin-token").value || undefined;
}

function clickMode() {
  return $("input[name=click-mode]:checked").value;
}

function setStatus(text, kind = "info") {
  const status = $("#status");
  status.textContent = text;
  status.dataset.kind = kind;
}

function report(error) {
  if (error?.name === "AbortError") return;
  console.error(error);
  setStatus(error instanceof ConnectError ? `server: ${error.message}`
                                          : `error: ${error?.message ?? error}`, "error");
}

async function call(method, request) {
  state.busy += 1;
  try {
    return await unary(method, request, { token: token() });
  } finally {
    state.busy -= 1;
  }
}

const centre = (p) => ({ x: p.x + 0.5, y: p.y + 0.5 });
const ms = (value) => `${value.toFixed(1)} ms`;

// --- masks -----------------------------------------------------------------

async function loadMasks(select) {
  const response = await call("ListMasks", {});
  const masks = response.masks ?? [];
  const list = $("#mask-select");
  list.replaceChildren(...masks.map((m) => {
    const option = document.createElement("option");
    option.value = m.name;
    option.textContent = `${m.name} (${m.width ?? 0}×${m.height ?? 0})`;
    return option;
  }));
  const wanted = select ?? state.mask?.name ?? masks[0]?.name;
  if (!masks.length) {
    setStatus("no masks on the server: drop a PNG on the page (or choose a file) to upload one");
    return;
  }
  list.value = masks.some((m) => m.name === wanted) ? wanted : masks[0].name;
  if (select !== undefined || list.value !== state.mask?.name) await showMask(list.value);
}

async function showMask(name) {
  setStatus(`loading ${name}…`);
  const info = await call("GetMask", { name, includeAreas: true });
  const width = info.width ?? 0;
  const height = info.height ?? 0;
  const areas = base64ToBytes(info.areas);
  if (areas.length !== width * height) {
    throw new Error(`${name}: ${areas.length} area bytes for ${width}×${height} pixels`);
  }
  delete info.areas;
  state.mask = info;
  state.start = state.goal = state.sightFrom = null;
  state.generation += 1;
  state.settled = state.generation;
  clearAnswers();
  controls.setAreas(info.areasPresent);
  view.setMask(info, areas);
  $("#mask-info").textContent = `${width}×${height}, revision ${info.revision ?? 0}, ` +
    `${info.walkablePixels ?? 0} walkable pixels`;
  setStatus(`${name}: click a start, then a goal`);
}

// --- clicks ----------------------------------------------------------------

function pathClick(pixel) {
  if (!state.mask) return;
  if (!state.start || state.goal) {
    state.generation += 1;
    state.settled = state.generation;
    clearAnswers();
    state.start = pixel;
    state.goal = null;
    view.start = pixel;
    view.draw();
    setStatus(`start (${pixel.x}, ${pixel.y}): click a goal`);
    return;
  }
  state.goal = pixel;
  view.goal = pixel;
  runQueries().catch(report);
}

function sightClick(pixel) {
  if (!state.mask) return;
  if (!state.sightFrom) {
    state.sightFrom = pixel;
    state.sight = null;
    view.sight = { a: centre(pixel), b: centre(pixel), colour: "#d0d0d0" };
    view.draw();
    $("#sight-result").textContent = `from (${pixel.x}, ${pixel.y}): click the other end`;
    return;
  }
  const from = state.sightFrom;
  state.sightFrom = null;
  runSight(from, pixel).catch(report);
}

function rerun() {
  if (state.start && state.goal) runQueries().catch(report);
  if (state.sight) runSight(state.sight.a, state.sight.b).catch(report);
}

// --- answers ---------------------------------------------------------------

function clearAnswers() {
  state.paths = {};
  state.field = null;
  state.crowd = null;
  state.sight = null;
  fieldLayer.clear();
  Object.assign(view, { paths: [], crowd: [], sight: null, start: null, goal: null });
  for (const mode of SMOOTHING_MODES) showPath(mode);
  for (const id of ["#field-result", "#crowd-result", "#sight-result"]) $(id).textContent = "";
  view.draw();
}

async function runQueries() {
  const { mask, start, goal } = state;
  const options = controls.options();
  if (options.enabledAreas?.length === 0) {
    setStatus("no area is enabled: tick at least one", "error");
    return;
  }
  const generation = ++state.generation;
  state.paths = {};
  view.paths = [];
  view.crowd = [];
  for (const mode of SMOOTHING_MODES) showPath(mode);
  setStatus(`(${start.x}, ${start.y}) → (${goal.x}, ${goal.y}): asking…`);
  const paths = SMOOTHING_MODES.map(async (mode) => {
    const request = findPathRequest(mask.name, options, start, goal, mode);
    const began = performance.now();
    let answer;
    try {
      answer = { request, response: await call("FindPath", request),
                 latencyMs: performance.now() - began };
    } catch (error) {
      answer = { request, error };
    }
    if (generation !== state.generation) return;
    state.paths[mode] = answer;
    showPath(mode);
  });
  const others = [loadField(generation), runCrowd(generation, options)];
  try {
    await Promise.all(paths);
    if (generation === state.generation) summarize();
    await Promise.all(others);
  } finally {
    if (generation === state.generation) state.settled = generation;
  }
}

// The status line after the paths: the first error, else found or why not.
function summarize() {
  const answers = SMOOTHING_MODES.map((mode) => state.paths[mode]);
  const failed = answers.find((a) => a?.error);
  if (failed) return report(failed.error);
  const main = answers[0].response;
  const { start, goal } = state;
  if (!main.found) {
    setStatus(`no path from (${start.x}, ${start.y}) to (${goal.x}, ${goal.y}): ` +
              reasonLabel(main.reason), "warn");
  } else {
    setStatus(`(${start.x}, ${start.y}) → (${goal.x}, ${goal.y}): ${reasonLabel(main.reason)}, ` +
              `length ${(main.length ?? 0).toFixed(1)}`);
  }
}

// A mode's legend row, and the paths drawn (those whose "show" box is ticked).
function showPath(mode) {
  showAnswer(mode, state.paths[mode]);
  drawPaths();
}

// Wider lines under thinner ones, so that coinciding paths stay visible:
// simplify's polyline is always none's, beautify's often any-angle's.
const PATH_WIDTHS = { SMOOTHING_BEAUTIFY: 2.5, SMOOTHING_SIMPLIFY: 3, SMOOTHING_NONE: 6.5,
                      SMOOTHING_ANY_ANGLE: 9 };

function drawPaths() {
  view.paths = shownModes().filter((mode) => state.paths[mode]?.response?.found)
    .sort((a, b) => PATH_WIDTHS[b] - PATH_WIDTHS[a])
    .map((mode) => ({ colour: PATH_COLOURS[mode], width: PATH_WIDTHS[mode],
                      points: state.paths[mode].response.precisePoints.map(point) }));
  view.draw();
}

async function loadField(generation) {
  if (!$("#field-on").checked || !state.goal) {
    fieldLayer.clear();
    view.draw();
    return;
  }
  const mask = state.mask;
  const visible = view.visibleRect();
  if (!visible.width || !visible.height) return;
  const downsample = downsampleFor(view.transform.scale);
  const crop = cropAround(visible, mask.width, mask.height);
  const request = fieldRequest(mask.name, controls.options(), state.goal);
  state.busy += 1;
  try {
    const field = await fieldLayer.load(request, crop, downsample, token());
    if (generation !== state.generation) return;
    state.field = { width: field.width, height: field.height, downsample, crop,
                    chunks: field.chunks, reachable: field.reachable, farthest: field.farthest,
                    latencyMs: field.latencyMs };
    $("#field-result").textContent = `${field.width}×${field.height} samples (every ` +
      `${downsample}), ${field.chunks} chunk${field.chunks === 1 ? "" : "s"}, farthest ` +
      `${field.farthest.toFixed(1)}, ${ms(field.latencyMs)}`;
    view.draw();
  } catch (error) {
    if (error.name === "AbortError") return;
    $("#field-result").textContent = error.code ?? "error";
    report(error);
  } finally {
    state.busy -= 1;
  }
}

// After a zoom or pan, fetch the field again once the view has left it.
function followView() {
  clearTimeout(fieldTimer);
  fieldTimer = setTimeout(() => {
    if (fieldLayer.field && state.goal &&
        !fieldLayer.covers(view.visibleRect(), downsampleFor(view.transform.scale))) {
      loadField(state.generation);
    }
  }, 250);
}

async function runCrowd(generation, options) {
  if (!$("#crowd-on").checked || !state.goal) return;
  const mask = state.mask;
  const size = Math.min(Math.max(parseInt($("#crowd-size").value, 10) || 1, 1), 2000);
  const goal = state.goal;
  const starts = randomWalkableStarts(view.mask.areas, mask.width, options.enabledAreas, size,
                                      seededRandom(goal.x * 7919 + goal.y));
  if (!starts.length) {
    $("#crowd-result").textContent = "no walkable pixel";
    return;
  }
  const began = performance.now();
  try {
    const response = await call("BatchFindPaths",
                                batchRequest(mask.name, options, starts, goal, CROWD_SMOOTHING));
    if (generation !== state.generation) return;
    const found = (response.paths ?? []).filter((p) => p.found);
    state.crowd = { starts: starts.length, found: found.length,
                    latencyMs: performance.now() - began };
    view.crowd = found.map((p) => p.precisePoints.map(point));
    $("#crowd-result").textContent = `${found.length} of ${starts.length} found, ` +
      ms(state.crowd.latencyMs);
    view.draw();
  } catch (error) {
    if (generation !== state.generation) return;
    $("#crowd-result").textContent = error.code ?? "error";
    report(error);
  }
}

async function runSight(a, b) {
  const request = lineOfSightRequest(state.mask.name, controls.options(), a, b);
  const began = performance.now();
  const response = await call("LineOfSight", request);
  const result = response.results?.[0] ?? {};
  const latencyMs = performance.now() - began;
  state.sight = { a, b, request, response, latencyMs };
  const blocked = result.clear ? null : point(result.firstBlocked);
  view.sight = { a: centre(a), b: centre(b), colour: result.clear ? SIGHT_CLEAR : SIGHT_BLOCKED,
                 blockedAt: blocked };
  const text = $("#sight-result");
  text.dataset.clear = String(Boolean(result.clear));
  text.textContent = `(${a.x}, ${a.y}) → (${b.x}, ${b.y}): ` +
    (result.clear ? "clear" : `blocked at (${blocked.x}, ${blocked.y})`) + `, ${ms(latencyMs)}`;
  view.draw();
}

function showCursor(pixel) {
  $("#cursor").textContent = pixel
    ? `(${pixel.x}, ${pixel.y}) area ${view.areaAt(pixel)}` : "";
}

// --- the page --------------------------------------------------------------

buildLegend(drawPaths);
installUpload({
  onStatus: (text) => setStatus(text),
  onUploaded: (info) => {
    setStatus(`uploaded ${info.name} (revision ${info.revision ?? 0})`);
    loadMasks(info.name).catch(report);
  },
  onError: report,
});
$("#mask-select").addEventListener("change", (event) => {
  showMask(event.target.value).catch(report);
});
$("#refresh-masks").addEventListener("click", () => loadMasks().catch(report));
$("#fit").addEventListener("click", () => view.fit());
$("#field-on").addEventListener("change", () => loadField(state.generation));
$("#crowd-on").addEventListener("change", rerun);
$("#crowd-size").addEventListener("change", rerun);
for (const radio of document.querySelectorAll("input[name=click-mode]")) {
  radio.addEventListener("change", () => {
    state.sightFrom = null;
    setStatus(clickMode() === "sight" ? "line of sight: click one end, then the other"
                                      : "click a start, then a goal");
  });
}
window.addEventListener("unhandledrejection", (event) => report(event.reason));
window.addEventListener("error", (event) => report(event.error ?? event.message));

window.viewer = {
  state,
  view,
  maskToClient: (x, y) => view.maskToClient(x, y),
  maskToCanvas: (x, y) => view.maskToCanvas(x, y),
  /** True when nothing is in flight and the last queries have all ended. */
  idle: () => state.busy === 0 && state.settled === state.generation,
  loadMasks,
};

loadMasks().catch(report);
