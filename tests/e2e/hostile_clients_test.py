#!/usr/bin/python3
"""Hostile and careless clients against the real server, measured from outside.

    /usr/bin/python3 tests/e2e/hostile_clients_test.py \\
        --server build/server/pathfinder-server --proto-dir proto

Each test starts the real server on 127.0.0.1 (port chosen by the kernel) and
always stops it. What it asserts:
  - heavy calls (StandardMove with three moves, Reachable on labels never
    computed) kept outstanding do not slow health checks or FindPath cache
    hits (p99 within the issue's targets times LATENCY_SLACK);
  - 200 calls whose clients never read their answers (HTTP/2 window 0) do not
    grow the server's memory by more than 300 MB, and others are served;
  - large answers waiting for slow readers are refused beyond
    --pending-answers-mb;
  - stalled GetField streams are charged for the field (or copy) they keep
    and refused beyond --pending-answers-mb, stalled streams are ended after
    --stalled-stream-timeout, and over-limit BatchFindPaths calls are refused
    with resident memory within (cache + masks + pending answers) x 1.25 + 100 MB;
  - bytes that are not a request answer INVALID_ARGUMENT on every RPC and are
    counted in the metrics;
  - a 63 MiB request of any RPC gets its proper error and raises the server's
    peak memory by less than twice the message limit;
  - over HTTP (--http-listen): 16 clients looping heavy Connect calls do not
    slow gRPC health checks; 200 GetField streams whose clients never read
    the socket stay within the memory bound and are ended after
    --stalled-stream-timeout; a 63 MiB body of a query is refused (429) from
    its Content-Length, without the server reading it.
With --sanitized (a server built with ASan, whose shadow memory and
quarantine make its memory and latency meaningless) the numbers are printed,
not asserted; every status code still is.
Needs Debian's python3-grpcio, python3-protobuf and python3-h2.
"""

import argparse
import json
import os
import random
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
import unittest

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import pathfinder_testing  # noqa: E402
from pathfinder_testing import (Server, StalledReader, envelope, health_check,  # noqa: E402
                                http_request, raw_call)

ARGS = None
pb = None
pb_grpc = None

RPCS = ["UploadMask", "PatchMask", "DeleteMask", "GetMask", "ListMasks", "FindPath",
        "Reachable", "StandardMove"]
HD_WIDTH, HD_HEIGHT = 1920, 1080
MESSAGE_LIMIT = 64 * 1024 * 1024  # the server's default --max-message-mb
# Latency bounds are the targets times this (shared, noisy machines).
LATENCY_SLACK = float(os.environ.get("LATENCY_SLACK", "5"))


def random_grid(width, height, blocked, seed, areas=1):
    """Area ids: 0 (blocked) with probability `blocked`, else one of 1..areas;
    corners kept open (area 1)."""
    rng = random.Random(seed)
    if areas == 1:
        grid = bytearray(1 if rng.random() >= blocked else 0 for _ in range(width * height))
    else:
        grid = bytearray(rng.randint(1, areas) if rng.random() >= blocked else 0
                         for _ in range(width * height))
    for x, y in [(0, 0), (width - 1, height - 1)]:
        grid[y * width + x] = 1
    return bytes(grid)


def serpentine_grid(width, height):
    """Walls on every odd row, open at alternating ends: one path through every row."""
    grid = bytearray([1]) * (width * height)
    for y in range(1, height, 2):
        gap = width - 1 if (y // 2) % 2 == 0 else 0
        for x in range(width):
            if x != gap:
                grid[y * width + x] = 0
    return bytes(grid)


def cup_grid(width, height, left, right, top, bottom):
    """Open ground with a 2-pixel U-shaped wall (a cup open at the top): a
    StandardMove from inside the cup to below it needs three moves, and on
    full HD the three-move search runs into its work cap (over a second)."""
    grid = bytearray([1]) * (width * height)
    for y in range(top, bottom + 2):
        for x in (left, left + 1, right, right + 1):
            grid[y * width + x] = 0
    for y in (bottom, bottom + 1):
        for x in range(left, right + 2):
            grid[y * width + x] = 0
    return bytes(grid)


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("not within %d s: %s" % (timeout, what))


class HostileClientsTest(unittest.TestCase):

    def assertMeasuredBelow(self, value, bound, what=None):
        """assertLess for a latency or memory figure, unless the server is sanitized."""
        if not ARGS.sanitized:
            self.assertLess(value, bound, what)

    def start_server(self, *extra_args, metrics=False, http=False):
        workdir = tempfile.mkdtemp(prefix="pathfinder-hostile-")
        self.addCleanup(shutil.rmtree, workdir, ignore_errors=True)
        server = Server(ARGS.server, workdir, extra_args, metrics=metrics, http=http)
        self.addCleanup(server.stop)
        channel = grpc.insecure_channel(server.address, options=[
            ("grpc.max_receive_message_length", MESSAGE_LIMIT),
            ("grpc.max_send_message_length", MESSAGE_LIMIT)])
        self.addCleanup(channel.close)
        return server, channel, pb_grpc.PathfinderStub(channel)

    def upload_raw(self, stub, name, grid, width, height):
        return stub.UploadMask(pb.UploadMaskRequest(
            name=name, image=grid, format=pb.MASK_FORMAT_RAW, width=width, height=height),
            timeout=60)

    # ------------------------------------------------------------ isolation

    def test_heavy_calls_do_not_slow_health_checks_or_cache_hits(self):
        server, channel, stub = self.start_server(*ARGS.server_args, metrics=True)
        # Every area 1..63 occurs, so each Reachable below (its own set of
        # areas) needs labels of its own.
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=19, areas=63)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        open_pixels = [(i % HD_WIDTH, i // HD_WIDTH) for i in range(0, len(grid), 997) if grid[i]]
        warm = pb.FindPathRequest(mask="hd", start=pb.Point(x=0, y=0),
                                  goal=pb.Point(x=HD_WIDTH - 1, y=HD_HEIGHT - 1))
        stub.FindPath(warm, timeout=60)  # fills the field
        # A first answer can come from the half-built field; "cache hit" here
        # means the whole field is cached, its fill finished.
        wait_until(lambda: re.search(r"^pathfinder_fields_computed_total 1$", server.metrics(),
                                     re.MULTILINE), 60, "the field's fill finished")
        self.assertTrue(stub.FindPath(warm, timeout=60).cache_hit)

        rng = random.Random(5)
        stop = threading.Event()
        in_flight = [0]
        lock = threading.Lock()
        failures = []
        done = [0]

        def heavy_loop(worker):
            for iteration in range(400):  # bounded in count, and by `stop` in time
                if stop.is_set():
                    return
                with lock:
                    in_flight[0] += 1
                try:
                    if worker % 2 == 0:
                        a, b = rng.sample(open_pixels, 2)
                        stub.StandardMove(pb.StandardMoveRequest(
                            mask="hd", start=pb.Point(x=a[0], y=a[1]),
                            goal=pb.Point(x=b[0], y=b[1]), max_moves=3), timeout=120)
                    else:
                        # A new enabled_areas every call, across workers too: labels
                        # never cached (a set seen before would answer at once and
                        # leave fewer heavy calls outstanding).
                        enabled = (1 << 1) | ((worker * 400 + iteration + 1) << 2)
                        pairs = [pb.PointPair(a=pb.Point(x=0, y=0),
                                              b=pb.Point(x=HD_WIDTH - 1, y=HD_HEIGHT - 1))]
                        stub.Reachable(pb.ReachableRequest(
                            mask="hd", pairs=pairs, enabled_areas=enabled), timeout=120)
                    with lock:
                        done[0] += 1
                except grpc.RpcError as error:
                    failures.append("%s: %s" % (error.code(), error.details()))
                finally:
                    with lock:
                        in_flight[0] -= 1

        workers = [threading.Thread(target=heavy_loop, args=(w,)) for w in range(8)]
        for worker in workers:
            worker.start()
        try:
            wait_until(lambda: in_flight[0] >= 8, 30, "8 heavy calls outstanding")
            health_ms, hit_ms, busy_samples = [], [], 0
            for _ in range(100):
                started = time.perf_counter()
                self.assertTrue(health_check(channel))
                health_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                answer = stub.FindPath(warm, timeout=30)
                hit_ms.append((time.perf_counter() - started) * 1000)
                self.assertTrue(answer.cache_hit)
                busy_samples += in_flight[0] >= 4
                time.sleep(0.01)
        finally:
            stop.set()
            for worker in workers:
                worker.join(timeout=300)
        self.assertEqual(failures, [])
        self.assertGreater(done[0], 0)
        # The heavy calls really overlapped the measurement.
        self.assertGreaterEqual(busy_samples, 80, "heavy calls were not outstanding")
        health_p99 = percentile(health_ms, 0.99)
        hit_p99 = percentile(hit_ms, 0.99)
        print("\nwith 8 heavy calls outstanding: health p50 %.1f ms p99 %.1f ms; cache-hit "
              "FindPath p50 %.1f ms p99 %.1f ms; %d heavy calls done"
              % (percentile(health_ms, 0.5), health_p99, percentile(hit_ms, 0.5), hit_p99,
                 done[0]))
        if ARGS.server_args:
            print(server.read_log()[-200000:])
        self.assertMeasuredBelow(health_p99, 20 * LATENCY_SLACK)
        self.assertMeasuredBelow(hit_p99, 30 * LATENCY_SLACK)

    def measure_health_under_flood(self, channel, send, clients, what):
        """Health p50/p99 (ms) over 100 checks while `clients` threads loop send()."""
        stop = threading.Event()
        calls, failures = [0], []
        lock = threading.Lock()

        def flood():
            for _ in range(1000):  # bounded in count, and by `stop` in time
                if stop.is_set():
                    return
                error, code = send()
                with lock:
                    calls[0] += 1
                    if code != grpc.StatusCode.OK:
                        failures.append("%s: %s" % (code, error.details() if error else ""))

        threads = [threading.Thread(target=flood) for _ in range(clients)]
        for thread in threads:
            thread.start()
        health_ms = []
        try:
            wait_until(lambda: calls[0] >= clients, 60, "the flood's first answers")
            for _ in range(100):
                started = time.perf_counter()
                self.assertTrue(health_check(channel))
                health_ms.append((time.perf_counter() - started) * 1000)
                time.sleep(0.01)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=300)
        self.assertEqual(failures, [])
        p50, p99 = percentile(health_ms, 0.5), percentile(health_ms, 0.99)
        print("\n%d clients looping %s: health p50 %.1f ms p99 %.1f ms (%d calls)"
              % (clients, what, p50, p99, calls[0]), end="")
        return p99

    def test_line_of_sight_and_nearest_floods_do_not_slow_health_checks(self):
        # Many short items: each call stays under any per-item bound, and its
        # whole work (decoding 99,000 pairs, walking 2M pixels) is what counts.
        server, channel, stub = self.start_server()
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.2, seed=23)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        rng = random.Random(29)
        pairs = []
        for _ in range(99000):
            x, y = rng.randrange(HD_WIDTH - 20), rng.randrange(HD_HEIGHT)
            pairs.append(pb.PointPair(a=pb.Point(x=x, y=y), b=pb.Point(x=x + 19, y=y)))
        sight = pb.LineOfSightRequest(mask="hd", pairs=pairs).SerializeToString()
        walkable = [i for i in range(0, len(grid), 7) if grid[i]][:100000]
        nearest = pb.NearestWalkableRequest(mask="hd", points=[
            pb.Point(x=i % HD_WIDTH, y=i // HD_WIDTH) for i in walkable]).SerializeToString()
        sight_p99 = self.measure_health_under_flood(
            channel, lambda: raw_call(channel, "LineOfSight", sight), 16,
            "LineOfSight (99,000 pairs of 20 steps)")
        nearest_p99 = self.measure_health_under_flood(
            channel, lambda: raw_call(channel, "NearestWalkable", nearest), 16,
            "NearestWalkable (100,000 walkable points)")
        # The target, 20 ms, with less slack than elsewhere: on gRPC's threads
        # these floods gave p99 of 199 and 59 ms on the 2-core CI machine
        # (8.5 and 9.7 ms on the compute pool).
        bound = 20 * min(LATENCY_SLACK, 2)
        self.assertMeasuredBelow(sight_p99, bound)
        self.assertMeasuredBelow(nearest_p99, bound)

    def test_areas_a_mask_lacks_make_no_new_cold_keys(self):
        server, channel, stub = self.start_server(metrics=True)
        grid = random_grid(1024, 1024, 0.3, seed=31)  # areas 0 and 1 only
        self.upload_raw(stub, "random", grid, 1024, 1024)
        for i in range(20):
            enabled = (1 << 1) | (1 << (2 + i))  # area 1 and one area the mask lacks
            for smoothing in (pb.SMOOTHING_ANY_ANGLE, pb.SMOOTHING_NONE):
                answer = stub.FindPath(pb.FindPathRequest(
                    mask="random", start=pb.Point(x=0, y=0), goal=pb.Point(x=1023, y=1023),
                    enabled_areas=enabled, smoothing=smoothing), timeout=60)
                self.assertTrue(answer.found)
            stub.Reachable(pb.ReachableRequest(mask="random", enabled_areas=enabled, pairs=[
                pb.PointPair(a=pb.Point(x=0, y=0), b=pb.Point(x=1023, y=1023))]), timeout=60)
        wait_until(lambda: re.search(r"^pathfinder_fields_computed_total 1$", server.metrics(),
                                     re.MULTILINE), 60, "the field's fill finished")
        metrics = server.metrics()
        self.assertRegex(metrics, r"(?m)^pathfinder_anyangle_structures_built_total 1$")
        self.assertRegex(metrics, r"(?m)^pathfinder_fields_computed_total 1$")

    def test_a_client_flooding_cold_calls_takes_only_its_share_of_the_compute_pool(self):
        share = 8
        server, channel, stub = self.start_server(
            "--compute-threads", "1", "--max-heavy-per-client", str(share))
        side = 2048
        grid = random_grid(side, side, 0.2, seed=37)
        self.upload_raw(stub, "big", grid, side, side)
        # Walkable goals, far from (0, 0), each a field of its own.
        goals = [pb.Point(x=i % side, y=i // side)
                 for i in range(len(grid) - 1, len(grid) // 2, -4099) if grid[i]]
        # The flood: 270 cold FindPath calls (distinct goals) from another
        # address, 127.0.0.2, whose answers are never read.
        flooders = [StalledReader(server.port, source="127.0.0.2") for _ in range(3)]
        for reader in flooders:
            self.addCleanup(reader.close)
        requests = [pb.FindPathRequest(
            mask="big", start=pb.Point(x=0, y=0), smoothing=pb.SMOOTHING_NONE,
            goal=goal).SerializeToString() for goal in goals[:270]]
        for k, request in enumerate(requests):
            flooders[k % 3].call("FindPath", request)
        # Others are served meanwhile, each at about the cost of one fill:
        # not behind the flood (seconds of fills on the one compute thread).
        probe_ms = []
        for k in range(6):
            started = time.perf_counter()
            answer = stub.FindPath(pb.FindPathRequest(
                mask="big", start=pb.Point(x=0, y=0), smoothing=pb.SMOOTHING_NONE,
                goal=goals[270 + k]), timeout=10)
            probe_ms.append((time.perf_counter() - started) * 1000)
            self.assertTrue(answer.found)
        self.assertTrue(health_check(channel))
        sent = len(requests)
        wait_until(lambda: sum(r.answered() for r in flooders) >= sent, 120,
                   "every call of the flood answered or refused")
        refused = [s for r in flooders for s in r.statuses.values()]
        print("\ncold probes beside a flood of %d cold calls (%d refused): %s ms"
              % (sent, len(refused), " ".join("%.0f" % ms for ms in probe_ms)), end="")
        self.assertEqual(set(refused), {grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]})
        # A burst: most of it finds the client's share full.
        self.assertGreater(len(refused), sent // 2)
        # Queued behind the flood, a probe would wait seconds (256 fills).
        self.assertMeasuredBelow(max(probe_ms), 2000)

    def test_heavy_calls_whose_deadline_passes_stop_at_once(self):
        server, channel, stub = self.start_server("--log-format", "json")
        grid = cup_grid(HD_WIDTH, HD_HEIGHT, left=700, right=1220, top=200, bottom=900)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        calls = []
        for k in range(4):  # distinct requests: none is answered from the route cache
            calls.append(stub.StandardMove.future(pb.StandardMoveRequest(
                mask="hd", start=pb.Point(x=960 + k, y=800), goal=pb.Point(x=960, y=1000),
                max_moves=3), timeout=0.15))
        for call in calls:
            with self.assertRaises(grpc.RpcError) as caught:
                call.result()
            self.assertEqual(caught.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        # The server's own account: each call ended DEADLINE_EXCEEDED soon
        # after its 150 ms, not after a whole three-move search (over a
        # second of CPU in this cup), whether it was running or queued.
        def ended():
            return [json.loads(line) for line in server.read_log().splitlines()
                    if '"rpc":"StandardMove"' in line]
        wait_until(lambda: len(ended()) >= 4, 30, "the server ended 4 StandardMove calls")
        for line in ended():
            self.assertEqual(line["code"], "DEADLINE_EXCEEDED", line)
            self.assertMeasuredBelow(line["latency_ms"], 1000, line)

    # ------------------------------------------------------------ slow readers

    def test_stalled_readers_do_not_pin_memory(self):
        server, channel, stub = self.start_server()
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=3)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        stub.GetMask(pb.GetMaskRequest(name="hd", include_areas=True), timeout=60)
        before_kib = server.memory_kib()
        request = pb.GetMaskRequest(name="hd", include_areas=True).SerializeToString()
        readers = [StalledReader(server.port) for _ in range(4)]
        for reader in readers:
            self.addCleanup(reader.close)
            for _ in range(50):  # under the server's 100 streams per connection
                reader.call("GetMask", request)
        wait_until(lambda: sum(r.answered() for r in readers) >= 200, 60,
                   "the server answered 200 stalled GetMask calls")
        self.assertFalse(any(r.closed for r in readers))
        self.assertEqual([s for r in readers for s in r.statuses.values()], [])
        # Others are served normally meanwhile.
        self.assertTrue(health_check(channel))
        self.assertEqual(stub.GetMask(pb.GetMaskRequest(name="hd"), timeout=10).width, HD_WIDTH)
        found = stub.FindPath(pb.FindPathRequest(
            mask="hd", start=pb.Point(x=0, y=0), goal=pb.Point(x=HD_WIDTH - 1, y=HD_HEIGHT - 1)),
            timeout=30)
        self.assertTrue(found.found)
        grown_mb = (server.memory_kib() - before_kib) / 1024
        print("\n200 stalled GetMask include_areas calls: resident memory grew %.0f MB" % grown_mb)
        self.assertMeasuredBelow(grown_mb, 300)

    def test_large_answers_waiting_for_readers_are_refused_beyond_the_budget(self):
        server, channel, stub = self.start_server("--pending-answers-mb", "16")
        width, height = 1000, 999  # a serpentine of 500 rows: ~500,000 steps
        self.upload_raw(stub, "snake", serpentine_grid(width, height), width, height)
        request = pb.FindPathRequest(mask="snake", start=pb.Point(x=0, y=0),
                                     goal=pb.Point(x=0, y=height - 1),
                                     smoothing=pb.SMOOTHING_NONE)
        answer_bytes = stub.FindPath(request, timeout=60).ByteSize()
        self.assertGreater(answer_bytes, 1 << 20)  # each answer is over 1 MiB
        reader = StalledReader(server.port)
        self.addCleanup(reader.close)
        calls = 40
        for _ in range(calls):
            reader.call("FindPath", request.SerializeToString())
        wait_until(lambda: reader.answered() >= calls, 120, "the server answered every call")
        refused = [s for s in reader.statuses.values() if s == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]]
        kept = calls - len(reader.statuses)
        # What is kept fits the budget; the rest is refused, nothing else.
        self.assertEqual(len(refused), len(reader.statuses), reader.statuses)
        self.assertLessEqual(kept * answer_bytes, 16 << 20)
        self.assertGreater(kept, 0)
        self.assertGreater(len(refused), 0)
        self.assertTrue(health_check(channel))

    # ------------------------------------------------------------ pinned memory

    def memory_bound_mb(self, cache_mb, mask_pixels, pending_mb):
        """The issue's bound on resident memory: (cache + masks + pending answers) x 1.25 + 100 MB."""
        return (cache_mb + mask_pixels / (1 << 20) + pending_mb) * 1.25 + 100

    def open_goals(self, grid, width, count, seed):
        rng = random.Random(seed)
        goals = [(i % width, i // width) for i in rng.sample(range(len(grid)), count * 3)
                 if grid[i]]
        return goals[:count]

    def test_stalled_field_streams_are_charged_for_what_they_pin(self):
        cache_mb, pending_mb = 64, 32
        # Held until the test closes them, however slow a sanitized server fills.
        server, channel, stub = self.start_server("--cache-mb", str(cache_mb),
                                                  "--pending-answers-mb", str(pending_mb),
                                                  "--stalled-stream-timeout", "600")
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=3)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        bound_mb = self.memory_bound_mb(cache_mb, HD_WIDTH * HD_HEIGHT, pending_mb)
        goals = self.open_goals(grid, HD_WIDTH, 140, seed=11)
        before_mb = server.memory_kib() / 1024

        def field_request(goal, crop):
            return pb.GetFieldRequest(mask="hd", goal=pb.Point(x=goal[0], y=goal[1]),
                                      crop=crop).SerializeToString()

        # 1x1 crops, each toward a goal of its own (a cold fill each): the
        # stream needs a few bytes of its field, and must not keep the rest.
        readers = [StalledReader(server.port) for _ in range(3)]
        for reader in readers:
            self.addCleanup(reader.close)
        for k, goal in enumerate(goals[:120]):
            readers[k % 3].call("GetField", field_request(goal, pb.Rect(x=5, y=5, width=1,
                                                                        height=1)))
        wait_until(lambda: sum(r.answered() for r in readers) >= 120, 120,
                   "the server answered 120 stalled 1x1 GetField streams")
        small_mb = server.memory_kib() / 1024
        small_statuses = [s for r in readers for s in r.statuses.values()]
        # Whole fields, toward other goals: each stream pins its field (or a
        # copy as large), so beyond --pending-answers-mb they are refused.
        whole = StalledReader(server.port)
        self.addCleanup(whole.close)
        for goal in goals[120:140]:
            whole.call("GetField", field_request(goal, None))
        wait_until(lambda: whole.answered() >= 20, 120,
                   "the server answered 20 stalled whole-field GetField streams")
        whole_mb = server.memory_kib() / 1024
        exhausted = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        refused = [s for s in whole.statuses.values() if s == exhausted]
        print("\nstalled GetField streams: resident %.0f MB before, %.0f MB with 120 1x1 crops "
              "(%d refused), %.0f MB with 20 whole fields more (%d refused); bound %.0f MB"
              % (before_mb, small_mb, len(small_statuses), whole_mb, len(refused), bound_mb))
        self.assertTrue(all(s == exhausted for s in small_statuses), small_statuses)
        self.assertEqual(len(refused), len(whole.statuses), whole.statuses)
        self.assertGreater(len(refused), 0)
        self.assertLess(len(refused), 20)
        self.assertFalse(any(r.closed for r in readers + [whole]))
        self.assertTrue(health_check(channel))
        refusal = [line for line in server.read_log().splitlines()
                   if "GetField failed: RESOURCE_EXHAUSTED" in line]
        self.assertTrue(any("--pending-answers-mb" in line for line in refusal), refusal[:3])
        self.assertMeasuredBelow(small_mb, bound_mb, "1x1 crops")
        self.assertMeasuredBelow(whole_mb, bound_mb, "whole fields")

    def test_stalled_streams_end_after_the_stall_timeout(self):
        cache_mb, pending_mb = 64, 64
        server, channel, stub = self.start_server(
            "--cache-mb", str(cache_mb), "--pending-answers-mb", str(pending_mb),
            "--stalled-stream-timeout", "2", metrics=True)
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=3)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        bound_mb = self.memory_bound_mb(cache_mb, HD_WIDTH * HD_HEIGHT, pending_mb)
        before_mb = server.memory_kib() / 1024
        reader = StalledReader(server.port)
        self.addCleanup(reader.close)
        streams = []
        for k, goal in enumerate(self.open_goals(grid, HD_WIDTH, 6, seed=12)):
            crop = pb.Rect(x=0, y=0, width=1, height=1) if k % 2 else None
            streams.append(reader.call("GetField", pb.GetFieldRequest(
                mask="hd", goal=pb.Point(x=goal[0], y=goal[1]), crop=crop).SerializeToString()))
        streams.append(reader.call("PrepareMask", pb.PrepareMaskRequest(
            mask="hd", labels=True, nearest=True).SerializeToString()))
        # A movement range over most of the level, with its costs: megabytes of chunks.
        streams.append(reader.call("GetRange", pb.GetRangeRequest(
            mask="hd", start=pb.Point(x=goal[0], y=goal[1]), max_cost=4000,
            include_costs=True).SerializeToString()))
        started = time.monotonic()
        wait_until(lambda: reader.answered() >= len(streams), 60, "the server answered")
        held_mb = server.memory_kib() / 1024
        # Nothing reads them: the server ends each once it made no progress
        # for 2 s (cancelled: its unsent data dropped, CANCELLED or a reset).
        wait_until(lambda: set(streams) <= reader.resets | set(reader.statuses), 30,
                   "the server ended every stalled stream")
        ended_s = time.monotonic() - started
        self.assertFalse(reader.closed)  # the connection stays up
        wait_until(lambda: len(re.findall(r"(GetField|PrepareMask|GetRange) failed: CANCELLED.*"
                                          r"--stalled-stream-timeout", server.read_log()))
                   >= len(streams), 10, "the server logged each stream as stalled")
        after_mb = server.memory_kib() / 1024
        print("\n%d stalled streams ended after %.1f s; resident %.0f MB before, %.0f MB held, "
              "%.0f MB after; bound %.0f MB" % (len(streams), ended_s, before_mb, held_mb, after_mb,
                                                bound_mb))
        self.assertTrue(health_check(channel))
        self.assertMeasuredBelow(held_mb, bound_mb)
        # What is left is the cache's (the fields filled), not the streams'.
        self.assertMeasuredBelow(after_mb - before_mb, cache_mb + 50)

    def test_over_limit_batches_are_refused_within_the_memory_bound(self):
        cache_mb, pending_mb = 64, 64
        server, channel, stub = self.start_server("--cache-mb", str(cache_mb),
                                                  "--pending-answers-mb", str(pending_mb))
        # Many ordinary paths (a few thousand steps each, tens of KB on the
        # wire) whose sum passes the 64 MiB message limit.
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=3)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        bound_mb = self.memory_bound_mb(cache_mb, HD_WIDTH * HD_HEIGHT, pending_mb)
        goal = pb.Point(x=HD_WIDTH - 1, y=HD_HEIGHT - 1)
        starts = [pb.Point(x=x, y=y) for x, y in self.open_goals(grid, HD_WIDTH, 4000, seed=13)]
        request = pb.BatchFindPathsRequest(mask="hd", goal=goal, smoothing=pb.SMOOTHING_NONE,
                                           starts=starts)
        stub.FindPath(pb.FindPathRequest(mask="hd", start=starts[0], goal=goal), timeout=60)
        figures = []
        for calls in (1, 8):
            with open("/proc/%d/clear_refs" % server.process.pid, "w") as f:
                f.write("5")  # resets the peak resident memory (VmHWM)
            before_mb = server.memory_kib() / 1024
            codes, details = [], []

            def call():
                try:
                    stub.BatchFindPaths(request, timeout=120)
                    codes.append(grpc.StatusCode.OK)
                except grpc.RpcError as error:
                    codes.append(error.code())
                    details.append(error.details())
            threads = [threading.Thread(target=call) for _ in range(calls)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            peak_mb = server.memory_kib("VmHWM") / 1024
            time.sleep(1.5)  # the server returns freed memory at most once a second
            after_mb = server.memory_kib() / 1024
            figures.append((calls, before_mb, peak_mb, after_mb))
            print("\n%d over-limit batch(es) at once: %s; resident %.0f MB before, peak %.0f MB, "
                  "%.0f MB after; bound %.0f MB" % (calls, sorted({c.name for c in codes}),
                                                    before_mb, peak_mb, after_mb, bound_mb),
                  end="")
            self.assertEqual(codes, [grpc.StatusCode.RESOURCE_EXHAUSTED] * calls, details)
        self.assertTrue(health_check(channel))
        for calls, before_mb, peak_mb, after_mb in figures:
            self.assertMeasuredBelow(peak_mb, bound_mb, "peak, %d at once" % calls)
            self.assertMeasuredBelow(after_mb, bound_mb, "after, %d at once" % calls)
            self.assertMeasuredBelow(after_mb - figures[0][1], 100, "kept, %d at once" % calls)

    # ------------------------------------------------------------ bad bytes

    def test_undecodable_requests_are_invalid_argument_and_counted(self):
        server, channel, stub = self.start_server(metrics=True)
        garbage = b"\x0a\xff\xff"  # field 1, a length running past the end
        for rpc in RPCS:
            error, code = raw_call(channel, rpc, garbage)
            self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT, rpc)
            self.assertIn("not a valid pathfinding.v1.", error.details(), rpc)
        metrics = server.metrics()
        for rpc in RPCS:
            match = re.search(r'pathfinder_requests_total\{rpc="%s",code="INVALID_ARGUMENT",transport="grpc"\} (\d+)'
                              % rpc, metrics)
            self.assertIsNotNone(match, rpc)
            self.assertGreaterEqual(int(match.group(1)), 1, rpc)
        log = server.read_log()
        for rpc in RPCS:
            self.assertIn("%s failed: INVALID_ARGUMENT" % rpc, log)

    def test_a_63_mib_request_of_any_rpc_is_refused_within_twice_the_limit(self):
        server, channel, stub = self.start_server()
        size = 63 * 1024 * 1024
        expected = {rpc: grpc.StatusCode.RESOURCE_EXHAUSTED for rpc in RPCS}
        requests = {rpc: b"\x12\x00" * (size // 2) for rpc in RPCS}  # empty field-2 records
        # Writes may be that large: they decode, then fail on what they hold.
        requests["UploadMask"] = pb.UploadMaskRequest(
            name="big", image=b"\x00" * size).SerializeToString()
        expected["UploadMask"] = grpc.StatusCode.INVALID_ARGUMENT  # no image format
        requests["PatchMask"] = pb.PatchMaskRequest(  # 8192 x 8064 = 63 MiB of areas
            name="absent", width=8192, height=8064, areas=b"\x01" * size).SerializeToString()
        expected["PatchMask"] = grpc.StatusCode.NOT_FOUND
        codes, peaks = {}, {}
        for rpc in RPCS:
            with open("/proc/%d/clear_refs" % server.process.pid, "w") as f:
                f.write("5")  # resets the peak resident memory (VmHWM)
            before_kib = server.memory_kib("VmRSS")
            error, codes[rpc] = raw_call(channel, rpc, requests[rpc])
            peaks[rpc] = (server.memory_kib("VmHWM") - before_kib) * 1024
            print("\n63 MiB %s request: %s, peak memory +%.0f MiB"
                  % (rpc, codes[rpc].name, peaks[rpc] / (1 << 20)), end="")
        self.assertEqual(codes, expected)
        for rpc in RPCS:
            self.assertMeasuredBelow(peaks[rpc], 2 * MESSAGE_LIMIT, rpc)
        self.assertTrue(health_check(channel))

    # ------------------------------------------------- over HTTP (--http-listen)

    def test_heavy_http_calls_do_not_slow_grpc_health_checks(self):
        server, channel, stub = self.start_server(http=True)
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=19, areas=63)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        open_pixels = [(i % HD_WIDTH, i // HD_WIDTH) for i in range(0, len(grid), 997) if grid[i]]
        rng = random.Random(7)
        sent = [0]
        lock = threading.Lock()

        class HttpFailure:
            def __init__(self, text):
                self.text = text

            def details(self):
                return self.text

        def send():
            # As the gRPC isolation test: StandardMove with three moves, and
            # Reachable on labels never computed, as Connect JSON calls.
            with lock:
                sent[0] += 1
                n = sent[0]
                a, b = rng.sample(open_pixels, 2)
            if n % 2:
                rpc = "StandardMove"
                body = {"mask": "hd", "start": {"x": a[0], "y": a[1]},
                        "goal": {"x": b[0], "y": b[1]}, "maxMoves": 3}
            else:
                rpc = "Reachable"
                body = {"mask": "hd", "enabledAreas": str((1 << 1) | ((n + 1) << 2)),
                        "pairs": [{"a": {"x": 0, "y": 0},
                                   "b": {"x": HD_WIDTH - 1, "y": HD_HEIGHT - 1}}]}
            status, _, answer = http_request(server.http_port, "POST",
                                             "/pathfinding.v1.Pathfinder/" + rpc,
                                             json.dumps(body).encode(),
                                             {"Content-Type": "application/json"}, timeout=120)
            if status == 200:
                return None, grpc.StatusCode.OK
            return HttpFailure("HTTP %d %s" % (status, answer[:200])), grpc.StatusCode.UNKNOWN

        health_p99 = self.measure_health_under_flood(channel, send, 16, "heavy Connect calls")
        print()
        self.assertMeasuredBelow(health_p99, 20 * LATENCY_SLACK)

    def test_stalled_http_field_streams_stay_bounded_and_end_after_the_stall_timeout(self):
        cache_mb, pending_mb, stall_s = 64, 64, 3
        server, channel, stub = self.start_server(
            "--cache-mb", str(cache_mb), "--pending-answers-mb", str(pending_mb),
            "--stalled-stream-timeout", str(stall_s), http=True)
        grid = random_grid(HD_WIDTH, HD_HEIGHT, 0.3, seed=3)
        self.upload_raw(stub, "hd", grid, HD_WIDTH, HD_HEIGHT)
        bound_mb = self.memory_bound_mb(cache_mb, HD_WIDTH * HD_HEIGHT, pending_mb)
        goals = self.open_goals(grid, HD_WIDTH, 20, seed=13)
        before_mb = server.memory_kib() / 1024
        # Whole fields (8 MB of distances each, more than the sockets'
        # buffers hold) over Connect: each client sends its request and never
        # reads its socket.
        sockets = []
        for k in range(200):
            goal = goals[k % len(goals)]
            body = envelope(pb.GetFieldRequest(
                mask="hd", goal=pb.Point(x=goal[0], y=goal[1])).SerializeToString())
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", server.http_port))
            self.addCleanup(s.close)
            s.sendall(b"POST /pathfinding.v1.Pathfinder/GetField HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/connect+proto\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
            sockets.append(s)
        started = time.monotonic()
        held_mb = before_mb

        def ended_streams():
            nonlocal held_mb
            held_mb = max(held_mb, server.memory_kib() / 1024)
            return len(re.findall(r"GetField failed: (CANCELLED|RESOURCE_EXHAUSTED)",
                                  server.read_log()))
        wait_until(lambda: ended_streams() >= len(sockets), 60 + 4 * stall_s,
                   "the server ended every stalled HTTP stream")
        ended_s = time.monotonic() - started
        # Each answer is either refused (an end-of-stream error, the answers
        # beyond --pending-answers-mb) or cut off: the connection closed
        # without the last chunk.
        refused = cut = 0
        for s in sockets:
            s.settimeout(30)
            data = b""
            while not data.endswith(b"0\r\n\r\n"):
                piece = s.recv(1 << 20)
                if not piece:
                    break
                data += piece
            if data.endswith(b"0\r\n\r\n"):
                self.assertIn(b"resource_exhausted", data[-600:])
                refused += 1
            else:
                self.assertTrue(data.startswith(b"HTTP/1.1 200"), data[:100])
                cut += 1
        after_mb = server.memory_kib() / 1024
        print("\n200 stalled HTTP GetField streams: %d refused, %d cut off; all ended after "
              "%.1f s (--stalled-stream-timeout %d); resident %.0f MB before, %.0f MB at most "
              "while held, %.0f MB after; bound %.0f MB"
              % (refused, cut, ended_s, stall_s, before_mb, held_mb, after_mb, bound_mb))
        self.assertGreater(cut, 0)
        self.assertGreaterEqual(ended_s, stall_s)
        self.assertTrue(health_check(channel))
        self.assertMeasuredBelow(held_mb, bound_mb)

    def test_a_63_mib_http_body_is_refused_before_it_is_read(self):
        server, channel, stub = self.start_server(http=True)
        size = 63 * 1024 * 1024
        queries = [rpc for rpc in RPCS if rpc not in ("UploadMask", "PatchMask")]
        for rpc in queries:
            with open("/proc/%d/clear_refs" % server.process.pid, "w") as f:
                f.write("5")  # resets the peak resident memory (VmHWM)
            before_kib = server.memory_kib("VmRSS")
            s = socket.create_connection(("127.0.0.1", server.http_port), timeout=30)
            self.addCleanup(s.close)
            started = time.monotonic()
            s.sendall(b"POST /pathfinding.v1.Pathfinder/%s HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/proto\r\nContent-Length: %d\r\n\r\n"
                      % (rpc.encode(), size))
            sent = [0]

            def send_body(s=s, sent=sent):
                piece = b"\x12\x00" * (1 << 19)  # 1 MiB of empty field-2 records
                try:
                    while sent[0] < size:
                        s.sendall(piece)
                        sent[0] += len(piece)
                except OSError:
                    pass  # the server closed the connection
            sender = threading.Thread(target=send_body)
            sender.start()
            answer = b""
            while b"\r\n\r\n" not in answer:
                piece = s.recv(65536)
                if not piece:
                    break
                answer += piece
            answered_s = time.monotonic() - started
            s.close()
            sender.join(timeout=30)
            peak = (server.memory_kib("VmHWM") - before_kib) * 1024
            print("\n63 MiB %s body over HTTP: %s in %.2f s, %.0f MiB of it sent, peak memory "
                  "+%.0f MiB" % (rpc, answer.split(b"\r\n")[0].decode(), answered_s,
                                 sent[0] / (1 << 20), peak / (1 << 20)), end="")
            self.assertTrue(answer.startswith(b"HTTP/1.1 429"), answer[:200])
            self.assertIn(b"resource_exhausted", answer)
            self.assertLess(sent[0], size, rpc)
            self.assertMeasuredBelow(answered_s, 5)
            self.assertMeasuredBelow(peak, 2 * MESSAGE_LIMIT, rpc)
        print()
        self.assertTrue(health_check(channel))


def main():
    global ARGS, pb, pb_grpc
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the pathfinder-server binary")
    parser.add_argument("--proto-dir", required=True, help="the folder holding pathfinding/v1/")
    parser.add_argument("--protoc", default="protoc", help="the protoc binary (default: on PATH)")
    parser.add_argument("--server-arg", dest="server_args", action="append", default=[],
                        help="(debugging) passed to the server of the isolation test")
    parser.add_argument("--sanitized", action="store_true",
                        help="the server is built with sanitizers: do not assert memory or latency")
    ARGS, rest = parser.parse_known_args()
    with pathfinder_testing.temporary_stubs(ARGS.protoc, ARGS.proto_dir) as (pb, pb_grpc):
        program = unittest.main(argv=[sys.argv[0]] + rest, verbosity=2, exit=False)
    sys.exit(0 if program.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
