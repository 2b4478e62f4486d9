#!/usr/bin/env python3
"""The Spark job against the CLI, for real (make spark-test, part of make test).

Spark local mode on (1) the bundled sample drive (Samples/) and (2) the 70 Kubicka development tracks (the 20 of
subset/ and the 50 of more50.tar.xz of the dataset, merged into one network by spark/tools/kubicka_fixture.py; the
result is committed in spark/fixtures/kubicka70, or rebuilt with --kubicka-src DIR). For every track, the Parquet written by the job equals the CLI's
file-based output (`roadsnap match --format geojson`: its fix points and sub-match lines): same rows, edges,
sub-matches, offsets, distances, matched positions, lengths, confidences and geometries. A bad track (one with no
usable fix) lands in errors/ and does not fail the job.

Both engines are checked, on one session and one cached input DataFrame: `pipe` (the binary in streaming mode) and
`capi` (libroadsnap through ctypes in mapInArrow).

Usage: test_roadsnap_match.py --roadsnap BIN --library libroadsnap.so.N [--work DIR] [--kubicka-src DIR]
"""

import argparse
import csv
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import roadsnap_match  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

FAILURES = []


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        if len(FAILURES) <= 20:
            print("FAIL:", message, flush=True)


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"{args} exited {r.returncode}: {r.stderr[-2000:]}")
    return r


def cli_results(binary, map_path, tracks_dir):
    """The file-based CLI's GeoJSON output for every track CSV in tracks_dir: {id: (fix points, sub-match lines)}
    (None for a track the CLI failed on)."""
    names = sorted(f for f in os.listdir(tracks_dir) if f.endswith(".csv"))
    out_geo = os.path.join(tracks_dir, "cli-geojson")
    paths = [os.path.join(tracks_dir, n) for n in names]
    run([binary, "match", "--map", map_path, "--format", "geojson", "--out", out_geo, "--jobs", "2"] + paths)
    results = {}
    for n in names:
        base = n[:-4]
        p = os.path.join(out_geo, base + ".matched.geojson")
        if not os.path.exists(p):
            results[base] = None
            continue
        with open(p) as f:
            features = json.load(f)["features"]
        points = [ft for ft in features if ft["geometry"]["type"] == "Point"]
        subs = [ft for ft in features if ft["geometry"]["type"] == "LineString"]
        results[base] = (points, subs)
    return results


def compare(spark, binary, library, map_path, fixes_csv, tracks_dir, label, time_type, expect_errors=()):
    """Runs the job with each engine on fixes_csv (one DataFrame, one session) and compares with the CLI on the
    per-track CSVs in tracks_dir (run once)."""
    # Track ids stay strings ("00000001" is not the number 1).
    schema = f"track_id STRING, time {time_type}, lat DOUBLE, lon DOUBLE"
    df = spark.read.option("header", True).schema(schema).csv(fixes_csv).cache()
    df.count()
    cli = cli_results(binary, map_path, tracks_dir)
    for engine in roadsnap_match.ENGINES:
        compare_engine(spark, df, engine, binary, library, map_path, cli, tracks_dir, f"{label} ({engine})",
                       expect_errors)
    df.unpersist()


def compare_engine(spark, df, engine, binary, library, map_path, cli, tracks_dir, label, expect_errors):
    t0 = time.time()
    results = roadsnap_match.match_fixes(spark, df, map_path, binary, per_fix=True, partitions=2, engine=engine,
                                         library=library).persist()
    subs_df, fixes_df, errors_df = roadsnap_match.tables(results)
    out = os.path.join(tracks_dir, "parquet-" + engine)
    subs_df.write.mode("overwrite").parquet(os.path.join(out, "submatches"))
    fixes_df.write.mode("overwrite").parquet(os.path.join(out, "fixes"))
    errors_df.write.mode("overwrite").parquet(os.path.join(out, "errors"))
    spark_seconds = time.time() - t0
    subs = spark.read.parquet(os.path.join(out, "submatches")).toPandas()
    fixes = spark.read.parquet(os.path.join(out, "fixes")).toPandas()
    errors = spark.read.parquet(os.path.join(out, "errors")).toPandas()
    results.unpersist()
    tracks = sorted(cli)
    compared_fixes = 0
    for tid in tracks:
        expected = cli[tid]
        if expected is None:
            check(tid in set(errors["track_id"]), f"{label} {tid}: CLI failed, no row in errors/")
            continue
        points, features = expected
        got = fixes[fixes["track_id"] == tid].sort_values("row")
        check(len(got) == len(points), f"{label} {tid}: {len(got)} fix rows, CLI {len(points)}")
        for (_, g), pt in zip(got.iterrows(), points):
            compared_fixes += 1
            e = pt["properties"]
            ok = int(g["row"]) == e["fix_index"]
            if e["matched"]:
                lon, lat = pt["geometry"]["coordinates"]
                ok = ok and g["edge_id"] == str(e["edge_id"]) and int(g["sub_match"]) == e["sub_match"]
                ok = ok and g["offset_m"] == e["offset_m"] and g["distance_m"] == e["distance_m"]
                ok = ok and g["lat"] == lat and g["lon"] == lon
            else:
                ok = ok and g["edge_id"] is None
            if not ok:
                check(False, f"{label} {tid} fix {e['fix_index']}: Spark {dict(g)} vs CLI {e}")
                break
        got_subs = subs[subs["track_id"] == tid].sort_values("sub_match")
        check(len(got_subs) == len(features), f"{label} {tid}: {len(got_subs)} sub-matches, CLI {len(features)}")
        for (_, g), ft in zip(got_subs.iterrows(), features):
            p = ft["properties"]
            coords = ft["geometry"]["coordinates"]
            wkt = roadsnap_match.wkt(coords)
            same = (list(g["edge_ids"]) == [str(e) for e in p["edge_ids"]] and g["length_m"] == p["length_m"]
                    and g["confidence"] == p["confidence"] and g["first_fix"] == p["first_fix"]
                    and g["last_fix"] == p["last_fix"] and g["geometry_wkt"] == wkt)
            check(same, f"{label} {tid} sub-match {p['sub_match']}: Spark {dict(g)} vs CLI {p}")
    for tid in expect_errors:
        reasons = list(errors[errors["track_id"] == tid]["error"])
        check(len(reasons) == 1 and "no usable fix" in reasons[0],
              f"{label}: bad track {tid}: errors/ holds {reasons}, expected one 'no usable fix' row")
    print(f"{label}: {len(tracks)} tracks, {compared_fixes} fixes compared; Spark job {spark_seconds:.1f} s",
          flush=True)


def write_tracks(fixes_csv, tracks_dir):
    """One CSV per track (time,lat,lon) from the job's input, for the file-based CLI."""
    by = {}
    with open(fixes_csv) as f:
        for r in csv.DictReader(f):
            by.setdefault(r["track_id"], []).append(r)
    for tid, rows in by.items():
        with open(os.path.join(tracks_dir, tid + ".csv"), "w") as f:
            f.write("time,lat,lon\n")
            for r in rows:
                f.write(f"{r['time']},{r['lat']},{r['lon']}\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--roadsnap", required=True)
    p.add_argument("--library", required=True, help="libroadsnap.so.N (make capi-lib) for the capi engine")
    p.add_argument("--work", default=os.path.join(ROOT, ".build", "spark-test"))
    p.add_argument("--kubicka-src", default=None,
                   help="rebuild the 70-track fixture from the dataset folder (subset/ and more50.tar.xz) instead of "
                        "using spark/fixtures/kubicka70")
    a = p.parse_args()
    binary, library = os.path.abspath(a.roadsnap), os.path.abspath(a.library)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers need this venv's pyarrow
    os.makedirs(a.work, exist_ok=True)
    t0 = time.time()
    spark = (SparkSession.builder.master("local[2]").appName("roadsnap-test")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    print(f"session start {time.time() - t0:.1f} s", flush=True)

    # (1) The sample drive, two pieces of it as two tracks, and a track with no usable fix.
    sample = os.path.join(a.work, "sample")
    os.makedirs(sample, exist_ok=True)
    rsmap = os.path.join(a.work, "bellevue.rsmap")
    if not os.path.exists(rsmap):
        run([binary, "compile", "--map", os.path.join(ROOT, "Samples", "bellevue-issue147.osm.gz"), "--out", rsmap])
    with open(os.path.join(ROOT, "Samples", "newson-krumm-bellevue.csv")) as f:
        drive = list(csv.DictReader(f))
    fixes_csv = os.path.join(sample, "fixes.input")  # not *.csv: the CLI comparison takes every *.csv as a track
    with open(fixes_csv, "w") as f:
        f.write("track_id,time,lat,lon\n")
        for i, r in enumerate(drive):
            f.write(f"{'drive-a' if i < 700 else 'drive-b'},{r['time']},{r['lat']},{r['lon']}\n")
        f.write("nowhere,2009-01-17T20:45:25Z,95.5,-122.1\n")  # latitude out of range: no usable fix
    write_tracks(fixes_csv, sample)
    compare(spark, binary, library, rsmap, fixes_csv, sample, "sample", "TIMESTAMP", expect_errors=["nowhere"])

    # (2) The 70 Kubicka development tracks on one merged network.
    kub = os.path.join(a.work, "kubicka")
    fixes_csv = os.path.join(kub, "fixes.input")
    krsmap = os.path.join(kub, "network.rsmap")
    if not os.path.exists(krsmap):
        os.makedirs(kub, exist_ok=True)
        fixture = os.path.join(HERE, "fixtures", "kubicka70")
        if a.kubicka_src is None:
            # The committed fixture (spark/fixtures/kubicka70/SOURCE.md): the merged network and the fixes, xz'd.
            for name, out in (("network.geojson.xz", "network.geojson"), ("fixes.csv.xz", "fixes.input")):
                with lzma.open(os.path.join(fixture, name)) as src, open(os.path.join(kub, out), "wb") as dst:
                    shutil.copyfileobj(src, dst)
        else:
            # Rebuilt from the dataset (as the committed fixture was made).
            src = os.path.join(a.work, "kubicka-src")
            if not os.path.isdir(os.path.join(src, "more50")):
                os.makedirs(os.path.join(src, "more50"), exist_ok=True)
                with tarfile.open(os.path.join(a.kubicka_src, "more50.tar.xz")) as t:
                    t.extractall(os.path.join(src, "more50"))
            more = os.path.join(src, "more50")
            while len(os.listdir(more)) == 1 and os.path.isdir(os.path.join(more, os.listdir(more)[0])):
                more = os.path.join(more, os.listdir(more)[0])
            run([sys.executable, os.path.join(HERE, "tools", "kubicka_fixture.py"), kub,
                 os.path.join(a.kubicka_src, "subset"), more, "--margin=60"])
            os.rename(os.path.join(kub, "fixes.csv"), fixes_csv)
        run([binary, "compile", "--map", os.path.join(kub, "network.geojson"), "--out", krsmap])
        check(os.path.exists(krsmap), f"kubicka: {krsmap} was not compiled")
        write_tracks(fixes_csv, kub)
    n_tracks = len([f for f in os.listdir(kub) if f.endswith(".csv")])
    check(n_tracks == 70, f"kubicka: {n_tracks} tracks, expected 70")
    compare(spark, binary, library, krsmap, fixes_csv, kub, "kubicka", "DOUBLE")
    spark.stop()
    print(f"spark-test: {time.time() - t0:.0f} s, {len(FAILURES)} failure(s)")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
