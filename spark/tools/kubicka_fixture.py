#!/usr/bin/env python3
"""Builds the Spark test's Kubicka fixture: one road network for many Kubicka et al. (2015) tracks and their fixes.

Usage: kubicka_fixture.py OUT_DIR SRC_DIR... [--margin M]

Each SRC_DIR holds <id>/<id>.{nodes,arcs,track} folders (the dataset's subset/, and more50.tar.xz unpacked). Every
track's own network is cut to the arcs with both ends within MARGIN metres (default 150) of one of its fixes, and
the cuts are merged into OUT_DIR/network.geojson (one one-way LineString per arc, id "TRACK:ARC"; arcs of
different tracks never share a node: their end points are made unique per track by the id), and the fixes go to
OUT_DIR/fixes.csv (track_id,time,lat,lon; time = seconds from the drive's start placed on 2015-01-01T00:00:00Z, as
KubickaDataset.swift does). Dataset: M. Kubicka et al., "Dataset for testing and training of map-matching
algorithms", IEEE IV 2015, doi:10.1109/ivs.2015.7225829; road networks OSM-derived (© OpenStreetMap contributors,
ODbL).
"""

import json
import math
import os
import sys

TIME_BASE = 1_420_070_400.0


def rows(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--margin")]
    margin = 150.0
    for a in sys.argv[1:]:
        if a.startswith("--margin="):
            margin = float(a.split("=", 1)[1])
    out, sources = args[0], args[1:]
    os.makedirs(out, exist_ok=True)
    tracks = []
    for src in sources:
        for name in sorted(os.listdir(src)):
            if os.path.isfile(os.path.join(src, name, name + ".track")):
                tracks.append((name, os.path.join(src, name)))
    tracks.sort()
    features = 0
    with open(os.path.join(out, "network.geojson"), "w") as net, open(os.path.join(out, "fixes.csv"), "w") as fx:
        net.write('{"type":"FeatureCollection","features":[\n')
        fx.write("track_id,time,lat,lon\n")
        first = True
        for name, d in tracks:
            fixes = [(float(r[0]), float(r[1]), float(r[2])) for r in rows(os.path.join(d, name + ".track"))]
            for lon, lat, t in fixes:
                fx.write(f"{name},{TIME_BASE + t!r},{lat!r},{lon!r}\n")
            lat0 = fixes[0][1]
            my = 111_320.0
            mx = my * math.cos(math.radians(lat0))
            cell = margin
            grid = set()
            for lon, lat, _ in fixes:
                grid.add((int(lon * mx // cell), int(lat * my // cell)))

            def near(lon, lat):
                gx, gy = int(lon * mx // cell), int(lat * my // cell)
                return any((gx + i, gy + j) in grid for i in (-1, 0, 1) for j in (-1, 0, 1))

            nodes = [(float(r[0]), float(r[1])) for r in rows(os.path.join(d, name + ".nodes"))]
            keep = [near(lon, lat) for lon, lat in nodes]
            for k, a in enumerate(rows(os.path.join(d, name + ".arcs"))):
                i, j = int(a[0]), int(a[1])
                if not (keep[i] and keep[j]) or nodes[i] == nodes[j]:
                    continue
                f = {"type": "Feature", "id": f"{name}:{k}", "properties": {"oneway": "yes", "highway": "road"},
                     "geometry": {"type": "LineString", "coordinates": [list(nodes[i]), list(nodes[j])]}}
                net.write(("" if first else ",\n") + json.dumps(f, separators=(",", ":")))
                first = False
                features += 1
        net.write("\n]}\n")
    print(f"{len(tracks)} tracks, {features} arcs -> {out}")


if __name__ == "__main__":
    main()
