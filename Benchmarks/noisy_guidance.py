#!/usr/bin/env python3
"""Reroutes of a recorded drive guided to its last fix, with and without white noise added to the fixes.

The driver of the recorded drive does not follow the routes the navigator plans, so some reroutes are real (the count
without noise). Noise should add as few as possible: every extra reroute is a wrong-course or off-route decision
that GPS noise alone caused. For each noise level (metres, 1 sigma per axis) the drive is replayed once per seed
through `roadsnap navigate --replay ... --replay-speed max` and the `rerouting` nav-info events are counted.

    Benchmarks/noisy_guidance.py .build/release/roadsnap [--map M] [--track CSV] [--sigmas 5,10,20] [--seeds 6]
                                 [--bursts]

The track is a CSV with time,lat,lon columns (the bundled Newson & Krumm drive by default).
"""
import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def noisy_copy(rows, sigma, seed, path):
    """Writes `rows` (time, lat, lon) with Gaussian noise of `sigma` metres per axis, seeded."""
    rng = random.Random(seed * 1000 + int(sigma * 10))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time", "lat", "lon"])
        for t, lat, lon in rows:
            north, east = rng.gauss(0, sigma), rng.gauss(0, sigma)
            w.writerow([t, f"{lat + north / 111320:.7f}",
                        f"{lon + east / (111320 * math.cos(math.radians(lat))):.7f}"])


def bursty_copy(rows, seed, path, sigma=5.0, tau=30.0, every=120.0):
    """Writes `rows` with correlated error (a first-order autoregressive walk: `sigma` metres per axis, correlation
    time `tau` seconds at one fix a second) plus multipath bursts: on average once per `every` fixes, 3 to 6 fixes
    moved 40-90 m in one random direction."""
    rng = random.Random(seed)
    a = math.exp(-1 / tau)
    east = north = 0.0
    burst, bx, by = 0, 0.0, 0.0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time", "lat", "lon"])
        for t, lat, lon in rows:
            east = a * east + math.sqrt(1 - a * a) * rng.gauss(0, sigma)
            north = a * north + math.sqrt(1 - a * a) * rng.gauss(0, sigma)
            if burst == 0 and rng.random() < 1 / every:
                burst = rng.randint(3, 6)
                angle, d = rng.uniform(0, 2 * math.pi), rng.uniform(40, 90)
                bx, by = d * math.cos(angle), d * math.sin(angle)
            e, n = east, north
            if burst > 0:
                e, n, burst = e + bx, n + by, burst - 1
            w.writerow([t, f"{lat + n / 111320:.7f}", f"{lon + e / (111320 * math.cos(math.radians(lat))):.7f}"])


def reroutes(binary, map_path, track, destination):
    """(rerouting events, arrivals) of one guided replay."""
    out = subprocess.run([binary, "navigate", "--map", map_path, "--to", destination, "--replay", track,
                          "--replay-speed", "max", "--no-locations"],
                         check=True, capture_output=True, text=True).stdout
    n = arrived = 0
    for line in out.splitlines():
        e = json.loads(line)
        if e.get("event") == "didUpdateNavInfo" and e.get("nav_state") == "rerouting":
            n += 1
        elif e.get("event") == "didArriveAtWaypoint":
            arrived += 1
    return n, arrived


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--map", default=os.path.join(ROOT, "Samples", "bellevue-issue147.osm.gz"))
    ap.add_argument("--track", default=os.path.join(ROOT, "Samples", "newson-krumm-bellevue.csv"))
    ap.add_argument("--sigmas", default="5,10,20")
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--bursts", action="store_true",
                    help="also correlated 5 m error with multipath bursts (bursty_copy), one row")
    a = ap.parse_args()
    with open(a.track, newline="") as f:
        r = csv.DictReader(f)
        rows = [(x["time"], float(x["lat"]), float(x["lon"])) for x in r]
    if not rows:
        sys.exit(f"{a.track}: no fixes")
    destination = f"{rows[-1][1]},{rows[-1][2]}"
    clean, arrived = reroutes(a.binary, a.map, a.track, destination)
    print(f"no noise: {clean} reroutes, arrived {arrived}")
    print("| noise (m, 1 sigma per axis) | reroutes per replay (seeds 1..%d) | mean | extra over no noise |" % a.seeds)
    print("|---:|---|---:|---:|")

    def replays(tmp, label, make_copy):
        """Reroutes per replay over the seeds, each replay of a copy that make_copy(seed, path) writes."""
        counts = []
        for seed in range(1, a.seeds + 1):
            path = os.path.join(tmp, f"{label.replace(' ', '_')}_{seed}.csv")
            make_copy(seed, path)
            n, arrived = reroutes(a.binary, a.map, path, destination)
            if arrived != 1:
                print(f"  {label} seed {seed}: arrived {arrived} times", file=sys.stderr)
            counts.append(n)
        return counts, sum(counts) / len(counts)

    with tempfile.TemporaryDirectory() as tmp:
        for sigma in [float(s) for s in a.sigmas.split(",")]:
            counts, mean = replays(tmp, f"sigma {sigma:g}", lambda seed, path: noisy_copy(rows, sigma, seed, path))
            print(f"| {sigma:g} | {', '.join(map(str, counts))} | {mean:.1f} | {mean - clean:+.1f} |")
        if a.bursts:
            counts, mean = replays(tmp, "bursts", lambda seed, path: bursty_copy(rows, seed, path))
            print(f"| 5, correlated, with bursts | {', '.join(map(str, counts))} | {mean:.1f} | {mean - clean:+.1f} |")


if __name__ == "__main__":
    main()
