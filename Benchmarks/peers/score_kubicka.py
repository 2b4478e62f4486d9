#!/usr/bin/env python3
"""score_kubicka.py -- score a RoadSnap CLI binary on Kubicka et al. 2015 track folders with the peers' own geometric
scorer (score_track from ../shared/tools/peers/match_peers.py, tolerance 3 m), so the figure compares directly with
`match_peers.py kubicka --src SRC` (which runs OSRM, Valhalla and fastmm on the same folders).

USAGE (the peers' venv has what match_peers.py imports):
  /tmp/roadsnap-peers/.venv/bin/python Benchmarks/peers/score_kubicka.py BIN SRC_DIR
  SRC_DIR holds <id>/<id>.{nodes,arcs,route,track} folders, e.g. ../shared/data/kubicka2015_mapmatching/subset, or a
  copy whose .track files keep one fix every 10 s or 30 s (what Track.subsampled(every:) keeps).
Each track is converted with ../shared/tools/kubicka.py, matched with `BIN match --format geojson`, and scored.
Prints the length-weighted and mean route mismatch and the per-track figures.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ROADSNAP_SHARED", REPO.parent / "shared"))
spec = importlib.util.spec_from_file_location("match_peers", SHARED / "tools/peers/match_peers.py")
mp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mp)


def read_match(path, n):
    """A RoadSnap GeoJSON match as the peers' scorer takes it: the matched point of each of n fixes (None when
    unmatched) and the sub-match LineStrings. A missing or unreadable file counts as nothing matched."""
    matched, geoms = [None] * n, []
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        print(f"{path}: no output ({e}); counted as unmatched")
        doc = {"features": []}
    for fe in doc["features"]:
        g, pr = fe["geometry"], fe["properties"]
        if g["type"] == "LineString":
            geoms.append([[c[0], c[1]] for c in g["coordinates"]])
        elif g["type"] == "Point" and pr.get("matched"):
            matched[pr["fix_index"]] = g["coordinates"][:2]
    return matched, geoms


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bin_, src = sys.argv[1], Path(sys.argv[2])
    work = Path(tempfile.mkdtemp(prefix="roadsnap-kubicka-"))
    d_sum = d0_sum = 0.0
    rows = []
    for tid in sorted(p.name for p in src.iterdir() if p.is_dir()):
        tdir = src / tid
        t = mp.kubicka_tracks(tdir, tid)[0]
        subprocess.run([sys.executable, str(SHARED / "tools/kubicka.py"), "convert", str(tdir), str(work / tid)],
                       check=True, stdout=subprocess.DEVNULL)
        csv = work / tid / "fixes.csv"
        with open(csv, "w") as f:
            f.write("time,lat,lon\n")
            for lon, lat, ts in t["points"]:
                f.write(f"{ts},{lat:.8f},{lon:.8f}\n")
        out = work / tid / "out"
        subprocess.run([bin_, "match", "--map", str(work / tid / "network.geojson"), "--format", "geojson",
                        "--out", str(out), "--jobs", "1", str(csv)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        matched, geoms = read_match(out / "fixes.matched.geojson", len(t["points"]))
        sc = mp.score_track(t, matched, geoms, 3.0)
        d_sum += sc["d_minus_m"] + sc["d_plus_m"]
        d0_sum += sc["d0_m"]
        rows.append((tid, round(sc["route_mismatch"], 4)))
    print(f"route mismatch (peers' scorer): length-weighted {d_sum / d0_sum:.5f}, "
          f"mean {sum(r[1] for r in rows) / len(rows):.5f} over {len(rows)} tracks")
    print(" ".join(f"{tid}={m}" for tid, m in rows))


if __name__ == "__main__":
    main()
