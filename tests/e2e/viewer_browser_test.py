#!/usr/bin/python3
"""The level viewer (server/http/viewer/) in a real browser, against the real server.

    /usr/bin/python3 tests/e2e/viewer_browser_test.py \\
        --server build/server/pathfinder-server --source-dir . --out-dir build/tests/viewer

Starts pathfinder-server on 127.0.0.1 (ports chosen by the kernel) with its
HTTP endpoint and an admin token, and headless Chromium through chromedriver
(selenium), and always stops both. In the page it checks:
  - the viewer's pure JS (Connect envelopes cut at any byte, base64, area bit
    sets, float32 rows, the zoom/pan transform at several zooms, requests);
  - an upload without the admin token shows the server's error in the status
    line; with the token, the mask (a PNG made here) is uploaded through the
    page's file input, listed, selected and drawn;
  - two clicks on the canvas (placed with the page's own transform) ask
    FindPath with those pixels once per smoothing mode; the test asks FindPath
    itself with each of the page's requests, gets the same answer, and finds
    the mode's colour on the canvas along every segment of it (>= 90% of
    the sample points) and not at points away from it;
  - a goal on a wall shows the reason (goal not walkable) in the legend and
    the status line;
  - the field of the goal (GetField) changes the canvas under it;
  - a wheel zoom and a drag move the view, clicks still land on the pixels
    aimed at, and the field is fetched again for the new view;
  - the options reach the requests (connectivity, an area switched off);
  - a crowd (BatchFindPaths) is drawn and counted;
  - line of sight: a clear segment and a blocked one, as LineOfSight answers.
Screenshots go to --out-dir (their paths are printed); the one of the demo
level is docs/viewer.png's source. Exits 77 (skipped) without Chromium.
Needs Debian's chromium, chromium-driver and python3-selenium.
"""

import argparse
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from pathfinder_testing import Server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SKIP = 77
ADMIN_TOKEN = "viewer-test-admin-token"
# Every wait is bounded by this; a sanitized server answers these small
# queries in well under a second, so it only matters when something is broken.
WAIT_SECONDS = float(os.environ.get("VIEWER_TEST_WAIT", "30"))
MODES = ["SMOOTHING_BEAUTIFY", "SMOOTHING_SIMPLIFY", "SMOOTHING_NONE", "SMOOTHING_ANY_ANGLE"]
COLOURS = {"SMOOTHING_BEAUTIFY": (255, 255, 255), "SMOOTHING_SIMPLIFY": (255, 159, 10),
           "SMOOTHING_NONE": (0, 200, 255), "SMOOTHING_ANY_ANGLE": (255, 45, 149)}

# The test level, 96 x 64: area 1, a patch of area 2, two walls that make
# every path bend twice (down around the first, up around the second).
WIDTH, HEIGHT = 96, 64
START, GOAL = (8, 8), (88, 56)
WALL_PIXEL = (41, 10)


def test_grid():
    grid = bytearray([1]) * (WIDTH * HEIGHT)
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if 40 <= x <= 43 and y <= 44 or 64 <= x <= 67 and y >= 20:
                grid[y * WIDTH + x] = 0
            elif 10 <= x <= 30 and 40 <= y <= 60:
                grid[y * WIDTH + x] = 2
    return bytes(grid)


def grey_png(width, height, grid):
    """An 8-bit greyscale PNG whose grey values are the area ids."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + grid[y * width:(y + 1) * width] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class ConnectError(Exception):
    def __init__(self, status, code, message):
        super().__init__("HTTP %d %s: %s" % (status, code, message))
        self.code = code


def connect_call(port, method, request, token=None):
    """A unary Connect call with JSON, as the page makes it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    call = urllib.request.Request(
        "http://127.0.0.1:%d/pathfinding.v1.Pathfinder/%s" % (port, method),
        data=json.dumps(request).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(call, timeout=WAIT_SECONDS) as answer:
            return json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        body = json.loads(error.read() or b"{}")
        raise ConnectError(error.code, body.get("code"), body.get("message")) from None


def point(p):
    return (p.get("x", 0), p.get("y", 0))


def samples_along(points, step):
    """Points every `step` along a polyline of (x, y), ends included."""
    out = []
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / step))
        out += [(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n + 1)]
    return out


def distance_to_polyline(p, points):
    best = math.inf
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx, dy = x1 - x0, y1 - y0
        t = 0 if dx == dy == 0 else max(0, min(1, ((p[0] - x0) * dx + (p[1] - y0) * dy)
                                               / (dx * dx + dy * dy)))
        best = min(best, math.hypot(p[0] - x0 - t * dx, p[1] - y0 - t * dy))
    return best


# Counts the points (mask coordinates) where the canvas shows the colour
# (within a tolerance per channel) in the 3x3 backing pixels around it.
COLOUR_HITS_JS = """
const [points, colour, tolerance] = arguments;
const canvas = document.getElementById("mask-canvas");
const ctx = canvas.getContext("2d");
let hits = 0;
for (const [x, y] of points) {
  const c = window.viewer.maskToCanvas(x, y);
  const data = ctx.getImageData(Math.round(c.x) - 1, Math.round(c.y) - 1, 3, 3).data;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - colour[0]) <= tolerance && Math.abs(data[i + 1] - colour[1]) <= tolerance &&
        Math.abs(data[i + 2] - colour[2]) <= tolerance) { hits++; break; }
  }
}
return hits;
"""

# The colour of the backing pixel at each point (mask coordinates).
PIXELS_JS = """
const ctx = document.getElementById("mask-canvas").getContext("2d");
return arguments[0].map(([x, y]) => {
  const c = window.viewer.maskToCanvas(x, y);
  return Array.from(ctx.getImageData(Math.round(c.x), Math.round(c.y), 1, 1).data.slice(0, 3));
});
"""

# The viewer's pure functions, imported as the page imports them.
UNITS_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const wire = await import("/wire.js");
  const connect = await import("/connect.js");
  const { ViewTransform } = await import("/view_transform.js");
  const requests = await import("/requests.js");
  const upload = await import("/upload.js");
  const colours = await import("/colours.js");
  const field = await import("/field_layer.js");
  const checks = [];
  const check = (name, ok) => checks.push([name, Boolean(ok)]);

  const bytes = new Uint8Array(70000).map((_, i) => (i * 7919) & 255);
  const again = wire.base64ToBytes(wire.bytesToBase64(bytes));
  check("base64 round trip", again.length === bytes.length && again.every((b, i) => b === bytes[i]));
  check("base64url", wire.base64ToBytes("-_8=").join() === "251,255");
  check("area ids of a uint64 string", wire.areaIdsOf("9223372036854775813").join() === "0,2,63");
  check("area bits", wire.areaBitsOf([0, 2, 63]) === "9223372036854775813");
  const f = new DataView(new ArrayBuffer(12));
  f.setFloat32(0, 1.5, true); f.setFloat32(4, Infinity, true); f.setFloat32(8, -2, true);
  check("float32 little-endian",
        wire.float32s(new Uint8Array(f.buffer), 3).join() === "1.5,Infinity,-2");
  check("left-out zero coordinates", JSON.stringify(wire.point({ y: 3 })) === '{"x":0,"y":3}');
  check("reason label", wire.reasonLabel("PATH_REASON_GOAL_NOT_WALKABLE") === "goal not walkable");

  const messages = [{ width: 3, distances: "AAA=" }, { firstRow: 1, note: "é" }];
  const stream = new Uint8Array([...connect.encodeEnvelope(messages[0]),
                                 ...connect.encodeEnvelope(messages[1]),
                                 ...connect.encodeEnvelope({}, 2)]);
  let every = true;
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new connect.EnvelopeReader();
    const got = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
    every &&= got.length === 3 && JSON.stringify(got[1].message) === JSON.stringify(messages[1]) &&
      got[2].flags === 2 && reader.pending === 0;
  }
  check("envelopes cut at every byte", every);
  const oneByOne = new connect.EnvelopeReader();
  let count = 0;
  for (const b of stream) count += oneByOne.push(new Uint8Array([b])).length;
  check("envelopes fed byte by byte", count === 3);

  const t = new ViewTransform();
  t.fit(96, 64, 800, 600);
  let inverse = true;
  for (const factor of [1, 3.7, 0.05, 40]) {
    t.zoomAt(123, 77, factor);
    t.pan(5, -3);
    for (const [x, y] of [[0, 0], [10.5, 3.25], [95.9, 63.9]]) {
      const v = t.maskToView(x, y);
      const m = t.viewToMask(v.x, v.y);
      inverse &&= Math.abs(m.x - x) < 1e-9 && Math.abs(m.y - y) < 1e-9;
      const p = t.pixelAt(v.x, v.y);
      inverse &&= p.x === Math.floor(x) && p.y === Math.floor(y);
    }
  }
  check("view transform inverts at every zoom", inverse);
  const before = t.viewToMask(300, 200);
  t.zoomAt(300, 200, 2.5);
  const after = t.viewToMask(300, 200);
  check("zoom keeps the cursor's point",
        Math.abs(before.x - after.x) < 1e-9 && Math.abs(before.y - after.y) < 1e-9);

  const options = { enabledAreas: [1, 3], areaCosts: { 1: 1, 3: 7 }, connectivity: "CONNECTIVITY_EIGHT",
                    allowCornerCutting: true, snapToReachable: false, clearance: 1.5 };
  const r = requests.findPathRequest("m", options, { x: 1, y: 2 }, { x: 3, y: 4 }, "SMOOTHING_NONE");
  check("find path request", r.enabledAreas === "10" && JSON.stringify(r.areaCosts) === '{"3":7}' &&
        r.clearance === 1.5 && r.smoothing === "SMOOTHING_NONE");
  const any = requests.findPathRequest("m", options, { x: 1, y: 2 }, { x: 3, y: 4 },
                                       "SMOOTHING_ANY_ANGLE");
  check("any-angle leaves area costs out", any.areaCosts === undefined);
  const batch = requests.batchRequest("m", options, [{ x: 1, y: 1 }, { x: 2, y: 2 }],
                                      { x: 3, y: 4 }, "SMOOTHING_BEAUTIFY");
  check("batch request", batch.starts.length === 2 && batch.start === undefined);
  const grid = new Uint8Array(100).map((_, i) => (i % 3 === 0 ? 0 : 1 + (i % 2)));
  const starts = requests.randomWalkableStarts(grid, 10, [2], 20, requests.seededRandom(5));
  check("crowd starts on enabled areas", starts.length === 20 &&
        starts.every((p) => grid[p.y * 10 + p.x] === 2) &&
        new Set(starts.map((p) => p.y * 10 + p.x)).size === 20);
  check("mask name from a file name",
        upload.maskNameFromFile("C:\\\\levels\\\\Level 1 (old).png") === "Level-1-old");
  const png = upload.uploadRequest("a", "x.PNG", new Uint8Array([1, 2]), "PIXEL_RULE_INDEX");
  check("png upload request", png.format === "MASK_FORMAT_PNG" && png.image === "AQI=" &&
        png.rule === "PIXEL_RULE_INDEX");
  check("area 0 dark", colours.areaColour(0).every((c) => c < 40));
  check("heat map bright at the goal", colours.heatColour(0).join() === "253,231,37");
  check("downsample to the view", field.downsampleFor(0.3) === 3 && field.downsampleFor(2) === 1);
  const crop = field.cropAround({ x: 10, y: 10, width: 40, height: 20 }, 60, 100);
  check("field crop margin, clipped",
        crop.x === 0 && crop.y === 5 && crop.width === 60 && crop.height === 30);
  return checks;
})().then(done, (error) => done([["imports and checks ran: " + error.stack, false]]));
"""


class Viewer:
    """The page in headless Chromium, and the server behind it."""

    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.out_dir = args.out_dir
        self.server = None
        self.driver = None

    def start(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        args, workdir = self.args, self.workdir
        token_file = os.path.join(workdir, "admin-token")
        with open(token_file, "w") as f:
            f.write(ADMIN_TOKEN + "\n")
        self.http_port_file = os.path.join(workdir, "http-port")
        self.server = Server(args.server, workdir, [
            "--http-listen", "127.0.0.1:0", "--http-port-file", self.http_port_file,
            "--admin-token-file", token_file])
        self.port = self.server._wait_for_port(self.http_port_file, 60)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                     "--window-size=1280,860", "--force-device-scale-factor=1",
                     "--user-data-dir=" + os.path.join(workdir, "chromium-profile")]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # port 0: selenium picks a free port for chromedriver
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER, port=0), options=options)
        self.driver.set_page_load_timeout(WAIT_SECONDS)
        self.driver.set_script_timeout(WAIT_SECONDS)

    def close(self):
        if self.driver is not None:
            self.driver.quit()
        if self.server is not None:
            self.server.stop()

    # --- the page ---------------------------------------------------------

    def open(self):
        self.driver.get("http://127.0.0.1:%d/" % self.port)
        self.wait(lambda d: d.execute_script("return Boolean(window.viewer)"), "the viewer to start")

    def wait(self, condition, what):
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=0.05).until(condition)
        except Exception:
            raise AssertionError("waited %gs for %s; status line: %r" % (
                WAIT_SECONDS, what, self.text("#status"))) from None

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector):
        try:
            return self.find(selector).text
        except Exception:
            return None

    def wait_idle(self, what):
        self.wait(lambda d: d.execute_script("return window.viewer.idle()"), what)

    def click_pixel(self, x, y):
        """A real pointer click on the centre of mask pixel (x, y)."""
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        at = self.js("return window.viewer.maskToClient(arguments[0], arguments[1])", x + 0.5, y + 0.5)
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(int(round(at["x"])), int(round(at["y"])))
        actions.pointer_action.click()
        actions.perform()

    def set_checkbox(self, selector, checked):
        box = self.find(selector)
        if box.is_selected() != checked:
            box.click()

    def screenshot(self, name):
        path = os.path.join(self.out_dir, name)
        self.driver.save_screenshot(path)
        print("screenshot: %s" % path)
        return path


def check_units(viewer):
    checks = viewer.driver.execute_async_script(UNITS_JS)
    failed = [name for name, ok in checks if not ok]
    assert not failed, "viewer JS checks failed: %s" % failed
    print("ok: %d checks of the viewer's JS" % len(checks))


def upload_through_page(viewer, name, png_path, token):
    viewer.find("#upload-name").clear()
    viewer.find("#upload-name").send_keys(name)
    viewer.find("#admin-token").clear()
    if token:
        viewer.find("#admin-token").send_keys(token)
    viewer.find("#upload-file").send_keys(png_path)


def check_upload(viewer, workdir):
    png_path = os.path.join(workdir, "walls.png")
    with open(png_path, "wb") as f:
        f.write(grey_png(WIDTH, HEIGHT, test_grid()))
    upload_through_page(viewer, "walls", png_path, None)
    viewer.wait(lambda d: "unauthenticated" in (viewer.text("#status") or ""),
                "the refused upload's error in the status line")
    assert viewer.find("#status").get_attribute("data-kind") == "error"
    print("ok: an upload without the token shows %r" % viewer.text("#status"))
    upload_through_page(viewer, "walls", png_path, ADMIN_TOKEN)
    viewer.wait(lambda d: d.execute_script(
        "const m = window.viewer.state.mask; return m && m.name === 'walls' && window.viewer.idle()"),
        "the uploaded mask to be shown")
    info = connect_call(viewer.port, "GetMask", {"name": "walls"})
    assert (info["width"], info["height"]) == (WIDTH, HEIGHT), info
    assert viewer.find("#mask-select").get_attribute("value") == "walls"
    assert viewer.js("return document.querySelectorAll('#areas tbody tr').length") == 2
    print("ok: uploaded through the page's file input, listed, selected: %s" % viewer.text("#mask-info"))


def run_path(viewer, start, goal):
    viewer.click_pixel(*start)
    viewer.click_pixel(*goal)
    viewer.wait(lambda d: d.execute_script(
        "const s = window.viewer.state;"
        "return s.start?.x === arguments[0] && s.start?.y === arguments[1] &&"
        "  s.goal?.x === arguments[2] && s.goal?.y === arguments[3] && window.viewer.idle()",
        *start, *goal), "the answers to %s -> %s" % (start, goal))


def check_paths(viewer):
    run_path(viewer, START, GOAL)
    answers = viewer.js("return window.viewer.state.paths")
    for mode in MODES:
        page = answers[mode]
        assert "error" not in page, "%s: %s" % (mode, page)
        request = page["request"]
        assert (point(request["start"]), point(request["goal"])) == (START, GOAL), request
        assert request["smoothing"] == mode, request
        mine = connect_call(viewer.port, "FindPath", request)
        assert mine.get("found"), "%s: %s" % (mode, mine)
        assert mine["precisePoints"] == page["response"]["precisePoints"], mode
        legend = viewer.text("#path-row-%s" % mode_key(mode))
        assert "%.1f" % mine["length"] in legend, (legend, mine["length"])
    for mode in MODES:
        for other in MODES:  # only this mode's path drawn
            viewer.set_checkbox("#path-show-%s" % mode_key(other), other == mode)
        points = [point(p) for p in answers[mode]["response"]["precisePoints"]]
        check_drawn(viewer, mode, points)
    for mode in MODES:
        viewer.set_checkbox("#path-show-%s" % mode_key(mode), True)
    viewer.screenshot("viewer-paths.png")


def check_drawn(viewer, mode, points):
    scale = viewer.js("return window.viewer.view.transform.scale")
    # 4 CSS pixels apart, off the start and goal markers (radius <= max(5, scale / 2))
    keep_off = (max(5, scale * 0.45) + 4) / scale
    samples = [p for p in samples_along(points, 4 / scale)
               if math.dist(p, points[0]) > keep_off and math.dist(p, points[-1]) > keep_off]
    hits = viewer.js(COLOUR_HITS_JS, samples, COLOURS[mode], 40)
    assert hits >= 0.9 * len(samples), "%s: its colour at %d of %d points along the answer" % (
        mode, hits, len(samples))
    away = [(x + 0.5, y + 0.5) for y in range(2, HEIGHT, 7) for x in range(3, WIDTH, 9)
            if distance_to_polyline((x + 0.5, y + 0.5), points) > 3]
    stray = viewer.js(COLOUR_HITS_JS, away, COLOURS[mode], 40)
    assert stray == 0, "%s: its colour at %d of %d points away from the path" % (mode, stray, len(away))
    print("ok: %s drawn along FindPath's answer (%d of %d points), absent at %d points away"
          % (mode_key(mode), hits, len(samples), len(away)))


def mode_key(mode):
    return mode[len("SMOOTHING_"):].lower().replace("_", "-")


def check_field(viewer):
    field = viewer.js("return window.viewer.state.field")
    assert field and field["reachable"] > 0 and field["chunks"] >= 1, field
    paths = [[point(p) for p in a["response"]["precisePoints"]]
             for a in viewer.js("return window.viewer.state.paths").values()]
    grid = test_grid()
    where = [(x + 0.5, y + 0.5) for y in range(1, HEIGHT, 5) for x in range(1, WIDTH, 5)
             if grid[y * WIDTH + x] != 0
             and all(distance_to_polyline((x + 0.5, y + 0.5), p) > 3 for p in paths)
             and math.dist((x, y), START) > 3 and math.dist((x, y), GOAL) > 3]
    shown = viewer.js(PIXELS_JS, where)
    viewer.set_checkbox("#field-on", False)
    viewer.wait(lambda d: d.execute_script("return window.viewer.view.field.field === null"),
                "the field to be hidden")
    hidden = viewer.js(PIXELS_JS, where)
    changed = sum(1 for a, b in zip(shown, hidden) if max(abs(i - j) for i, j in zip(a, b)) > 24)
    assert changed >= 0.8 * len(where), "the field changed %d of %d walkable pixels" % (
        changed, len(where))
    viewer.set_checkbox("#field-on", True)
    viewer.wait(lambda d: d.execute_script("return window.viewer.view.field.field !== null"),
                "the field to be shown again")
    print("ok: field %dx%d in %d chunk(s) changes %d of %d walkable pixels; %s"
          % (field["width"], field["height"], field["chunks"], changed, len(where),
             viewer.text("#field-result")))


def check_zoom_and_pan(viewer):
    """A wheel zoom and a drag move the view; clicks still land on the pixel aimed at."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    canvas = viewer.find("#mask-canvas")
    before = viewer.js("return window.viewer.view.transform.scale")
    ActionChains(viewer.driver).scroll_from_origin(ScrollOrigin.from_element(canvas, 40, 20),
                                                   0, -500).perform()
    viewer.wait(lambda d: d.execute_script("return window.viewer.view.transform.scale") > 1.5 * before,
                "the wheel to zoom in")
    offset = viewer.js("const t = window.viewer.view.transform; return [t.offsetX, t.offsetY]")
    ActionChains(viewer.driver).move_to_element(canvas).click_and_hold().move_by_offset(-90, 60) \
        .release().perform()
    moved = viewer.js("const t = window.viewer.view.transform; return [t.offsetX, t.offsetY]")
    assert abs(moved[0] - offset[0] + 90) < 2 and abs(moved[1] - offset[1] - 60) < 2, (offset, moved)
    visible = viewer.js("return window.viewer.view.visibleRect()")
    grid = test_grid()
    inside = [(x, y) for y in range(visible["y"] + 2, visible["y"] + visible["height"] - 2)
              for x in range(visible["x"] + 2, visible["x"] + visible["width"] - 2)
              if grid[y * WIDTH + x] != 0]
    assert len(inside) > 100, visible
    start, goal = inside[0], inside[-1]
    run_path(viewer, start, goal)  # run_path waits for exactly these pixels
    viewer.wait(lambda d: d.execute_script(
        "const f = window.viewer.state.field, v = window.viewer.view.visibleRect();"
        "return f !== null && f.crop.x <= v.x && f.crop.y <= v.y &&"
        "  f.crop.x + f.crop.width >= v.x + v.width && f.crop.y + f.crop.height >= v.y + v.height"),
        "the field to cover the view")
    viewer.screenshot("viewer-zoomed.png")
    print("ok: zoomed x%.1f and panned; clicks on %s and %s asked for those pixels; field crop %s"
          % (viewer.js("return window.viewer.view.transform.scale") / before, start, goal,
             viewer.js("return window.viewer.state.field.crop")))
    viewer.find("#fit").click()


def check_wall_goal(viewer):
    run_path(viewer, START, WALL_PIXEL)
    reason = viewer.text("#path-reason-beautify")
    assert reason == "goal not walkable", reason
    assert viewer.find("#path-reason-beautify").get_attribute("data-reason") == \
        "PATH_REASON_GOAL_NOT_WALKABLE"
    assert "goal not walkable" in viewer.text("#status"), viewer.text("#status")
    assert viewer.js("return window.viewer.view.paths.length") == 0
    print("ok: a goal on a wall shows %r" % viewer.text("#status"))


def check_options(viewer):
    from selenium.webdriver.support.ui import Select
    Select(viewer.find("#connectivity")).select_by_value("CONNECTIVITY_FOUR")
    viewer.set_checkbox("#area-on-2", False)
    run_path(viewer, START, GOAL)
    request = viewer.js("return window.viewer.state.paths.SMOOTHING_BEAUTIFY.request")
    assert request["connectivity"] == "CONNECTIVITY_FOUR", request
    assert request["enabledAreas"] == "2", request  # area 1 only
    Select(viewer.find("#connectivity")).select_by_value("CONNECTIVITY_EIGHT")
    viewer.set_checkbox("#area-on-2", True)
    viewer.wait_idle("the queries after the options changed")
    print("ok: connectivity and enabled areas reach the requests")


def check_crowd(viewer):
    viewer.find("#crowd-size").clear()
    viewer.find("#crowd-size").send_keys("40")
    viewer.set_checkbox("#crowd-on", True)
    viewer.wait(lambda d: d.execute_script(
        "return window.viewer.state.crowd !== null && window.viewer.idle()"), "the crowd")
    crowd = viewer.js("return window.viewer.state.crowd")
    assert crowd["starts"] == 40 and crowd["found"] >= 30, crowd
    assert viewer.js("return window.viewer.view.crowd.length") == crowd["found"]
    viewer.screenshot("viewer-crowd.png")
    viewer.set_checkbox("#crowd-on", False)
    viewer.wait_idle("the queries without the crowd")
    print("ok: crowd %s" % viewer.text("#crowd-result"))


def check_sight(viewer):
    viewer.find("input[name=click-mode][value=sight]").click()
    for a, b, clear in [((8, 8), (30, 20), True), ((30, 10), (50, 10), False)]:
        viewer.click_pixel(*a)
        viewer.click_pixel(*b)
        viewer.wait(lambda d: d.execute_script(
            "const s = window.viewer.state.sight; return s !== null && s.b.x === arguments[0]", b[0]),
            "the line of sight %s -> %s" % (a, b))
        text = viewer.text("#sight-result")
        mine = connect_call(viewer.port, "LineOfSight", {
            "mask": "walls", "pairs": [{"a": {"x": a[0], "y": a[1]}, "b": {"x": b[0], "y": b[1]}}]})
        result = mine["results"][0]
        assert bool(result.get("clear")) == clear, mine
        if clear:
            assert ": clear" in text, text
        else:
            blocked = point(result["firstBlocked"])
            assert "blocked at (%d, %d)" % blocked in text, (text, blocked)
        colour = (48, 209, 88) if clear else (255, 69, 58)
        middle = ((a[0] + b[0]) / 2 + 0.5, (a[1] + b[1]) / 2 + 0.5)
        assert viewer.js(COLOUR_HITS_JS, [middle], colour, 40) == 1, "sight colour at %s" % (middle,)
        print("ok: line of sight %s" % text)
    viewer.screenshot("viewer-sight.png")
    viewer.find("input[name=click-mode][value=path]").click()


def demo_screenshot(viewer, source_dir):
    """The README's picture: the demo level, every mode's path and the field."""
    with open(os.path.join(source_dir, "assets", "demo.png"), "rb") as f:
        image = f.read()
    import base64
    connect_call(viewer.port, "UploadMask", {"name": "demo", "image": base64.b64encode(image).decode(),
                                             "format": "MASK_FORMAT_PNG"}, ADMIN_TOKEN)
    viewer.js("return window.viewer.loadMasks('demo')")
    viewer.wait(lambda d: d.execute_script(
        "const m = window.viewer.state.mask; return m && m.name === 'demo' && window.viewer.idle()"),
        "the demo mask")
    run_path(viewer, (20, 20), (600, 340))
    found = viewer.js(
        "return Object.values(window.viewer.state.paths).filter(a => a.response?.found).length")
    assert found == len(MODES), found
    viewer.screenshot("viewer-demo.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the pathfinder-server binary")
    parser.add_argument("--source-dir", required=True, help="the repository (for assets/demo.png)")
    parser.add_argument("--out-dir", required=True, help="where the screenshots go")
    args = parser.parse_args()
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        print("skipped: %s or %s is missing (Debian packages chromium, chromium-driver)"
              % (CHROMIUM, CHROMEDRIVER))
        sys.exit(SKIP)
    os.makedirs(args.out_dir, exist_ok=True)
    began = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="pathfinder-viewer-")
    viewer = Viewer(args, workdir)
    try:
        viewer.start()
        viewer.open()
        check_units(viewer)
        check_upload(viewer, workdir)
        check_paths(viewer)
        check_field(viewer)
        check_zoom_and_pan(viewer)
        check_wall_goal(viewer)
        check_options(viewer)
        check_crowd(viewer)
        check_sight(viewer)
        demo_screenshot(viewer, args.source_dir)
        # The refused upload is logged (its 401 and the error shown); nothing else may be.
        errors = [e["message"] for e in viewer.driver.get_log("browser")
                  if e["level"] == "SEVERE" and "UploadMask" not in e["message"]
                  and "unauthenticated" not in e["message"]]
        assert not errors, "errors in the browser's console: %s" % errors
    except Exception:
        if viewer.driver is not None:
            viewer.screenshot("viewer-failure.png")
        if viewer.server is not None:
            print("server log (end):\n" + viewer.server.read_log()[-4000:])
        raise
    finally:
        viewer.close()
        shutil.rmtree(workdir, ignore_errors=True)
    print("passed in %.1f s" % (time.monotonic() - began))


if __name__ == "__main__":
    main()
