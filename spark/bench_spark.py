#!/usr/bin/env python3
"""Figures for docs/spark.md: fixes/s through Spark local mode (1 and 2 cores) against `roadsnap match --jobs 1/2`
on the same tracks, and the time to ship and open the map per executor.

Usage: bench_spark.py --roadsnap RELEASE_BIN --map MAP.rsmap --fixes FIXES_CSV --tracks DIR_OF_TRACK_CSVS [--repeat N]
(make spark-test leaves the Kubicka inputs in .build/spark-test/kubicka: network.rsmap, fixes.input, *.csv).
Each figure is the median of N runs (default 3) after one warm-up; the session start is not counted in the Spark
figures (it is printed separately).
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roadsnap_match  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402


def timed(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--roadsnap", required=True)
    p.add_argument("--map", required=True)
    p.add_argument("--fixes", required=True)
    p.add_argument("--tracks", required=True)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    binary = os.path.abspath(a.roadsnap)
    tracks = sorted(glob.glob(os.path.join(a.tracks, "*.csv")))
    with open(a.fixes) as f:
        n_fixes = sum(1 for _ in f) - 1
    print(f"{len(tracks)} tracks, {n_fixes} fixes, map {os.path.getsize(a.map) / 1e6:.0f} MB")
    out = tempfile.mkdtemp()
    try:
        # Opening the map alone: the streaming mode on empty input (process start + open + matcher set-up).
        open_s = timed(lambda: subprocess.run([binary, "match", "--map", a.map, "--input", "ndjson", "--jobs", "1"],
                                              stdin=subprocess.DEVNULL, capture_output=True, check=True), a.repeat)
        print(f"roadsnap process start + map open: {open_s * 1000:.0f} ms")
        for jobs in (1, 2):
            s = timed(lambda: subprocess.run([binary, "match", "--map", a.map, "--format", "csv", "--out", out,
                                              "--jobs", str(jobs)] + tracks, capture_output=True), a.repeat)
            print(f"roadsnap match --jobs {jobs}: {s:.2f} s, {n_fixes / s:.0f} fixes/s")
        for cores in (1, 2):
            t0 = time.perf_counter()
            spark = (SparkSession.builder.master(f"local[{cores}]").appName("roadsnap-bench")
                     .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                     .getOrCreate())
            spark.sparkContext.setLogLevel("ERROR")
            start = time.perf_counter() - t0
            df = spark.read.option("header", True).option("inferSchema", True).csv(a.fixes).cache()
            df.count()

            def job():
                r = roadsnap_match.match_fixes(spark, df, a.map, binary, per_fix=True, partitions=cores)
                subs, fixes, errors = roadsnap_match.tables(r.persist())
                subs.write.mode("overwrite").parquet(os.path.join(out, "s"))
                fixes.write.mode("overwrite").parquet(os.path.join(out, "f"))
                r.unpersist()

            s = timed(job, a.repeat)
            print(f"spark local[{cores}] (session start {start:.1f} s, not counted): {s:.2f} s, "
                  f"{n_fixes / s:.0f} fixes/s")
            spark.stop()
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
