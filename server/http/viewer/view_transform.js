// Where the mask sits in the canvas: view = mask * scale + offset, in CSS
// pixels of the canvas (mask pixel (x, y) covers [x, x+1] x [y, y+1], as
// PointF). Zoom keeps the point under the cursor still; pan moves the offset.
// Pure arithmetic, no DOM.

export const MIN_SCALE = 1 / 64;
export const MAX_SCALE = 64;

export class ViewTransform {
  constructor() {
    this.scale = 1;
    this.offsetX = 0;
    this.offsetY = 0;
  }

  /** Fits a width x height mask in a viewWidth x viewHeight view, centred. */
  fit(width, height, viewWidth, viewHeight, margin = 8) {
    const scale = Math.min((viewWidth - 2 * margin) / width, (viewHeight - 2 * margin) / height);
    this.scale = Math.min(Math.max(scale, MIN_SCALE), MAX_SCALE);
    this.offsetX = (viewWidth - width * this.scale) / 2;
    this.offsetY = (viewHeight - height * this.scale) / 2;
  }

  /** Mask coordinates (pixel units, fractions allowed) -> view CSS pixels. */
  maskToView(x, y) {
    return { x: x * this.scale + this.offsetX, y: y * this.scale + this.offsetY };
  }

  /** View CSS pixels -> mask coordinates (fractions kept). */
  viewToMask(x, y) {
    return { x: (x - this.offsetX) / this.scale, y: (y - this.offsetY) / this.scale };
  }

  /** The mask pixel under a view point (may lie outside the mask). */
  pixelAt(x, y) {
    const p = this.viewToMask(x, y);
    return { x: Math.floor(p.x), y: Math.floor(p.y) };
  }

  /** Multiplies the scale by factor (clamped), keeping view point (x, y) still. */
  zoomAt(x, y, factor) {
    const anchor = this.viewToMask(x, y);
    this.scale = Math.min(Math.max(this.scale * factor, MIN_SCALE), MAX_SCALE);
    this.offsetX = x - anchor.x * this.scale;
    this.offsetY = y - anchor.y * this.scale;
  }

  pan(dx, dy) {
    this.offsetX += dx;
    this.offsetY += dy;
  }

  /** The mask pixels visible in a viewWidth x viewHeight view, clipped to the mask. */
  visibleRect(width, height, viewWidth, viewHeight) {
    const a = this.viewToMask(0, 0);
    const b = this.viewToMask(viewWidth, viewHeight);
    const x0 = Math.min(Math.max(Math.floor(a.x), 0), width);
    const y0 = Math.min(Math.max(Math.floor(a.y), 0), height);
    const x1 = Math.min(Math.max(Math.ceil(b.x), 0), width);
    const y1 = Math.min(Math.max(Math.ceil(b.y), 0), height);
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }
}
