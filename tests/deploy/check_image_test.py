#!/usr/bin/python3
"""Checks scripts/check-image and the Dockerfile without a container engine
(CI has none): check-image runs against a stand-in engine that records its
calls and answers as a healthy container would. It must say when it skips
the FindPath from the host (no built pathfind), run that FindPath when there
is one, and also start the image under an arbitrary uid in group 0; the
Dockerfile must give the data directory to group 0 with mode 0770.

    check_image_test.py --source-dir REPO
"""

import argparse
import os
import re
import stat
import subprocess
import sys
import tempfile

# The stand-in engine: logs each call, one line, and answers the questions
# check-image asks (running? healthy?) as for a healthy container.
FAKE_ENGINE = """#!/bin/sh
echo "$*" >> "$FAKE_ENGINE_LOG"
case "$*" in
  *State.Running*) echo true ;;
  *State.Health.Status*) echo healthy ;;
esac
exit 0
"""

# A built pathfind on the host, as far as check-image can tell.
FAKE_CLI = """#!/bin/sh
echo "$*" >> "$FAKE_ENGINE_LOG"
exit 0
"""


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def write_executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        file.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def run_check_image(source_dir, work, build_dir):
    log = os.path.join(work, "calls.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, ENGINE=os.path.join(work, "engine"), IMAGE="pathfinder:test",
               PORT="50999", BUILD_DIR=build_dir, FAKE_ENGINE_LOG=log)
    result = subprocess.run([os.path.join(source_dir, "scripts", "check-image"), "--no-build"],
                            env=env, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        fail("check-image exited %d\n%s%s" % (result.returncode, result.stdout, result.stderr))
    with open(log) as file:
        return result.stdout + result.stderr, file.read().splitlines()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    source_dir = os.path.abspath(args.source_dir)

    with tempfile.TemporaryDirectory(prefix="pathfinder-check-image-") as work:
        write_executable(os.path.join(work, "engine"), FAKE_ENGINE)

        # No build on the host: the host's FindPath is skipped, and it says so.
        output, calls = run_check_image(source_dir, work, os.path.join(work, "no-build"))
        if "skipped FindPath from the host" not in output:
            fail("check-image did not say it skipped the host's FindPath:\n" + output)
        if "OK (pathfinder:test" not in output:
            fail("check-image did not finish with OK:\n" + output)
        runs = [call for call in calls if call.startswith("run ")]
        if len(runs) != 2:
            fail("expected two containers started, got:\n" + "\n".join(runs))
        if not any(re.search(r"--user \d+:0 ", run) for run in runs):
            fail("no container started under an arbitrary uid in group 0:\n" + "\n".join(runs))
        for run in runs:
            for flag in ("--read-only", "--cap-drop ALL", "--security-opt no-new-privileges"):
                if flag not in run:
                    fail("a container started without %s: %s" % (flag, run))

        # With a built pathfind the host's FindPath runs, and nothing is skipped.
        build_dir = os.path.join(work, "build")
        write_executable(os.path.join(build_dir, "client", "pathfind"), FAKE_CLI)
        output, calls = run_check_image(source_dir, work, build_dir)
        if "skipped" in output:
            fail("check-image skipped with a built pathfind:\n" + output)
        if not any(call.startswith("--server 127.0.0.1:50999") and " find demo " in call
                   for call in calls):
            fail("the host's pathfind was not asked for a FindPath:\n" + "\n".join(calls))

    # The data directory: owner 10001, group 0, mode 0770, in every stage that makes it.
    with open(os.path.join(source_dir, "Dockerfile")) as file:
        dockerfile = file.read()
    made = re.findall(r"install -d ([^\\\n]*)/var/lib/pathfinder/data", dockerfile)
    if not made:
        fail("the Dockerfile does not create /var/lib/pathfinder/data")
    for options in made:
        if options.split() != ["-o", "10001", "-g", "0", "-m", "0770"]:
            fail("the data directory is made with '%s', not -o 10001 -g 0 -m 0770" % options)
    print("ok: check-image says when it skips the host check; the image runs under uid:0")


if __name__ == "__main__":
    main()
