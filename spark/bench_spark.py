#!/usr/bin/env python3
"""Figures for docs/spark.md (make spark-bench): the two engines of spark/roadsnap_match.py (`pipe`: the roadsnap
binary in streaming mode, one process per partition; `capi`: libroadsnap through ctypes in mapInArrow) through
Spark local[1] and local[2], against `roadsnap match --jobs 1` and `--jobs 2` on the same tracks, all in this one
script, interleaved (every repetition runs every configuration once, in turn), so that the machine's load hits them
alike; medians and ratios at the end, with the load average.

- Volume: the tracks are matched at --volumes (default 1 and 3: the input repeated under new track ids), so that a
  fit `time = fixed + fixes x per_fix` separates a job's fixed cost (scheduling, the shuffle's set-up, Parquet
  commit) from its cost per fix. The Spark session's start is measured once per session, not counted in any job.
- Per-track overhead: the same fixes cut into tracks of --piece fixes (default 200), matched by each engine, against
  the whole tracks: (time difference, less the engine's own extra work measured without Spark) / extra tracks. The
  CLI and roadsnap_capi without Spark are timed on the same pieces.
- Map: ship (a copy of the file, what addFile does in local mode; a download on a cluster) and open per executor: a
  new `roadsnap` process opening the map (pipe engine: once per partition), and a new Python process loading
  libroadsnap and opening the map with a matcher (capi engine: once per Python worker), for the compiled map and the
  source map it was compiled from.
- capi without Spark: the 70 tracks matched by roadsnap_capi in this process (the engine plus ctypes/numpy, no Spark).

Usage: bench_spark.py --roadsnap RELEASE_BIN --library RELEASE_LIBROADSNAP --map MAP.rsmap --source-map SRC
       --fixes FIXES_CSV --tracks DIR_OF_TRACK_CSVS [--repeat N] [--volumes 1,3] [--piece 200] [--out FILE.json]
(make spark-bench passes the Kubicka inputs that make spark-test leaves in .build/spark-test/kubicka.)
"""

import argparse
import csv
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
import roadsnap_capi  # noqa: E402
import roadsnap_match  # noqa: E402
from pyspark.sql import SparkSession, functions as F  # noqa: E402

import numpy as np  # noqa: E402

TIMES = {}  # configuration -> [seconds]


def record(name, seconds):
    TIMES.setdefault(name, []).append(seconds)
    print(f"  {name}: {seconds:.2f} s", flush=True)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def load():
    return os.getloadavg()


def write_pieces(fixes_csv, out_dir, piece):
    """The tracks cut into tracks of `piece` fixes: one CSV of all fixes (track_id,time,lat,lon) and one per piece."""
    os.makedirs(out_dir, exist_ok=True)
    rows = {}
    with open(fixes_csv) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["track_id"], []).append(r)
    all_csv = os.path.join(out_dir, "fixes.input")
    n = 0
    with open(all_csv, "w") as out:
        out.write("track_id,time,lat,lon\n")
        for tid, rs in rows.items():
            for k in range(0, len(rs), piece):
                pid = f"{tid}-{k // piece:05d}"
                with open(os.path.join(out_dir, pid + ".csv"), "w") as t:
                    t.write("time,lat,lon\n")
                    for r in rs[k:k + piece]:
                        out.write(f"{pid},{r['time']},{r['lat']},{r['lon']}\n")
                        t.write(f"{r['time']},{r['lat']},{r['lon']}\n")
                n += 1
    return all_csv, n


def open_in_new_python(library, map_path):
    """In a new Python process: seconds to import numpy and pyarrow (a Spark Arrow worker has them already), and
    to load libroadsnap and open the map with a matcher (what a capi worker pays once)."""
    code = ("import sys, time; sys.path.insert(0, %r); t0 = time.perf_counter(); import roadsnap_capi; "
            "t1 = time.perf_counter(); roadsnap_capi.Engine(%r, %r, {}); print(t1 - t0, time.perf_counter() - t1)"
            ) % (HERE, library, map_path)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imports, engine = (float(x) for x in r.stdout.split())
    return imports, engine


def capi_direct(library, map_path, tracks):
    """The 70 tracks through roadsnap_capi.match_track in this process (no Spark)."""
    engine = roadsnap_capi.Engine.get(library, map_path, {})
    cols = []
    for path in tracks:
        a = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float64, ndmin=2)
        cols.append((os.path.basename(path), [a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy()]))

    def run():
        results = roadsnap_capi.Results()
        for name, c in cols:
            roadsnap_capi.match_track(engine, name, c, [], True, results)
        return results
    return run


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--roadsnap", required=True)
    p.add_argument("--library", required=True)
    p.add_argument("--map", required=True)
    p.add_argument("--source-map", required=True, help="the source the map was compiled from (GeoJSON/OSM)")
    p.add_argument("--fixes", required=True)
    p.add_argument("--tracks", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--volumes", default="1,3")
    p.add_argument("--piece", type=int, default=200)
    p.add_argument("--cores", default="1,2")
    p.add_argument("--out", help="write the medians as JSON here")
    a = p.parse_args()
    binary, library = os.path.abspath(a.roadsnap), os.path.abspath(a.library)
    volumes = [int(v) for v in a.volumes.split(",")]
    cores_list = [int(c) for c in a.cores.split(",")]
    tracks = sorted(glob.glob(os.path.join(a.tracks, "*.csv")))
    with open(a.fixes) as f:
        n_fixes = sum(1 for _ in f) - 1
    load_start = load()
    print(f"{len(tracks)} tracks, {n_fixes} fixes, map {os.path.getsize(a.map) / 1e6:.0f} MB, "
          f"load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}", flush=True)
    work = tempfile.mkdtemp(prefix="roadsnap-bench-")
    try:
        pieces_csv, n_pieces = write_pieces(a.fixes, os.path.join(work, "pieces"), a.piece)
        piece_tracks = sorted(glob.glob(os.path.join(work, "pieces", "*.csv")))
        print(f"pieces: {n_pieces} tracks of <= {a.piece} fixes", flush=True)
        direct = capi_direct(library, a.map, tracks)
        direct()  # warm-up (opens the map once)
        direct_pieces = capi_direct(library, a.map, piece_tracks)

        # Map shipping and opening, interleaved, each repetition.
        def open_cli(m):
            subprocess.run([binary, "match", "--map", m, "--input", "ndjson", "--jobs", "1"],
                           stdin=subprocess.DEVNULL, capture_output=True, check=True)

        for rep in range(a.repeat):
            print(f"map open, repetition {rep + 1}", flush=True)
            for label, m in (("compiled", a.map), ("source", a.source_map)):
                record(f"ship (copy) {label}", timed(lambda: shutil.copyfile(m, os.path.join(work, "shipped"))))
                record(f"open pipe (process + map) {label}", timed(lambda: open_cli(m)))
                imports, engine = open_in_new_python(library, m)
                record(f"open capi (load lib + map + matcher) {label}", engine)
                record("python imports numpy+pyarrow (capi worker)", imports)

        for cores in cores_list:
            t0 = time.perf_counter()
            spark = (SparkSession.builder.master(f"local[{cores}]").appName("roadsnap-bench")
                     .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                     .config("spark.sql.shuffle.partitions", str(cores)).getOrCreate())
            spark.sparkContext.setLogLevel("ERROR")
            record(f"session start local[{cores}]", time.perf_counter() - t0)
            sc = spark.sparkContext
            print(f"  master {sc.master}, default parallelism {sc.defaultParallelism}", flush=True)
            if sc.master != f"local[{cores}]":
                raise SystemExit(f"the session runs on {sc.master}, not local[{cores}]")
            schema = "track_id STRING, time DOUBLE, lat DOUBLE, lon DOUBLE"
            base = spark.read.option("header", True).schema(schema).csv(a.fixes)
            inputs = {}
            for v in volumes:
                df = base if v == 1 else base.crossJoin(spark.range(v).withColumnRenamed("id", "_copy")).select(
                    F.concat_ws("#", "track_id", F.col("_copy").cast("string")).alias("track_id"),
                    "time", "lat", "lon")
                inputs[f"x{v}"] = df.cache()
                inputs[f"x{v}"].count()
            inputs["pieces"] = spark.read.option("header", True).schema(schema).csv(pieces_csv).cache()
            inputs["pieces"].count()
            out = os.path.join(work, "out")

            def job(engine, df):
                def run():
                    r = roadsnap_match.match_fixes(spark, df, a.map, binary, per_fix=True, partitions=cores,
                                                   engine=engine, library=library).persist()
                    subs, fixes, errors = roadsnap_match.tables(r)
                    subs.write.mode("overwrite").parquet(os.path.join(out, "s"))
                    fixes.write.mode("overwrite").parquet(os.path.join(out, "f"))
                    r.unpersist()
                return run

            for engine in roadsnap_match.ENGINES:  # warm-up: workers started, map opened
                job(engine, inputs["x1"])()
            for rep in range(a.repeat):
                print(f"local[{cores}], repetition {rep + 1}, load {load()[0]:.2f}", flush=True)
                for jobs in (1, 2):
                    record(f"cli --jobs {jobs} x1", timed(lambda: subprocess.run(
                        [binary, "match", "--map", a.map, "--format", "csv", "--out", os.path.join(work, "cli"),
                         "--jobs", str(jobs)] + tracks, capture_output=True)))
                record("cli --jobs 1 pieces", timed(lambda: subprocess.run(
                    [binary, "match", "--map", a.map, "--format", "csv", "--out", os.path.join(work, "cli"),
                     "--jobs", "1"] + piece_tracks, capture_output=True)))
                record("capi direct x1", timed(direct))
                record("capi direct pieces", timed(direct_pieces))
                for name, df in inputs.items():
                    for engine in roadsnap_match.ENGINES:
                        record(f"spark local[{cores}] {engine} {name}", timed(job(engine, df)))
            for df in inputs.values():
                df.unpersist()
            spark.stop()
        load_end = load()
        if a.out:  # the raw times first, in case the report fails
            with open(a.out, "w") as f:
                json.dump({"runs": TIMES}, f, indent=1)
        report(a, n_fixes, len(tracks), n_pieces, volumes, cores_list, load_start, load_end)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(a, n_fixes, n_tracks, n_pieces, volumes, cores_list, load_start, load_end):
    med = {k: statistics.median(v) for k, v in TIMES.items()}
    print(f"\n== medians of {a.repeat} (load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end;"
          f" {n_tracks} tracks, {n_fixes} fixes per volume unit) ==")
    for k in sorted(med):
        print(f"{k:45s} {med[k]:8.2f} s   (runs: {', '.join(f'{t:.2f}' for t in TIMES[k])})")
    summary = {"load_start": load_start, "load_end": load_end, "fixes": n_fixes, "tracks": n_tracks,
               "pieces": n_pieces, "medians": med, "runs": TIMES}
    print("\n| run | fixes/s | vs cli --jobs 1 |")
    print("| --- | ---: | ---: |")
    cli1 = med.get("cli --jobs 1 x1")
    rows = [("cli --jobs 1 x1", 1), ("cli --jobs 2 x1", 1), ("capi direct x1", 1)]
    for cores in cores_list:
        for engine in roadsnap_match.ENGINES:
            for v in volumes:
                rows.append((f"spark local[{cores}] {engine} x{v}", v))
    for k, v in rows:
        if k in med:
            rate = v * n_fixes / med[k]
            print(f"| {k} | {rate:,.0f} | {cli1 / (med[k] / v):.2f} |")
    print("\nper engine and core count: fixed cost per job and cost per fix (fit over the volumes), per-track "
          "overhead (pieces vs whole tracks, less the engine's own difference without Spark):")
    fits = {}
    for cores in cores_list:
        for engine in roadsnap_match.ENGINES:
            pts = [(v * n_fixes, med[f"spark local[{cores}] {engine} x{v}"]) for v in volumes]
            if len(pts) >= 2:
                (x0, y0), (x1, y1) = pts[0], pts[-1]
                per_fix = (y1 - y0) / (x1 - x0)
                fixed = y0 - per_fix * x0
            else:
                per_fix, fixed = pts[0][1] / pts[0][0], 0.0
            whole, pieces = med[f"spark local[{cores}] {engine} x1"], med[f"spark local[{cores}] {engine} pieces"]
            # The engine's own extra work for the pieces (more, shorter HMM runs), measured without Spark.
            engine_extra = med["capi direct pieces"] - med["capi direct x1"]
            per_track = ((pieces - whole) - (engine_extra / cores)) / (n_pieces - n_tracks)
            fits[f"local[{cores}] {engine}"] = {"fixed_s": fixed, "per_fix_us": per_fix * 1e6,
                                               "fixes_per_s_marginal": 1 / per_fix if per_fix > 0 else None,
                                               "per_track_ms": per_track * 1e3}
            print(f"  local[{cores}] {engine}: fixed {fixed:.2f} s per job, {per_fix * 1e6:.1f} µs per fix "
                  f"({1 / per_fix if per_fix > 0 else float('nan'):,.0f} fixes/s marginal), "
                  f"{per_track * 1e3:.2f} ms per extra track")
    cli_track = (med["cli --jobs 1 pieces"] - med["cli --jobs 1 x1"]) / (n_pieces - n_tracks)
    direct_track = (med["capi direct pieces"] - med["capi direct x1"]) / (n_pieces - n_tracks)
    print(f"  without Spark, per extra track: cli --jobs 1 {cli_track * 1e3:.2f} ms (a file in, a file out), "
          f"capi direct {direct_track * 1e3:.2f} ms")
    fits["cli_per_track_ms"], fits["capi_direct_per_track_ms"] = cli_track * 1e3, direct_track * 1e3
    for cores in cores_list:
        pipe, capi = med.get(f"spark local[{cores}] pipe x{volumes[-1]}"), med.get(f"spark local[{cores}] capi x{volumes[-1]}")
        if pipe and capi:
            print(f"  local[{cores}] x{volumes[-1]}: capi / pipe time = {capi / pipe:.2f}")
    summary["fits"] = fits
    if a.out:
        with open(a.out, "w") as f:
            json.dump(summary, f, indent=1)
        print(f"\nwritten {a.out}")


if __name__ == "__main__":
    main()
