#!/usr/bin/env python3
"""OSRM's own CH route query latency on a network RoadSnap's `Benchmarks preprocess osrm=PYTHON` prepared.

    PYTHON Benchmarks/peers/osrm_query.py /tmp/roadsnap-prep/andorra-10x10.osm \
        /tmp/roadsnap-prep/andorra-10x10-t1/map.osrm [pairs]

Random pairs of the network's own vertices (the OSM file's nodes), one Route each (no overview, no steps: snapping
both ends plus the search), after 200 warm-up queries, one thread. The binding's own overhead is measured the same
way on zero-length routes (both ends the same vertex) and reported beside it, so the search's share can be read.
Prints p50 and p99 in milliseconds. Needs the PyPI `osrm-bindings` wheel.
"""
import random
import re
import sys
import time

import osrm


def vertices(osm_path):
    node = re.compile(rb'<node[^>]*\blat="([-0-9.]+)"[^>]*\blon="([-0-9.]+)"')
    with open(osm_path, "rb") as f:
        return [(float(m.group(2)), float(m.group(1))) for m in node.finditer(f.read())]


def timed(engine, pairs):
    out = []
    for a, b in pairs:
        params = osrm.RouteParameters(coordinates=[a, b], overview="false", steps=False, generate_hints=False)
        t0 = time.perf_counter()
        engine.Route(params)
        out.append(time.perf_counter() - t0)
    out.sort()
    return out[len(out) // 2] * 1e3, out[len(out) * 99 // 100] * 1e3


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    osm_path, data = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    points = vertices(osm_path)
    if len(points) < 2:
        sys.exit(f"{osm_path}: no nodes")
    engine = osrm.OSRM(storage_config=data, algorithm="CH", use_shared_memory=False)
    rng = random.Random(2026)
    pick = lambda: points[rng.randrange(len(points))]
    timed(engine, [(pick(), pick()) for _ in range(200)])  # warm-up
    route = timed(engine, [(pick(), pick()) for _ in range(count)])
    same = [pick() for _ in range(count)]
    empty = timed(engine, [(p, p) for p in same])
    print(f"{osm_path}: {len(points)} vertices, {count} random pairs, one thread")
    print(f"  OSRM CH route (snap both ends + search): p50 {route[0]:.3f} ms, p99 {route[1]:.3f} ms")
    print(f"  same call on zero-length routes (binding + snapping): p50 {empty[0]:.3f} ms, p99 {empty[1]:.3f} ms")


if __name__ == "__main__":
    main()
