// The canvas: the mask's areas at mask resolution, scaled without smoothing
// (pixelated), under what the viewer hands it: the field layer, the crowd,
// the paths, the line of sight and the start and goal markers. The wheel
// zooms about the cursor, a drag pans, a click reports the mask pixel under
// it. It draws; it asks the server nothing.

import { ViewTransform } from "./view_transform.js";
import { areaColour, CROWD_COLOUR, GOAL_COLOUR, OUTLINE, START_COLOUR } from "./colours.js";

const DRAG_THRESHOLD = 4;  // CSS pixels a press may move and still be a click

export class MaskView {
  /**
   * onClick(pixel): a click on the mask (pixel {x, y}, inside it);
   * onHover(pixel or null); onViewChange(): after a zoom, a pan or a resize.
   */
  constructor(canvas, { onClick, onHover, onViewChange }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.transform = new ViewTransform();
    this.mask = null;  // {width, height, areas, image}
    this.field = null;  // a FieldLayer, or null
    this.crowd = [];  // polylines of PointF
    this.paths = [];  // {points: [PointF], colour, width in CSS pixels}, drawn in order
    this.sight = null;  // {a, b, blockedAt, clear, colour}
    this.start = null;
    this.goal = null;
    this.onClick = onClick;
    this.onHover = onHover;
    this.onViewChange = onViewChange;
    this.press = null;
    this.listen();
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  /** Shows a mask: info (MaskInfo) and its area grid (Uint8Array). */
  setMask(info, areas) {
    const width = info.width ?? 0;
    const height = info.height ?? 0;
    const image = document.createElement("canvas");
    image.width = width;
    image.height = height;
    const ctx = image.getContext("2d");
    const data = ctx.createImageData(width, height);
    const colours = Array.from({ length: 64 }, (_, id) => areaColour(id));
    for (let i = 0; i < width * height; i++) {
      const [r, g, b] = colours[areas[i] & 63];
      data.data[4 * i] = r;
      data.data[4 * i + 1] = g;
      data.data[4 * i + 2] = b;
      data.data[4 * i + 3] = 255;
    }
    ctx.putImageData(data, 0, 0);
    this.mask = { width, height, areas, image };
    this.fit();
  }

  /** Fits the whole mask in the canvas. */
  fit() {
    if (this.mask) {
      this.transform.fit(this.mask.width, this.mask.height, this.cssWidth, this.cssHeight);
    }
    this.changed();
  }

  /** The area id at a mask pixel, or undefined outside the mask. */
  areaAt(p) {
    const m = this.mask;
    if (!m || p.x < 0 || p.y < 0 || p.x >= m.width || p.y >= m.height) return undefined;
    return m.areas[p.y * m.width + p.x];
  }

  maskToView(x, y) {
    return this.transform.maskToView(x, y);
  }

  /** Mask coordinates -> the page's client (viewport) CSS pixels. */
  maskToClient(x, y) {
    const rect = this.canvas.getBoundingClientRect();
    const v = this.transform.maskToView(x, y);
    return { x: rect.left + v.x, y: rect.top + v.y };
  }

  /** Mask coordinates -> the canvas' backing-store pixels (for getImageData). */
  maskToCanvas(x, y) {
    const v = this.transform.maskToView(x, y);
    return { x: v.x * this.pixelRatio, y: v.y * this.pixelRatio };
  }

  /** The mask pixels in view. */
  visibleRect() {
    if (!this.mask) return { x: 0, y: 0, width: 0, height: 0 };
    return this.transform.visibleRect(this.mask.width, this.mask.height, this.cssWidth,
                                      this.cssHeight);
  }

  /** Runs draw(ctx) with mask units as the context's coordinates. */
  withMaskTransform(ctx, draw) {
    const t = this.transform;
    const r = this.pixelRatio;
    ctx.save();
    ctx.setTransform(r * t.scale, 0, 0, r * t.scale, r * t.offsetX, r * t.offsetY);
    draw();
    ctx.restore();
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    this.cssWidth = Math.max(this.canvas.clientWidth, 1);
    this.cssHeight = Math.max(this.canvas.clientHeight, 1);
    this.pixelRatio = ratio;
    this.canvas.width = Math.round(this.cssWidth * ratio);
    this.canvas.height = Math.round(this.cssHeight * ratio);
    this.changed();
  }

  changed() {
    this.draw();
    this.onViewChange?.();
  }

  /** Draws everything now (cheap: one image and a few polylines). */
  draw() {
    const { ctx, canvas } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0b0b0e";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!this.mask) return;
    this.withMaskTransform(ctx, () => {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(this.mask.image, 0, 0);
    });
    ctx.setTransform(this.pixelRatio, 0, 0, this.pixelRatio, 0, 0);  // CSS pixels from here
    this.field?.draw(ctx, this);
    for (const line of this.crowd) this.polyline(line, CROWD_COLOUR, 1);
    for (const path of this.paths) this.polyline(path.points, OUTLINE, path.width + 2.5);
    for (const path of this.paths) this.polyline(path.points, path.colour, path.width);
    if (this.sight) {
      const s = this.sight;
      this.polyline([s.a, s.b], OUTLINE, 5);
      this.polyline([s.a, s.b], s.colour, 2.5);
      if (s.blockedAt) {
        const c = this.maskToView(s.blockedAt.x + 0.5, s.blockedAt.y + 0.5);
        const half = Math.max(this.transform.scale / 2, 4);
        ctx.strokeStyle = s.colour;
        ctx.lineWidth = 2;
        ctx.strokeRect(c.x - half, c.y - half, 2 * half, 2 * half);
      }
    }
    if (this.start) this.marker(this.start, START_COLOUR);
    if (this.goal) this.marker(this.goal, GOAL_COLOUR);
  }

  // A polyline through PointF's (mask units), `width` CSS pixels wide.
  polyline(points, colour, width) {
    if (points.length < 2) return;
    const { ctx } = this;
    ctx.beginPath();
    points.forEach((p, i) => {
      const v = this.maskToView(p.x, p.y);
      if (i === 0) ctx.moveTo(v.x, v.y);
      else ctx.lineTo(v.x, v.y);
    });
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.stroke();
  }

  // A disc on a pixel's centre.
  marker(pixel, colour) {
    const { ctx } = this;
    const c = this.maskToView(pixel.x + 0.5, pixel.y + 0.5);
    ctx.beginPath();
    ctx.arc(c.x, c.y, Math.max(5, this.transform.scale * 0.45), 0, 2 * Math.PI);
    ctx.fillStyle = colour;
    ctx.fill();
    ctx.strokeStyle = OUTLINE;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  // Client coordinates -> the canvas' CSS pixels.
  local(event) {
    const rect = this.canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  listen() {
    const canvas = this.canvas;
    canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      const at = this.local(event);
      this.transform.zoomAt(at.x, at.y, Math.exp(-event.deltaY * 0.0015));
      this.changed();
    }, { passive: false });
    canvas.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      canvas.setPointerCapture(event.pointerId);
      this.press = { at: this.local(event), last: this.local(event), dragging: false };
    });
    canvas.addEventListener("pointermove", (event) => {
      const at = this.local(event);
      const press = this.press;
      if (press) {
        if (!press.dragging && Math.hypot(at.x - press.at.x, at.y - press.at.y) > DRAG_THRESHOLD) {
          press.dragging = true;
          canvas.classList.add("dragging");
        }
        if (press.dragging) {
          this.transform.pan(at.x - press.last.x, at.y - press.last.y);
          press.last = at;
          this.changed();
        }
      }
      const pixel = this.transform.pixelAt(at.x, at.y);
      this.onHover?.(this.areaAt(pixel) === undefined ? null : pixel);
    });
    const release = (event) => {
      const press = this.press;
      this.press = null;
      canvas.classList.remove("dragging");
      if (!press || press.dragging || event.type !== "pointerup") return;
      const at = this.local(event);
      const pixel = this.transform.pixelAt(at.x, at.y);
      if (this.areaAt(pixel) !== undefined) this.onClick?.(pixel);
    };
    canvas.addEventListener("pointerup", release);
    canvas.addEventListener("pointercancel", release);
    canvas.addEventListener("pointerleave", () => this.onHover?.(null));
  }
}
