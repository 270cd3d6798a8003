#!/usr/bin/python3
"""Checks the first two commands a newcomer types: `make run` builds only the
server and the CLI (the tests and benchmarks are `make test`'s, which still
builds everything), read from `make -n`; and configuring the project prints
no "Could NOT find" for a package that is there (it configures a build of
the server and the CLI in a scratch directory).

    make_run_test.py --source-dir REPO --cmake CMAKE
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def builds(source_dir, target, build_dir):
    """The `cmake --build` lines `make -n TARGET` would run."""
    result = subprocess.run(["make", "-n", target, "BUILD_DIR=" + build_dir], cwd=source_dir,
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        fail("make -n %s exited %d\n%s" % (target, result.returncode, result.stderr))
    return [line for line in result.stdout.splitlines() if line.startswith("cmake --build ")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--cmake", default="cmake")
    args = parser.parse_args()
    source_dir = os.path.abspath(args.source_dir)

    with tempfile.TemporaryDirectory(prefix="pathfinder-make-run-") as work:
        build_dir = os.path.join(work, "build")
        run = builds(source_dir, "run", build_dir)
        if not run:
            fail("make run builds nothing")
        for line in run:
            targets = re.search(r"--target (.*)$", line)
            if not targets or sorted(targets.group(1).split()) != ["pathfind", "pathfinder-server"]:
                fail("make run builds more than the server and the CLI: " + line)
        test = builds(source_dir, "test", build_dir)
        if not test or any("--target" in line for line in test):
            fail("make test does not build everything: %s" % test)

        configure = subprocess.run(
            [args.cmake, "-S", source_dir, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
             "-DPATHFINDER_BUILD_TESTS=OFF", "-DPATHFINDER_BUILD_BENCH=OFF"],
            capture_output=True, text=True, timeout=300)
        output = configure.stdout + configure.stderr
        if configure.returncode != 0:
            fail("configuring failed:\n" + output)
        missing = [line for line in output.splitlines() if "Could NOT find" in line]
        if missing:
            fail("configuring says:\n" + "\n".join(missing))
    print("ok: make run builds the server and the CLI only; configuring is quiet")


if __name__ == "__main__":
    main()
