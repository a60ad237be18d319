#!/usr/bin/env python3
"""OSRM's life cycle for the scripts that run it beside LocationKit, in one place: a dataset
built by osrm-extract and osrm-contract, served by osrm-routed (CH) on a free loopback port
until it answers, then stopped. The binaries and profiles are env.sh's BIN and PROFILES,
which it exports as OSRM_BIN and OSRM_PROFILES.

As a module (scripts/osrm on sys.path):

    dataset = osrm_server.build("net.osm", "car")
    with osrm_server.serve(dataset) as url: ...

As a command, for the shell scripts, which build with osrm-extract themselves to time it:

    osrm_server.py DATASET.osrm [OSRM-ROUTED ARGUMENTS...] -- COMMAND...

It runs COMMAND (its standard input is this one's) with every `{url}` in it replaced by
the server's base URL, stops the server, and exits with COMMAND's status.
"""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request


def _tool(name):
    return os.path.join(os.environ["OSRM_BIN"], name)


def build(osm, profile, extract_args=()):
    """osrm-extract with PROFILES/<profile>.lua (and `extract_args`), then osrm-contract, on
    `osm` (.osm, .osm.pbf); returns the dataset's path (.osrm beside it)."""
    profile_lua = os.path.join(os.environ["OSRM_PROFILES"], profile + ".lua")
    subprocess.run([_tool("osrm-extract"), "-p", profile_lua, *extract_args, osm], check=True, capture_output=True)
    dataset = osm.removesuffix(".pbf").removesuffix(".osm") + ".osrm"
    subprocess.run([_tool("osrm-contract"), dataset], check=True, capture_output=True)
    return dataset


@contextlib.contextmanager
def serve(dataset, routed_args=(), timeout=60):
    """osrm-routed (CH) on `dataset` on a free loopback port; yields its base URL once it
    answers, and stops it on leaving. Its log goes to a file beside the dataset: it logs every
    request's URL, and a pipe nobody reads fills and stalls it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    log_path = dataset + ".routed.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen([_tool("osrm-routed"), "--algorithm", "ch", "-i", "127.0.0.1", "-p", str(port),
                                   *routed_args, dataset], stdout=log, stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d" % port
    try:
        deadline = time.monotonic() + timeout
        while True:
            if server.poll() is not None:
                sys.exit("osrm-routed exited: " + open(log_path).read()[-500:])
            try:
                urllib.request.urlopen(url + "/nearest/v1/driving/0,0", timeout=1).close()
                break
            except urllib.error.HTTPError:
                break  # it answered (an error for a point far from its roads is an answer)
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("osrm-routed did not answer within %d s: %s" % (timeout, open(log_path).read()[-500:]))
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait()


def main(argv):
    if len(argv) < 3 or "--" not in argv[1:]:
        sys.exit(__doc__)
    split = argv.index("--")
    with serve(argv[0], argv[1:split]) as url:
        return subprocess.run([a.replace("{url}", url) for a in argv[split + 1:]]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
