#!/usr/bin/python3
"""A Python client for pathfinder, and a test that the contract works outside C++.

It is also meant as a readable example for tool authors: everything a Python
level tool needs is here, from generating the stubs to reading the answers.

    /usr/bin/python3 tests/interop/pathfinder_interop_test.py \\
        --server build/server/pathfinder-server --proto-dir proto

What it does:
  1. Generates the Python stubs from proto/pathfinding/v1/pathfinding.proto
     into a temporary directory with protoc and Debian's grpc_python_plugin
     (packages protobuf-compiler, protobuf-compiler-grpc, python3-grpcio,
     python3-protobuf; run it with Debian's /usr/bin/python3, which has grpc).
  2. Starts the real server on 127.0.0.1, port chosen by the kernel
     (--listen 127.0.0.1:0 --port-file FILE), with a temporary data dir.
  3. Calls every RPC and checks the answers against what this script works
     out by itself (a breadth-first search, the PNG it encoded, ...) and the
     error codes of the contract.
The server is always stopped, whatever happens (class cleanup).
"""

import argparse
import collections
import hashlib
import math
import os
import shutil
import struct
import sys
import tempfile
import time
import unittest
import zlib

import grpc

# The server on loopback and the stubs, shared with the other Python tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import pathfinder_testing  # noqa: E402
from pathfinder_testing import Server  # noqa: E402

ARGS = None  # command-line options, set in main()
pb = None  # pathfinding_pb2, the messages (imported once the stubs exist)
pb_grpc = None  # pathfinding_pb2_grpc, the stub

# The level used throughout: '.' is area 1, '2' area 2, '#' a wall (area 0).
# The inner room (x 2..7, y 2..6) opens only at (5, 7) onto the area-2 road
# of the bottom row; the pocket (4..5, 4) is sealed, even diagonally.
LEVEL = [
    "..........",
    ".########.",
    ".#......#.",
    ".#.####.#.",
    ".#.#..#.#.",
    ".#.####.#.",
    ".#......#.",
    ".####.###.",
    "2222222222",
]
WIDTH = len(LEVEL[0])
HEIGHT = len(LEVEL)
AREAS = [0 if c == "#" else 2 if c == "2" else 1 for row in LEVEL for c in row]

CALL_TIMEOUT = 10  # seconds: every call has a deadline


# ---------------------------------------------------------------- images

def png_grey8(width, height, pixels):
    """An 8-bit greyscale PNG whose grey values are the area ids (PIXEL_RULE_INDEX)."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes(pixels[y * width:(y + 1) * width]) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def pgm(width, height, pixels):
    """A binary PGM (P5) with the area ids as grey values."""
    return b"P5\n%d %d\n63\n" % (width, height) + bytes(pixels)


# ---------------------------------------------------------------- references

def walkable(areas, x, y, enabled=0):
    """Inside the level and of an enabled area (enabled 0 = every area; 0 is never walkable)."""
    if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
        return False
    area = areas[y * WIDTH + x]
    return area != 0 and (enabled == 0 or (enabled >> area) & 1 == 1)


def bfs_distances(areas, goal, enabled=0):
    """Four-connected step counts to goal (unit costs): {(x, y): steps}; {} when goal is a wall."""
    if not walkable(areas, *goal, enabled):
        return {}
    distance = {goal: 0}
    queue = collections.deque([goal])
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if walkable(areas, nx, ny, enabled) and (nx, ny) not in distance:
                distance[(nx, ny)] = distance[(x, y)] + 1
                queue.append((nx, ny))
    return distance


def bresenham(a, b):
    """The pixels of the segment a-b (any 8-connected rasterisation will do for a check)."""
    (x0, y0), (x1, y1) = a, b
    steps = max(abs(x1 - x0), abs(y1 - y0))
    return [(round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps))
            for i in range(steps + 1)] if steps else [a]


DIRECTION_STEPS = {}  # filled in main(): pb.DIRECTION_N -> (0, -1), ...


def xy(point):
    return (point.x, point.y)


# ---------------------------------------------------------------- the server

def generate_stubs(proto_dir, out_dir):
    """The stubs (see pathfinder_testing.generate_stubs), and the directions' steps."""
    global pb, pb_grpc
    pb, pb_grpc = pathfinder_testing.generate_stubs(ARGS.protoc, proto_dir, out_dir)
    DIRECTION_STEPS.update({
        pb.DIRECTION_N: (0, -1), pb.DIRECTION_NE: (1, -1), pb.DIRECTION_E: (1, 0),
        pb.DIRECTION_SE: (1, 1), pb.DIRECTION_S: (0, 1), pb.DIRECTION_SW: (-1, 1),
        pb.DIRECTION_W: (-1, 0), pb.DIRECTION_NW: (-1, -1)})


# ---------------------------------------------------------------- the tests

class PathfinderInteropTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="pathfinder-interop-")
        cls.addClassCleanup(shutil.rmtree, cls.workdir, ignore_errors=True)
        generate_stubs(ARGS.proto_dir, os.path.join(cls.workdir, "stubs"))
        cls.server = Server(ARGS.server, cls.workdir)
        cls.addClassCleanup(cls.server.stop)  # runs even when a test fails
        # Masks can be large: raise the 4 MiB default receive limit as the server does.
        cls.channel = grpc.insecure_channel(
            "127.0.0.1:%d" % cls.server.port,
            options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
        cls.addClassCleanup(cls.channel.close)
        cls.stub = pb_grpc.PathfinderStub(cls.channel)

    # A token would travel as metadata=[("authorization", "Bearer " + token)];
    # this server runs without tokens.

    def upload(self, name, image=None, **fields):
        image = png_grey8(WIDTH, HEIGHT, AREAS) if image is None else image
        return self.stub.UploadMask(pb.UploadMaskRequest(name=name, image=image, **fields),
                                    timeout=CALL_TIMEOUT)

    def assert_status(self, code, call, *args):
        with self.assertRaises(grpc.RpcError) as caught:
            call(*args, timeout=CALL_TIMEOUT)
        self.assertEqual(caught.exception.code(), code, caught.exception.details())
        return caught.exception.details()

    def test_upload_describes_the_mask(self):
        info = self.upload("upload-png", format=pb.MASK_FORMAT_PNG, rule=pb.PIXEL_RULE_INDEX)
        self.assertEqual(info.name, "upload-png")
        self.assertEqual((info.width, info.height), (WIDTH, HEIGHT))
        self.assertGreaterEqual(info.revision, 1)
        self.assertEqual(info.walkable_pixels, sum(1 for a in AREAS if a != 0))
        self.assertEqual(info.areas_present, (1 << 0) | (1 << 1) | (1 << 2))
        # sha256 is the digest of the decoded area grid, so a PGM (or RAW) of the
        # same level has the same one.
        self.assertEqual(info.sha256, hashlib.sha256(bytes(AREAS)).hexdigest())
        as_pgm = self.upload("upload-pgm", image=pgm(WIDTH, HEIGHT, AREAS))  # format sniffed
        self.assertEqual(as_pgm.sha256, info.sha256)
        as_raw = self.upload("upload-raw", image=bytes(AREAS), format=pb.MASK_FORMAT_RAW,
                             width=WIDTH, height=HEIGHT)
        self.assertEqual(as_raw.sha256, info.sha256)

    def test_get_and_list(self):
        uploaded = self.upload("listed")
        got = self.stub.GetMask(pb.GetMaskRequest(name="listed"), timeout=CALL_TIMEOUT)
        self.assertEqual(got, uploaded)
        listed = self.stub.ListMasks(pb.ListMasksRequest(), timeout=CALL_TIMEOUT)
        names = [m.name for m in listed.masks]
        self.assertIn("listed", names)
        self.assertEqual(names, sorted(names))  # ordered by name

    def check_grid_path(self, response, start, goal, enabled=0):
        """A SMOOTHING_NONE answer: unit cardinal steps on walkable pixels, optimal cost."""
        points = [xy(p) for p in response.points]
        self.assertEqual(points[0], start)
        self.assertEqual(points[-1], goal)
        for a, b in zip(points, points[1:]):
            self.assertEqual(abs(a[0] - b[0]) + abs(a[1] - b[1]), 1, "not one step: %s" % points)
            self.assertTrue(walkable(AREAS, *b, enabled), "into a wall: %s" % (b,))
        steps = bfs_distances(AREAS, goal, enabled)[start]
        self.assertEqual(len(points) - 1, steps)
        self.assertAlmostEqual(response.cost, steps)
        self.assertAlmostEqual(response.length, steps)

    def test_find_path(self):
        info = self.upload("find")
        start, goal = (0, 0), (4, 2)  # outside the room -> inside, through (5, 7)
        grid = self.stub.FindPath(pb.FindPathRequest(
            mask="find", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=2),
            smoothing=pb.SMOOTHING_NONE), timeout=CALL_TIMEOUT)
        self.assertTrue(grid.found)
        self.assertEqual(grid.mask_revision, info.revision)
        self.assertEqual(xy(grid.goal), goal)
        self.check_grid_path(grid, start, goal)

        # The default smoothing (beautify): straight segments over walkable
        # pixels, never longer than the grid path; with unit costs its cost
        # is its length.
        smooth = self.stub.FindPath(pb.FindPathRequest(
            mask="find", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=2)),
            timeout=CALL_TIMEOUT)
        self.assertTrue(smooth.found)
        points = [xy(p) for p in smooth.points]
        self.assertEqual((points[0], points[-1]), (start, goal))
        for a, b in zip(points, points[1:]):
            for pixel in bresenham(a, b):
                self.assertTrue(walkable(AREAS, *pixel), "%s-%s crosses a wall" % (a, b))
        polyline = sum(math.dist(a, b) for a, b in zip(points, points[1:]))
        self.assertAlmostEqual(smooth.length, polyline)
        self.assertLessEqual(smooth.length, grid.length + 1e-9)
        self.assertAlmostEqual(smooth.cost, smooth.length)

    def test_find_path_to_nearest_goal(self):
        """goals: the cheapest goal (lowest index on ties), checked by a BFS per goal."""
        self.upload("goals")
        goals = [(9, 0), (3, 2), (0, 8), (9, 8)]
        per_goal = [bfs_distances(AREAS, g) for g in goals]
        wire_goals = [pb.Point(x=x, y=y) for x, y in goals]
        for start in [(0, 0), (5, 6), (2, 6), (9, 4), (5, 8), (4, 4)]:
            reached = [(d[start], j) for j, d in enumerate(per_goal) if start in d]
            response = self.stub.FindPath(pb.FindPathRequest(
                mask="goals", start=pb.Point(x=start[0], y=start[1]), goals=wire_goals,
                smoothing=pb.SMOOTHING_NONE), timeout=CALL_TIMEOUT)
            self.assertEqual(response.found, bool(reached), start)
            if not reached:
                continue
            index = min(reached)[1]
            self.assertEqual(response.goal_index, index, start)
            self.assertEqual(xy(response.goal), goals[index])
            self.check_grid_path(response, start, goals[index])
        with self.assertRaises(grpc.RpcError) as both:
            self.stub.FindPath(pb.FindPathRequest(
                mask="goals", start=pb.Point(x=0, y=0), goal=pb.Point(x=1, y=0),
                goals=wire_goals), timeout=CALL_TIMEOUT)
        self.assertEqual(both.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("goals", both.exception.details())
    def test_find_path_with_obstacles(self):
        """A unit on the road's left end: the path goes round by the right, exactly as on
        a copy of the level with those pixels blocked; the stored level is unchanged."""
        info = self.upload("obstacles")
        start, goal = (0, 0), (4, 2)
        request = dict(mask="obstacles", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=2),
                       smoothing=pb.SMOOTHING_NONE)
        unit = pb.Obstacle(rect=pb.Rect(x=0, y=7, width=3, height=2))
        blocked = self.stub.FindPath(pb.FindPathRequest(**request, obstacles=[unit]),
                                     timeout=CALL_TIMEOUT)
        patched = list(AREAS)
        for y in range(7, 9):
            for x in range(0, 3):
                patched[y * WIDTH + x] = 0
        self.assertTrue(blocked.found)
        points = [xy(p) for p in blocked.points]
        self.assertEqual((points[0], points[-1]), (start, goal))
        for a, b in zip(points, points[1:]):
            self.assertEqual(abs(a[0] - b[0]) + abs(a[1] - b[1]), 1)
            self.assertTrue(walkable(patched, *b), "onto the unit or a wall: %s" % (b,))
        self.assertEqual(len(points) - 1, bfs_distances(patched, goal)[start])
        self.assertGreater(len(points) - 1, bfs_distances(AREAS, goal)[start])
        # The same request on an uploaded copy with those pixels blocked.
        self.upload("obstacles-copy", png_grey8(WIDTH, HEIGHT, patched))
        copy = self.stub.FindPath(pb.FindPathRequest(**dict(request, mask="obstacles-copy")),
                                  timeout=CALL_TIMEOUT)
        for answer in (blocked, copy):
            answer.ClearField("mask_revision")
            answer.ClearField("cache_hit")
        self.assertEqual(blocked, copy)
        # Nothing stuck to the stored level.
        again = self.stub.FindPath(pb.FindPathRequest(**request), timeout=CALL_TIMEOUT)
        self.assertEqual(again.mask_revision, info.revision)
        self.check_grid_path(again, start, goal)
        # A shape without one is refused, naming it.
        details = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.FindPath,
                                     pb.FindPathRequest(**request, obstacles=[pb.Obstacle()]))
        self.assertIn("obstacles[0]", details)

    def test_find_path_any_angle(self):
        self.upload("anyangle")
        request = dict(mask="anyangle", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=2))
        smooth = self.stub.FindPath(pb.FindPathRequest(**request), timeout=CALL_TIMEOUT)
        exact = self.stub.FindPath(pb.FindPathRequest(
            smoothing=pb.SMOOTHING_ANY_ANGLE, **request), timeout=CALL_TIMEOUT)
        self.assertTrue(exact.found)
        # Other smoothings send the centres of their points as precise_points.
        self.assertEqual([(p.x, p.y) for p in smooth.precise_points],
                         [(p.x + 0.5, p.y + 0.5) for p in smooth.points])
        # The exact path runs from centre to centre, bends only at square
        # corners (twice a coordinate is even there), and is never longer
        # than the beautified one.
        vertices = [(p.x, p.y) for p in exact.precise_points]
        pixels = [(p.x, p.y) for p in exact.points]
        self.assertEqual((vertices[0], vertices[-1]), ((0.5, 0.5), (4.5, 2.5)))
        for x, y in vertices[1:-1]:
            self.assertEqual((2 * x % 2, 2 * y % 2), (0, 0), "bend off a corner: %s" % vertices)
        # A walkable pixel per vertex, a pixel never twice in a row: at most
        # as many pixels as vertices, each touching one of them and each vertex one.
        def touches(pixel, vertex):
            return pixel[0] <= vertex[0] <= pixel[0] + 1 and pixel[1] <= vertex[1] <= pixel[1] + 1
        self.assertLessEqual(len(pixels), len(vertices))
        self.assertTrue(all(a != b for a, b in zip(pixels, pixels[1:])), pixels)
        for pixel in pixels:
            self.assertTrue(walkable(AREAS, *pixel))
            self.assertTrue(any(touches(pixel, v) for v in vertices), (pixel, vertices))
        for vertex in vertices:
            self.assertTrue(any(touches(p, vertex) for p in pixels), (vertex, pixels))
        self.assertAlmostEqual(exact.length, sum(math.dist(a, b) for a, b in zip(vertices, vertices[1:])))
        self.assertLessEqual(exact.length, smooth.length + 1e-9)
        # Along the open road: the straight line between the centres.
        road = self.stub.FindPath(pb.FindPathRequest(
            mask="anyangle", start=pb.Point(x=0, y=8), goal=pb.Point(x=9, y=8),
            smoothing=pb.SMOOTHING_ANY_ANGLE), timeout=CALL_TIMEOUT)
        self.assertEqual([(p.x, p.y) for p in road.precise_points], [(0.5, 8.5), (9.5, 8.5)])
        self.assertEqual(road.length, 9.0)
        # Step costs mean nothing to a Euclidean path: refused, naming the field.
        with self.assertRaises(grpc.RpcError) as refused:
            self.stub.FindPath(pb.FindPathRequest(
                smoothing=pb.SMOOTHING_ANY_ANGLE, area_costs={2: 5}, **request),
                timeout=CALL_TIMEOUT)
        self.assertEqual(refused.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(refused.exception.details().startswith("area_costs:"))

    def test_find_path_without_a_path_is_not_an_error(self):
        self.upload("nopath")
        sealed = self.stub.FindPath(pb.FindPathRequest(
            mask="nopath", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=4)),
            timeout=CALL_TIMEOUT)
        self.assertFalse(sealed.found)
        self.assertEqual(len(sealed.points), 0)
        # Only area 1 enabled: the area-2 road is closed, so is the room.
        area1_only = self.stub.FindPath(pb.FindPathRequest(
            mask="nopath", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=2),
            enabled_areas=1 << 1), timeout=CALL_TIMEOUT)
        self.assertFalse(area1_only.found)
        # Snapping ends at a reachable pixel instead, and says which.
        snapped = self.stub.FindPath(pb.FindPathRequest(
            mask="nopath", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=4),
            snap_to_reachable=True, smoothing=pb.SMOOTHING_NONE), timeout=CALL_TIMEOUT)
        self.assertTrue(snapped.found)
        snapped_goal = xy(snapped.goal)
        self.assertNotEqual(snapped_goal, (4, 4))
        self.assertIn((0, 0), bfs_distances(AREAS, snapped_goal))
        self.check_grid_path(snapped, (0, 0), snapped_goal)

    def test_find_path_with_clearance(self):
        # 16x12, open but for a wall at x = 8 with a 2-pixel door (y 1..2)
        # and a 5-pixel one (y 5..9).
        width, height = 16, 12
        areas = [0 if x == 8 and y not in (1, 2, 5, 6, 7, 8, 9) else 1
                 for y in range(height) for x in range(width)]
        self.upload("clear", image=pgm(width, height, areas))
        clearance = 1.5

        def usable(x, y):
            """Brute force: the centre at least `clearance` from every blocked square and the edge."""
            if areas[y * width + x] == 0:
                return False
            cx, cy = x + 0.5, y + 0.5
            if min(cx, cy, width - cx, height - cy) < clearance:
                return False
            for by in range(height):
                for bx in range(width):
                    if areas[by * width + bx] == 0:
                        dx = max(bx - cx, 0, cx - (bx + 1))
                        dy = max(by - cy, 0, cy - (by + 1))
                        if math.hypot(dx, dy) < clearance:
                            return False
            return True

        def steps(start, goal):
            """Four-connected BFS over the usable pixels."""
            seen = {start: 0}
            queue = collections.deque([start])
            while queue:
                x, y = queue.popleft()
                for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= n[0] < width and 0 <= n[1] < height and n not in seen and usable(*n):
                        seen[n] = seen[(x, y)] + 1
                        queue.append(n)
            return seen.get(goal)

        start, goal = (3, 3), (12, 3)
        self.assertTrue(usable(*start) and usable(*goal))
        response = self.stub.FindPath(pb.FindPathRequest(
            mask="clear", start=pb.Point(x=3, y=3), goal=pb.Point(x=12, y=3),
            smoothing=pb.SMOOTHING_NONE, clearance=clearance), timeout=CALL_TIMEOUT)
        self.assertTrue(response.found)
        self.assertEqual(response.reason, pb.PATH_REASON_FOUND)
        points = [xy(p) for p in response.points]
        self.assertTrue(all(usable(*p) for p in points), points)
        self.assertEqual(len(points) - 1, steps(start, goal))  # around by the wide door
        self.assertGreater(len(points) - 1, 9)
        again = self.stub.FindPath(pb.FindPathRequest(
            mask="clear", start=pb.Point(x=3, y=3), goal=pb.Point(x=12, y=3),
            smoothing=pb.SMOOTHING_NONE, clearance=clearance), timeout=CALL_TIMEOUT)
        self.assertTrue(again.cache_hit)
        # A walkable end too close to the edge has its own reason.
        near_edge = self.stub.FindPath(pb.FindPathRequest(
            mask="clear", start=pb.Point(x=0, y=5), goal=pb.Point(x=12, y=3),
            clearance=clearance), timeout=CALL_TIMEOUT)
        self.assertFalse(near_edge.found)
        self.assertEqual(near_edge.reason, pb.PATH_REASON_START_LACKS_CLEARANCE)
        # Negative, NaN and infinite clearances are refused, naming the field.
        for bad in (-1.0, float("nan"), float("inf")):
            details = self.assert_status(
                grpc.StatusCode.INVALID_ARGUMENT, self.stub.FindPath,
                pb.FindPathRequest(mask="clear", start=pb.Point(x=3, y=3),
                                   goal=pb.Point(x=12, y=3), clearance=bad))
            self.assertTrue(details.startswith("clearance:"), details)

    def test_get_field(self):
        """GetField streams the BFS distances as float32 rows, and a flow that walks them down."""
        info = self.upload("field")
        goal = (4, 2)
        chunks = list(self.stub.GetField(pb.GetFieldRequest(
            mask="field", goal=pb.Point(x=goal[0], y=goal[1]), include_flow=True),
            timeout=CALL_TIMEOUT))
        self.assertGreaterEqual(len(chunks), 1)
        rows = 0
        distances, flow = b"", b""
        for chunk in chunks:
            self.assertEqual((chunk.width, chunk.height), (WIDTH, HEIGHT))
            self.assertEqual(chunk.first_row, rows)
            self.assertEqual(chunk.mask_revision, info.revision)
            rows += chunk.row_count
            distances += chunk.distances
            flow += chunk.flow
        self.assertEqual(rows, HEIGHT)
        values = struct.unpack("<%df" % (WIDTH * HEIGHT), distances)
        expected = bfs_distances(AREAS, goal)
        steps = {1: (0, -1), 3: (1, 0), 5: (0, 1), 7: (-1, 0)}  # four-connected: N, E, S, W
        for y in range(HEIGHT):
            for x in range(WIDTH):
                value = values[y * WIDTH + x]
                if (x, y) not in expected:
                    self.assertEqual(value, math.inf)
                    self.assertEqual(flow[y * WIDTH + x], 0)
                    continue
                self.assertEqual(value, expected[(x, y)])
                here, walked = (x, y), 0
                while flow[here[1] * WIDTH + here[0]] != 0:
                    dx, dy = steps[flow[here[1] * WIDTH + here[0]]]
                    here, walked = (here[0] + dx, here[1] + dy), walked + 1
                self.assertEqual((here, walked), (goal, expected[(x, y)]))
        # Cropped and downsampled: the same values, every second pixel of rows 1, 3, ...
        part = list(self.stub.GetField(pb.GetFieldRequest(
            mask="field", goal=pb.Point(x=goal[0], y=goal[1]),
            crop=pb.Rect(x=1, y=1, width=5, height=4), downsample=2), timeout=CALL_TIMEOUT))
        self.assertEqual((part[0].width, part[0].height), (3, 2))
        self.assertTrue(part[0].cache_hit)
        sampled = struct.unpack("<6f", b"".join(c.distances for c in part))
        self.assertEqual(list(sampled), [values[y * WIDTH + x] for y in (1, 3) for x in (1, 3, 5)])
        details = self.assert_status(
            grpc.StatusCode.INVALID_ARGUMENT,
            lambda request, timeout: list(self.stub.GetField(request, timeout=timeout)),
            pb.GetFieldRequest(mask="field", goal=pb.Point(x=0, y=0),
                               crop=pb.Rect(x=WIDTH - 1, y=0, width=2, height=1)))
        self.assertTrue(details.startswith("crop:"), details)

    def test_get_range(self):
        """GetRange streams a bitmap and float32 costs over the range's bounds: BFS distances <= the budget."""
        info = self.upload("range")
        start, budget = (4, 2), 5.5
        chunks = list(self.stub.GetRange(pb.GetRangeRequest(
            mask="range", start=pb.Point(x=start[0], y=start[1]), max_cost=budget,
            include_costs=True), timeout=CALL_TIMEOUT))
        self.assertGreaterEqual(len(chunks), 1)
        expected = {p: d for p, d in bfs_distances(AREAS, start).items() if d <= budget}
        bounds = chunks[0].bounds
        self.assertEqual(bounds.x, min(x for x, _ in expected))
        self.assertEqual(bounds.y, min(y for _, y in expected))
        self.assertEqual(bounds.x + bounds.width - 1, max(x for x, _ in expected))
        self.assertEqual(bounds.y + bounds.height - 1, max(y for _, y in expected))
        row_bytes = (bounds.width + 7) // 8
        rows = 0
        for chunk in chunks:
            self.assertEqual(chunk.first_row, rows)
            self.assertEqual(chunk.pixel_count, len(expected))
            self.assertEqual(chunk.mask_revision, info.revision)
            costs = struct.unpack("<%df" % (chunk.row_count * bounds.width), chunk.costs)
            for r in range(chunk.row_count):
                for i in range(bounds.width):
                    p = (bounds.x + i, bounds.y + rows + r)
                    bit = (chunk.in_range[r * row_bytes + i // 8] >> (i % 8)) & 1
                    self.assertEqual(bit, 1 if p in expected else 0, p)
                    self.assertEqual(costs[r * bounds.width + i], expected.get(p, math.inf), p)
            rows += chunk.row_count
        self.assertEqual(rows, bounds.height)
        # A budget must be finite and > 0.
        details = self.assert_status(
            grpc.StatusCode.INVALID_ARGUMENT,
            lambda request, timeout: list(self.stub.GetRange(request, timeout=timeout)),
            pb.GetRangeRequest(mask="range", start=pb.Point(x=4, y=2), max_cost=0))
        self.assertTrue(details.startswith("max_cost:"), details)

    def test_prepare_mask(self):
        """PrepareMask streams each stage to fraction 1; preparing again finds every stage cached."""
        info = self.upload("prepared")
        request = pb.PrepareMaskRequest(mask="prepared", any_angle=True, labels=True,
                                        nearest=True, clearance=1.5)
        messages = list(self.stub.PrepareMask(request, timeout=CALL_TIMEOUT))
        self.assertTrue(messages[-1].done)
        self.assertEqual(messages[-1].fraction_done, 1.0)
        self.assertEqual(messages[-1].mask_revision, info.revision)
        ended = [m.stage for m in messages if m.fraction_done == 1.0 and not m.done]
        self.assertEqual(ended, [pb.PREPARE_STAGE_USABLE_MASK, pb.PREPARE_STAGE_ANY_ANGLE,
                                 pb.PREPARE_STAGE_LABELS, pb.PREPARE_STAGE_NEAREST])
        again = list(self.stub.PrepareMask(request, timeout=CALL_TIMEOUT))
        self.assertTrue(all(m.cache_hit for m in again if m.fraction_done == 1.0 and not m.done))
        details = self.assert_status(
            grpc.StatusCode.INVALID_ARGUMENT,
            lambda request, timeout: list(self.stub.PrepareMask(request, timeout=timeout)),
            pb.PrepareMaskRequest(mask="prepared"))
        self.assertTrue(details.startswith("any_angle:"), details)
        self.assert_status(
            grpc.StatusCode.NOT_FOUND,
            lambda request, timeout: list(self.stub.PrepareMask(request, timeout=timeout)),
            pb.PrepareMaskRequest(mask="absent", labels=True))
        self.assert_status(
            grpc.StatusCode.FAILED_PRECONDITION,
            lambda request, timeout: list(self.stub.PrepareMask(request, timeout=timeout)),
            pb.PrepareMaskRequest(mask="prepared", labels=True,
                                  expected_revision=info.revision + 1))

    def test_batch_find_paths(self):
        info = self.upload("batch")
        goal = (4, 2)
        starts = [(0, 0), (9, 0), (4, 4), (0, 8), (4, 2)]
        batch = self.stub.BatchFindPaths(pb.BatchFindPathsRequest(
            mask="batch", goal=pb.Point(x=goal[0], y=goal[1]), smoothing=pb.SMOOTHING_NONE,
            starts=[pb.Point(x=x, y=y) for x, y in starts]), timeout=CALL_TIMEOUT)
        self.assertEqual(len(batch.paths), len(starts))
        distances = bfs_distances(AREAS, goal)
        for start, path in zip(starts, batch.paths):
            # What FindPath answers for that start, field for field.
            single = self.stub.FindPath(pb.FindPathRequest(
                mask="batch", start=pb.Point(x=start[0], y=start[1]),
                goal=pb.Point(x=goal[0], y=goal[1]), smoothing=pb.SMOOTHING_NONE),
                timeout=CALL_TIMEOUT)
            path.ClearField("cache_hit")
            single.ClearField("cache_hit")
            self.assertEqual(path, single, "start %s" % (start,))
            self.assertEqual(path.mask_revision, info.revision)
            reachable = walkable(AREAS, *start) and start in distances
            self.assertEqual(path.found, reachable, "start %s" % (start,))
            if reachable:
                self.check_grid_path(path, start, goal)

        details = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.BatchFindPaths,
                                     pb.BatchFindPathsRequest(
                                         mask="batch", goal=pb.Point(x=4, y=2),
                                         starts=[pb.Point(x=0, y=0), pb.Point(x=WIDTH, y=0)]))
        self.assertTrue(details.startswith("starts[1]:"), details)
        details = self.assert_status(
            grpc.StatusCode.INVALID_ARGUMENT, self.stub.BatchFindPaths,
            pb.BatchFindPathsRequest(mask="batch", goal=pb.Point(x=4, y=2)))
        self.assertTrue(details.startswith("starts:"), details)
        details = self.assert_status(grpc.StatusCode.RESOURCE_EXHAUSTED, self.stub.BatchFindPaths,
                                     pb.BatchFindPathsRequest(
                                         mask="batch", goal=pb.Point(x=4, y=2),
                                         starts=[pb.Point(x=0, y=0)] * 10001))
        self.assertIn("--max-batch-starts", details)
        self.assert_status(grpc.StatusCode.FAILED_PRECONDITION, self.stub.BatchFindPaths,
                           pb.BatchFindPathsRequest(mask="batch", goal=pb.Point(x=4, y=2),
                                                    starts=[pb.Point(x=0, y=0)],
                                                    expected_revision=info.revision + 1))

    def test_reachable(self):
        self.upload("reach")

        def pair(a, b):
            return pb.PointPair(a=pb.Point(x=a[0], y=a[1]), b=pb.Point(x=b[0], y=b[1]))

        pairs = [((0, 0), (4, 2)), ((0, 0), (4, 4)), ((4, 4), (5, 4)), ((9, 0), (0, 8))]
        for enabled in (0, 1 << 1):
            response = self.stub.Reachable(pb.ReachableRequest(
                mask="reach", pairs=[pair(a, b) for a, b in pairs], enabled_areas=enabled),
                timeout=CALL_TIMEOUT)
            want = [walkable(AREAS, *a, enabled) and a in bfs_distances(AREAS, b, enabled)
                    for a, b in pairs]
            self.assertEqual(list(response.reachable), want, "enabled %d" % enabled)
            # The level is what we think: the room only by the road, the pocket sealed.
            self.assertEqual(want, [enabled == 0, False, True, enabled == 0])

    def test_line_of_sight(self):
        self.upload("los")

        def supercover(a, b):
            """Pixels whose closed square the segment a-b touches, ordered from a by the
            parameter t where it first touches them, ties row-major (exact fractions)."""
            from fractions import Fraction
            touched = []
            for y in range(min(a[1], b[1]) - 1, max(a[1], b[1]) + 2):
                for x in range(min(a[0], b[0]) - 1, max(a[0], b[0]) + 2):
                    enter, leave = Fraction(0), Fraction(1)
                    for c0, d, p in ((a[0], b[0] - a[0], x), (a[1], b[1] - a[1], y)):
                        if d == 0:
                            if c0 != p:
                                enter, leave = Fraction(1), Fraction(0)
                            continue
                        lo = Fraction(2 * p - 1 - 2 * c0, 2 * d)
                        hi = Fraction(2 * p + 1 - 2 * c0, 2 * d)
                        enter, leave = max(enter, min(lo, hi)), min(leave, max(lo, hi))
                    if enter <= leave:
                        touched.append((enter, y, x))
            return [(x, y) for _, y, x in sorted(touched)]

        pairs = [((0, 0), (9, 0)), ((0, 0), (9, 8)), ((2, 2), (7, 6)), ((9, 8), (0, 0)),
                 ((0, 8), (9, 8)), ((5, 7), (5, 0)), ((3, 4), (3, 4)), ((0, 2), (9, 2))]
        response = self.stub.LineOfSight(pb.LineOfSightRequest(
            mask="los", pairs=[pb.PointPair(a=pb.Point(x=a[0], y=a[1]), b=pb.Point(x=b[0], y=b[1]))
                               for a, b in pairs]), timeout=CALL_TIMEOUT)
        self.assertEqual(len(response.results), len(pairs))
        for (a, b), result in zip(pairs, response.results):
            blocked = [p for p in supercover(a, b) if not walkable(AREAS, *p)]
            self.assertEqual(result.clear, not blocked, (a, b))
            if blocked:
                self.assertEqual(xy(result.first_blocked), blocked[0], (a, b))
            else:
                self.assertFalse(result.HasField("first_blocked"))
        self.assertTrue(response.results[0].clear)  # the top row is open
        details = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.LineOfSight,
                                     pb.LineOfSightRequest(mask="los", pairs=[
                                         pb.PointPair(a=pb.Point(x=0, y=0), b=pb.Point(x=10, y=0))]))
        self.assertTrue(details.startswith("pairs[0].b:"), details)

    def test_nearest_walkable(self):
        self.upload("near")
        points = [(0, 0), (3, 1), (4, 4), (5, 4), (1, 7), (9, 1), (6, 7)]
        for enabled in (0, 1 << 2):
            response = self.stub.NearestWalkable(pb.NearestWalkableRequest(
                mask="near", points=[pb.Point(x=x, y=y) for x, y in points],
                enabled_areas=enabled), timeout=CALL_TIMEOUT)
            for (px, py), result in zip(points, response.results):
                # Exhaustive: smallest squared distance, ties to the first in row-major order.
                best = min(((x - px) ** 2 + (y - py) ** 2, y, x)
                           for y in range(HEIGHT) for x in range(WIDTH)
                           if walkable(AREAS, x, y, enabled))
                self.assertTrue(result.found)
                self.assertEqual(xy(result.point), (best[2], best[1]), (px, py, enabled))
                self.assertAlmostEqual(result.distance, math.sqrt(best[0]))
        # Only pixels reachable from the road: the sealed pocket and the room's inside
        # count only through the door at (5, 7).
        response = self.stub.NearestWalkable(pb.NearestWalkableRequest(
            mask="near", points=[pb.Point(x=4, y=4)], reachable_from=pb.Point(x=0, y=8)),
            timeout=CALL_TIMEOUT)
        reach = bfs_distances(AREAS, (0, 8))
        best = min(((x - 4) ** 2 + (y - 4) ** 2, y, x) for (x, y) in reach)
        self.assertEqual(xy(response.results[0].point), (best[2], best[1]))
        details = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.NearestWalkable,
                                     pb.NearestWalkableRequest(mask="near", points=[
                                         pb.Point(x=1, y=1), pb.Point(x=-1, y=0)]))
        self.assertTrue(details.startswith("points[1]:"), details)

    def walk_route(self, response, start, forbid_corner_cutting=False):
        """Steps a StandardMove answer tile by tile; returns where it ends."""
        x, y = start
        self.assertEqual(xy(response.waypoints[0]), start)
        for i, move in enumerate(response.moves):
            dx, dy = DIRECTION_STEPS[move.direction]
            self.assertGreater(move.steps, 0)
            for _ in range(move.steps):
                self.assertTrue(walkable(AREAS, x + dx, y + dy), "step into a wall")
                if forbid_corner_cutting and dx and dy:
                    self.assertTrue(walkable(AREAS, x + dx, y) and walkable(AREAS, x, y + dy))
                x, y = x + dx, y + dy
            self.assertEqual(xy(response.waypoints[i + 1]), (x, y))
        return (x, y)

    def test_standard_move(self):
        self.upload("tiles")
        straight = self.stub.StandardMove(pb.StandardMoveRequest(
            mask="tiles", start=pb.Point(x=0, y=0), goal=pb.Point(x=0, y=8)), timeout=CALL_TIMEOUT)
        self.assertTrue(straight.found)
        self.assertEqual([(m.direction, m.steps) for m in straight.moves], [(pb.DIRECTION_S, 8)])
        # Around the corner: no single move, so two through a node.
        corner = self.stub.StandardMove(pb.StandardMoveRequest(
            mask="tiles", start=pb.Point(x=0, y=0), goal=pb.Point(x=9, y=8),
            forbid_corner_cutting=True), timeout=CALL_TIMEOUT)
        self.assertTrue(corner.found)
        self.assertEqual(self.walk_route(corner, (0, 0), True), (9, 8))
        self.assertEqual(len(corner.nodes), 1)
        self.assertEqual(xy(corner.node), xy(corner.nodes[0]))
        sealed = self.stub.StandardMove(pb.StandardMoveRequest(
            mask="tiles", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=4), max_moves=3),
            timeout=CALL_TIMEOUT)
        self.assertFalse(sealed.found)

    def test_patch_mask(self):
        info = self.upload("patched")
        # Open the pocket's roof at (4, 3): the pocket joins the room.
        patched = self.stub.PatchMask(pb.PatchMaskRequest(
            name="patched", expected_revision=info.revision, x=4, y=3, width=1, height=1,
            areas=bytes([1])), timeout=CALL_TIMEOUT)
        self.assertGreater(patched.revision, info.revision)
        areas = list(AREAS)
        areas[3 * WIDTH + 4] = 1
        self.assertEqual(patched.sha256, hashlib.sha256(bytes(areas)).hexdigest())
        now = self.stub.FindPath(pb.FindPathRequest(
            mask="patched", start=pb.Point(x=0, y=0), goal=pb.Point(x=4, y=4)),
            timeout=CALL_TIMEOUT)
        self.assertTrue(now.found)
        self.assertEqual(now.mask_revision, patched.revision)
        # A second editor still holding the old revision is refused, not merged.
        self.assert_status(grpc.StatusCode.FAILED_PRECONDITION, self.stub.PatchMask,
                           pb.PatchMaskRequest(name="patched", expected_revision=info.revision,
                                               x=4, y=3, width=1, height=1, areas=bytes([0])))

    def test_watch_mask(self):
        info = self.upload("watched")
        watch = self.stub.WatchMask(pb.WatchMaskRequest(mask="watched"), timeout=CALL_TIMEOUT)
        current = next(watch)
        self.assertEqual(current.kind, pb.MASK_CHANGE_KIND_CURRENT)
        self.assertEqual(current.revision, info.revision)
        self.assertEqual(current.sha256, info.sha256)
        patched = self.stub.PatchMask(pb.PatchMaskRequest(
            name="watched", x=4, y=3, width=1, height=1, areas=bytes([1])), timeout=CALL_TIMEOUT)
        change = next(watch)
        self.assertEqual(change.kind, pb.MASK_CHANGE_KIND_PATCH)
        self.assertEqual(change.revision, patched.revision)
        self.assertEqual((change.changed.x, change.changed.y, change.changed.width,
                          change.changed.height), (4, 3, 1, 1))
        self.stub.DeleteMask(pb.DeleteMaskRequest(name="watched"), timeout=CALL_TIMEOUT)
        self.assertEqual(next(watch).kind, pb.MASK_CHANGE_KIND_DELETE)
        watch.cancel()
        with self.assertRaises(grpc.RpcError) as caught:
            next(watch)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.CANCELLED)
        unknown = self.stub.WatchMask(pb.WatchMaskRequest(mask="no-such"), timeout=CALL_TIMEOUT)
        with self.assertRaises(grpc.RpcError) as caught:
            next(unknown)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)

    def test_delete_mask(self):
        self.upload("doomed")
        self.stub.DeleteMask(pb.DeleteMaskRequest(name="doomed"), timeout=CALL_TIMEOUT)
        self.assert_status(grpc.StatusCode.NOT_FOUND, self.stub.GetMask,
                           pb.GetMaskRequest(name="doomed"))
        listed = self.stub.ListMasks(pb.ListMasksRequest(), timeout=CALL_TIMEOUT)
        self.assertNotIn("doomed", [m.name for m in listed.masks])

    def test_error_codes(self):
        self.upload("errors")
        self.assert_status(grpc.StatusCode.NOT_FOUND, self.stub.FindPath,
                           pb.FindPathRequest(mask="no-such-mask", start=pb.Point(),
                                              goal=pb.Point()))
        self.assert_status(grpc.StatusCode.NOT_FOUND, self.stub.DeleteMask,
                           pb.DeleteMaskRequest(name="no-such-mask"))
        # INVALID_ARGUMENT names the field at fault.
        details = self.assert_status(
            grpc.StatusCode.INVALID_ARGUMENT, self.stub.FindPath,
            pb.FindPathRequest(mask="errors", start=pb.Point(x=WIDTH, y=0), goal=pb.Point()))
        self.assertIn("start", details)
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.UploadMask,
                           pb.UploadMaskRequest(name="garbage", image=b"not an image"))
        details = self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.UploadMask,
                                     pb.UploadMaskRequest(name="", image=pgm(1, 1, [1])))
        self.assertIn("name", details)
        self.assert_status(grpc.StatusCode.INVALID_ARGUMENT, self.stub.PatchMask,
                           pb.PatchMaskRequest(name="errors", x=WIDTH, y=0, width=1, height=1,
                                               areas=bytes([1])))


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the pathfinder-server binary")
    parser.add_argument("--proto-dir", required=True, help="the folder holding pathfinding/v1/")
    parser.add_argument("--protoc", default="protoc", help="the protoc binary (default: on PATH)")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
