#!/usr/bin/env python3
"""OSRM's answers for the snapping maps of Tests/RoutingTests/SnappingTests.swift.

Draws the same ASCII maps as the tests (AsciiRoadMap: origin 1°N 1°E, one character per
grid step east, one line per grid step south, in the WGS84 local frame at the origin),
writes them as .osm files, runs osrm-extract (--small-component-size as the test's Router),
osrm-contract and osrm-routed (osrm_server.py), and prints OSRM's route distance and snapped waypoints for
each query. The tests' expected values are these. Not a unit test; run through

    scripts/osrm/snapping_oracle.sh

which sources env.sh for OSRM_BIN and OSRM_PROFILES.
"""
import json
import math
import os
import sys
import urllib.error
import urllib.request

import osrm_server

WORK = sys.argv[1]
A, F = 6378137.0, 1 / 298.257223563
E2 = F * (2 - F)


def frame(lat0):
    s2 = math.sin(math.radians(lat0)) ** 2
    w = math.sqrt(1 - E2 * s2)
    meridional = A * (1 - E2) / w ** 3
    prime = A / w
    return meridional * math.pi / 180, prime * math.cos(math.radians(lat0)) * math.pi / 180


def parse(drawing, grid):
    m_lat, m_lon = frame(1.0)
    lines = drawing.split("\n")
    indent = min(len(l) - len(l.lstrip(" ")) for l in lines if l.strip())
    points, row = {}, 0
    for line in lines:
        if not line.strip() and row == 0:
            continue
        for col, ch in enumerate(line[indent:]):
            if ch.isalnum():
                points[ch] = (1 - row * grid / m_lat, 1 + col * grid / m_lon)
        row += 1
    return points


def osm(points, ways, node_tags, restrictions):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="snapping_oracle">']
    used = {c for w in ways for c in w[0]}
    for c, (lat, lon) in sorted(points.items()):
        if c.isalpha() and c in used:
            tags = "".join(f'<tag k="{k}" v="{v}"/>' for k, v in node_tags.get(c, {}).items())
            out.append(f'<node id="{ord(c)}" version="1" lat="{lat:.9f}" lon="{lon:.9f}">{tags}</node>')
    for i, (nodes, tags) in enumerate(ways, 1):
        refs = "".join(f'<nd ref="{ord(c)}"/>' for c in nodes)
        t = "".join(f'<tag k="{k}" v="{v}"/>' for k, v in tags.items())
        out.append(f'<way id="{i}" version="1">{refs}{t}</way>')
    for i, (frm, via, to, value) in enumerate(restrictions):
        out.append(f'<relation id="{1000 + i}" version="1"><member type="way" ref="{frm}" role="from"/>'
                   f'<member type="node" ref="{ord(via)}" role="via"/><member type="way" ref="{to}" role="to"/>'
                   f'<tag k="type" v="restriction"/><tag k="restriction" v="{value}"/></relation>')
    out.append("</osm>")
    return "\n".join(out)


# name: (drawing, grid, profile, ways, node tags, restrictions, small component size, queries)
MAPS = {
    "ferry": ("""
        a       b


            1
        c       d
        """, 10, ["car", "foot", "bicycle"],
        [("ab", {"highway": "residential"}), ("ac", {"highway": "residential"}),
         ("bd", {"highway": "residential"}), ("cd", {"route": "ferry"})], {}, [], 2,
        [("1", "b"), ("b", "1")]),
    "private_service": ("""
        a       b


            1
        c       d
        """, 10, ["car"],
        [("ab", {"highway": "residential"}), ("ac", {"highway": "residential"}),
         ("bd", {"highway": "residential"}), ("cd", {"highway": "service", "access": "private"})], {}, [], 2,
        [("1", "b"), ("b", "1")]),
    "tiny_piece": ("""
        a       b

            1
          g   h


        c       d
        """, 10, ["car"],
        [("ab", {"highway": "residential"}), ("bd", {"highway": "residential"}), ("dc", {"highway": "residential"}),
         ("ca", {"highway": "residential"}), ("gh", {"highway": "residential"})], {}, [], 5,
        [("a", "1"), ("1", "a"), ("g", "1")]),
    "oneway_trap": ("""
        a       b
                  1
                    y
        c       d
        """, 10, ["car"],
        [("ab", {"highway": "residential"}), ("bd", {"highway": "residential"}), ("dc", {"highway": "residential"}),
         ("ca", {"highway": "residential"}), ("by", {"highway": "residential", "oneway": "yes"})], {}, [], 5,
        [("a", "1"), ("1", "a")]),
    "restriction_trap": ("""
        a   b   c
             1
            d
        """, 10, ["car"],
        [("ab", {"highway": "residential"}), ("bc", {"highway": "residential"}), ("bd", {"highway": "residential"})], {},
        [(3, "b", 1, "no_left_turn"), (3, "b", 2, "no_right_turn")], 3,
        [("1", "c"), ("a", "1")]),
    "barrier": ("""
        a   b   c   d
                  1
        e   f
        """, 10, ["car"],
        [("abfea", {"highway": "residential"}), ("bcd", {"highway": "residential"})], {"c": {"barrier": "bollard"}}, [], 5,
        [("a", "1")]),
    "oneway_stub": ("""
        a   b   c   d
                  1
        e   f
        """, 10, ["car"],
        [("abfea", {"highway": "residential"}), ("bcd", {"highway": "primary", "oneway": "yes"})], {}, [], 3,
        [("a", "1")]),
}


def main():
    only = set(sys.argv[2:])
    for name, (drawing, grid, profiles, ways, node_tags, restrictions, small, queries) in MAPS.items():
        if only and name not in only:
            continue
        points = parse(drawing, grid)
        for profile in profiles:
            base = os.path.join(WORK, f"{name}-{profile}")
            with open(base + ".osm", "w") as f:
                f.write(osm(points, ways, node_tags, restrictions))
            with osrm_server.serve(osrm_server.build(base + ".osm", profile, ["--small-component-size", str(small)])) as url:
                for (s, t) in queries:
                    (la1, lo1), (la2, lo2) = points[s], points[t]
                    try:
                        with urllib.request.urlopen(f"{url}/route/v1/x/{lo1:.9f},{la1:.9f};{lo2:.9f},{la2:.9f}"
                                                    "?overview=false", timeout=10) as r:
                            body = json.load(r)
                    except urllib.error.HTTPError as e:
                        body = json.load(e)
                    if body.get("code") != "Ok":
                        print(f"{name} {profile} {s}->{t}: {body.get('code')}")
                        continue
                    m_lat, m_lon = frame(1.0)
                    snapped = []
                    for w in body["waypoints"]:
                        lon, lat = w["location"]
                        snapped.append(f"({(lon - 1) * m_lon / grid:.2f}, {(1 - lat) * m_lat / grid:.2f})")
                    print(f"{name} {profile} {s}->{t}: {body['routes'][0]['distance']:.1f} m; "
                          f"snapped at grid (col, row) {' -> '.join(snapped)}")


if __name__ == "__main__":
    main()
