// The distance field toward the goal as a heat map with flow arrows. The
// field comes from GetField's stream, chunk by chunk, cropped to the part
// of the mask in view (with a margin) and downsampled to about one sample
// per screen pixel; it is fetched again when the view leaves what it covers.

import { serverStream } from "./connect.js";
import { heatColour } from "./colours.js";
import { base64ToBytes, float32s } from "./wire.js";

// Direction 1..8 = N, NE, E, SE, S, SW, W, NW -> a step (y down).
const STEPS = [null, [0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1]];
const HEAT_ALPHA = 0.65;
const ARROW_SPACING = 26;  // CSS pixels between arrows, at least

/** GetField's downsample for a view scale (CSS pixels per mask pixel). */
export function downsampleFor(scale) {
  return Math.max(1, Math.floor(1 / scale));
}

/** rect grown by a quarter of its size on each side, clipped to the mask. */
export function cropAround(rect, width, height) {
  const mx = Math.ceil(rect.width / 4);
  const my = Math.ceil(rect.height / 4);
  const x = Math.max(rect.x - mx, 0);
  const y = Math.max(rect.y - my, 0);
  return { x, y, width: Math.min(rect.x + rect.width + mx, width) - x,
           height: Math.min(rect.y + rect.height + my, height) - y };
}

function contains(outer, inner) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height;
}

export class FieldLayer {
  constructor() {
    this.field = null;  // the last field loaded, with its image
    this.abort = null;
  }

  clear() {
    this.abort?.abort();
    this.abort = null;
    this.field = null;
  }

  /** True when the field loaded covers `visible` at `downsample`. */
  covers(visible, downsample) {
    return this.field !== null && this.field.downsample === downsample &&
      contains(this.field.crop, visible);
  }

  /**
   * Streams the field for `request` (GetFieldRequest without crop and
   * downsample); resolves to it once complete. A newer load() aborts this
   * one (its promise then rejects with an AbortError).
   */
  async load(request, crop, downsample, token) {
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const started = performance.now();
    const field = { crop, downsample, width: 0, height: 0, distances: null, flow: null,
                    chunks: 0, rows: 0, cacheHit: false, farthest: 0, reachable: 0 };
    await serverStream("GetField", { ...request, crop, downsample, includeFlow: true }, (chunk) => {
      if (!field.distances) {
        field.width = chunk.width ?? 0;
        field.height = chunk.height ?? 0;
        field.distances = new Float32Array(field.width * field.height).fill(Infinity);
        field.flow = new Uint8Array(field.width * field.height);
      }
      const at = (chunk.firstRow ?? 0) * field.width;
      const count = (chunk.rowCount ?? 0) * field.width;
      field.distances.set(float32s(base64ToBytes(chunk.distances), count), at);
      if (chunk.flow) field.flow.set(base64ToBytes(chunk.flow).subarray(0, count), at);
      field.chunks += 1;
      field.rows += chunk.rowCount ?? 0;
      field.cacheHit = field.cacheHit || Boolean(chunk.cacheHit);
    }, { token, signal: abort.signal });
    field.latencyMs = performance.now() - started;
    for (const d of field.distances ?? []) {
      if (Number.isFinite(d)) {
        field.reachable += 1;
        field.farthest = Math.max(field.farthest, d);
      }
    }
    field.image = heatImage(field);
    this.field = field;
    return field;
  }

  /** Draws the heat map and arrows; `view` is the MaskView drawing. */
  draw(ctx, view) {
    const field = this.field;
    if (!field?.image) return;
    const { crop, downsample: d } = field;
    view.withMaskTransform(ctx, () => {
      ctx.beginPath();
      ctx.rect(crop.x, crop.y, crop.width, crop.height);
      ctx.clip();
      ctx.globalAlpha = HEAT_ALPHA;
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(field.image, crop.x, crop.y, field.width * d, field.height * d);
    });
    drawArrows(ctx, view, field);
  }
}

function heatImage(field) {
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(field.width, 1);
  canvas.height = Math.max(field.height, 1);
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(canvas.width, canvas.height);
  const scale = field.farthest > 0 ? 1 / field.farthest : 0;
  field.distances.forEach((d, i) => {
    if (!Number.isFinite(d)) return;  // transparent: the mask shows through
    const [r, g, b] = heatColour(d * scale);
    image.data.set([r, g, b, 255], 4 * i);
  });
  ctx.putImageData(image, 0, 0);
  return canvas;
}

// One arrow per `step` samples each way, only over the samples in view.
function drawArrows(ctx, view, field) {
  const { crop, downsample: d, width, height } = field;
  const spacing = d * view.transform.scale;  // CSS pixels between samples
  const step = Math.max(1, Math.ceil(ARROW_SPACING / spacing));
  const length = 0.35 * step * spacing;
  const visible = view.visibleRect();
  const i0 = Math.max(0, Math.floor((visible.x - crop.x) / d / step) * step);
  const j0 = Math.max(0, Math.floor((visible.y - crop.y) / d / step) * step);
  const i1 = Math.min(width, Math.ceil((visible.x + visible.width - crop.x) / d) + 1);
  const j1 = Math.min(height, Math.ceil((visible.y + visible.height - crop.y) / d) + 1);
  ctx.save();
  ctx.strokeStyle = "rgba(10, 10, 14, 0.6)";
  ctx.lineWidth = 1.2;
  ctx.beginPath();
  for (let j = j0; j < j1; j += step) {
    for (let i = i0; i < i1; i += step) {
      const direction = field.flow[j * width + i];
      if (!direction || direction > 8) continue;
      const [sx, sy] = STEPS[direction];
      const norm = Math.hypot(sx, sy);
      const c = view.maskToView(crop.x + i * d + d / 2, crop.y + j * d + d / 2);
      const ux = (sx / norm) * length;
      const uy = (sy / norm) * length;
      ctx.moveTo(c.x - ux, c.y - uy);
      ctx.lineTo(c.x + ux, c.y + uy);
      // the head: two short strokes back from the tip
      ctx.lineTo(c.x + ux - 0.45 * (ux - uy), c.y + uy - 0.45 * (uy + ux));
      ctx.moveTo(c.x + ux, c.y + uy);
      ctx.lineTo(c.x + ux - 0.45 * (ux + uy), c.y + uy - 0.45 * (uy - ux));
    }
  }
  ctx.stroke();
  ctx.restore();
}
