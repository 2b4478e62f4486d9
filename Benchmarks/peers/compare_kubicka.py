#!/usr/bin/env python3
"""compare_kubicka.py -- RoadSnap and the peers (OSRM MLD, Valhalla, fastmm) on the same Kubicka et al. 2015 tracks
subsampled to the same fixes (every 1, 10, 30, 60 s, the rule of Track.subsampled(every:): keep a fix when at least
the interval has passed since the last kept one), all scored by the peers' geometric scorer (score_track from
../shared/tools/peers/match_peers.py, tolerance 3 m). Each peer's data is built once per track and reused for every
rate. The peers' points/s are their match call alone, one thread (match_peers.py's timing); RoadSnap's accuracy comes
from its CLI (`BIN match --format geojson`), its throughput from the Swift benchmark (`Benchmarks match tracks=DIR`),
which times the match call alone on the same subsampled fixes.

USAGE (the peers' venv, see ../shared/tools/peers/match_peers.py SETUP):
  /tmp/roadsnap-peers/.venv/bin/python Benchmarks/peers/compare_kubicka.py BIN WORK SRC_DIR [SRC_DIR...]
        [--rates 1,10,30,60] [--peers osrm_mld,valhalla,fastmm] [--ids a,b] [--no-peers] [--reuse-peers] [--span]
  SRC_DIR holds <id>/<id>.{nodes,arcs,route,track} folders (subset/, and more50.tar.xz unpacked outside the repo).
Prints per rate the length-weighted and mean route mismatch of every matcher and the peers' points/s (by the wall
clock, and by CPU time: each track's wall time scaled by its run's CPU share), and writes
WORK/compare.json with the per-track figures.
"""
import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The peers' match_peers module (scorer, track readers) as score_kubicka.py loads it, and its reader of our output.
from score_kubicka import SHARED, mp, read_match  # noqa: E402


def subsample(points, interval):
    """Track.subsampled(every:) on [lon, lat, t] points."""
    if interval <= 1:
        return list(points)
    out, last = [], float("-inf")
    for p in points:
        if p[2] < last + interval:
            continue
        last = p[2]
        out.append(p)
    return out


def span_truth(track, slack=10.0):
    """The track's true route cut to the stretch its fixes span: from the projection of the first fix onto the route
    to that of the last (the peers' reader trims only the first and last arc, so a route that starts arcs before the
    first fix, or a subsampled track whose last kept fix lies arcs before the route's end, counts route no fix saw).
    The first fix is placed at the earliest point of the route within `slack` metres of its nearest one, the last fix
    at the latest such point (routes that pass a place twice). Returns a new truth dict."""
    lines = track["truth"]["lines"]
    pts = track["points"]
    lat0 = pts[0][1]
    kx, ky = 111320.0 * math.cos(math.radians(lat0)), 110540.0
    segs = []  # (line index, vertex index, along-route start metres, ax, ay, bx, by)
    along = 0.0
    for li, line in enumerate(lines):
        for vi in range(len(line) - 1):
            ax, ay = line[vi][0] * kx, line[vi][1] * ky
            bx, by = line[vi + 1][0] * kx, line[vi + 1][1] * ky
            segs.append((li, vi, along, ax, ay, bx, by))
            along += math.hypot(bx - ax, by - ay)
    if not segs:
        return track["truth"]

    def places(p):
        px, py = p[0] * kx, p[1] * ky
        out = []
        for li, vi, s0, ax, ay, bx, by in segs:
            dx, dy = bx - ax, by - ay
            l2 = dx * dx + dy * dy
            u = 0.0 if l2 == 0 else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / l2))
            out.append((math.hypot(ax + u * dx - px, ay + u * dy - py), s0 + u * math.sqrt(l2), li, vi, u))
        near = min(o[0] for o in out)
        return [o for o in out if o[0] <= near + slack]

    head = min(places(pts[0]), key=lambda o: o[1])
    tail = max(places(pts[-1]), key=lambda o: o[1])
    if tail[1] <= head[1]:
        return track["truth"]

    def point(li, vi, u):
        a, b = lines[li][vi], lines[li][vi + 1]
        return [a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])]

    cut = []
    for li in range(head[2], tail[2] + 1):
        line = lines[li]
        first = head[3] if li == head[2] else 0
        last = tail[3] if li == tail[2] else len(line) - 2
        if last < first:
            continue
        seg = [point(li, head[3], head[4]) if li == head[2] else line[first]]
        seg += [line[v] for v in range(first + 1, last + 1)]
        seg.append(point(li, tail[3], tail[4]) if li == tail[2] else line[last + 1])
        if len(seg) >= 2:
            cut.append(seg)
    length = sum(mp.polyline_length(l) for l in cut)
    return {"lines": cut, "geometry": cut[0] if cut else [], "length_m": length}


def roadsnap(bin_, work, tid, tdir, per_rate):
    """Matches the subsampled tracks of one Kubicka folder with one RoadSnap CLI run (the network is loaded once);
    returns {rate: the peers' score dict}."""
    d = work / "roadsnap" / tid
    if not (d / "network.geojson").exists():
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(SHARED / "tools/kubicka.py"), "convert", str(tdir), str(d)],
                       check=True, stdout=subprocess.DEVNULL)
    csvs = []
    for rate, t in per_rate.items():
        csv = d / f"fixes_{rate}.csv"
        with open(csv, "w") as f:
            f.write("time,lat,lon\n")
            for lon, lat, ts in t["points"]:
                f.write(f"{ts},{lat:.8f},{lon:.8f}\n")
        csvs.append(str(csv))
    out = d / "out"
    subprocess.run([bin_, "match", "--map", str(d / "network.geojson"), "--format", "geojson", "--out", str(out),
                    "--jobs", "1", *csvs], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scores = {}
    for rate, t in per_rate.items():
        matched, geoms = read_match(out / f"fixes_{rate}.matched.geojson", len(t["points"]))
        scores[rate] = mp.score_track(t, matched, geoms, 3.0)
    return scores


def add_score(acc, tid, sc):
    """Adds one track's score (the peers' score dict) to a matcher's figures at one rate."""
    acc["d"] += sc["d_minus_m"] + sc["d_plus_m"]
    acc["d0"] += sc["d0_m"]
    acc["tracks"][tid] = round(sc["route_mismatch"], 5)
    acc["metres"][tid] = round(sc["d_minus_m"] + sc["d_plus_m"], 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("work")
    ap.add_argument("src", nargs="+")
    ap.add_argument("--rates", default="1,10,30,60")
    ap.add_argument("--peers", default="osrm_mld,valhalla,fastmm")
    ap.add_argument("--ids", default="")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--span", action="store_true",
                    help="score every matcher against the true route cut to the stretch the kept fixes span "
                         "(span_truth), not only its first and last arc trimmed")
    ap.add_argument("--reuse-peers", action="store_true",
                    help="keep the peers' results already in WORK/out/<id> (they do not depend on RoadSnap's binary)")
    a = ap.parse_args()
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    rates = [int(r) for r in a.rates.split(",")]
    peers = [] if a.no_peers else a.peers.split(",")
    dirs = {}
    for s in a.src:
        for p in sorted(Path(s).resolve().iterdir()):
            if p.is_dir() and (p / f"{p.name}.track").exists():
                dirs[p.name] = p
    ids = [i for i in a.ids.split(",") if i] or sorted(dirs)
    # results[matcher][rate] = {"d": .., "d0": .., "pts": .., "s": .., "tracks": {tid: mismatch},
    #                           "metres": {tid: metres of mismatch (d- + d+)}}
    res = {m: {r: {"d": 0.0, "d0": 0.0, "pts": 0, "s": 0.0, "tracks": {}, "metres": {}} for r in rates}
           for m in ["roadsnap"] + peers}
    for tid in ids:
        tdir = dirs[tid]
        per_rate = {}
        for r in rates:
            # a copy of the folder whose .track keeps the subsampled fixes, so the truth is trimmed to them too
            sdir = work / f"src_{r}" / tid
            sdir.mkdir(parents=True, exist_ok=True)
            for ext in ("nodes", "arcs", "route"):
                link = sdir / f"{tid}.{ext}"
                if not link.exists():
                    link.symlink_to(tdir / f"{tid}.{ext}")
            rows = [ln for ln in (tdir / f"{tid}.track").read_text().splitlines() if ln.strip()]
            kept = subsample([(i, 0, float(ln.split()[2])) for i, ln in enumerate(rows)], r)
            (sdir / f"{tid}.track").write_text("".join(rows[i] + "\n" for i, _, _ in kept))
            t = mp.kubicka_tracks(sdir, tid)[0]
            if a.span:
                t["truth"] = span_truth(t)
            t["_dir"] = sdir
            t["id"] = f"{tid}@{r}"
            per_rate[r] = t
        for r, sc in roadsnap(a.bin, work, tid, tdir, per_rate).items():
            add_score(res["roadsnap"][r], tid, sc)
        if peers:
            data = work / "peers" / tid
            data.mkdir(parents=True, exist_ok=True)
            pbf = data / "map.osm.pbf"
            if not (data / "build_stats.json").exists():
                mp.kubicka_to_pbf(tdir, tid, pbf)
                bargs = argparse.Namespace(pbf=str(pbf), data=str(data), peers=",".join(peers), threads=1,
                                           no_admins=True, fastmm_delta=1000.0)
                mp.build(bargs)
            files = []
            for r, t in per_rate.items():
                f = data / f"tracks_{r}.json"
                tt = {k: v for k, v in t.items() if k != "_dir"}
                f.write_text(json.dumps({"generator": "kubicka2015", "tracks": [tt]}))
                files.append(str(f))
            margs = argparse.Namespace(data=str(data), tracks=files, out=str(work / "out" / tid), child=False,
                                       peers=",".join(peers), repeat=3, tol=3.0, limit=0, fastmm_delta=1000.0,
                                       fastmm_reverse_tol=20.0, osrm_tidy=False, gps_sigma=None)
            done = all((work / "out" / tid / f"{p}.json").exists() for p in peers)
            if not (a.reuse_peers and done):
                mp.match(margs)
            for p in peers:
                try:
                    doc = json.loads((work / "out" / tid / f"{p}.json").read_text())
                    recs = doc["tracks"]
                    summ = doc.get("summary") or {}
                    # match_peers.py times each track by the wall clock and the whole run also by CPU time: scale
                    # the tracks' wall times by the run's CPU share, so a loaded machine does not deflate points/s.
                    share = summ["match_cpu_s"] / summ["match_s"] if summ.get("match_s") else 1.0
                except (OSError, ValueError, KeyError):
                    recs, share = [], 1.0
                for rec in recs:
                    r = int(rec["id"].split("@")[1])
                    acc = res[p][r]
                    acc["pts"] += rec["n"]
                    acc["s"] += rec["match_s"]
                    acc["cpu"] = acc.get("cpu", 0.0) + rec["match_s"] * share
                    sc = rec.get("score")
                    if sc and sc.get("route_mismatch") is not None:
                        add_score(acc, tid, sc)
        print(f"{tid}: " + " ".join(f"{r}s roadsnap={res['roadsnap'][r]['tracks'][tid]}" for r in rates), flush=True)
    print(f"\n=== {len(ids)} Kubicka tracks, peers' scorer (3 m), length-weighted route mismatch [mean]; peers' "
          f"points/s (match call, one thread) ===")
    for r in rates:
        cells = []
        for m, by in res.items():
            acc = by[r]
            if not acc["d0"]:
                continue
            mean = sum(acc["tracks"].values()) / max(1, len(acc["tracks"]))
            rate = (f", {acc['pts'] / acc['s']:.0f} pts/s, ~{acc['pts'] / acc['cpu']:.0f} by CPU time"
                    if acc["s"] and acc.get("cpu") else "")
            cells.append(f"{m} {100 * acc['d'] / acc['d0']:.2f}% [{100 * mean:.2f}%] ({len(acc['tracks'])} tracks{rate})")
        print(f"{r:>3d} s: " + "; ".join(cells))
    (work / "compare.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
