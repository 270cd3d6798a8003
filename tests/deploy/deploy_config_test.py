#!/usr/bin/python3
"""Checks deploy/ by reading it (the compose file cannot run in CI: no image
registry): deploy/compose.yaml is valid YAML of the expected shape, and the
nginx template, filled in as compose's nginx image fills it (envsubst of the
variables compose sets), passes `nginx -t`.

    deploy_config_test.py --source-dir REPO [--nginx /usr/sbin/nginx]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args()
    deploy = os.path.join(os.path.abspath(args.source_dir), "deploy")

    with open(os.path.join(deploy, "compose.yaml")) as file:
        compose = yaml.safe_load(file)
    services = compose.get("services", {})
    expected = {"postgres", "replica-1", "replica-2", "replica-3", "nginx"}
    if set(services) != expected:
        fail("compose services are %s, expected %s" % (sorted(services), sorted(expected)))
    if not services["postgres"]["image"].startswith("postgres:15"):
        fail("the database is not PostgreSQL 15: " + services["postgres"]["image"])
    for name in ("replica-1", "replica-2", "replica-3"):
        replica = services[name]
        entrypoint = " ".join(replica["entrypoint"])
        if "--store postgres" not in entrypoint:
            fail("%s does not run on the PostgreSQL store: %s" % (name, entrypoint))
        if "password" in entrypoint or "password" in " ".join(replica.get("command", [])):
            fail("%s has a password on its command line" % name)
        if "PATHFINDER_STORE_CONNINFO" not in replica["environment"]:
            fail("%s gets no PATHFINDER_STORE_CONNINFO" % name)
        if replica.get("ports"):
            fail("%s publishes a port: only nginx should" % name)

    nginx = services["nginx"]
    mounts = [volume.split(":") for volume in nginx["volumes"]]
    template_mounts = [m for m in mounts if m[1].startswith("/etc/nginx/templates/")]
    if len(template_mounts) != 1:
        fail("nginx mounts no template into /etc/nginx/templates/")
    template_path = os.path.normpath(os.path.join(deploy, template_mounts[0][0]))
    if template_path != os.path.join(deploy, "nginx", "pathfinder.conf.template"):
        fail("compose's nginx mounts %s, not the template scripts/cluster uses" % template_path)
    with open(template_path) as file:
        template = file.read()
    placeholders = set(re.findall(r"\$\{(PATHFINDER_[A-Z0-9_]+)\}", template))
    environment = nginx["environment"]
    missing = placeholders - set(environment)
    if missing:
        fail("compose's nginx does not set %s, which the template uses" % sorted(missing))

    # Filled in as the nginx image does (only variables that are set; nginx's
    # own $variables stay), with replica names that resolve here.
    filled = template
    for name in placeholders:
        value = str(environment[name])
        if name.startswith("PATHFINDER_REPLICA_"):
            value = "localhost:" + value.rsplit(":", 1)[1]
        filled = filled.replace("${%s}" % name, value)
    if "$http_x_pathfinder_mask" not in filled:
        fail("the filled template lost nginx's $http_x_pathfinder_mask")
    with tempfile.TemporaryDirectory(prefix="deploy-config-test") as scratch:
        with open(os.path.join(scratch, "pathfinder.conf"), "w") as file:
            file.write(filled)
        with open(os.path.join(scratch, "nginx.conf"), "w") as file:
            file.write("pid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\n"
                       "http { client_body_temp_path %s/body; include %s/pathfinder.conf; }\n"
                       % (scratch, scratch, scratch, scratch))
        result = subprocess.run([args.nginx, "-t", "-p", scratch, "-c",
                                 os.path.join(scratch, "nginx.conf"), "-e",
                                 os.path.join(scratch, "error.log")],
                                capture_output=True, text=True)
        if result.returncode != 0:
            fail("nginx -t refuses the template as compose fills it:\n" + result.stderr)
    print("deploy config: compose.yaml has the expected shape; the template passes nginx -t")


if __name__ == "__main__":
    main()
