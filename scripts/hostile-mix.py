#!/usr/bin/python3
"""The hostile part of scripts/soak: for --seconds, against a running server,

  - 100 GetMask include_areas calls whose clients never read the answers
    (HTTP/2 window 0), held open throughout;
  - four callers in turn: StandardMove with three moves between random open
    pixels; Reachable with an enabled_areas value never asked before (areas
    the level lacks: they must share one labelling); LineOfSight with 99,000
    short pairs and NearestWalkable with 100,000 points (work that grows with
    the request, on the compute pool), all on --mask;
  - every 0.2 s, bytes that are not a request, to each RPC in turn;
  - 20 GetField streams (1x1 crops, distinct goals) whose client never reads
    them: answered (or refused RESOURCE_EXHAUSTED), and ended by the server
    after --stalled-stream-timeout;
  - every 10 s, a BatchFindPaths whose answer would pass the message limit:
    RESOURCE_EXHAUSTED.

Passes (exit 0) when every well-formed call succeeded, every malformed one
was INVALID_ARGUMENT and the stalled connections stayed up. Prints a JSON
summary either way. Needs Debian's python3-grpcio, python3-protobuf, python3-h2.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "support"))
import pathfinder_testing  # noqa: E402
from pathfinder_testing import StalledReader, raw_call  # noqa: E402

RPCS = ["UploadMask", "PatchMask", "DeleteMask", "GetMask", "ListMasks", "FindPath",
        "Reachable", "StandardMove"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="the server's port on 127.0.0.1")
    parser.add_argument("--mask", required=True, help="a stored mask to query")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--proto-dir", required=True)
    parser.add_argument("--protoc", default="protoc")
    args = parser.parse_args()
    pb, pb_grpc = pathfinder_testing.generate_stubs(args.protoc, args.proto_dir,
                                                    tempfile.mkdtemp(prefix="hostile-stubs-"))
    channel = grpc.insecure_channel("127.0.0.1:%d" % args.port)
    stub = pb_grpc.PathfinderStub(channel)
    info = stub.GetMask(pb.GetMaskRequest(name=args.mask, include_areas=True), timeout=60)
    open_pixels = [(i % info.width, i // info.width) for i in range(0, len(info.areas), 101)
                   if info.areas[i]]

    readers = [StalledReader(args.port) for _ in range(2)]
    stalled = pb.GetMaskRequest(name=args.mask, include_areas=True).SerializeToString()
    for reader in readers:
        for _ in range(50):
            reader.call("GetMask", stalled)

    fields = StalledReader(args.port)
    rng = random.Random(7)
    for x, y in rng.sample(open_pixels, 20):
        fields.call("GetField", pb.GetFieldRequest(
            mask=args.mask, goal=pb.Point(x=x, y=y),
            crop=pb.Rect(x=0, y=0, width=1, height=1)).SerializeToString())

    sight = pb.LineOfSightRequest(mask=args.mask, pairs=[
        pb.PointPair(a=pb.Point(x=x, y=y), b=pb.Point(x=x + 19, y=y))
        for x, y in ((rng.randrange(info.width - 20), rng.randrange(info.height))
                     for _ in range(99000))]).SerializeToString()
    nearest = pb.NearestWalkableRequest(mask=args.mask, points=[
        pb.Point(x=rng.randrange(info.width), y=rng.randrange(info.height))
        for _ in range(100000)]).SerializeToString()

    deadline = time.monotonic() + args.seconds
    counts = {"standard_move": 0, "reachable": 0, "line_of_sight": 0, "nearest": 0,
              "malformed": 0, "over_limit_batch": 0}
    failures = []
    lock = threading.Lock()

    def heavy(kind, seed):
        rng = random.Random(seed)
        calls = 0
        while time.monotonic() < deadline and calls < 10000:
            calls += 1
            try:
                if kind in ("line_of_sight", "nearest"):
                    rpc, payload = (("LineOfSight", sight) if kind == "line_of_sight"
                                    else ("NearestWalkable", nearest))
                    error, code = raw_call(channel, rpc, payload, timeout=120)
                    if code != grpc.StatusCode.OK:
                        raise error
                elif kind == "standard_move":
                    a, b = rng.sample(open_pixels, 2)
                    stub.StandardMove(pb.StandardMoveRequest(
                        mask=args.mask, start=pb.Point(x=a[0], y=a[1]),
                        goal=pb.Point(x=b[0], y=b[1]), max_moves=3), timeout=120)
                else:
                    enabled = (1 << 1) | (rng.getrandbits(62) << 2)  # area 1 and others
                    stub.Reachable(pb.ReachableRequest(
                        mask=args.mask, enabled_areas=enabled,
                        pairs=[pb.PointPair(a=pb.Point(x=0, y=0), b=pb.Point(x=1, y=1))]),
                        timeout=120)
                with lock:
                    counts[kind] += 1
            except grpc.RpcError as error:
                with lock:
                    failures.append("%s: %s %s" % (kind, error.code().name, error.details()))

    def over_limit_batches():
        # Thousands of long paths: far more than the 64 MiB message limit.
        starts = [pb.Point(x=x, y=y) for x, y in random.Random(9).sample(open_pixels, 8000)]
        far = max(open_pixels, key=lambda p: p[0] + p[1])
        request = pb.BatchFindPathsRequest(mask=args.mask, goal=pb.Point(x=far[0], y=far[1]),
                                           smoothing=pb.SMOOTHING_NONE, starts=starts)
        while time.monotonic() < deadline:
            try:
                stub.BatchFindPaths(request, timeout=120)
                code = grpc.StatusCode.OK
            except grpc.RpcError as error:
                code = error.code()
            with lock:
                if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    counts["over_limit_batch"] += 1
                else:
                    failures.append("over-limit BatchFindPaths: %s" % code.name)
            time.sleep(min(10, max(0, deadline - time.monotonic())))

    threads = [threading.Thread(target=heavy, args=(kind, seed))
               for seed, kind in enumerate(["standard_move", "reachable", "line_of_sight",
                                            "nearest"])]
    threads.append(threading.Thread(target=over_limit_batches))
    for thread in threads:
        thread.start()
    turn = 0
    while time.monotonic() < deadline:
        rpc = RPCS[turn % len(RPCS)]
        turn += 1
        _, code = raw_call(channel, rpc, b"\x0a\xff\xff", timeout=30)
        if code == grpc.StatusCode.INVALID_ARGUMENT:
            counts["malformed"] += 1
        else:
            failures.append("malformed %s: %s" % (rpc, code.name))
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    if any(reader.closed for reader in readers):
        failures.append("a stalled connection was closed by the server")
    answered = sum(reader.answered() for reader in readers)
    # Refused at the budget, or ended as stalled.
    expected = {grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], grpc.StatusCode.CANCELLED.value[0]}
    field_statuses = [s for s in fields.statuses.values() if s not in expected]
    if len(fields.headers_seen | fields.resets) < 20 or field_statuses:
        failures.append("stalled GetField streams: %d answered, %d reset, statuses %s"
                        % (fields.answered(), len(fields.resets), field_statuses))
    if fields.closed:
        failures.append("the stalled GetField connection was closed by the server")
    for reader in readers + [fields]:
        reader.close()
    print(json.dumps({"calls": counts, "stalled_answered": answered,
                      "stalled_fields": {"answered": fields.answered(),
                                         "ended": len(fields.statuses) + len(fields.resets)},
                      "failures": failures[:20]}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
