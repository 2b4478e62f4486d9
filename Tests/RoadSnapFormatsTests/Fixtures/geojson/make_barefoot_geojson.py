#!/usr/bin/env python3
"""Writes GeoJSON tracks from BMW barefoot's real Munich drive (../barefoot/x0001-*.json, samples
{"point": "POINT(lon lat)", "time": "2014-09-10 06:54:07+0200"}); positions and times unchanged.

- barefoot-x0001-001.geojson: one Feature, LineString of all 1,194 samples, times in properties.coordTimes
  (ISO 8601 UTC, as togeojson writes them).
- barefoot-x0001-015-points.geojson: the 15 s subsample (80 samples) as Point features with a `time` property in
  epoch milliseconds, written in REVERSE order so a reader must sort them by time.
Run from this folder: python3 make_barefoot_geojson.py
"""
import json, os, re
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))


def samples(name):
    with open(os.path.join(HERE, "..", "barefoot", name)) as f:
        out = []
        for s in json.load(f):
            lon, lat = map(float, re.match(r"POINT\(([-\d.]+) ([-\d.]+)\)", s["point"]).groups())
            t = datetime.strptime(s["time"], "%Y-%m-%d %H:%M:%S%z").astimezone(timezone.utc)
            out.append((lon, lat, t))
        return out


full = samples("x0001-001.json")
line = {"type": "FeatureCollection", "features": [{
    "type": "Feature",
    "properties": {"name": "barefoot x0001 (Munich, 1 Hz)",
                   "coordTimes": [t.strftime("%Y-%m-%dT%H:%M:%SZ") for _, _, t in full]},
    "geometry": {"type": "LineString", "coordinates": [[lon, lat] for lon, lat, _ in full]}}]}
with open(os.path.join(HERE, "barefoot-x0001-001.geojson"), "w") as f:
    json.dump(line, f)

sparse = samples("x0001-015.json")
points = {"type": "FeatureCollection", "features": [
    {"type": "Feature", "properties": {"time": int(t.timestamp() * 1000)},
     "geometry": {"type": "Point", "coordinates": [lon, lat]}} for lon, lat, t in reversed(sparse)]}
with open(os.path.join(HERE, "barefoot-x0001-015-points.geojson"), "w") as f:
    json.dump(points, f, indent=0)
