#!/usr/bin/env python3
"""Cross-checks `geo serve` against the PMTiles reference reader (PyPI `pmtiles`, Protomaps'
Python implementation of the PMTiles v3 spec): every tile the reader finds in ARCHIVE is
fetched from the running server as /{name}/{z}/{x}/{y}.pbf with `Accept-Encoding: gzip`, and
its body must equal the archive's stored bytes; the TileJSON must carry the header's zooms.

Usage: python3 scripts/oracles/serve_pmtiles_check.py ARCHIVE.pmtiles http://127.0.0.1:PORT
Prints "pmtiles check: N tiles, N equal, 0 differ" and exits 1 when any differ.
"""
import json
import os
import sys
import urllib.request

from pmtiles.reader import MmapSource, Reader, all_tiles


def fetch(url):
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        return response.read()


def main():
    archive, base = sys.argv[1], sys.argv[2].rstrip("/")
    name = os.path.basename(archive)[: -len(".pmtiles")]
    with open(archive, "rb") as f:
        source = MmapSource(f)
        header = Reader(source).header()
        tilejson = json.loads(fetch(f"{base}/{name}.json"))
        assert tilejson["tilejson"] == "3.0.0", tilejson
        assert (tilejson["minzoom"], tilejson["maxzoom"]) == (header["min_zoom"], header["max_zoom"]), tilejson
        total = equal = 0
        for (z, x, y), stored in all_tiles(source):
            total += 1
            if fetch(f"{base}/{name}/{z}/{x}/{y}.pbf") == stored:
                equal += 1
            else:
                print(f"differs: {z}/{x}/{y}", file=sys.stderr)
    print(f"pmtiles check: {total} tiles, {equal} equal, {total - equal} differ")
    sys.exit(0 if total > 0 and total == equal else 1)


if __name__ == "__main__":
    main()
