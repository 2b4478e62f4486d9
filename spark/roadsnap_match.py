#!/usr/bin/env python3
"""Map-matches GPS fixes on Apache Spark with RoadSnap (issue 17).

Input: a DataFrame (or a Parquet/CSV path) of fixes with a track id, a time, a latitude and a longitude (column names
configurable; optional speed/course/accuracy). The fixes are grouped per track and ordered by time on the executors;
each partition is piped as NDJSON through one `roadsnap match --input ndjson` process (docs/streaming.md), the
compiled map (`roadsnap compile`) and the binary shipped once per executor with `SparkContext.addFile`.

Output (Parquet): `submatches/` one row per sub-match (track_id, sub_match, edge_ids, length_m, duration_s,
confidence, first_fix, last_fix, matched_fixes, geometry_wkt), `fixes/` (with --per-fix) one row per fix
(track_id, row, edge_id, sub_match, offset_m, distance_m, lat, lon; unmatched fixes with null edge_id),
`errors/` one row per track that failed (track_id, error) or fix left out (track_id, row, error). A bad track is a row
in `errors/`, never a failed job.

Usage (local):  python3 spark/roadsnap_match.py --map MAP.rsmap --input fixes.parquet --output out/ [--master local[2]]
See spark/README.md for spark-submit on a cluster.
"""

import argparse
import json
import os
import stat
import subprocess
import sys
import threading
import time

from pyspark import SparkFiles
from pyspark.sql import SparkSession, functions as F, types as T

# The optional per-fix columns the engine reads, in the order written to the NDJSON `columns`.
OPTIONAL = ("speed", "course", "accuracy")

SUBMATCH = T.StructType([
    T.StructField("sub_match", T.IntegerType()), T.StructField("edge_ids", T.ArrayType(T.StringType())),
    T.StructField("length_m", T.DoubleType()), T.StructField("duration_s", T.DoubleType()),
    T.StructField("confidence", T.DoubleType()), T.StructField("first_fix", T.IntegerType()),
    T.StructField("last_fix", T.IntegerType()), T.StructField("matched_fixes", T.IntegerType()),
    T.StructField("geometry_wkt", T.StringType()),
])
FIX = T.StructType([
    T.StructField("row", T.IntegerType()), T.StructField("edge_id", T.StringType()),
    T.StructField("sub_match", T.IntegerType()), T.StructField("offset_m", T.DoubleType()),
    T.StructField("distance_m", T.DoubleType()), T.StructField("lat", T.DoubleType()),
    T.StructField("lon", T.DoubleType()),
])
SKIPPED = T.StructType([T.StructField("row", T.IntegerType()), T.StructField("reason", T.StringType())])
RESULT = T.StructType([
    T.StructField("track_id", T.StringType()), T.StructField("status", T.StringType()),
    T.StructField("error", T.StringType()), T.StructField("fixes", T.IntegerType()),
    T.StructField("matched", T.IntegerType()), T.StructField("sub_matches", T.ArrayType(SUBMATCH)),
    T.StructField("fix_results", T.ArrayType(FIX)), T.StructField("skipped", T.ArrayType(SKIPPED)),
])


def wkt(coordinates):
    """WKT LINESTRING from [[lon, lat], ...] (full double precision)."""
    return "LINESTRING (" + ", ".join(f"{repr(float(x))} {repr(float(y))}" for x, y in coordinates) + ")"


def _f(v):
    """A JSON number as a float (whole numbers come as ints), None kept."""
    return None if v is None else float(v)


def parse_result(line, per_fix):
    """One NDJSON result line -> a RESULT row (a tuple)."""
    r = json.loads(line)
    tid = r.get("id")
    tid = None if tid is None else str(tid)
    if r.get("status") != "ok":
        skipped = [(s.get("row"), s.get("reason")) for s in r.get("skipped", [])]
        return (tid, "error", r.get("error", "unknown error"), None, None, [], [], skipped)
    subs = [(s["index"], [str(e) for e in s["edge_ids"]], _f(s["length_m"]), _f(s.get("duration_s")), _f(s["confidence"]),
             s["first_fix"], s["last_fix"], s["matched_fixes"], wkt(s["geometry"])) for s in r["sub_matches"]]
    fixes = []
    if per_fix:
        for f in r["fix_results"]:
            if len(f) == 7:
                fixes.append((f[0], str(f[1]), f[2], float(f[3]), float(f[4]), float(f[5]), float(f[6])))
            else:
                fixes.append((f[0], None, None, None, None, None, None))
    skipped = [(s.get("row"), s.get("reason")) for s in r.get("skipped", [])]
    return (tid, "ok", None, r["fixes"], r["matched"], subs, fixes, skipped)


def _executable(name):
    """A file shipped with addFile, made executable (SparkFiles may drop the mode bits)."""
    path = SparkFiles.get(name)
    mode = os.stat(path).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _number(v):
    if v is None:
        return None
    if hasattr(v, "timestamp"):  # datetime (a timestamp column)
        return v.timestamp()
    return v


def match_partition(rows, binary_name, map_name, options, optional_columns, per_fix):
    """Pipes one partition's tracks (rows sorted by track id, then time) through `roadsnap match --input ndjson`."""
    binary = _executable(binary_name)
    map_path = SparkFiles.get(map_name)
    columns = ["time", "lat", "lon"] + list(optional_columns)
    args = [binary, "match", "--map", map_path, "--input", "ndjson", "--geometry", "coordinates",
            "--per-fix", "yes" if per_fix else "no", "--jobs", str(options.get("jobs", 1))]
    for flag in ("sigma", "beta", "radius", "candidates"):
        if options.get(flag) is not None:
            args += [f"--{flag}", str(options[flag])]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            bufsize=1 << 20)
    failure = []

    def feed():
        try:
            current, fixes = None, []
            for row in rows:
                if row[0] != current:
                    if current is not None:
                        proc.stdin.write(_line(current, columns, fixes))
                    current, fixes = row[0], []
                fixes.append([_number(row[1])] + [row[k] for k in range(2, len(row))])
            if current is not None:
                proc.stdin.write(_line(current, columns, fixes))
        except Exception as e:  # a broken pipe: the engine died; its stderr says why
            failure.append(e)
        finally:
            try:
                proc.stdin.close()
            except Exception:
                pass

    err = []
    writer = threading.Thread(target=feed, daemon=True)
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    writer.start()
    reader.start()
    for line in proc.stdout:
        yield parse_result(line, per_fix)
    writer.join()
    reader.join()
    code = proc.wait()
    # Exit 1 means some tracks failed (they are error rows above); anything else is the engine failing as a whole.
    if code not in (0, 1) or failure:
        raise RuntimeError(f"roadsnap exited {code}: {b''.join(err).decode(errors='replace')[-2000:]} {failure}")


def _line(track_id, columns, fixes):
    return (json.dumps({"id": str(track_id), "columns": columns, "fixes": fixes}, allow_nan=False,
                       separators=(",", ":")) + "\n").encode()


ENGINES = ("capi", "pipe")


def match_fixes(spark, fixes, map_path, binary, id_col="track_id", time_col="time", lat_col="lat", lon_col="lon",
                speed_col=None, course_col=None, accuracy_col=None, per_fix=False, partitions=None,
                options=None, single_track_id="track", engine="capi", library=None):
    """Matches the fixes of DataFrame `fixes`; returns the per-track RESULT DataFrame (cache it before deriving the
    tables from it: `tables(results)`). `engine`: "capi" (libroadsnap through ctypes in mapInArrow; `library` is
    the path of libroadsnap.so.N) or "pipe" (the `binary` in streaming mode, one process per partition)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    options = dict(options or {})
    sc = spark.sparkContext
    _add_file(sc, map_path)
    here = os.path.dirname(os.path.abspath(__file__))
    if engine == "pipe":
        _add_file(sc, binary)
        sc.addPyFile(os.path.abspath(__file__))  # executors unpickle match_partition from this module
    else:
        if not library:
            raise ValueError("the capi engine needs library= (libroadsnap.so.N, from make capi-lib)")
        _add_file(sc, library)
        sc.addPyFile(os.path.join(here, "roadsnap_capi.py"))
    optional = [(name, col) for name, col in zip(OPTIONAL, (speed_col, course_col, accuracy_col)) if col]
    time_expr = F.col(time_col)
    dtype = dict(fixes.dtypes)[time_col]
    if dtype.startswith("timestamp") or dtype == "date":
        time_expr = time_expr.cast("double")
    elif engine == "capi" and dtype == "string":  # the pipe hands text times to the engine's own parser
        # epoch seconds as text, else ISO 8601; an unparsable time becomes null (a fix without time)
        time_expr = F.coalesce(time_expr.try_cast("double"), time_expr.try_cast("timestamp").cast("double"))
    elif engine == "capi":
        time_expr = time_expr.try_cast("double")
    # Without the id column the whole input is one track (named `single_track_id`).
    id_expr = F.col(id_col).cast("string") if id_col in fixes.columns else F.lit(single_track_id)
    selected = fixes.select(
        id_expr.alias("_id"), time_expr.alias("_t"),
        # try_cast: a value that is not a number becomes null (an unusable fix, not a failed job under ANSI mode)
        F.col(lat_col).try_cast("double").alias("_lat"), F.col(lon_col).try_cast("double").alias("_lon"),
        *[F.col(col).try_cast("double").alias("_" + name) for name, col in optional])
    n = partitions or max(1, sc.defaultParallelism)
    grouped = selected.repartition(n, "_id").sortWithinPartitions("_id", "_t")
    names = [name for name, _ in optional]
    map_name = os.path.basename(map_path)
    if engine == "capi":
        import roadsnap_capi
        from pyspark.sql.pandas.types import to_arrow_schema
        lib_name, schema = os.path.basename(library), to_arrow_schema(RESULT)
        return grouped.mapInArrow(
            lambda batches: roadsnap_capi.match_batches(batches, lib_name, map_name, options, names, per_fix, schema),
            RESULT)
    binary_name = os.path.basename(binary)
    rdd = grouped.rdd.mapPartitions(
        lambda rows: match_partition((tuple(r) for r in rows), binary_name, map_name, options, names, per_fix))
    return spark.createDataFrame(rdd, RESULT)


def _add_file(sc, path):
    """Ships a file to every executor once (a second call for the same file in one session is a no-op)."""
    path = os.path.abspath(path)
    shipped = getattr(sc, "_roadsnap_shipped", set())
    if path not in shipped:
        sc.addFile(path)
        shipped.add(path)
        sc._roadsnap_shipped = shipped


def tables(results):
    """(submatches, fixes, errors) DataFrames from the per-track results."""
    ok = results.where(F.col("status") == "ok")
    submatches = ok.select("track_id", F.explode("sub_matches").alias("s")).select("track_id", "s.*")
    fixes = ok.select("track_id", F.explode("fix_results").alias("f")).select("track_id", "f.*")
    failed = results.where(F.col("status") != "ok").select(
        "track_id", F.lit(None).cast("int").alias("row"), F.col("error"))
    skipped = results.select("track_id", F.explode("skipped").alias("k")).select(
        "track_id", F.col("k.row").alias("row"), F.col("k.reason").alias("error"))
    return submatches, fixes, failed.unionByName(skipped)


def read_input(spark, path, fmt):
    if fmt == "csv" or (fmt is None and path.lower().endswith(".csv")):
        return spark.read.option("header", True).option("inferSchema", True).csv(path)
    return spark.read.parquet(path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--map", required=True, help="compiled map (.rsmap from `roadsnap compile`) or a source map")
    p.add_argument("--input", required=True, help="Parquet or CSV path of fixes")
    p.add_argument("--input-format", choices=["parquet", "csv"], help="default: by the path's extension")
    p.add_argument("--output", required=True, help="output directory (submatches/, fixes/, errors/ in Parquet)")
    p.add_argument("--engine", choices=ENGINES, default="capi",
                   help="capi: libroadsnap through ctypes in mapInArrow (default, faster: docs/spark.md); "
                        "pipe: the roadsnap binary in streaming mode, one process per partition")
    p.add_argument("--library", default=os.environ.get("ROADSNAP_LIBRARY"),
                   help="libroadsnap.so.N for --engine capi (make capi-lib: .build/capi-lib/release/)")
    p.add_argument("--roadsnap", default=os.environ.get("ROADSNAP", "roadsnap"), help="the roadsnap binary (--engine pipe)")
    p.add_argument("--id-col", default="track_id", help="track id column; when missing the input is one track")
    p.add_argument("--time-col", default="time")
    p.add_argument("--lat-col", default="lat")
    p.add_argument("--lon-col", default="lon")
    p.add_argument("--speed-col")
    p.add_argument("--course-col")
    p.add_argument("--accuracy-col")
    p.add_argument("--per-fix", action="store_true", help="also write fixes/ (one row per fix)")
    p.add_argument("--partitions", type=int, help="default: the session's default parallelism")
    p.add_argument("--master", help="e.g. local[2]; default: spark-submit's")
    for flag in ("sigma", "beta", "radius", "candidates"):
        p.add_argument("--" + flag, help=f"roadsnap match --{flag}")
    a = p.parse_args()
    binary = a.roadsnap if os.path.sep in a.roadsnap else (shutil_which(a.roadsnap) or a.roadsnap)
    builder = SparkSession.builder.appName("roadsnap-match").config("spark.ui.showConsoleProgress", "false")
    if a.master:
        builder = builder.master(a.master)
        if a.master.startswith("local"):  # the workers are this machine's: give them this Python (and its pyarrow)
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if a.engine == "capi" and not a.library:
        p.error("--engine capi needs --library libroadsnap.so.N (make capi-lib), or use --engine pipe")
    spark = builder.getOrCreate()
    t0 = time.time()
    fixes = read_input(spark, a.input, a.input_format)
    options = {k: getattr(a, k) for k in ("sigma", "beta", "radius", "candidates")}
    results = match_fixes(spark, fixes, a.map, binary, a.id_col, a.time_col, a.lat_col, a.lon_col, a.speed_col,
                          a.course_col, a.accuracy_col, per_fix=a.per_fix, partitions=a.partitions, options=options,
                          single_track_id=os.path.splitext(os.path.basename(a.input.rstrip("/")))[0],
                          engine=a.engine, library=a.library)
    results = results.persist()
    submatches, fix_rows, errors = tables(results)
    submatches.write.mode("overwrite").parquet(os.path.join(a.output, "submatches"))
    if a.per_fix:
        fix_rows.write.mode("overwrite").parquet(os.path.join(a.output, "fixes"))
    errors.write.mode("overwrite").parquet(os.path.join(a.output, "errors"))
    counts = results.groupBy("status").count().collect()
    print(f"roadsnap_match: {dict((r['status'], r['count']) for r in counts)} tracks in {time.time() - t0:.1f} s; "
          f"Parquet in {os.path.abspath(a.output)}")
    spark.stop()


def shutil_which(name):
    import shutil
    return shutil.which(name)


if __name__ == "__main__":
    main()
