#!/usr/bin/env python3
"""list_splits.py -- where RoadSnap split a track with (almost) no time gap, from a compare_kubicka.py run.

A sub-match that ends at fix i while the next begins within a few sampling intervals means the chain broke without a
time gap (issue #12: "a chain that breaks with no time gap means an earlier choice was wrong"). Reads the GeoJSON
outputs compare_kubicka.py leaves in WORK/roadsnap/<id>/out/fixes_<rate>.matched.geojson and, when given, the
per-track mismatch of WORK/compare.json.

USAGE: python3 Benchmarks/peers/list_splits.py WORK [--rates 1,10,30,60]
Prints per rate and track: the mismatch (peers' scorer), the sub-match count, and every such split as
(last fix of one sub-match, first fix of the next, seconds between them, their lengths in metres).
"""
import argparse
import datetime
import json
from pathlib import Path


def seconds(stamp):
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--rates", default="1,10,30,60")
    a = ap.parse_args()
    work = Path(a.work)
    comp = json.loads((work / "compare.json").read_text()) if (work / "compare.json").exists() else {}
    for rate in a.rates.split(","):
        total = 0
        for out in sorted((work / "roadsnap").glob("*/out")):
            tid = out.parent.name
            path = out / f"fixes_{rate}.matched.geojson"
            if not path.exists():
                continue
            feats = json.loads(path.read_text())["features"]
            fixes = [f["properties"] for f in feats if f["geometry"]["type"] == "Point"]
            subs = [f["properties"] for f in feats if f["geometry"]["type"] == "LineString"]
            splits = []
            for s, t in zip(subs, subs[1:]):
                dt = seconds(fixes[t["first_fix"]]["time"]) - seconds(fixes[s["last_fix"]]["time"])
                if dt <= max(3 * int(rate), 5):
                    splits.append((s["last_fix"], t["first_fix"], round(dt, 1), round(s["length_m"]),
                                   round(t["length_m"])))
            if splits:
                total += len(splits)
                mm = comp.get("roadsnap", {}).get(rate, {}).get("tracks", {}).get(tid)
                print(f"{rate:>3} s {tid} mismatch {mm} {len(subs)} sub-matches: {splits}")
        print(f"{rate:>3} s: {total} splits without a time gap")


if __name__ == "__main__":
    main()
