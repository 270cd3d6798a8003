// The official Connect clients (connect-node) against the real
// pathfinder-server: every RPC of pathfinding.v1.Pathfinder, and
// grpc.health.v1.Health/Check, over the four transports in TRANSPORTS
// (Connect JSON, Connect binary and gRPC-Web to --http-listen, gRPC to
// --listen), the answers compared with gRPC's; the streams of GetField and
// PrepareMask message by message; the error codes and messages a client
// sees (unknown mask, bad argument, deadline, missing or read-only token);
// concurrent calls; gRPC-Web's text format, by hand (the clients do not
// speak it); the CORS preflight a browser's connect-web call needs.
//
//   node --test tests/node/pathfinder_clients.test.mjs
//
// ctest runs it (test node_clients) with, in the environment:
//   PATHFINDER_SERVER_BIN  the server binary (required)
//   PATHFIND_CLI_BIN       the CLI, pathfind (required): uploads a PNG and is
//                          the C++ client whose FindPath answer the Node
//                          clients must match
//   PATHFINDER_PROTOC      protoc (default: protoc on PATH)
//   PATHFINDER_NODE_GEN_DIR where the generated code goes (default: a
//                          temporary directory); regenerated on every run
// The packages come from tests/node/node_modules (scripts/install-deps --dev
// runs npm ci there); the test needs no network.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { Agent } from "node:http";
import {
  existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const sourceDir = join(here, "..", "..");
const nodeModules = join(here, "node_modules");

// --------------------------------------------------------------- packages

// A missing or stale install fails the test (it is not skipped): CI must
// have run the install step.
function checkPackages() {
  const wanted = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).dependencies;
  for (const [name, version] of Object.entries(wanted)) {
    const manifest = join(nodeModules, name, "package.json");
    if (!existsSync(manifest)) {
      throw new Error(`${name} is not installed in ${nodeModules}: run scripts/install-deps --dev`);
    }
    const installed = JSON.parse(readFileSync(manifest, "utf8")).version;
    if (installed !== version) {
      throw new Error(`${name} ${installed} is installed, package.json pins ${version}: ` +
                      "run scripts/install-deps --dev");
    }
  }
}
checkPackages();

const { Code, ConnectError, createClient } = await import("@connectrpc/connect");
const {
  createConnectTransport, createGrpcTransport, createGrpcWebTransport, Http2SessionManager,
} = await import("@connectrpc/connect-node");
const {
  clone, create, equals, fromBinary, fromJson, toBinary, toJson,
} = await import("@bufbuild/protobuf");

// ---------------------------------------------------------------- codegen

// protoc + protoc-gen-es (target=js) into the build tree, every run: the
// generated code is never committed and always matches the proto.
function generateCode() {
  const protoc = process.env.PATHFINDER_PROTOC || "protoc";
  let genDir = process.env.PATHFINDER_NODE_GEN_DIR;
  if (!genDir) {
    genDir = mkdtempSync(join(tmpdir(), "pathfinder-node-gen-"));
    process.on("exit", () => rmSync(genDir, { recursive: true, force: true }));
  }
  rmSync(genDir, { recursive: true, force: true });
  mkdirSync(genDir, { recursive: true });
  execFileSync(protoc, [
    "-I", join(sourceDir, "proto"),
    `--plugin=protoc-gen-es=${join(nodeModules, ".bin", "protoc-gen-es")}`,
    `--es_out=${genDir}`, "--es_opt=target=js",
    "pathfinding/v1/pathfinding.proto", "grpc/health/v1/health.proto",
  ], { stdio: ["ignore", "inherit", "inherit"] });
  // The generated modules import @bufbuild/protobuf: resolve it (the same
  // copy the test uses) from tests/node/node_modules.
  symlinkSync(nodeModules, join(genDir, "node_modules"), "dir");
  return genDir;
}
const genDir = generateCode();
const pb = await import(pathToFileURL(join(genDir, "pathfinding/v1/pathfinding_pb.js")).href);
const healthPb = await import(pathToFileURL(join(genDir, "grpc/health/v1/health_pb.js")).href);
const { Pathfinder } = pb;
const { Health } = healthPb;

// ------------------------------------------------------------------ server

const serverBin = process.env.PATHFINDER_SERVER_BIN;
const cliBin = process.env.PATHFIND_CLI_BIN;
assert.ok(serverBin && existsSync(serverBin), `PATHFINDER_SERVER_BIN (${serverBin}) is not a file`);
assert.ok(cliBin && existsSync(cliBin), `PATHFIND_CLI_BIN (${cliBin}) is not a file`);

const running = new Set();  // servers to kill if the process exits early
process.on("exit", () => {
  for (const server of running) server.process.kill("SIGKILL");
});
// The whole suite takes well under a minute; past this something hangs: stop
// the servers and fail rather than wait for ctest's timeout.
const SUITE_LIMIT_MS = 100_000;
setTimeout(() => {
  console.error(`pathfinder_clients: not done after ${SUITE_LIMIT_MS / 1000} s, stopping`);
  process.exit(1);
}, SUITE_LIMIT_MS).unref();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The real pathfinder-server on 127.0.0.1, ports picked by the kernel, with
// its own temporary data directory; stop() always ends it.
class Server {
  static async start(label, extraArgs = []) {
    const workdir = mkdtempSync(join(tmpdir(), `pathfinder-node-${label}-`));
    const server = new Server(workdir, extraArgs);
    running.add(server);
    try {
      server.grpcPort = await server.waitForPort(join(workdir, "grpc-port"));
      server.httpPort = await server.waitForPort(join(workdir, "http-port"));
    } catch (error) {
      await server.stop().catch(() => {});  // the log is in `error`
      throw error;
    }
    return server;
  }

  constructor(workdir, extraArgs) {
    this.workdir = workdir;
    const args = [
      "--listen", "127.0.0.1:0", "--port-file", join(workdir, "grpc-port"),
      "--http-listen", "127.0.0.1:0", "--http-port-file", join(workdir, "http-port"),
      "--data-dir", join(workdir, "data"), ...extraArgs,
    ];
    this.log = [];
    this.process = spawn(serverBin, args, { stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [this.process.stdout, this.process.stderr]) {
      stream.on("data", (data) => this.log.push(data));
    }
    this.exited = new Promise((resolve) => this.process.on("exit", resolve));
    this.process.on("exit", () => running.delete(this));
  }

  logText() {
    return Buffer.concat(this.log).toString();
  }

  // The port the server wrote (atomically, once listening), within 30 s.
  async waitForPort(path) {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (this.process.exitCode !== null || this.process.signalCode !== null) {
        throw new Error(`server exited (${this.process.exitCode ?? this.process.signalCode}):\n` +
                        this.logText());
      }
      if (existsSync(path)) {
        const text = readFileSync(path, "utf8");
        if (text.endsWith("\n")) return Number(text);
      }
      await sleep(50);
    }
    throw new Error(`server did not write ${path} within 30 s:\n${this.logText()}`);
  }

  // SIGTERM (a graceful stop), SIGKILL after 10 s. Throws, with the
  // server's log, unless the server exited 0 (as it does on SIGTERM; a
  // sanitized server that found an error does not).
  async stop() {
    const early = this.process.exitCode !== null || this.process.signalCode !== null;
    if (!early) {
      this.process.kill("SIGTERM");
      let timer;
      const stopped = await Promise.race([
        this.exited.then(() => true),
        new Promise((resolve) => { timer = setTimeout(resolve, 10_000, false); }),
      ]);
      clearTimeout(timer);
      if (!stopped) {
        this.process.kill("SIGKILL");
        await this.exited;
      }
    }
    rmSync(this.workdir, { recursive: true, force: true });
    if (this.process.exitCode !== 0) {
      throw new Error(`server ${early ? "had exited before the end" : "exited"} with ` +
                      `${this.process.exitCode ?? this.process.signalCode}:\n${this.logExcerpt()}`);
    }
  }

  // What to show of the log: from a sanitizer's report on (its first 12,000
  // characters: Boost's frames are long), else the last 8,000 characters.
  logExcerpt() {
    const log = this.logText();
    const report = log.search(/==\d+==ERROR: |runtime error: /);
    return report >= 0 ? log.slice(Math.max(0, log.lastIndexOf("\n", report)), report + 12_000)
                       : log.slice(-8000);
  }
}

// ------------------------------------------------------------- transports

// Every call has a deadline: no call of the suite may hang.
const CALL_TIMEOUT_MS = 20_000;

// The transports to compare, the reference (gRPC to the gRPC port) first;
// the others go to the HTTP port (--http-listen), over HTTP/1.1 as a
// browser's fetch would. Each entry makes the transport for a server, says
// how to close it and which header carries a deadline. (gRPC-Web's text
// format, application/grpc-web-text, is not here: the Connect clients do not
// speak it, only binary and JSON; a test below makes such calls by hand.)
const http1 = (server, interceptors, make) => {
  const agent = new Agent({ keepAlive: true });
  return {
    transport: make({
      baseUrl: `http://127.0.0.1:${server.httpPort}`, httpVersion: "1.1",
      nodeOptions: { agent }, defaultTimeoutMs: CALL_TIMEOUT_MS, interceptors,
    }),
    close: () => agent.destroy(),
  };
};
const TRANSPORTS = [
  {
    name: "grpc",
    make(server, interceptors) {
      const sessionManager = new Http2SessionManager(`http://127.0.0.1:${server.grpcPort}`);
      return {
        transport: createGrpcTransport({
          baseUrl: `http://127.0.0.1:${server.grpcPort}`, httpVersion: "2", sessionManager,
          defaultTimeoutMs: CALL_TIMEOUT_MS, interceptors,
        }),
        close: () => sessionManager.abort(),
        deadlineHeader: (ms) => ({ "grpc-timeout": `${ms}m` }),
      };
    },
  },
  {
    name: "connect-json",
    make: (server, interceptors) => ({
      ...http1(server, interceptors,
               (options) => createConnectTransport({ ...options, useBinaryFormat: false })),
      deadlineHeader: (ms) => ({ "connect-timeout-ms": `${ms}` }),
    }),
  },
  {
    name: "connect-binary",
    make: (server, interceptors) => ({
      ...http1(server, interceptors,
               (options) => createConnectTransport({ ...options, useBinaryFormat: true })),
      deadlineHeader: (ms) => ({ "connect-timeout-ms": `${ms}` }),
    }),
  },
  {
    name: "grpc-web",
    make: (server, interceptors) => ({
      ...http1(server, interceptors,
               (options) => createGrpcWebTransport({ ...options, useBinaryFormat: true })),
      deadlineHeader: (ms) => ({ "grpc-timeout": `${ms}m` }),
    }),
  },
];

// What went over the wire, per transport: "PORT request-type -> answer-type"
// of every call that got an answer (interceptors see the protocol's
// headers), PORT being "grpc" or "http": which of the server's ports.
const spoken = new Map(TRANSPORTS.map(({ name }) => [name, new Set()]));
const recordWire = (name, server) => (next) => async (request) => {
  const response = await next(request);
  const port = Number(new URL(request.url).port);
  const which = { [server.grpcPort]: "grpc", [server.httpPort]: "http" }[port] ?? port;
  spoken.get(name).add(`${which} ${request.header.get("content-type")} -> ` +
                       `${response.header.get("content-type")}`);
  return response;
};

// Clients of the Pathfinder and Health services over every transport to `server`.
function clientsFor(server) {
  return TRANSPORTS.map(({ name, make }) => {
    const made = make(server, [recordWire(name, server)]);
    return {
      name,
      pathfinder: createClient(Pathfinder, made.transport),
      health: createClient(Health, made.transport),
      close: made.close,
      deadlineHeader: made.deadlineHeader,
    };
  });
}

async function waitForHealth(clients) {
  for (const client of clients) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const answer = await client.health.check({}, { timeoutMs: 1000 });
        if (answer.status === healthPb.HealthCheckResponse_ServingStatus.SERVING) break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`${client.name}: health not SERVING in 30 s`);
      await sleep(100);
    }
  }
}

// ------------------------------------------------------------------ masks

// A deterministic pseudo-random sequence (an LCG): masks are the same on
// every run.
function lcg(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// 48 x 32 rooms: a wall at x = 16 with a door at y = 5..6, a wall at x = 32
// with a door at y = 25, mud (area 2) at x 20..28, y 10..20, a walled pocket
// (x 41..45, y 3..7) nothing outside reaches, and a few scattered rocks.
const ROOMS = { width: 48, height: 32 };
function roomsGrid() {
  const { width, height } = ROOMS;
  const grid = new Uint8Array(width * height).fill(1);
  const set = (x, y, area) => { grid[y * width + x] = area; };
  for (let y = 0; y < height; y++) {
    if (y !== 5 && y !== 6) set(16, y, 0);
    if (y !== 25) set(32, y, 0);
  }
  for (let y = 10; y <= 20; y++) for (let x = 20; x <= 28; x++) set(x, y, 2);
  for (let x = 40; x <= 46; x++) { set(x, 2, 0); set(x, 8, 0); }
  for (let y = 2; y <= 8; y++) { set(40, y, 0); set(46, y, 0); }
  const random = lcg(7);
  for (let i = 0; i < 40; i++) {
    const x = Math.floor(random() * width);
    const y = Math.floor(random() * height);
    if (x !== 16 && x !== 32 && x > 1 && y > 1) set(x, y, 0);
  }
  set(1, 1, 1);
  set(46, 30, 1);
  return grid;
}

// Open ground with three long walls: a full field of it is about 2.4 MB of
// float32, so GetField sends it in several chunks.
const FIELD = { width: 1024, height: 600 };
function fieldGrid() {
  const { width, height } = FIELD;
  const grid = new Uint8Array(width * height).fill(1);
  for (const [x, from, to] of [[200, 0, 500], [500, 100, 599], [800, 0, 450]]) {
    for (let y = from; y <= to; y++) grid[y * width + x] = 0;
  }
  return grid;
}

// 2048 x 2048, a serpentine: walls on every odd row, open at alternating
// ends, so one path runs through every row. A distance field on it covers
// two million pixels: far more than 1 ms of work.
const BIG = { width: 2048, height: 2048 };
function bigGrid() {
  const { width, height } = BIG;
  const grid = new Uint8Array(width * height).fill(1);
  for (let y = 1; y < height; y += 2) {
    const gap = (y >> 1) % 2 === 0 ? width - 1 : 0;
    grid.fill(0, y * width, (y + 1) * width);
    grid[y * width + gap] = 1;
  }
  return grid;
}

const rawUpload = (name, grid, { width, height }) => ({
  name, image: grid, format: pb.MaskFormat.RAW, width, height,
});

// ------------------------------------------------------------- comparing

// Fields that say whether the server's caches held the answer: they depend
// on the calls made before (the first transport computes, the next ones
// hit the cache), not on the transport, so the comparison sets them false.
// (The protocol has no other field that varies between equal calls: no
// latencies or timestamps.)
function withoutCacheHits(schema, message) {
  const copy = clone(schema, message);
  const scrub = (value) => {
    if (Array.isArray(value)) value.forEach(scrub);
    else if (value && typeof value === "object" && "$typeName" in value) {
      if ("cacheHit" in value) value.cacheHit = false;
      Object.values(value).forEach(scrub);
    }
  };
  scrub(copy);
  return copy;
}

function assertSameMessage(schema, got, want, what) {
  const a = withoutCacheHits(schema, got);
  const b = withoutCacheHits(schema, want);
  if (!equals(schema, a, b)) {
    // The JSON forms show where they differ.
    assert.deepStrictEqual(toJson(schema, a), toJson(schema, b), what);
    assert.fail(`${what}: messages differ (${JSON.stringify(toJson(schema, a))})`);
  }
}

// ------------------------------------------------------------ the cases

const collect = async (stream) => {
  const messages = [];
  for await (const message of stream) messages.push(message);
  return messages;
};

// For each RPC of the service, what every transport calls and in what order.
// A case's run(client, transport) answers a list of [schema, message] to be
// compared across transports; check(answers) may assert on the reference
// transport's answers. Cases run method by method, each over every
// transport in turn, so that every transport sees the same server state.
const P = (x, y) => ({ x, y });
const CASES = {
  UploadMask: {
    // The same grid to the same name: every transport gets revision 1 back.
    run: async ({ pathfinder }) => [
      [pb.MaskInfoSchema, await pathfinder.uploadMask(rawUpload("shared", roomsGrid(), ROOMS))],
      [pb.MaskInfoSchema, await pathfinder.uploadMask({
        name: "demo-png", image: readFileSync(join(sourceDir, "assets", "demo.png")),
        format: pb.MaskFormat.PNG,
      })],
    ],
    check: ([shared, demo]) => {
      assert.equal(shared.revision, 1n);
      assert.equal(demo.width, 640);
    },
  },
  PatchMask: {
    // The first transport's patch changes the grid (revision 2); the same
    // patch again changes nothing and keeps it.
    run: async ({ pathfinder }) => [[pb.MaskInfoSchema, await pathfinder.patchMask({
      name: "shared", x: 2, y: 20, width: 3, height: 2, areas: new Uint8Array([0, 0, 0, 2, 2, 2]),
    })]],
    check: ([info]) => assert.equal(info.revision, 2n),
  },
  DeleteMask: {
    // A mask of this transport's own, deleted; then it is gone. (Its upload
    // is not compared: after a delete, the next new name gets a higher
    // revision than the last, whichever transport uploads it.)
    run: async ({ pathfinder }, transport) => {
      const name = `doomed-${transport}`;
      const uploaded = await pathfinder.uploadMask(rawUpload(name, roomsGrid(), ROOMS));
      assert.equal(uploaded.name, name);
      const deleted = await pathfinder.deleteMask({ name });
      await assert.rejects(pathfinder.getMask({ name }), hasCode(Code.NotFound));
      return [[pb.DeleteMaskResponseSchema, deleted]];
    },
  },
  GetMask: {
    run: async ({ pathfinder }) => [
      [pb.MaskInfoSchema, await pathfinder.getMask({ name: "shared", includeAreas: true })],
      [pb.MaskInfoSchema, await pathfinder.getMask({ name: "demo" })],
    ],
    check: ([shared]) => assert.equal(shared.areas.length, ROOMS.width * ROOMS.height),
  },
  ListMasks: {
    run: async ({ pathfinder }) => [[pb.ListMasksResponseSchema, await pathfinder.listMasks({})]],
    check: ([list]) => assert.deepEqual(list.masks.map((m) => m.name),
                                        ["big", "demo", "demo-png", "field", "rooms", "shared"]),
  },
  FindPath: {
    run: async ({ pathfinder }) => {
      const requests = [
        { mask: "rooms", start: P(1, 1), goal: P(46, 30) },
        { mask: "rooms", start: P(1, 1), goal: P(46, 30), connectivity: pb.Connectivity.EIGHT,
          smoothing: pb.Smoothing.NONE, areaCosts: { 2: 5 } },
        { mask: "rooms", start: P(1, 1), goal: P(46, 30), smoothing: pb.Smoothing.ANY_ANGLE },
        { mask: "rooms", start: P(2, 3), goal: P(43, 5) },  // the pocket: no route
        { mask: "rooms", start: P(2, 3), goal: P(43, 5), snapToReachable: true, clearance: 1.5 },
        { mask: "demo", start: P(20, 20), goal: P(600, 340) },
      ];
      const answers = [];
      for (const request of requests) {
        answers.push([pb.FindPathResponseSchema, await pathfinder.findPath(request)]);
      }
      return answers;
    },
    check: ([plain, , anyAngle, pocket, snapped]) => {
      assert.ok(plain.found && anyAngle.found && snapped.found);
      assert.equal(pocket.reason, pb.PathReason.NO_ROUTE);
      assert.ok(anyAngle.precisePoints.length > 1);
      assert.equal(snapped.goalSnapped, true);
    },
  },
  Reachable: {
    run: async ({ pathfinder }) => [[pb.ReachableResponseSchema, await pathfinder.reachable({
      mask: "rooms",
      pairs: [{ a: P(1, 1), b: P(46, 30) }, { a: P(1, 1), b: P(43, 5) }, { a: P(43, 4), b: P(44, 6) }],
    })]],
    check: ([answer]) => assert.deepEqual(answer.reachable, [true, false, true]),
  },
  StandardMove: {
    run: async ({ pathfinder }) => [
      [pb.StandardMoveResponseSchema,
       await pathfinder.standardMove({ mask: "rooms", start: P(1, 1), goal: P(10, 4) })],
      [pb.StandardMoveResponseSchema,
       await pathfinder.standardMove({ mask: "rooms", start: P(2, 2), goal: P(24, 28), maxMoves: 3 })],
    ],
  },
  BatchFindPaths: {
    run: async ({ pathfinder }) => [[pb.BatchFindPathsResponseSchema,
      await pathfinder.batchFindPaths({
        mask: "rooms", starts: [P(1, 1), P(20, 12), P(43, 5), P(30, 30)], goal: P(46, 30),
        connectivity: pb.Connectivity.EIGHT,
      })]],
    check: ([batch]) => assert.equal(batch.paths.length, 4),
  },
  GetField: {
    run: async ({ pathfinder }) => [
      ...(await collect(pathfinder.getField({ mask: "field", goal: P(1000, 590), includeFlow: true })))
        .map((chunk) => [pb.FieldChunkSchema, chunk]),
      ...(await collect(pathfinder.getField({
        mask: "rooms", goal: P(46, 30), crop: { x: 4, y: 2, width: 30, height: 20 }, downsample: 3,
      }))).map((chunk) => [pb.FieldChunkSchema, chunk]),
    ],
    check: (chunks) => {
      const full = chunks.filter((chunk) => chunk.width === FIELD.width);
      assert.ok(full.length >= 2, `the full field came in ${full.length} chunk(s)`);
      assert.equal(full.reduce((rows, chunk) => rows + chunk.rowCount, 0), FIELD.height);
    },
  },
  GetRange: {
    // A budget that covers most of "field" with costs: several chunks.
    run: async ({ pathfinder }) => [
      ...(await collect(pathfinder.getRange({
        mask: "field", start: P(100, 300), maxCost: 900, includeCosts: true,
      }))).map((chunk) => [pb.RangeChunkSchema, chunk]),
      ...(await collect(pathfinder.getRange({
        mask: "rooms", start: P(1, 1), maxCost: 12.5, connectivity: pb.Connectivity.EIGHT,
      }))).map((chunk) => [pb.RangeChunkSchema, chunk]),
    ],
    check: (chunks) => {
      const large = chunks.filter((chunk) => chunk.bounds.width > 100);
      assert.ok(large.length >= 2, `the large range came in ${large.length} chunk(s)`);
      assert.equal(large.reduce((rows, chunk) => rows + chunk.rowCount, 0), large[0].bounds.height);
      assert.ok(large[0].pixelCount > 100000n);
      assert.ok(chunks.at(-1).pixelCount > 10n);
    },
  },
  LineOfSight: {
    run: async ({ pathfinder }) => [[pb.LineOfSightResponseSchema, await pathfinder.lineOfSight({
      mask: "rooms",
      pairs: [{ a: P(1, 1), b: P(14, 1) }, { a: P(1, 1), b: P(30, 20) }, { a: P(17, 5), b: P(2, 6) }],
      allowCornerCutting: true,
    })]],
  },
  NearestWalkable: {
    run: async ({ pathfinder }) => [[pb.NearestWalkableResponseSchema,
      await pathfinder.nearestWalkable({
        mask: "rooms", points: [P(16, 0), P(43, 5), P(32, 10)], reachableFrom: P(1, 1),
        clearance: 1,
      })]],
  },
  PrepareMask: {
    // "rooms" is prepared before the first transport's turn, so every
    // transport's stream reports each stage from the cache: the same
    // messages. A cold preparation's stream is compared in its own test.
    before: async ({ pathfinder }) => collect(pathfinder.prepareMask(PREPARE_ALL("rooms"))),
    run: async ({ pathfinder }) =>
      (await collect(pathfinder.prepareMask(PREPARE_ALL("rooms"))))
        .map((progress) => [pb.PrepareProgressSchema, progress]),
    check: (progress) => {
      assert.ok(progress.at(-1).done);
      assert.ok(progress.filter((p) => p.fractionDone === 1 && !p.done).every((p) => p.cacheHit));
    },
  },
  WatchMask: {
    // The first message of a watch (the state it starts from); then the client
    // ends it. Nothing changes "rooms" meanwhile: the same message everywhere.
    run: async ({ pathfinder }) => {
      for await (const change of pathfinder.watchMask({ mask: "rooms" })) {
        return [[pb.MaskChangeSchema, change]];
      }
      return assert.fail("the watch ended without a message");
    },
    check: ([change]) => {
      assert.equal(change.kind, pb.MaskChangeKind.CURRENT);
      assert.equal(change.width, ROOMS.width);
    },
  },
};
const PREPARE_ALL = (mask) => ({
  mask, anyAngle: true, labels: true, nearest: true, clearance: 1.5,
  connectivity: pb.Connectivity.EIGHT,
});

// The error a call ends with (it must fail).
async function failure(call) {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  assert.fail("the call succeeded");
}

// A predicate for assert.rejects, or a check of an error: its code is `code`.
function hasCode(code, what = "") {
  return (error) => {
    assert.ok(error instanceof ConnectError, `${what}: not a ConnectError: ${error}`);
    assert.equal(error.code, code,
                 `${what}: ${Code[error.code]} (${error.rawMessage}), want ${Code[code]}`);
    return true;
  };
}

// -------------------------------------------------------------- the suite

let server;
let clients;

// The origin of a page that may call the server from a browser.
const PAGE_ORIGIN = "http://viewer.test:5173";

before(async () => {
  server = await Server.start("main", ["--http-allow-origin", PAGE_ORIGIN]);
  clients = clientsFor(server);
  await waitForHealth(clients);
  const reference = clients[0].pathfinder;
  await reference.uploadMask(rawUpload("rooms", roomsGrid(), ROOMS));
  await reference.uploadMask(rawUpload("field", fieldGrid(), FIELD));
  await reference.uploadMask(rawUpload("big", bigGrid(), BIG));
  // The demo level as a PNG, uploaded by the C++ client.
  execFileSync(cliBin, ["--server", `127.0.0.1:${server.grpcPort}`, "upload", "demo",
                        join(sourceDir, "assets", "demo.png")], { stdio: "pipe" });
});

after(async () => {
  for (const client of clients ?? []) client.close();
  await server?.stop();
});

test("health: SERVING over every transport", async () => {
  for (const { name, health } of clients) {
    const answer = await health.check({});
    assert.equal(answer.status, healthPb.HealthCheckResponse_ServingStatus.SERVING, name);
  }
});

test("every RPC answers the same over every transport", async (t) => {
  const names = Pathfinder.methods.map((method) => method.name);
  const untested = names.filter((name) => !(name in CASES));
  assert.deepEqual(untested, [], "RPCs of the service with no case in CASES");
  assert.deepEqual(Object.keys(CASES).filter((name) => !names.includes(name)), [],
                   "cases for RPCs the service does not have");
  for (const method of Pathfinder.methods) {
    await t.test(method.name, async () => {
      const testCase = CASES[method.name];
      await testCase.before?.(clients[0]);
      let reference;
      for (const client of clients) {
        const answers = await testCase.run(client, client.name);
        if (!reference) {
          reference = answers;
          testCase.check?.(answers.map(([, message]) => message));
          continue;
        }
        assert.equal(answers.length, reference.length,
                     `${client.name}: ${answers.length} messages, ${clients[0].name}: ${reference.length}`);
        answers.forEach(([schema, message], i) => assertSameMessage(
          schema, message, reference[i][1], `${method.name} over ${client.name}, message ${i}`));
      }
    });
  }
});

test("FindPath: the Node clients answer what the C++ client (pathfind) answers", async () => {
  const json = execFileSync(cliBin, [
    "--server", `127.0.0.1:${server.grpcPort}`, "--json", "find", "demo", "20", "20", "600", "340",
  ], { encoding: "utf8" });
  const cli = fromJson(pb.FindPathResponseSchema, JSON.parse(json));
  for (const { name, pathfinder } of clients) {
    const answer = await pathfinder.findPath({ mask: "demo", start: P(20, 20), goal: P(600, 340) });
    assertSameMessage(pb.FindPathResponseSchema, answer, cli, `FindPath over ${name} vs pathfind`);
  }
});

test("errors: the same code and message over every transport", async (t) => {
  const cases = [
    ["GetMask of an unknown mask", Code.NotFound,
     ({ pathfinder }) => pathfinder.getMask({ name: "no-such-mask" })],
    ["FindPath on an unknown mask", Code.NotFound,
     ({ pathfinder }) => pathfinder.findPath({ mask: "no-such-mask", start: P(0, 0), goal: P(1, 1) })],
    ["GetRange without a budget", Code.InvalidArgument,
     ({ pathfinder }) => collect(pathfinder.getRange({ mask: "rooms", start: P(1, 1) }))],
    ["GetField (a stream) on an unknown mask", Code.NotFound,
     ({ pathfinder }) => collect(pathfinder.getField({ mask: "no-such-mask", goal: P(0, 0) }))],
    ["FindPath with the goal outside the mask", Code.InvalidArgument,
     ({ pathfinder }) => pathfinder.findPath({ mask: "rooms", start: P(1, 1), goal: P(ROOMS.width, 0) })],
    ["Reachable with a negative point", Code.InvalidArgument,
     ({ pathfinder }) => pathfinder.reachable({ mask: "rooms", pairs: [{ a: P(-1, 0), b: P(1, 1) }] })],
    ["PrepareMask (a stream) asked to build nothing", Code.InvalidArgument,
     ({ pathfinder }) => collect(pathfinder.prepareMask({ mask: "rooms" }))],
    ["FindPath at a revision the mask is not at", Code.FailedPrecondition,
     ({ pathfinder }) => pathfinder.findPath({
       mask: "rooms", start: P(1, 1), goal: P(2, 2), expectedRevision: 99n })],
  ];
  for (const [what, code, call] of cases) {
    await t.test(what, async () => {
      let reference;
      for (const client of clients) {
        const error = await failure(call(client));
        hasCode(code, client.name)(error);
        reference ??= error;
        assert.equal(error.rawMessage, reference.rawMessage,
                     `${client.name}'s message vs ${clients[0].name}'s`);
      }
    });
  }
});

test("deadlines: DEADLINE_EXCEEDED, from the client's timeout and from the server's", async (t) => {
  // Each call its own goal on the serpentine: no call finds its field cached.
  let goalX = 0;
  const heavy = () => ({ mask: "big", start: P(0, BIG.height - 2), goal: P(goalX++, 0) });
  await t.test("timeoutMs: 1 (the client gives up, the server is told)", async () => {
    for (const { name, pathfinder } of clients) {
      hasCode(Code.DeadlineExceeded, `${name} FindPath`)(
        await failure(pathfinder.findPath(heavy(), { timeoutMs: 1 })));
      hasCode(Code.DeadlineExceeded, `${name} GetField`)(await failure(
        collect(pathfinder.getField({ mask: "big", goal: heavy().goal }, { timeoutMs: 1 }))));
    }
  });
  await t.test("only the header (1 ms): the server ends the call", async () => {
    // timeoutMs 0: the client sets no deadline of its own (the 20 s signal
    // only bounds the test), so the code comes from the server.
    for (const { name, pathfinder, deadlineHeader } of clients) {
      const options = { timeoutMs: 0, headers: deadlineHeader(1), signal: AbortSignal.timeout(20_000) };
      hasCode(Code.DeadlineExceeded, `${name} FindPath`)(
        await failure(pathfinder.findPath(heavy(), options)));
      hasCode(Code.DeadlineExceeded, `${name} GetField`)(await failure(
        collect(pathfinder.getField({ mask: "big", goal: heavy().goal }, options))));
    }
  });
});

test("PrepareMask from cold: every transport streams the same stages", async () => {
  // Each transport prepares a mask of its own (the same grid): its stream
  // builds every stage. How many progress messages fall between a stage's
  // start and its end depends on timing; the starts, the ends and the last
  // message do not, apart from the mask's name in detail.
  let reference;
  for (const { name, pathfinder } of clients) {
    const mask = `prepare-${name}`;
    await pathfinder.uploadMask(rawUpload(mask, fieldGrid(), FIELD));
    const progress = await collect(pathfinder.prepareMask(PREPARE_ALL(mask)));
    const last = progress.at(-1);
    assert.ok(last.done && last.fractionDone === 1, `${name}: the last message is not done`);
    assert.ok(progress.slice(0, -1).every((p) => !p.done), `${name}: done before the end`);
    const milestones = progress
      .filter((p) => p.fractionDone === 0 || p.fractionDone === 1)
      .map((p) => create(pb.PrepareProgressSchema, { ...p, detail: p.detail.replaceAll(mask, "MASK") }));
    assert.ok(milestones.some((p) => p.stage === pb.PrepareStage.ANY_ANGLE && !p.cacheHit),
              `${name}: the any-angle structure was not built`);
    if (!reference) {
      reference = milestones;
      continue;
    }
    assert.equal(milestones.length, reference.length, `${name}: stage starts and ends`);
    milestones.forEach((p, i) => assertSameMessage(pb.PrepareProgressSchema, p, reference[i],
                                                   `PrepareMask over ${name}, milestone ${i}`));
  }
});

test("auth: UNAUTHENTICATED without a token, PERMISSION_DENIED with the read token", async (t) => {
  const workdir = mkdtempSync(join(tmpdir(), "pathfinder-node-tokens-"));
  t.after(() => rmSync(workdir, { recursive: true, force: true }));
  const tokens = { admin: "admin-token-for-the-node-test", client: "read-token-for-the-node-test" };
  for (const [role, token] of Object.entries(tokens)) {
    writeFileSync(join(workdir, role), `${token}\n`);
  }
  const authServer = await Server.start("auth", [
    "--admin-token-file", join(workdir, "admin"), "--client-token-file", join(workdir, "client"),
  ]);
  const authClients = clientsFor(authServer);
  t.after(async () => {
    for (const client of authClients) client.close();
    await authServer.stop();
  });
  await waitForHealth(authClients);  // health stays open without a token
  const bearer = (token) => ({ headers: { authorization: `Bearer ${token}` } });
  const upload = rawUpload("rooms", roomsGrid(), ROOMS);
  for (const { name, pathfinder } of authClients) {
    await t.test(name, async () => {
      hasCode(Code.Unauthenticated, "UploadMask without a token")(
        await failure(pathfinder.uploadMask(upload)));
      hasCode(Code.PermissionDenied, "UploadMask with the read token")(
        await failure(pathfinder.uploadMask(upload, bearer(tokens.client))));
      hasCode(Code.Unauthenticated, "UploadMask with a wrong token")(
        await failure(pathfinder.uploadMask(upload, bearer("not-a-token"))));
      const info = await pathfinder.uploadMask(upload, bearer(tokens.admin));
      assert.equal(info.name, "rooms");
      hasCode(Code.Unauthenticated, "GetMask without a token")(
        await failure(pathfinder.getMask({ name: "rooms" })));
      const got = await pathfinder.getMask({ name: "rooms" }, bearer(tokens.client));
      assertSameMessage(pb.MaskInfoSchema, got, info, `${name}: GetMask with the read token`);
      hasCode(Code.Unauthenticated, "GetField without a token")(
        await failure(collect(pathfinder.getField({ mask: "rooms", goal: P(1, 1) }))));
    });
  }
});

test("concurrent calls: 24 at once over every transport, each answer the gRPC one", async () => {
  const requests = Array.from({ length: 24 }, (_, i) => ({
    mask: "demo", start: P(20 + i, 20), goal: P(600 - 3 * i, 340), connectivity: pb.Connectivity.EIGHT,
  }));
  const [reference, ...others] = clients;
  const want = await Promise.all(requests.map((request) => reference.pathfinder.findPath(request)));
  await Promise.all(others.map(async ({ name, pathfinder }) => {
    const got = await Promise.all(requests.map((request) => pathfinder.findPath(request)));
    got.forEach((answer, i) => assertSameMessage(pb.FindPathResponseSchema, answer, want[i],
                                                 `FindPath ${i} over ${name}`));
  }));
});

test("browsers: the CORS preflight admits what @connectrpc/connect-web sends", async () => {
  // A page's fetch of a Connect or gRPC-Web call: the browser first asks
  // with OPTIONS whether the origin may POST with these headers.
  const asked = {
    "connect": "content-type,connect-protocol-version,connect-timeout-ms,authorization",
    "grpc-web": "content-type,x-grpc-web,x-user-agent,grpc-timeout,authorization",
  };
  for (const [protocol, headers] of Object.entries(asked)) {
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/pathfinding.v1.Pathfinder/FindPath`, {
      method: "OPTIONS", signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      headers: {
        "origin": PAGE_ORIGIN, "access-control-request-method": "POST",
        "access-control-request-headers": headers,
      },
    });
    assert.ok(response.status >= 200 && response.status < 300, `${protocol}: HTTP ${response.status}`);
    assert.equal(response.headers.get("access-control-allow-origin"), PAGE_ORIGIN, protocol);
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").toLowerCase()
      .split(",").map((header) => header.trim());
    for (const header of headers.split(",")) {
      assert.ok(allowed.includes(header), `${protocol}: ${header} not in Access-Control-Allow-Headers`);
    }
    assert.match(response.headers.get("access-control-allow-methods") ?? "", /POST/);
  }
  // The call itself: the answer names the page's origin, and lets it read
  // gRPC-Web's status headers.
  const response = await fetch(`http://127.0.0.1:${server.httpPort}/pathfinding.v1.Pathfinder/GetMask`, {
    method: "POST", body: JSON.stringify({ name: "demo" }), signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    headers: { "origin": PAGE_ORIGIN, "content-type": "application/json", "connect-protocol-version": "1" },
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("access-control-allow-origin"), PAGE_ORIGIN);
  assert.match(response.headers.get("access-control-expose-headers") ?? "", /grpc-status/i);
  await response.arrayBuffer();
});

test("docs/api.md: the Node example runs as written", () => {
  const text = readFileSync(join(sourceDir, "docs", "api.md"), "utf8");
  const section = text.slice(text.indexOf("## From Node and browsers: Connect clients"));
  const example = /```js\n(.*?)```/s.exec(section)?.[1];
  assert.ok(example, "no js example in docs/api.md's Connect clients section");
  // The generated code is here, the server on its own port.
  const script = example
    .replace("./gen/pathfinding/v1/pathfinding_pb.js", "./pathfinding/v1/pathfinding_pb.js")
    .replace("http://127.0.0.1:8080", `http://127.0.0.1:${server.httpPort}`);
  const path = join(genDir, "api_example.mjs");
  writeFileSync(path, script);
  const lines = execFileSync(process.execPath, [path], { encoding: "utf8", timeout: CALL_TIMEOUT_MS })
    .trim().split("\n");
  assert.match(lines[0], /^true \[/, "FindPath's found and points");
  assert.equal(lines.at(-1), "true", "the unknown mask's code is Code.NotFound");
});

test("each transport spoke its own protocol, to its own port", () => {
  // Content types of requests and answers, unary and streaming (the health
  // check, GetField and PrepareMask are among the calls).
  const want = {
    "grpc": ["grpc application/grpc+proto -> application/grpc"],
    "connect-json": ["http application/json -> application/json",
                     "http application/connect+json -> application/connect+json"],
    "connect-binary": ["http application/proto -> application/proto",
                       "http application/connect+proto -> application/connect+proto"],
    "grpc-web": ["http application/grpc-web+proto -> application/grpc-web+proto"],
  };
  for (const [name, seen] of spoken) {
    assert.deepEqual([...seen].sort(), want[name].sort(), name);
  }
});

// gRPC-Web's text format base64-encodes the frames; the Connect clients do
// not speak it, so this test makes the calls by hand with fetch.
async function grpcWebTextCall(port, method, schema, request) {
  const message = toBinary(schema, create(schema, request));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  const response = await fetch(
    `http://127.0.0.1:${port}/pathfinding.v1.Pathfinder/${method}`, {
      method: "POST", body: frame.toString("base64"), signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      headers: { "content-type": "application/grpc-web-text", "x-grpc-web": "1" },
    });
  assert.equal(response.status, 200, `${method}: HTTP ${response.status}`);
  assert.match(response.headers.get("content-type"), /^application\/grpc-web-text/);
  // Each write of the server is base64 of its own (padded): decode piece by piece.
  const text = await response.text();
  const bytes = Buffer.concat(text.match(/[^=]*=*/g).filter(Boolean)
    .map((piece) => Buffer.from(piece, "base64")));
  const messages = [];
  let trailers = "";
  for (let at = 0; at < bytes.length;) {
    const flags = bytes[at];
    const length = bytes.readUInt32BE(at + 1);
    const body = bytes.subarray(at + 5, at + 5 + length);
    if (flags & 0x80) trailers += body.toString();
    else messages.push(body);
    at += 5 + length;
  }
  const status = /grpc-status:\s*(\d+)/i.exec(trailers) ??
                 /(\d+)/.exec(response.headers.get("grpc-status") ?? "");
  return { messages, status: status ? Number(status[1]) : undefined, trailers };
}

test("gRPC-Web text (by hand): the same answer and codes as gRPC", async () => {
  const request = { mask: "demo", start: P(20, 20), goal: P(600, 340) };
  const want = await clients[0].pathfinder.findPath(request);
  const answer = await grpcWebTextCall(server.httpPort, "FindPath", pb.FindPathRequestSchema, request);
  assert.equal(answer.status, 0, answer.trailers);
  assert.equal(answer.messages.length, 1);
  assertSameMessage(pb.FindPathResponseSchema,
                    fromBinary(pb.FindPathResponseSchema, answer.messages[0]), want, "FindPath");
  const field = await grpcWebTextCall(server.httpPort, "GetField", pb.GetFieldRequestSchema,
                                      { mask: "field", goal: P(1000, 590) });
  assert.equal(field.status, 0, field.trailers);
  const wantField = await collect(clients[0].pathfinder.getField({ mask: "field", goal: P(1000, 590) }));
  assert.equal(field.messages.length, wantField.length);
  field.messages.forEach((bytes, i) => assertSameMessage(
    pb.FieldChunkSchema, fromBinary(pb.FieldChunkSchema, bytes), wantField[i], `GetField chunk ${i}`));
  const missing = await grpcWebTextCall(server.httpPort, "GetMask", pb.GetMaskRequestSchema,
                                        { name: "no-such-mask" });
  assert.equal(missing.status, Code.NotFound, missing.trailers);
});
