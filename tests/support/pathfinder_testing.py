"""What the Python tests share: the real server on loopback, and the stubs.

    from pathfinder_testing import Server, generate_stubs
"""

import os
import shutil
import subprocess
import sys
import time


class Server:
    """The real pathfinder-server on 127.0.0.1 with a port picked at start.

    extra_args are added to its command line. With metrics=True it also
    serves /metrics on 127.0.0.1 (port in self.metrics_port).
    """

    def __init__(self, binary, workdir, extra_args=(), metrics=False):
        self.data_dir = os.path.join(workdir, "data")
        self.port_file = os.path.join(workdir, "port")
        self.metrics_port_file = os.path.join(workdir, "metrics-port")
        self.log_path = os.path.join(workdir, "server.log")
        self.log = open(self.log_path, "wb")
        command = [binary, "--listen", "127.0.0.1:0", "--port-file", self.port_file,
                   "--data-dir", self.data_dir]
        if metrics:
            command += ["--metrics-address", "127.0.0.1:0",
                        "--metrics-port-file", self.metrics_port_file]
        self.process = subprocess.Popen(command + list(extra_args), stdout=self.log,
                                        stderr=subprocess.STDOUT)
        self.port = self._wait_for_port(self.port_file, timeout=60)
        self.metrics_port = self._wait_for_port(self.metrics_port_file, 5) if metrics else None

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
