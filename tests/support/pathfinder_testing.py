"""What the Python tests (and scripts/soak) share: the real server on loopback,
the stubs, raw calls and clients that never read their answers.

    from pathfinder_testing import Server, generate_stubs
"""

import contextlib
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import grpc

SERVICE = "/pathfinding.v1.Pathfinder/"


class Server:
    """The real pathfinder-server on 127.0.0.1 with a port picked at start.

    extra_args are added to its command line. With metrics=True it also
    serves /metrics on 127.0.0.1 (port in self.metrics_port); with http=True
    Connect and gRPC-Web on 127.0.0.1 (--http-listen, port in self.http_port).
    """

    def __init__(self, binary, workdir, extra_args=(), metrics=False, http=False):
        self.data_dir = os.path.join(workdir, "data")
        self.port_file = os.path.join(workdir, "port")
        self.metrics_port_file = os.path.join(workdir, "metrics-port")
        self.http_port_file = os.path.join(workdir, "http-port")
        self.log_path = os.path.join(workdir, "server.log")
        self.log = open(self.log_path, "wb")
        command = [binary, "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                   "--data-dir", self.data_dir]
        if metrics:
            command += ["--metrics-address", "127.0.0.1:0",
                        "--metrics-port-file", self.metrics_port_file]
        if http:
            command += ["--http-listen", "127.0.0.1:0", "--http-port-file", self.http_port_file]
        self.process = subprocess.Popen(command + list(extra_args), stdout=self.log,
                                        stderr=subprocess.STDOUT)
        self.port = self._wait_for_port(self.port_file, timeout=60)
        self.metrics_port = self._wait_for_port(self.metrics_port_file, 5) if metrics else None
        self.http_port = self._wait_for_port(self.http_port_file, 5) if http else None

    @property
    def address(self):
        return "127.0.0.1:%d" % self.port

    def _wait_for_port(self, path, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("server exited with %d:\n%s" % (self.process.returncode,
                                                                   self.read_log()))
            try:
                with open(path) as f:
                    text = f.read()
                if text.endswith("\n"):  # written atomically, once listening
                    return int(text)
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not write %s within %ds" % (path, timeout))

    def memory_kib(self, field="VmRSS"):
        """The server's resident memory now (VmRSS) or at its peak (VmHWM), in KiB."""
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise RuntimeError("no %s in /proc/%d/status" % (field, self.process.pid))

    def metrics(self):
        """The text of GET /metrics."""
        import urllib.request
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.metrics_port,
                                    timeout=10) as answer:
            return answer.read().decode()

    def read_log(self):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: a graceful shutdown
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def generate_stubs(protoc, proto_dir, out_dir):
    """protoc + grpc_python_plugin -> out_dir/pathfinding/v1/pathfinding_pb2{,_grpc}.py.

    Returns the two modules (pathfinding_pb2, pathfinding_pb2_grpc). The same as
    running, in a shell:
      protoc -I proto --python_out=OUT --grpc_python_out=OUT \\
          --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin pathfinding/v1/pathfinding.proto
    """
    os.makedirs(out_dir, exist_ok=True)
    plugin = shutil.which("grpc_python_plugin") or "/usr/bin/grpc_python_plugin"
    subprocess.run(
        [protoc, "-I", proto_dir, "--python_out=" + out_dir, "--grpc_python_out=" + out_dir,
         "--plugin=protoc-gen-grpc_python=" + plugin, "pathfinding/v1/pathfinding.proto"],
        check=True)
    sys.path.insert(0, out_dir)
    from pathfinding.v1 import pathfinding_pb2, pathfinding_pb2_grpc  # noqa: E402
    return pathfinding_pb2, pathfinding_pb2_grpc


@contextlib.contextmanager
def temporary_stubs(protoc, proto_dir):
    """generate_stubs into a temporary folder, removed on leaving: yields the two modules."""
    out_dir = tempfile.mkdtemp(prefix="pathfinder-stubs-")
    try:
        yield generate_stubs(protoc, proto_dir, out_dir)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def raw_call(channel, rpc, payload, timeout=60):
    """Sends `payload` as the request bytes of `rpc`; (answer bytes or error, code)."""
    call = channel.unary_unary(SERVICE + rpc)
    try:
        return call(payload, timeout=timeout), grpc.StatusCode.OK
    except grpc.RpcError as error:
        return error, error.code()


def health_check(channel, timeout=10):
    """grpc.health.v1.Health/Check with an empty request: True when SERVING."""
    answer = channel.unary_unary("/grpc.health.v1.Health/Check")(b"", timeout=timeout)
    return answer == b"\x08\x01"  # HealthCheckResponse{status: SERVING}


def grpc_frame(message):
    return struct.pack(">BI", 0, len(message)) + message


class StalledReader:
    """An HTTP/2 client that sends gRPC requests and never reads the answers.

    Its initial stream window is 0 and it never sends WINDOW_UPDATE, so the
    server can send headers but no answer bytes: every answer stays pending
    in the server. It still acknowledges SETTINGS and answers PINGs (h2 does),
    so the connection stays up. Records each stream's grpc-status when the
    server ends a call without a body (a refusal).
    """

    def __init__(self, port, source=None):
        """source: the local address to connect from (another 127.x.y.z is
        another client to the server)."""
        import h2.config  # python3-h2, only the tests that stall need it
        import h2.connection
        import h2.settings
        self.socket = socket.create_connection(
            ("127.0.0.1", port), source_address=(source, 0) if source else None)
        self.connection = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.connection.initiate_connection()
        self.connection.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
        self.lock = threading.Lock()
        self.headers_seen = set()  # streams whose response headers arrived
        self.statuses = {}  # stream id -> grpc-status of a trailers-only answer
        self.resets = set()  # streams the server reset (RST_STREAM), e.g. ended as stalled
        self.closed = False
        self._flush()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _flush(self):
        data = self.connection.data_to_send()
        if data:
            self.socket.sendall(data)

    def _read(self):
        import h2.events
        import h2.exceptions
        while True:
            try:
                data = self.socket.recv(65536)
            except OSError:
                data = b""
            if not data:
                self.closed = True
                return
            with self.lock:
                try:
                    events = self.connection.receive_data(data)
                except h2.exceptions.ProtocolError:
                    self.closed = True  # after close(): the server's last frames
                    return
                for event in events:
                    if isinstance(event, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
                        self.headers_seen.add(event.stream_id)
                        status = dict(event.headers).get("grpc-status")
                        if status is not None:
                            self.statuses[event.stream_id] = int(status)
                    elif isinstance(event, h2.events.StreamReset):
                        self.resets.add(event.stream_id)
                self._flush()  # SETTINGS acks and PING answers; never a WINDOW_UPDATE

    def call(self, rpc, request_bytes):
        with self.lock:
            stream = self.connection.get_next_available_stream_id()
            self.connection.send_headers(stream, [
                (":method", "POST"), (":scheme", "http"), (":path", SERVICE + rpc),
                (":authority", "127.0.0.1"), ("content-type", "application/grpc"),
                ("te", "trailers")])
            self.connection.send_data(stream, grpc_frame(request_bytes), end_stream=True)
            self._flush()
        return stream

    def answered(self):
        with self.lock:
            return len(self.headers_seen)

    def close(self):
        try:
            self.socket.close()
        except OSError:
            pass


# ------------------------------------------------ the HTTP gateway (--http-listen)

def http_request(port, method, path, body=b"", headers=None, timeout=60, source=None):
    """One HTTP/1.1 request to 127.0.0.1:port: (status, headers with lower-case
    names, body bytes)."""
    import http.client
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def envelope(message, flags=0):
    """A Connect stream or gRPC-Web message: flags, 4-byte big-endian length, bytes."""
    return struct.pack(">BI", flags, len(message)) + message


def split_envelopes(data):
    """[(flags, message)] of a body of enveloped messages; raises on a torn one."""
    out = []
    while data:
        if len(data) < 5:
            raise ValueError("torn envelope: %r" % data)
        flags, length = struct.unpack(">BI", data[:5])
        if len(data) < 5 + length:
            raise ValueError("envelope of %d bytes, %d left" % (length, len(data) - 5))
        out.append((flags, data[5:5 + length]))
        data = data[5 + length:]
    return out


# Connect's code names (connectrpc.com/docs/protocol) -> grpc.StatusCode.
CONNECT_CODES = {("canceled" if code.name == "CANCELLED" else code.name.lower()): code
                 for code in grpc.StatusCode}
GRPC_CODES = {code.value[0]: code for code in grpc.StatusCode}
