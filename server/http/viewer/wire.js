// Proto3 JSON, as the Connect endpoint writes it, for the viewer: bytes are
// base64, 64-bit integers decimal strings (the area bit sets), GetField's
// rows little-endian float32, and fields at their default value (0, false,
// empty) are left out, so every read here supplies the default.

/** The bytes of a base64 (or base64url) string. */
export function base64ToBytes(text) {
  const binary = atob((text ?? "").replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Standard base64 (with padding) of a Uint8Array. */
export function bytesToBase64(bytes) {
  let binary = "";
  const step = 0x8000;  // String.fromCharCode's argument count stays small
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/** The area ids (0..63) whose bits are set in a uint64 bit set. */
export function areaIdsOf(bits) {
  const value = BigInt(bits || 0);
  const ids = [];
  for (let id = 0; id < 64; id++) {
    if ((value >> BigInt(id)) & 1n) ids.push(id);
  }
  return ids;
}

/** The uint64 bit set (a decimal string) of a list of area ids. */
export function areaBitsOf(ids) {
  return ids.reduce((bits, id) => bits | (1n << BigInt(id)), 0n).toString();
}

/** `count` little-endian float32 values starting at byte `offset`. */
export function float32s(bytes, count, offset = 0) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = view.getFloat32(offset + 4 * i, true);
  return values;
}

/** A Point or PointF with its left-out zero coordinates filled in. */
export function point(p) {
  return { x: p?.x ?? 0, y: p?.y ?? 0 };
}

/** "PATH_REASON_GOAL_NOT_WALKABLE" -> "goal not walkable". */
export function reasonLabel(reason) {
  return (reason ?? "PATH_REASON_UNSPECIFIED").replace(/^PATH_REASON_/, "").toLowerCase()
    .replace(/_/g, " ");
}
