#!/usr/bin/env python3
"""
score_andorra_synth.py -- score a RoadSnap CLI binary on the synthetic noisy Andorra tracks that
../shared/tools/peers/run_all.sh generates and scores the peers (OSRM, Valhalla, fastmm) on, with exactly the
peers' scoring (score_track + accuracy_table imported from ../shared/tools/peers/match_peers.py).
Run ../shared/tools/peers/run_all.sh first (it builds synth.json and the peers' summary.json under PEERS_WORK,
default /tmp/roadsnap-peers).

USAGE (needs numpy -> use the peers' venv):
  /tmp/roadsnap-peers/.venv/bin/python Benchmarks/peers/score_andorra_synth.py BIN [--per-sigma] [--tag NAME]
        [--synth synth.json] [--map andorra.osm.pbf] [--tol 3] [-- extra roadsnap match args ...]
  Any argument the script does not know is passed on to `BIN match` (e.g. --sigma auto --beta 4).

What it does:
  1. writes every synth track as CSV (time,lat,lon; epoch seconds) into WORK/tracks/<id>.csv
  2. runs `BIN match --map MAP --format geojson --out WORK/out --jobs 1 [extra] <all csv>` once (timed, wall);
     --per-sigma: one call per sigma group with --sigma <track sigma> (the peers got the track's sigma)
     also times `BIN info --map MAP` (its "load time") and a 1-track run, to estimate the fixed start-up cost
  3. reads WORK/out/<id>.matched.geojson: Points with matched=true -> matched[fix_index] = Point coordinate,
     LineStrings -> geometry pieces; exactly what match_peers' parsers hand to score_track
     (a missing/unreadable output = all fixes unmatched, no geometry, like a failed peer call)
  4. score_track per track, accuracy_table per group; prints the peers' per-group lines + length-weighted
     mismatch, the worst tracks, and a comparison with the peers' summary.json if present.
WORK = $ROADSNAP_SCORE_WORK (default /tmp/roadsnap-andorra)/runs/<tag> (tag defaults to the binary name
[+ "_persigma"]).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # do not leave __pycache__ in the shared tools folder
REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ROADSNAP_SHARED", REPO.parent / "shared"))
PEERS_WORK = Path(os.environ.get("PEERS_WORK", "/tmp/roadsnap-peers"))
PEERS_PY = SHARED / "tools/peers/match_peers.py"
_spec = importlib.util.spec_from_file_location("match_peers", PEERS_PY)
mp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mp)

HERE = Path(os.environ.get("ROADSNAP_SCORE_WORK", "/tmp/roadsnap-andorra"))
DEF_SYNTH = str(PEERS_WORK / "build/andorra/synth.json")
DEF_MAP = str(SHARED / "data/graphhopper_mapmatching/osm/andorra.osm.pbf")
DEF_PEERS = str(PEERS_WORK / "out/andorra_synth/summary.json")
PEER_COLS = [("osrm_mld", "OSRM MLD"), ("valhalla", "Valhalla"), ("fastmm", "fastmm")]


def write_csv(t, path: Path):
    with open(path, "w") as f:
        f.write("time,lat,lon\n")
        for lon, lat, ts in t["points"]:
            f.write(f"{ts:.3f},{lat:.8f},{lon:.8f}\n" if ts % 1 else f"{int(ts)},{lat:.8f},{lon:.8f}\n")


def run_cli(cmd, log: Path, timeout):
    a = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
        rc, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode(errors="replace")
    wall = time.perf_counter() - a
    with open(log, "a") as f:
        f.write(f"$ {' '.join(map(str, cmd[:12]))}{' ...' if len(cmd) > 12 else ''}\n{out}\n[rc={rc} wall={wall:.3f}s]\n\n")
    return rc, out, wall


def parse_geojson(path: Path, n):
    """RoadSnap GeoJSON -> (matched [[lon,lat]|None]*n, geoms [[[lon,lat],...],...], sub_matches, extra)."""
    d = json.loads(path.read_text())
    matched, geoms, nsub, seen = [None] * n, [], 0, 0
    for f in d.get("features", []):
        g, pr = f.get("geometry") or {}, f.get("properties") or {}
        if g.get("type") == "LineString":
            nsub += 1
            geoms.append([[float(c[0]), float(c[1])] for c in g["coordinates"]])
        elif g.get("type") == "MultiLineString":
            nsub += 1
            geoms += [[[float(c[0]), float(c[1])] for c in line] for line in g["coordinates"]]
        elif g.get("type") == "Point":
            seen += 1
            i = pr.get("fix_index")
            if pr.get("matched") and i is not None and 0 <= i < n:
                matched[i] = [float(g["coordinates"][0]), float(g["coordinates"][1])]
    return matched, geoms, nsub, seen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("--synth", default=DEF_SYNTH)
    ap.add_argument("--map", default=DEF_MAP)
    ap.add_argument("--tol", type=float, default=3.0, help="cover tolerance (peers: --tol default 3 m)")
    ap.add_argument("--per-sigma", action="store_true", help="one CLI call per sigma group with --sigma <track sigma>")
    ap.add_argument("--tag", default=None)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--peers-summary", default=DEF_PEERS)
    ap.add_argument("--worst", type=int, default=5)
    args, extra = ap.parse_known_args()
    extra = [x for x in extra if x != "--"]
    bin_ = str(Path(args.bin).resolve())
    tag = args.tag or (Path(bin_).name + ("_persigma" if args.per_sigma else "") +
                       ("_" + re.sub(r"[^A-Za-z0-9.]+", "", "_".join(extra)) if extra else ""))
    work = HERE / "runs" / tag
    tdir, odir = work / "tracks", work / "out"
    tdir.mkdir(parents=True, exist_ok=True)
    if odir.exists():
        for p in odir.iterdir():
            p.unlink()
    odir.mkdir(parents=True, exist_ok=True)
    log = work / "roadsnap.log"
    log.write_text("")

    tracks = json.loads(Path(args.synth).read_text())["tracks"]
    npts = sum(len(t["points"]) for t in tracks)
    csvs = {}
    for t in tracks:
        p = tdir / f"{t['id']}.csv"
        write_csv(t, p)
        csvs[t["id"]] = p
    base = [bin_, "match", "--map", args.map, "--format", "geojson", "--out", str(odir)]
    if "--jobs" not in extra:
        base += ["--jobs", "1"]
    base += extra
    print(f"[roadsnap] {bin_} | {len(tracks)} tracks, {npts} points | extra args: {' '.join(extra) or '(none)'}"
          f"{' | per-sigma: --sigma <track sigma>' if args.per_sigma else ''} -> {work}")

    # --- start-up cost: `info` (reports its load time) and a 1-track run (smallest track)
    rc, out, info_wall = run_cli([bin_, "info", "--map", args.map], log, 300)
    m = re.search(r"load time:\s*([\d.]+)\s*s", out)
    info_load = float(m.group(1)) if m else None
    small = min(tracks, key=lambda t: len(t["points"]))
    one_dir = work / "one"
    one_dir.mkdir(exist_ok=True)
    one_cmd = [x if x != str(odir) else str(one_dir) for x in base]
    one_walls = [run_cli(one_cmd + [str(csvs[small["id"]])], log, 300)[2] for _ in range(3)]
    one_wall = min(one_walls)

    # --- the timed run(s)
    if args.per_sigma:
        groups = {}
        for t in tracks:
            groups.setdefault(float(t["meta"]["sigma_m"]), []).append(t)
        calls = [(base + ["--sigma", f"{s:g}"], g) for s, g in sorted(groups.items())]
    else:
        calls = [(base, tracks)]
    wall, cli_out, rcs = 0.0, [], []
    for cmd, g in calls:
        rc, out, w = run_cli(cmd + [str(csvs[t["id"]]) for t in g], log, args.timeout)
        wall += w
        rcs.append(rc)
        cli_out.append(out)
    # robustness: if the batch run died, re-run every track without output one by one (not timed)
    missing = [t for t in tracks if not (odir / f"{t['id']}.matched.geojson").exists()]
    rerun_err, fallback = {}, False
    if missing and any(rc not in (0, 1) for rc in rcs):
        fallback = True
        print(f"[roadsnap] batch rc={rcs}: re-running {len(missing)} tracks one by one (timing below is INVALID)")
        for t in missing:
            cmd = base + (["--sigma", f"{t['meta']['sigma_m']:g}"] if args.per_sigma else [])
            rc, out, _ = run_cli(cmd + [str(csvs[t["id"]])], log, 300)
            if rc != 0:
                rerun_err[t["id"]] = f"rc={rc}: {out.strip()[-200:]}"

    # --- parse + score
    per_track, failures, matched_pts = [], 0, 0
    for t in tracks:
        n = len(t["points"])
        f = odir / f"{t['id']}.matched.geojson"
        err, nsub, seen = None, 0, 0
        try:
            matched, geoms, nsub, seen = parse_geojson(f, n)
            if seen != n:
                err = f"output has {seen} Point features for {n} fixes"
        except Exception as e:  # noqa: BLE001
            err = rerun_err.get(t["id"]) or f"parse: {type(e).__name__}: {e}"
            matched, geoms = [None] * n, []
        nm = sum(1 for x in matched if x is not None)
        matched_pts += nm
        if (err and not err.startswith("output has")) or nm == 0:
            failures += 1
        rec = {"id": t["id"], "n": n, "matched_n": nm, "sub_matches": nsub, "error": err, "matched": matched,
               "geometry": geoms, "meta": t["meta"]}
        try:
            sc = mp.score_track(t, matched, geoms, args.tol)
        except Exception as e:  # noqa: BLE001
            rec["error"] = (err or "") + f" score: {type(e).__name__}: {e}"
            sc = {"d0_m": 0.0, "d_minus_m": 0.0, "d_plus_m": 0.0, "route_mismatch": None,
                  "point_err_m": [], "points_on_route": 0}
        e = sc.pop("point_err_m")
        sc["point_err_median_m"] = mp.pct(e, 0.5)
        sc["point_err_p95_m"] = mp.pct(e, 0.95)
        rec["score"], rec["_err"] = sc, e
        per_track.append(rec)
    acc = mp.accuracy_table(per_track)
    for r in per_track:
        r.pop("_err", None)

    speed = [ln.strip() for o in cli_out for ln in o.splitlines() if ln.startswith(("speed:", "tracks:", "fixes:", "sub-matches:"))]
    s = {"ok": True, "load_s": info_load if info_load is not None else float("nan"), "tracks": len(tracks),
         "failed_tracks": failures, "points": npts, "matched_points": matched_pts, "match_s": wall,
         "match_cpu_s": float("nan"), "total_s": wall, "points_per_s": npts / wall if wall else None,
         "points_per_s_total": npts / wall if wall else None, "max_rss_mib": float("nan"),
         "settings": " ".join(base[1:] + (["--sigma <track sigma>"] if args.per_sigma else [])),
         "errors_sample": sorted({r["error"][:200] for r in per_track if r["error"]})[:5], "accuracy": acc,
         "cli_rc": rcs, "cli_summary": speed, "info_wall_s": info_wall, "info_load_s": info_load,
         "one_track_wall_s": one_wall, "one_track_points": len(small["points"]), "batch_fallback": fallback}
    (work / "roadsnap.json").write_text(json.dumps({"peer": "roadsnap", "bin": bin_, "summary": s, "tracks": per_track}))

    # --- report
    print(f"[roadsnap] CLI rc={rcs} | wall {wall:.3f} s for {npts} fixes -> {npts / wall:.0f} fixes/s "
          f"(incl. map load + CSV read + GeoJSON write, {len(calls)} call(s))")
    net = wall - len(calls) * one_wall
    print(f"[roadsnap] start-up: `info` load time {info_load} s (wall {info_wall:.3f} s); 1-track run "
          f"({len(small['points'])} fixes) best wall {one_wall:.3f} s -> excl. that: "
          + (f"{npts / net:.0f} fixes/s" if net > 0 else "n/a"))
    if fallback or any(rc not in (0, 1) for rc in rcs):
        print(f"[roadsnap] WARNING: batch CLI call(s) failed (rc={rcs}); wall time / fixes/s are not meaningful")
    for ln in speed:
        print(f"           cli: {ln}")
    print("(peers' log format; load = `info` load time, match = wall of the whole CLI call(s), RSS not measured)")
    mp.print_peer("roadsnap", s)
    print("\nlength-weighted mismatch sum(d- + d+)/sum(d0) per group:")
    for k, row in acc.items():
        print(f"           {k:14s} lw {row['route_mismatch_lengthweighted']:.4f}  (tracks {row['tracks']})")

    bad = [r for r in per_track if r["error"] or r["matched_n"] < r["n"]]
    print(f"\ntracks with errors: {sum(1 for r in per_track if r['error'])}; tracks with unmatched fixes: "
          f"{sum(1 for r in per_track if r['matched_n'] < r['n'])} ({npts - matched_pts} fixes unmatched)")
    for r in bad[:20]:
        print(f"  {r['id']:16s} matched {r['matched_n']}/{r['n']} sub-matches {r['sub_matches']} {r['error'] or ''}")
    nsubs = {}
    for r in per_track:
        nsubs[r["sub_matches"]] = nsubs.get(r["sub_matches"], 0) + 1
    print(f"sub-matches per track: {dict(sorted(nsubs.items()))}")
    worst = sorted((r for r in per_track if r["score"]["route_mismatch"] is not None),
                   key=lambda r: -r["score"]["route_mismatch"])[: args.worst]
    print(f"worst {args.worst} tracks by mismatch:")
    for r in worst:
        sc = r["score"]
        print(f"  {r['id']:16s} mismatch {sc['route_mismatch']:.4f} (d- {sc['d_minus_m']:.0f} m, d+ {sc['d_plus_m']:.0f} m,"
              f" d0 {sc['d0_m']:.0f} m) sub-matches {r['sub_matches']} matched {r['matched_n']}/{r['n']}")

    # --- comparison with the peers (their summary.json has the length-weighted mismatch too)
    ps = Path(args.peers_summary)
    if ps.exists():
        peers = json.loads(ps.read_text())["peers"]
        cols = [("roadsnap", "RoadSnap", s)] + [(k, lab, peers[k]) for k, lab in PEER_COLS if k in peers]
        print("\n| dt, sigma | " + " | ".join(f"{lab} mean / med / lw" for _, lab, _ in cols) + " | matched share "
              + " / ".join(lab for _, lab, _ in cols) + " |")
        print("|---|" + "---|" * (len(cols) + 1))
        order = sorted(acc, key=lambda k: (k == "ALL", float(re.findall(r"[\d.]+", k)[0]) if k != "ALL" else 0,
                                           float(re.findall(r"[\d.]+", k)[1]) if k != "ALL" else 0))
        for k in order:
            cells, shares = [], []
            for _, _, sm in cols:
                row = sm.get("accuracy", {}).get(k)
                if not row:
                    cells.append("-")
                    shares.append("-")
                    continue
                cells.append(f"{row['route_mismatch_mean']:.4f} / {row['route_mismatch_median']:.4f} / "
                             f"{row['route_mismatch_lengthweighted']:.4f}")
                shares.append(f"{row['matched_frac']:.3f}")
            print(f"| {k} | " + " | ".join(cells) + " | " + " / ".join(shares) + " |")


if __name__ == "__main__":
    main()
