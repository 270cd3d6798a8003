#!/usr/bin/python3
"""The HTTP gateway (--http-listen) against the real server, next to gRPC.

    /usr/bin/python3 tests/e2e/http_gateway_test.py \\
        --server build/server/pathfinder-server --proto-dir proto --source-dir .

Each test class starts the real server on 127.0.0.1 (ports chosen by the
kernel) and always stops it. What it asserts:
  - every unary RPC, and grpc.health.v1.Health/Check, answers over Connect
    (JSON and binary) and gRPC-Web (binary and text) what it answers over
    gRPC; GetField, PrepareMask and GetRange stream the same messages;
  - errors: Connect's HTTP statuses and JSON bodies (not_found 404, a
    malformed JSON body invalid_argument naming the field, unknown methods
    404, wrong content types 415, unsupported encodings unimplemented), the
    gRPC-Web trailers, tokens (unauthenticated 401, permission_denied 403);
  - deadlines (Connect-Timeout-Ms, grpc-timeout) end heavy calls;
  - CORS preflights and answers for allowed origins only;
  - a body over the limit is refused (429) before it is sent; a client that
    goes away cancels its call; connections beyond --http-max-connections
    are answered 503;
  - /metrics counts connect and grpc-web calls under their transport, and
    the call logs name the HTTP client as peer, which a gRPC client cannot fake;
  - GET / serves the viewer when it is built in, else 404; other methods 405;
  - every curl example of docs/api.md runs against the server as written.
Needs Debian's python3-grpcio, python3-protobuf and curl.
"""

import argparse
import base64
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import pathfinder_testing  # noqa: E402
from pathfinder_testing import (CONNECT_CODES, GRPC_CODES, Server, envelope,  # noqa: E402
                                http_request, split_envelopes)

ARGS = None
pb = None
pb_grpc = None
json_format = None

SERVICE = "/pathfinding.v1.Pathfinder/"
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
PROTOCOLS = ["connect-json", "connect-proto", "grpc-web", "grpc-web-text"]


def grid_mask(width, height, wall_x=None):
    """Open ground with a vertical wall at wall_x (a gap at the top row)."""
    grid = bytearray([1]) * (width * height)
    if wall_x is not None:
        for y in range(1, height):
            grid[y * width + wall_x] = 0
    return bytes(grid)


def cup_grid(width, height, left, right, top, bottom):
    """Open ground with a 2-pixel U-shaped wall: a StandardMove from inside the
    cup to below it needs three moves, a search of over a second on full HD."""
    grid = bytearray([1]) * (width * height)
    for y in range(top, bottom + 2):
        for x in (left, left + 1, right, right + 1):
            grid[y * width + x] = 0
    for y in (bottom, bottom + 1):
        for x in range(left, right + 2):
            grid[y * width + x] = 0
    return bytes(grid)


def decode_text(text):
    """A gRPC-Web text body: base64, possibly several padded pieces in a row
    (a stream encodes each message on its own)."""
    text = text.replace(b"\r", b"").replace(b"\n", b"")
    return b"".join(base64.b64decode(text[i:i + 4]) for i in range(0, len(text), 4))


class RawMessage:
    """A message as its bytes (for the health service, which has no stubs here)."""

    def __init__(self, data=b""):
        self.data = data

    def SerializeToString(self):
        return self.data

    @classmethod
    def FromString(cls, data):
        return cls(data)

    def __eq__(self, other):
        return isinstance(other, RawMessage) and self.data == other.data

    def __repr__(self):
        return "RawMessage(%r)" % self.data


def call_http(port, protocol, path, request, answer_type, headers=None, streaming=False,
              timeout=60):
    """Calls `path` with the message `request` over `protocol`; returns
    (grpc.StatusCode, [answer messages], error message, HTTP status, headers)."""
    headers = dict(headers or {})
    raw = request.SerializeToString()
    if protocol.startswith("connect"):
        as_json = protocol == "connect-json"
        payload = json_format.MessageToJson(request).encode() if as_json else raw
        if streaming:
            headers["Content-Type"] = "application/connect+" + ("json" if as_json else "proto")
            status, got, body = http_request(port, "POST", path, envelope(payload), headers,
                                             timeout=timeout)
            if status != 200:
                return None, [], body.decode(errors="replace"), status, got
            messages, code, message = [], grpc.StatusCode.UNKNOWN, "no end of stream"
            for flags, data in split_envelopes(body):
                if flags & 0x02:
                    end = json.loads(data)
                    error = end.get("error")
                    code = CONNECT_CODES[error["code"]] if error else grpc.StatusCode.OK
                    message = error.get("message", "") if error else ""
                elif as_json:
                    messages.append(json_format.Parse(data, answer_type()))
                else:
                    messages.append(answer_type.FromString(data))
            return code, messages, message, status, got
        headers["Content-Type"] = "application/json" if as_json else "application/proto"
        status, got, body = http_request(port, "POST", path, payload, headers, timeout=timeout)
        if status != 200:
            error = json.loads(body)
            return CONNECT_CODES[error["code"]], [], error.get("message", ""), status, got
        answer = json_format.Parse(body, answer_type()) if as_json else answer_type.FromString(body)
        return grpc.StatusCode.OK, [answer], "", status, got
    text = protocol == "grpc-web-text"
    headers["Content-Type"] = "application/grpc-web-text" if text else "application/grpc-web+proto"
    headers.setdefault("X-Grpc-Web", "1")
    body = envelope(raw)
    status, got, answer = http_request(port, "POST", path,
                                       base64.b64encode(body) if text else body, headers,
                                       timeout=timeout)
    if status != 200:
        return None, [], answer.decode(errors="replace"), status, got
    if text:
        answer = decode_text(answer)
    messages, code, message = [], grpc.StatusCode.UNKNOWN, "no trailers"
    for flags, data in split_envelopes(answer):
        if flags & 0x80:
            trailers = dict(line.split(":", 1) for line in data.decode().split("\r\n") if line)
            code = GRPC_CODES[int(trailers["grpc-status"])]
            message = trailers.get("grpc-message", "")
        else:
            messages.append(answer_type.FromString(data))
    return code, messages, message, status, got


class GatewayTestCase(unittest.TestCase):
    """One server per class, with --http-listen and metrics."""

    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="pathfinder-http-")
        cls.server = Server(ARGS.server, cls.workdir, cls.server_args, metrics=True, http=True)
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = pb_grpc.PathfinderStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.server.stop()
        shutil.rmtree(cls.workdir, ignore_errors=True)

    @property
    def port(self):
        return self.server.http_port


class ServiceOverHttpTest(GatewayTestCase):

    server_args = ("--seed-mask", "demo=" + os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "demo.png"))

    def upload(self, name, width=64, height=48, wall_x=20):
        return self.stub.UploadMask(pb.UploadMaskRequest(
            name=name, image=grid_mask(width, height, wall_x), format=pb.MASK_FORMAT_RAW,
            width=width, height=height), timeout=60)

    def queries(self):
        """(rpc, request, answer type) of every read-only unary RPC."""
        p = pb.Point
        return [
            ("GetMask", pb.GetMaskRequest(name="shared", include_areas=True), pb.MaskInfo),
            ("ListMasks", pb.ListMasksRequest(), pb.ListMasksResponse),
            ("FindPath", pb.FindPathRequest(mask="shared", start=p(x=1, y=40), goal=p(x=60, y=40)),
             pb.FindPathResponse),
            ("FindPath", pb.FindPathRequest(mask="demo", start=p(x=20, y=20), goal=p(x=600, y=340),
                                            smoothing=pb.SMOOTHING_ANY_ANGLE),
             pb.FindPathResponse),
            ("Reachable", pb.ReachableRequest(mask="shared", pairs=[
                pb.PointPair(a=p(x=1, y=1), b=p(x=60, y=47)),
                pb.PointPair(a=p(x=1, y=1), b=p(x=20, y=30))]), pb.ReachableResponse),
            ("StandardMove", pb.StandardMoveRequest(mask="shared", start=p(x=1, y=40),
                                                    goal=p(x=60, y=40), max_moves=3),
             pb.StandardMoveResponse),
            ("BatchFindPaths", pb.BatchFindPathsRequest(
                mask="shared", starts=[p(x=1, y=40), p(x=5, y=5)], goal=p(x=60, y=40)),
             pb.BatchFindPathsResponse),
            ("LineOfSight", pb.LineOfSightRequest(mask="shared", pairs=[
                pb.PointPair(a=p(x=1, y=40), b=p(x=60, y=40)),
                pb.PointPair(a=p(x=1, y=1), b=p(x=10, y=1))]), pb.LineOfSightResponse),
            ("NearestWalkable", pb.NearestWalkableRequest(mask="shared", points=[
                p(x=20, y=30), p(x=3, y=3)]), pb.NearestWalkableResponse),
        ]

    def grpc_answer(self, rpc, request):
        return getattr(self.stub, rpc)(request, timeout=60)

    def test_every_unary_query_answers_as_over_grpc(self):
        self.upload("shared")
        for rpc, request, answer_type in self.queries():
            self.grpc_answer(rpc, request)  # warm: cache_hit is true from now on
            expected = self.grpc_answer(rpc, request)
            for protocol in PROTOCOLS:
                with self.subTest(rpc=rpc, protocol=protocol):
                    code, answers, message, _, _ = call_http(
                        self.port, protocol, SERVICE + rpc, request, answer_type)
                    self.assertEqual(code, grpc.StatusCode.OK, message)
                    self.assertEqual(answers, [expected])

    def test_writes_answer_as_over_grpc(self):
        def normal(info, name):
            info.name = name
            info.revision = 1  # every write takes the store's next revision
            return info
        reference = normal(self.upload("write-grpc"), "write-grpc")
        patch = pb.PatchMaskRequest(name="write-grpc", x=2, y=2, width=2, height=2,
                                    areas=b"\x00\x00\x00\x00")
        patched = normal(self.stub.PatchMask(patch, timeout=60), "write-grpc")
        deleted = self.stub.DeleteMask(pb.DeleteMaskRequest(name="write-grpc"), timeout=60)
        for protocol in PROTOCOLS:
            name = "write-" + protocol
            with self.subTest(protocol=protocol):
                request = pb.UploadMaskRequest(name=name, image=grid_mask(64, 48, 20),
                                               format=pb.MASK_FORMAT_RAW, width=64, height=48)
                code, answers, message, _, _ = call_http(self.port, protocol, SERVICE + "UploadMask",
                                                         request, pb.MaskInfo)
                self.assertEqual(code, grpc.StatusCode.OK, message)
                self.assertEqual([normal(a, "write-grpc") for a in answers], [reference])
                patch.name = name
                code, answers, message, _, _ = call_http(self.port, protocol, SERVICE + "PatchMask",
                                                         patch, pb.MaskInfo)
                self.assertEqual(code, grpc.StatusCode.OK, message)
                self.assertEqual([normal(a, "write-grpc") for a in answers], [patched])
                code, answers, message, _, _ = call_http(
                    self.port, protocol, SERVICE + "DeleteMask", pb.DeleteMaskRequest(name=name),
                    pb.DeleteMaskResponse)
                self.assertEqual(code, grpc.StatusCode.OK, message)
                self.assertEqual(answers, [deleted])

    def test_health_check(self):
        for service in ["", "pathfinding.v1.Pathfinder"]:
            # HealthCheckRequest{service} by hand (field 1, a string), as the
            # stubs made here cover pathfinding.proto only.
            request = RawMessage(b"\x0a" + bytes([len(service)]) + service.encode()
                                 if service else b"")
            for protocol in PROTOCOLS:
                with self.subTest(protocol=protocol, service=service):
                    if protocol == "connect-json":
                        body = json.dumps({"service": service} if service else {}).encode()
                        status, _, answer = http_request(self.port, "POST", HEALTH_CHECK, body,
                                                         {"Content-Type": "application/json"})
                        self.assertEqual(status, 200)
                        self.assertEqual(json.loads(answer), {"status": "SERVING"})
                        continue
                    code, answers, message, _, _ = call_http(self.port, protocol, HEALTH_CHECK,
                                                             request, RawMessage)
                    self.assertEqual(code, grpc.StatusCode.OK, message)
                    # HealthCheckResponse{status: SERVING}
                    self.assertEqual(answers, [RawMessage(b"\x08\x01")])

    def test_streams_answer_as_over_grpc(self):
        self.upload("streamed", width=300, height=200, wall_x=150)
        p = pb.Point
        calls = [
            ("GetField", pb.GetFieldRequest(mask="streamed", goal=p(x=290, y=190)),
             pb.FieldChunk),
            ("GetField", pb.GetFieldRequest(mask="demo", goal=p(x=600, y=340), downsample=3,
                                            include_flow=True), pb.FieldChunk),
            ("PrepareMask", pb.PrepareMaskRequest(mask="streamed", labels=True, nearest=True,
                                                  any_angle=True), pb.PrepareProgress),
            ("GetRange", pb.GetRangeRequest(mask="demo", start=p(x=20, y=20), max_cost=600,
                                            include_costs=True), pb.RangeChunk),
        ]
        for rpc, request, answer_type in calls:
            list(getattr(self.stub, rpc)(request, timeout=60))  # warm
            expected = list(getattr(self.stub, rpc)(request, timeout=60))
            self.assertGreater(len(expected), 0)
            for protocol in PROTOCOLS:
                with self.subTest(rpc=rpc, protocol=protocol):
                    code, answers, message, status, headers = call_http(
                        self.port, protocol, SERVICE + rpc, request, answer_type, streaming=True)
                    self.assertEqual(code, grpc.StatusCode.OK, message)
                    self.assertEqual(status, 200)
                    self.assertEqual(answers, expected)

    def test_stream_errors_end_the_stream(self):
        request = pb.GetFieldRequest(mask="absent", goal=pb.Point(x=1, y=1))
        for protocol in PROTOCOLS:
            with self.subTest(protocol=protocol):
                code, answers, message, status, _ = call_http(
                    self.port, protocol, SERVICE + "GetField", request, pb.FieldChunk,
                    streaming=True)
                self.assertEqual(status, 200)  # streams report errors at their end
                self.assertEqual(code, grpc.StatusCode.NOT_FOUND)
                self.assertIn("absent", message)
                self.assertEqual(answers, [])

    def test_connect_errors(self):
        json_type = {"Content-Type": "application/json"}
        status, headers, body = http_request(self.port, "POST", SERVICE + "GetMask",
                                             b'{"name":"absent"}', json_type)
        self.assertEqual(status, 404)
        self.assertEqual(headers["content-type"], "application/json")
        self.assertEqual(json.loads(body)["code"], "not_found")
        self.assertIn("absent", json.loads(body)["message"])
        # A malformed body: invalid_argument naming the field, or the position.
        status, _, body = http_request(self.port, "POST", SERVICE + "FindPath",
                                       b'{"mask":"demo","strat":{"x":1}}', json_type)
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["code"], "invalid_argument")
        self.assertIn("strat", json.loads(body)["message"])
        status, _, body = http_request(self.port, "POST", SERVICE + "FindPath",
                                       b'{"mask":"demo","start":{"x":"one"}}', json_type)
        self.assertEqual(status, 400)
        self.assertIn("x", json.loads(body)["message"])
        status, _, body = http_request(self.port, "POST", SERVICE + "FindPath", b'{"mask":', json_type)
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["code"], "invalid_argument")
        # Binary that is not a request.
        status, _, body = http_request(self.port, "POST", SERVICE + "FindPath", b"\xff\xff\xff",
                                       {"Content-Type": "application/proto"})
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["code"], "invalid_argument")
        # Unknown method: 404 (Connect's routing), unimplemented.
        status, _, body = http_request(self.port, "POST", SERVICE + "FindTreasure", b"{}", json_type)
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(body)["code"], "unimplemented")
        # Content types: none served, a stream's to a unary method, a unary one to a stream.
        status, headers, _ = http_request(self.port, "POST", SERVICE + "FindPath", b"{}",
                                          {"Content-Type": "text/plain"})
        self.assertEqual(status, 415)
        self.assertIn("application/json", headers["accept-post"])
        status, _, _ = http_request(self.port, "POST", SERVICE + "FindPath", envelope(b"{}"),
                                    {"Content-Type": "application/connect+json"})
        self.assertEqual(status, 415)
        status, _, _ = http_request(self.port, "POST", SERVICE + "GetField", b"{}", json_type)
        self.assertEqual(status, 415)
        # Protocol headers.
        status, _, body = http_request(self.port, "POST", SERVICE + "ListMasks", b"{}",
                                       dict(json_type, **{"Connect-Protocol-Version": "2"}))
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["code"], "invalid_argument")
        status, _, body = http_request(self.port, "POST", SERVICE + "ListMasks", b"{}",
                                       dict(json_type, **{"Connect-Protocol-Version": "1"}))
        self.assertEqual(status, 200)
        status, headers, body = http_request(self.port, "POST", SERVICE + "ListMasks",
                                             b"\x1f\x8b\x08\x00",
                                             dict(json_type, **{"Content-Encoding": "gzip"}))
        self.assertEqual(status, 501)
        self.assertEqual(json.loads(body)["code"], "unimplemented")
        self.assertNotIn("content-encoding", headers)
        status, _, body = http_request(self.port, "POST", SERVICE + "ListMasks", b"{}",
                                       dict(json_type, **{"Connect-Timeout-Ms": "soon"}))
        self.assertEqual(status, 400)

    def test_grpc_web_errors_are_trailers(self):
        code, answers, message, status, _ = call_http(
            self.port, "grpc-web", SERVICE + "GetMask", pb.GetMaskRequest(name="absent"),
            pb.MaskInfo)
        self.assertEqual((status, code, answers), (200, grpc.StatusCode.NOT_FOUND, []))
        self.assertIn("absent", message)
        code, _, _, status, _ = call_http(self.port, "grpc-web-text", SERVICE + "FindTreasure",
                                          pb.GetMaskRequest(), pb.MaskInfo)
        self.assertEqual((status, code), (200, grpc.StatusCode.UNIMPLEMENTED))

    def test_deadlines_end_heavy_calls(self):
        # Full HD with a wall: a cold field takes well over a millisecond.
        self.stub.UploadMask(pb.UploadMaskRequest(
            name="hd", image=grid_mask(1920, 1080, 960), format=pb.MASK_FORMAT_RAW,
            width=1920, height=1080), timeout=60)
        for goal_x in [1900, 1901]:
            request = pb.FindPathRequest(mask="hd", start=pb.Point(x=1, y=1000),
                                         goal=pb.Point(x=goal_x, y=1000 + goal_x % 2))
            status, _, body = http_request(self.port, "POST", SERVICE + "FindPath",
                                           json_format.MessageToJson(request).encode(),
                                           {"Content-Type": "application/json",
                                            "Connect-Timeout-Ms": "1"})
            if goal_x == 1900:
                self.assertEqual(status, 504, body)
                self.assertEqual(json.loads(body)["code"], "deadline_exceeded")
            else:
                code, _, _, _, _ = call_http(self.port, "grpc-web", SERVICE + "FindPath", request,
                                             pb.FindPathResponse, {"Grpc-Timeout": "1m"})
                self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED)

    def test_body_over_the_limit_is_refused_before_it_is_sent(self):
        # FindPath takes at most --max-query-kb (4096 KiB): announce 5 MiB,
        # send none of it, and the answer comes anyway.
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"POST " + SERVICE.encode() + b"FindPath HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/proto\r\nContent-Length: 5242880\r\n\r\n")
            answer = s.recv(65536)
        head, _, body = answer.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 429"), head)
        self.assertEqual(json.loads(body)["code"], "resource_exhausted")
        # Chunked: refused once the chunks pass the limit.
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"POST " + SERVICE.encode() + b"FindPath HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/proto\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n" % (1 << 20) + b"\x00" * (1 << 20) + b"\r\n"
            try:
                for _ in range(8):
                    s.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer = s.recv(65536)
        self.assertTrue(answer.startswith(b"HTTP/1.1 429"), answer[:200])

    def test_a_client_that_goes_away_cancels_its_call(self):
        self.stub.UploadMask(pb.UploadMaskRequest(
            name="cup", image=cup_grid(1920, 1080, 700, 1220, 200, 900),
            format=pb.MASK_FORMAT_RAW, width=1920, height=1080), timeout=60)
        body = json.dumps({"mask": "cup", "start": {"x": 961, "y": 800},
                           "goal": {"x": 960, "y": 1000}, "maxMoves": 3}).encode()
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        s.sendall(b"POST " + SERVICE.encode() + b"StandardMove HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
                  + body)
        time.sleep(0.2)
        s.close()  # before the answer
        deadline = time.monotonic() + 30
        cancelled = []
        while time.monotonic() < deadline and not cancelled:
            cancelled = [line for line in self.server.read_log().splitlines()
                         if "StandardMove failed: CANCELLED" in line and "mask=\"cup\"" in line
                         or "StandardMove failed: CANCELLED" in line and "mask=cup" in line]
            time.sleep(0.05)
        self.assertTrue(cancelled, "the server did not see the call cancelled")
        self.assertRegex(cancelled[0], r'transport="?connect')

    def test_oversized_headers_are_refused(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"POST " + SERVICE.encode() + b"ListMasks HTTP/1.1\r\nHost: x\r\n"
                      b"X-Padding: " + b"a" * (32 * 1024) + b"\r\n\r\n")
            answer = s.recv(65536)
        self.assertTrue(answer.startswith(b"HTTP/1.1 431"), answer[:100])

    def test_http_methods_and_static_files(self):
        status, _, _ = http_request(self.port, "GET", "/no-such-file.js")
        self.assertEqual(status, 404)
        status, headers, _ = http_request(self.port, "PUT", "/")
        self.assertEqual(status, 405)
        status, headers, body = http_request(self.port, "GET", "/")
        viewer = os.path.join(ARGS.source_dir, "server", "http", "viewer", "index.html")
        if os.path.exists(viewer):
            self.assertEqual(status, 200)
            self.assertTrue(headers["content-type"].startswith("text/html"))
            self.assertEqual(headers["cache-control"], "no-cache")
            self.assertEqual(headers["x-content-type-options"], "nosniff")
            with open(viewer, "rb") as f:
                self.assertEqual(body, f.read())
        else:
            self.assertEqual(status, 404)

    def test_metrics_count_calls_by_transport(self):
        def counted(transport):
            text = self.server.metrics()
            pattern = (r'pathfinder_requests_total\{rpc="ListMasks",code="OK",transport="%s"\} (\d+)'
                       % transport)
            found = re.search(pattern, text)
            return int(found.group(1)) if found else 0
        before = {t: counted(t) for t in ["grpc", "connect", "grpc-web"]}
        for protocol in PROTOCOLS:
            call_http(self.port, protocol, SERVICE + "ListMasks", pb.ListMasksRequest(),
                      pb.ListMasksResponse)
        self.stub.ListMasks(pb.ListMasksRequest(), timeout=10)
        after = {t: counted(t) for t in ["grpc", "connect", "grpc-web"]}
        self.assertEqual(after["connect"] - before["connect"], 2)
        self.assertEqual(after["grpc-web"] - before["grpc-web"], 2)
        self.assertEqual(after["grpc"] - before["grpc"], 1)
        text = self.server.metrics()
        self.assertIn('pathfinder_request_duration_seconds_count{rpc="ListMasks",transport="connect"}',
                      text)

    def test_logs_name_the_http_client(self):
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.connect()
        client_port = connection.sock.getsockname()[1]
        connection.request("POST", SERVICE + "GetMask", b'{"name":"logged-absent"}',
                           {"Content-Type": "application/json"})
        self.assertEqual(connection.getresponse().status, 404)
        connection.close()
        # A gRPC client cannot pass itself off as another peer.
        with self.assertRaises(grpc.RpcError):
            self.stub.GetMask(pb.GetMaskRequest(name="spoofed-absent"), timeout=10, metadata=[
                ("x-pathfinder-origin-peer", "ipv4:6.6.6.6:666"),
                ("x-pathfinder-origin-transport", "connect"),
                ("x-pathfinder-origin-secret", "0" * 64)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            log = self.server.read_log()
            lines = [line for line in log.splitlines() if "logged-absent" in line]
            spoofed = [line for line in log.splitlines() if "spoofed-absent" in line]
            if lines and spoofed:
                break
            time.sleep(0.05)
        self.assertTrue(lines, "no log line of the HTTP call")
        self.assertRegex(lines[0], r'peer="?ipv4:127\.0\.0\.1:%d\b' % client_port)
        self.assertRegex(lines[0], r'transport="?connect\b')
        self.assertTrue(spoofed, "no log line of the gRPC call")
        self.assertNotIn("6.6.6.6", spoofed[0])
        self.assertRegex(spoofed[0], r'transport="?grpc"?( |$)')


class AuthOverHttpTest(GatewayTestCase):

    @classmethod
    def setUpClass(cls):
        cls.tokens = tempfile.mkdtemp(prefix="pathfinder-http-tokens-")
        for role in ["admin", "client"]:
            with open(os.path.join(cls.tokens, role), "w") as f:
                f.write(role + "-secret-token\n")
        cls.server_args = ("--admin-token-file", os.path.join(cls.tokens, "admin"),
                           "--client-token-file", os.path.join(cls.tokens, "client"))
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.tokens, ignore_errors=True)

    def test_tokens_decide_as_over_grpc(self):
        upload = pb.UploadMaskRequest(name="authed", image=grid_mask(8, 8),
                                      format=pb.MASK_FORMAT_RAW, width=8, height=8)
        for protocol in PROTOCOLS:
            with self.subTest(protocol=protocol):
                code, _, _, status, _ = call_http(self.port, protocol, SERVICE + "ListMasks",
                                                  pb.ListMasksRequest(), pb.ListMasksResponse)
                self.assertEqual(code, grpc.StatusCode.UNAUTHENTICATED)
                if protocol.startswith("connect"):
                    self.assertEqual(status, 401)
                client = {"Authorization": "Bearer client-secret-token"}
                code, _, _, _, _ = call_http(self.port, protocol, SERVICE + "ListMasks",
                                             pb.ListMasksRequest(), pb.ListMasksResponse, client)
                self.assertEqual(code, grpc.StatusCode.OK)
                code, _, _, status, _ = call_http(self.port, protocol, SERVICE + "UploadMask",
                                                  upload, pb.MaskInfo, client)
                self.assertEqual(code, grpc.StatusCode.PERMISSION_DENIED)
                if protocol.startswith("connect"):
                    self.assertEqual(status, 403)
                admin = {"Authorization": "Bearer admin-secret-token"}
                code, _, message, _, _ = call_http(self.port, protocol, SERVICE + "UploadMask",
                                                   upload, pb.MaskInfo, admin)
                self.assertEqual(code, grpc.StatusCode.OK, message)
        # Health stays open.
        status, _, _ = http_request(self.port, "POST", HEALTH_CHECK, b"{}",
                                    {"Content-Type": "application/json"})
        self.assertEqual(status, 200)


class CorsTest(GatewayTestCase):

    server_args = ("--http-allow-origin", "https://viewer.example",
                   "--http-allow-origin", "http://localhost:5173")

    def test_preflight_and_answers_for_allowed_origins_only(self):
        preflight = {"Origin": "https://viewer.example", "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type,connect-protocol-version"}
        status, headers, _ = http_request(self.port, "OPTIONS", SERVICE + "FindPath",
                                          headers=preflight)
        self.assertEqual(status, 204)
        self.assertEqual(headers["access-control-allow-origin"], "https://viewer.example")
        self.assertIn("POST", headers["access-control-allow-methods"])
        allowed = headers["access-control-allow-headers"].lower()
        for header in ["content-type", "connect-protocol-version", "connect-timeout-ms",
                       "grpc-timeout", "x-grpc-web", "x-user-agent", "authorization",
                       "x-pathfinder-mask"]:
            self.assertIn(header, allowed)
        for header in ["grpc-status", "grpc-message", "grpc-status-details-bin"]:
            self.assertIn(header, headers["access-control-expose-headers"].lower())
        self.assertIn("access-control-max-age", headers)

        status, headers, _ = http_request(self.port, "OPTIONS", SERVICE + "FindPath",
                                          headers=dict(preflight, Origin="https://evil.example"))
        self.assertEqual(status, 204)
        self.assertFalse([h for h in headers if h.startswith("access-control-")], headers)

        for origin, allowed in [("http://localhost:5173", True), ("https://evil.example", False)]:
            status, headers, _ = http_request(self.port, "POST", SERVICE + "ListMasks", b"{}",
                                              {"Content-Type": "application/json",
                                               "Origin": origin})
            self.assertEqual(status, 200)
            self.assertEqual(headers.get("access-control-allow-origin"),
                             origin if allowed else None)


class ConnectionLimitTest(GatewayTestCase):

    server_args = ("--http-max-connections", "2")

    def test_connections_beyond_the_bound_are_answered_503(self):
        held = [socket.create_connection(("127.0.0.1", self.port), timeout=10) for _ in range(2)]
        try:
            # The two held are being served (their requests answered) ...
            for s in held:
                s.sendall(b"GET /none HTTP/1.1\r\nHost: x\r\n\r\n")
                self.assertTrue(s.recv(65536).startswith(b"HTTP/1.1 404"))
            # ... a third is refused at once.
            with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
                answer = s.recv(65536)
            self.assertTrue(answer.startswith(b"HTTP/1.1 503"), answer)
        finally:
            for s in held:
                s.close()
        # Room again once they closed.
        deadline = time.monotonic() + 10
        while True:
            status, _, _ = http_request(self.port, "GET", "/none")
            if status == 404 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(status, 404)


class CurlExamplesTest(GatewayTestCase):
    """docs/api.md's curl examples, run as written against this server."""

    server_args = ("--seed-mask", "demo=" + os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "demo.png"))

    def examples(self):
        """(rpc, shell command, documented keys) of each example in docs/api.md's HTTP section."""
        with open(os.path.join(ARGS.source_dir, "docs", "api.md")) as f:
            text = f.read()
        start = text.index("## Over HTTP: Connect, gRPC-Web and curl")
        section = text[start:]
        following = re.search(r"\n## ", section[3:])
        if following:
            section = section[:following.start() + 3]
        out = []
        for block in re.findall(r"```sh\n(.*?)```", section, re.S):
            command = block.replace("\\\n", " ").strip()
            if "curl" not in command:
                continue
            rpc = re.search(r"/(?:pathfinding\.v1\.Pathfinder|grpc\.health\.v1\.Health)/(\w+)",
                            command).group(1)
            keys = re.findall(r"^# keys: (.*)$", block, re.M)
            out.append((rpc, command, keys[0].split() if keys else []))
        return out

    def test_every_rpc_has_an_example_that_runs(self):
        examples = self.examples()
        documented = {rpc for rpc, _, _ in examples}
        for method in pb.DESCRIPTOR.services_by_name["Pathfinder"].methods:
            self.assertIn(method.name, documented)
        self.assertIn("Check", documented)
        curl = shutil.which("curl")
        if curl is None:
            self.skipTest("curl is not installed (scripts/install-deps --dev)")
        for rpc, command, keys in examples:
            with self.subTest(rpc=rpc):
                command = command.replace("127.0.0.1:8080", "127.0.0.1:%d" % self.port)
                run = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                     capture_output=True, timeout=60)
                self.assertEqual(run.returncode, 0, run.stderr.decode(errors="replace"))
                output = run.stdout
                if output[:1] in (b"{", b"["):
                    answers = [json.loads(output)]
                    if not keys:
                        self.assertEqual(answers, [{}])  # an empty answer (DeleteMask)
                else:  # an enveloped stream (application/connect+json)
                    answers = []
                    for flags, data in split_envelopes(output):
                        answer = json.loads(data)
                        self.assertNotIn("error", answer, answer)
                        if not flags & 0x02:
                            answers.append(answer)
                self.assertTrue(answers or not keys, output[:200])
                for key in keys:
                    self.assertTrue(any(key in answer for answer in answers),
                                    "%s: no key %s in %s" % (rpc, key, output[:300]))


def main():
    global ARGS, pb, pb_grpc, json_format
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the pathfinder-server binary")
    parser.add_argument("--proto-dir", required=True, help="the folder holding pathfinding/v1/")
    parser.add_argument("--protoc", default="protoc", help="the protoc binary (default: on PATH)")
    parser.add_argument("--source-dir", required=True, help="the repository (docs/api.md, the viewer)")
    ARGS, rest = parser.parse_known_args()
    from google.protobuf import json_format as json_format_module
    json_format = json_format_module
    with pathfinder_testing.temporary_stubs(ARGS.protoc, ARGS.proto_dir) as (pb, pb_grpc):
        program = unittest.main(argv=[sys.argv[0]] + rest, verbosity=2, exit=False)
    sys.exit(0 if program.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
