#!/usr/bin/python3
"""Checks that the documents say what the code does, where the two are easy to
keep apart by mistake:

- the RPCs that need the client token (every RPC of the proto's Pathfinder
  service but the writes, which the service admits with Access::kWrite) and
  the writes themselves, as README.md's "Authentication", docs/api.md's
  "Roles" (and each RPC's role line there) and `pathfinder-server --help` list
  them;
- the RPCs whose requests are bounded by --max-query-kb (every RPC but those
  whose large field is kept in the received bytes, up to --max-message-mb),
  as README.md's limits table, docs/api.md's error table and
  `pathfinder-server --help` list them;
- every command of `pathfind --help` in README.md's CLI synopsis, and every
  flag of `pathfinder-server --help` in its server synopsis;
- a ghz one-liner for every RPC in README.md, as docs/api.md promises.

The expected sets come from the proto and the server's source, never from the
documents.

    documentation_test.py --source-dir REPO --server BIN --cli BIN
"""

import argparse
import os
import re
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)


def read(path):
    with open(path, encoding="utf-8") as file:
        return file.read()


def proto_rpcs(proto_text):
    """The RPC names of service Pathfinder, in the proto's order."""
    service = re.search(r"^service Pathfinder \{(.*?)^\}", proto_text, re.S | re.M)
    if not service:
        sys.exit("FAIL: no 'service Pathfinder' in the proto")
    names = re.findall(r"^\s*rpc\s+(\w+)\s*\(", service.group(1), re.M)
    if not names:
        sys.exit("FAIL: service Pathfinder has no rpc")
    return names


def server_sources(source_dir):
    texts = []
    for root, _dirs, files in os.walk(os.path.join(source_dir, "server")):
        for name in files:
            if name.endswith((".cc", ".h")):
                texts.append(read(os.path.join(root, name)))
    return "\n".join(texts)


def write_rpcs(server_code, rpcs):
    """RPCs the service admits as writes: `respond(ctx, "UploadMask", Access::kWrite, ...)`."""
    found = set(re.findall(r'"(\w+)",\s*Access::kWrite', server_code))
    if not found or not found <= set(rpcs):
        sys.exit("FAIL: cannot tell the writes from the server's source (found %s)" % sorted(found))
    return found


def large_request_rpcs(server_code, rpcs):
    """RPCs whose requests may use --max-message-mb, not --max-query-kb: the
    requests whose image or grid field is kept in the received bytes
    (kept_field_number), which the HTTP routes mark as large_request too."""
    kept_function = re.search(r"constexpr int kept_field_number\(\)\s*\{(.*?)^\}", server_code,
                              re.S | re.M)
    kept = set(re.findall(r"v1::(\w+)Request::k\w+FieldNumber",
                          kept_function.group(1) if kept_function else ""))
    routes = re.search(r"\.large_request\s*=([^,}]*)", server_code)
    marked = set(re.findall(r'"(\w+)"', routes.group(1))) if routes else set()
    if not kept or kept != marked or not kept <= set(rpcs):
        sys.exit("FAIL: cannot tell the large requests from the server's source "
                 "(kept fields of %s, HTTP large_request %s)" % (sorted(kept), sorted(marked)))
    return kept


def named_rpcs(text, rpcs):
    return {name for name in rpcs if re.search(r"\b%s\b" % name, text)}


def expect_rpcs(where, text, expected, rpcs):
    named = named_rpcs(text, rpcs)
    if named != expected:
        fail("%s: missing %s, wrongly listed %s" %
             (where, sorted(expected - named) or "none", sorted(named - expected) or "none"))


def section(text, heading):
    """The body of a markdown section, from its heading to the next one of any level."""
    match = re.search(r"^#+ %s\s*$(.*?)(?=^#+ |\Z)" % re.escape(heading), text, re.S | re.M)
    if not match:
        fail("no section '%s'" % heading)
        return ""
    return match.group(1)


def first_code_block(text):
    match = re.search(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
    return match.group(1) if match else ""


def bullet(text, start):
    """The markdown list item that begins with `- ` + start, up to the next item."""
    match = re.search(r"^- %s(.*?)(?=^- |^\s*$|\Z)" % re.escape(start), text, re.S | re.M)
    if not match:
        fail("no list item starting with '- %s'" % start)
        return ""
    return match.group(1)


def help_text(binary):
    result = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        sys.exit("FAIL: %s --help exited %d: %s" % (binary, result.returncode, result.stderr))
    return result.stdout


def option_help(help_output, flag):
    """The description of one flag in CLI11's --help (to the next flag's line)."""
    match = re.search(r"^\s+(?:-\w,)?%s\b(.*?)(?=^\s+-|\Z)" % re.escape(flag), help_output,
                      re.S | re.M)
    if not match:
        fail("--help has no %s" % flag)
        return ""
    return match.group(1)


def help_flags(help_output):
    return set(re.findall(r"^\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", help_output, re.M)) - {"--help"}


def cli_commands(help_output):
    """The subcommands `pathfind --help` lists (CLI11: a 'SUBCOMMANDS:' block)."""
    match = re.search(r"^subcommands:\s*$(.*?)(?=^\S|\Z)", help_output, re.S | re.M | re.I)
    commands = re.findall(r"^\s+([a-z][a-z-]*)\b", match.group(1), re.M) if match else []
    if not commands:
        sys.exit("FAIL: no commands found in pathfind --help:\n" + help_output)
    return commands


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--server", required=True, help="pathfinder-server binary")
    parser.add_argument("--cli", required=True, help="pathfind binary")
    args = parser.parse_args()
    source = os.path.abspath(args.source_dir)

    rpcs = proto_rpcs(read(os.path.join(source, "proto/pathfinding/v1/pathfinding.proto")))
    code = server_sources(source)
    writes = write_rpcs(code, rpcs)
    queries = set(rpcs) - writes
    query_limited = set(rpcs) - large_request_rpcs(code, rpcs)

    readme = read(os.path.join(source, "README.md"))
    api = read(os.path.join(source, "docs/api.md"))
    server_help = help_text(args.server)
    cli_help = help_text(args.cli)

    # Who may call what.
    authentication = section(readme, "Authentication")
    expect_rpcs("README.md, Authentication, --admin-token-file",
                bullet(authentication, "`--admin-token-file"), writes, rpcs)
    expect_rpcs("README.md, Authentication, --client-token-file",
                bullet(authentication, "`--client-token-file"), queries, rpcs)
    roles = re.search(r"^\*\*Roles\.\*\*(.*?)^\s*$", api, re.S | re.M)
    roles = roles.group(1) if roles else ""
    if "--client-token-file" not in roles:
        fail("docs/api.md: no **Roles.** paragraph naming --client-token-file")
    admin_part, _, client_part = roles.partition("--client-token-file")
    expect_rpcs("docs/api.md, Roles, admin token", admin_part, writes, rpcs)
    expect_rpcs("docs/api.md, Roles, client token", client_part, queries, rpcs)
    # Each RPC's section in docs/api.md opens with its signature and role.
    for name in rpcs:
        role = re.search(r"^rpc %s\(.*// role: (\w+)" % name, api, re.M)
        expected_role = "admin" if name in writes else "query"
        if not role:
            fail("docs/api.md: no 'rpc %s(...)   // role: %s' line" % (name, expected_role))
        elif role.group(1) != expected_role:
            fail("docs/api.md: %s says role %s, the server checks %s" %
                 (name, role.group(1), expected_role))
    expect_rpcs("pathfinder-server --help, --admin-token-file",
                option_help(server_help, "--admin-token-file"), writes, rpcs)
    expect_rpcs("pathfinder-server --help, --client-token-file",
                option_help(server_help, "--client-token-file"), queries, rpcs)

    # What --max-query-kb bounds.
    limit_row = re.search(r"^\| `--max-query-kb.*$", readme, re.M)
    expect_rpcs("README.md, Limits, --max-query-kb", limit_row.group(0) if limit_row else "",
                query_limited, rpcs)
    api_limit = re.search(r"[^;|]*above `--max-query-kb`", api)
    expect_rpcs("docs/api.md, RESOURCE_EXHAUSTED, --max-query-kb",
                api_limit.group(0) if api_limit else "", query_limited, rpcs)
    expect_rpcs("pathfinder-server --help, --max-query-kb",
                option_help(server_help, "--max-query-kb"), query_limited, rpcs)

    # The synopses.
    cli_synopsis = first_code_block(section(readme, "The CLI"))
    for command in cli_commands(cli_help):
        if not re.search(r"(?:^|\|)\s*%s(?:\s|$)" % re.escape(command), cli_synopsis, re.M):
            fail("README.md, The CLI: the synopsis lacks the command '%s'" % command)
    server_synopsis = first_code_block(section(readme, "The server"))
    for flag in sorted(help_flags(server_help)):
        if not re.search(r"%s\b(?!-)" % re.escape(flag), server_synopsis):
            fail("README.md, The server: the synopsis lacks %s" % flag)

    # docs/api.md promises a ghz one-liner per RPC in the README.
    ghz = first_code_block(section(readme, "ghz through reflection"))
    for name in rpcs:
        if not re.search(r"--call \$P/%s\b" % name, ghz):
            fail("README.md, ghz through reflection: no one-liner for %s" % name)

    for message in failures:
        print("FAIL: " + message)
    if failures:
        sys.exit(1)
    print("OK: %d RPCs (%d need the client token, %d under --max-query-kb), %d commands" %
          (len(rpcs), len(queries), len(query_limited), len(cli_commands(cli_help))))


if __name__ == "__main__":
    main()
