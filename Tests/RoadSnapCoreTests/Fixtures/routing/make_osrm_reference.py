#!/usr/bin/env python3
"""Computes OSRM reference routes for RoutingReferenceTests (run once; the output is committed, CI needs no OSRM).

Usage (Python >= 3.12, the osrm-bindings wheel is cp312-abi3):
  python3.12 -m venv .venv && .venv/bin/pip install --only-binary=:all: osrm-bindings
  .venv/bin/python make_osrm_reference.py WORK_DIR PAIRS MAP.osm.pbf... > osrm_reference.json

For each map: osrm-extract with the wheel's stock car.lua profile, osrm-contract (CH), then PAIRS random pairs:
two random vertices of car roads (seeded), each snapped with OSRM Nearest (within 2 km), kept when the
OSRM route between the snapped points is at least 1 km. Records the route's own start and end (OSRM moves points
off small disconnected fragments) with OSRM's route distance, duration and the exit
numbers of its roundabout steps.
"""
import json, random, shutil, subprocess, sys
from pathlib import Path

import osrm

work, pairs_per_map, maps = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
profile = Path(osrm.__file__).parent / "share" / "profiles" / "car.lua"
out = {"generator": "make_osrm_reference.py", "osrm_bindings": __import__("importlib.metadata").metadata.version("osrm-bindings"),
       "profile": "car.lua (stock)", "algorithm": "CH", "maps": []}
for m in maps:
    src = Path(m).resolve()
    d = work / src.name.split(".")[0]
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    link = d / "map.osm.pbf"
    link.symlink_to(src)
    for cmd in (["extract", "-p", str(profile), str(link)], ["contract", str(d / "map.osrm")]):
        subprocess.run([sys.executable, "-m", "osrm", *cmd], check=True, capture_output=True)
    engine = osrm.OSRM(storage_config=str(d / "map.osrm"), algorithm="CH", use_shared_memory=False)
    # Candidate points: vertices of car roads (so pairs fall where the roads are, not in empty mountains).
    import osmium
    car = {"motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential",
           "motorway_link", "trunk_link", "primary_link", "secondary_link", "tertiary_link", "living_street"}
    points = []
    for o in osmium.FileProcessor(str(src), osmium.osm.NODE | osmium.osm.WAY).with_locations():
        if o.is_way() and o.tags.get("highway") in car:
            points.extend((n.location.lon, n.location.lat) for n in o.nodes if n.location.valid())
    points.sort()
    rng = random.Random(20261202)
    rows = []
    tries = 0
    while len(rows) < pairs_per_map and tries < pairs_per_map * 50:
        tries += 1
        pts = []
        for _ in range(2):
            lon, lat = rng.choice(points)
            n = engine.Nearest(osrm.NearestParameters(coordinates=[(lon, lat)]))
            wp = n["waypoints"][0]
            if wp["distance"] > 2000:
                break
            pts.append((wp["location"][0], wp["location"][1]))
        if len(pts) < 2:
            continue
        try:
            r = engine.Route(osrm.RouteParameters(coordinates=pts, overview="false", steps=True))
        except Exception:
            continue
        route = r["routes"][0]
        if route["distance"] < 1000:
            continue
        # Where OSRM actually routed from and to (it moves points off small disconnected fragments).
        pts = [tuple(w["location"]) for w in r["waypoints"]]
        rows.append({"from": [round(pts[0][1], 7), round(pts[0][0], 7)], "to": [round(pts[1][1], 7), round(pts[1][0], 7)],
                     "distance_m": round(route["distance"], 1), "duration_s": round(route["duration"], 1),
                     "roundabout_exits": [int(st["maneuver"]["exit"]) for st in route["legs"][0]["steps"]
                                          if st["maneuver"]["type"] in ("roundabout", "rotary", "roundabout turn")
                                          and "exit" in st["maneuver"]]})
    out["maps"].append({"map": src.name, "pairs": rows})
print(json.dumps(out, indent=1))
