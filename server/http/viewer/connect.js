// A tiny client for the Connect protocol with JSON messages, as the server's
// HTTP endpoint speaks it. A unary call is one POST of application/json to
// /pathfinding.v1.Pathfinder/<Method>; an error is a non-2xx answer holding
// {"code", "message"}. A server-streaming call POSTs one enveloped message
// (application/connect+json) and reads enveloped messages back until the
// end-of-stream frame (flag 0x02), which holds {} or {"error": {...}}. An
// envelope is 1 flag byte, a 4-byte big-endian length, then the JSON.

const SERVICE = "/pathfinding.v1.Pathfinder/";
const END_STREAM = 0x02;
const COMPRESSED = 0x01;

/** A failed call: `code` is Connect's name ("not_found", "unauthenticated"...). */
export class ConnectError extends Error {
  constructor(code, message) {
    super(message ? `${code}: ${message}` : code);
    this.name = "ConnectError";
    this.code = code;
  }
}

function requestHeaders(contentType, token) {
  const headers = { "Content-Type": contentType, "Connect-Protocol-Version": "1" };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

// Connect's codes for HTTP statuses, when the body names none (a proxy's page).
function codeForStatus(status) {
  return { 400: "invalid_argument", 401: "unauthenticated", 403: "permission_denied",
           404: "unimplemented", 408: "deadline_exceeded", 429: "unavailable",
           502: "unavailable", 503: "unavailable", 504: "unavailable" }[status] ?? "unknown";
}

function errorOf(status, text) {
  try {
    const body = JSON.parse(text);
    if (body && typeof body.code === "string") return new ConnectError(body.code, body.message ?? "");
  } catch {
    // not JSON: fall through
  }
  return new ConnectError(codeForStatus(status), `HTTP ${status} ${text.slice(0, 200)}`.trim());
}

async function post(method, body, contentType, { token, signal }) {
  try {
    return await fetch(SERVICE + method, {
      method: "POST", headers: requestHeaders(contentType, token), body, signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ConnectError("unavailable", `cannot reach the server (${error.message})`);
  }
}

/** Calls a unary RPC; resolves to the response message (a plain object). */
export async function unary(method, request, options = {}) {
  const response = await post(method, JSON.stringify(request), "application/json", options);
  const text = await response.text();
  if (!response.ok) throw errorOf(response.status, text);
  return text ? JSON.parse(text) : {};
}

/** One enveloped message, as a streaming request's body. */
export function encodeEnvelope(message, flags = 0) {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const envelope = new Uint8Array(5 + json.length);
  envelope[0] = flags;
  new DataView(envelope.buffer).setUint32(1, json.length, false);
  envelope.set(json, 5);
  return envelope;
}

/**
 * Cuts a byte stream into envelopes, whatever the chunks' boundaries:
 * push() each chunk as it arrives; it returns the envelopes now complete,
 * as {flags, message}.
 */
export class EnvelopeReader {
  constructor() {
    this.buffer = new Uint8Array(0);
    this.decoder = new TextDecoder();
  }

  push(chunk) {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    const envelopes = [];
    let at = 0;
    while (joined.length - at >= 5) {
      const flags = joined[at];
      const length = new DataView(joined.buffer, at + 1, 4).getUint32(0, false);
      if (joined.length - at - 5 < length) break;
      if (flags & COMPRESSED) throw new ConnectError("internal", "compressed envelope not supported");
      const json = this.decoder.decode(joined.subarray(at + 5, at + 5 + length));
      envelopes.push({ flags, message: json ? JSON.parse(json) : {} });
      at += 5 + length;
    }
    this.buffer = joined.slice(at);
    return envelopes;
  }

  /** Bytes received that do not make a whole envelope yet. */
  get pending() {
    return this.buffer.length;
  }
}

/**
 * Calls a server-streaming RPC, handing each response message to onMessage
 * as it arrives; resolves once the stream ends well, rejects with a
 * ConnectError when it ends with an error (or is cut short).
 */
export async function serverStream(method, request, onMessage, options = {}) {
  const response = await post(method, encodeEnvelope(request), "application/connect+json", options);
  if (!response.ok) throw errorOf(response.status, await response.text());
  const reader = response.body.getReader();
  const envelopes = new EnvelopeReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const { flags, message } of envelopes.push(value)) {
        if (flags & END_STREAM) {
          const error = message.error;
          if (error) throw new ConnectError(error.code ?? "unknown", error.message ?? "");
          return;
        }
        onMessage(message);
      }
    }
  } finally {
    reader.cancel().catch(() => {});  // done with it, whatever is left
  }
  throw new ConnectError("unavailable", "the stream ended without its end-of-stream frame");
}
